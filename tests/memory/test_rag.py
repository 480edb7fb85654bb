"""RagIndex against real files and a real SQLite index in tmp_path."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from gaia_lite.memory.extract import (ExtractionError, chunk_pages, extract_pages, split_pages,
                                      with_page_markers)
from gaia_lite.memory.rag import PollingWatcher, RagIndex

from .conftest import SynonymEmbedder
from .pdfgen import make_pdf


def _wait_for(condition, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


# ---------------------------------------------------------------- extraction and chunking

def test_pdf_pages_get_page_markers(rag: RagIndex, docs: Path) -> None:
    pdf = make_pdf(docs / "manual.pdf", ["Turbine blades are inspected monthly.",
                                         "The gearbox warranty lasts five years.",
                                         "Contact support at extension 4471."])
    assert extract_pages(pdf) == ["Turbine blades are inspected monthly.", "The gearbox warranty lasts five years.",
                                  "Contact support at extension 4471."]
    result = rag.index_file(pdf)
    assert (result.status, result.pages, result.chunks) == ("indexed", 3, 3)
    text = rag.document_text(pdf)
    assert text.startswith("[Page 1]\nTurbine") and "[Page 2]\nThe gearbox" in text and "[Page 3]" in text
    hit = rag.search("how long is the gearbox warranty", k=1)[0]
    assert (hit.source_file, hit.page) == (str(pdf.resolve()), 2)
    assert os.path.isabs(hit.source_file)


def test_plain_text_is_one_page(rag: RagIndex, docs: Path) -> None:
    f = docs / "notes.md"
    f.write_text("# Notes\n\nThe pump overheats above 80 C.\n")
    rag.index_file(f)
    assert rag.document_text(f) == "[Page 1]\n# Notes\n\nThe pump overheats above 80 C.\n"
    assert split_pages(rag.document_text(f)) == [(1, "# Notes\n\nThe pump overheats above 80 C.")]
    assert rag.document_pages(f)[0][0] == 1


def test_chunks_overlap_keep_spacing_and_never_cross_pages() -> None:
    words = [f"w{i}" for i in range(100)]
    page1 = "\n".join(" ".join(words[i:i + 10]) for i in range(0, 100, 10))
    chunks = chunk_pages([(1, page1), (2, "short second page")], words=40, overlap=10)
    assert [c.page for c in chunks] == [1, 1, 1, 2]
    assert [c.idx for c in chunks] == [0, 1, 2, 3]
    assert chunks[0].text.split()[-10:] == chunks[1].text.split()[:10]          # 10-word overlap
    assert "\n" in chunks[0].text                                                # spacing kept
    assert chunks[2].text.split()[-1] == "w99" and chunks[3].text == "short second page"
    assert split_pages(with_page_markers(["a", "b"])) == [(1, "a"), (2, "b")]


def test_unsupported_and_binary_files_are_refused(rag: RagIndex, docs: Path) -> None:
    (docs / "photo.png").write_bytes(b"\x89PNG\r\n")
    (docs / "blob.txt").write_bytes(b"abc\x00\x01\x02")
    (docs / "broken.pdf").write_bytes(b"not a pdf at all")
    with pytest.raises(ExtractionError, match="unsupported"):
        rag.index_file(docs / "photo.png")
    with pytest.raises(ExtractionError, match="binary"):
        rag.index_file(docs / "blob.txt")
    with pytest.raises(ExtractionError, match="PDF"):
        rag.index_file(docs / "broken.pdf")
    with pytest.raises(ExtractionError, match="does not exist"):
        rag.index_file(docs / "missing.txt")
    assert rag.list_documents() == []


# ---------------------------------------------------------------- re-indexing

def _chunk_rows(rag: RagIndex) -> list[tuple]:
    with rag._lock:
        return rag._conn.execute("SELECT id, doc_id, idx, text FROM chunks ORDER BY id").fetchall()


def test_reindexing_an_unchanged_file_is_a_noop(rag: RagIndex, docs: Path) -> None:
    f = docs / "a.txt"
    f.write_text("alpha beta gamma " * 300)
    assert rag.index_file(f).status == "indexed"
    before = _chunk_rows(rag)
    assert rag.index_file(f).status == "unchanged"
    os.utime(f, (time.time() + 10, time.time() + 10))   # touched, same content: hash decides
    assert rag.index_file(f).status == "unchanged"
    assert _chunk_rows(rag) == before
    assert rag.document(f).mtime == pytest.approx(f.stat().st_mtime)


def test_changed_file_replaces_its_chunks(rag: RagIndex, docs: Path) -> None:
    f = docs / "policy.txt"
    f.write_text("Refunds are possible within 14 days.")
    rag.index_file(f)
    f.write_text("Refunds are possible within 30 days. Shipping is free above 50 euros.")
    result = rag.index_file(f)
    assert result.status == "updated"
    assert len(rag.list_documents()) == 1
    texts = [row[3] for row in _chunk_rows(rag)]
    assert texts == ["Refunds are possible within 30 days. Shipping is free above 50 euros."]
    assert rag.grep("14 days")[1] == 0
    assert rag.search("shipping cost")[0].text.startswith("Refunds are possible within 30")


def test_index_persists_across_runs(tmp_path: Path, docs: Path) -> None:
    f = docs / "cars.txt"
    f.write_text("Our fleet has one blue sedan and two bicycles.")
    first = RagIndex(tmp_path / "idx.sqlite", SynonymEmbedder())
    first.index_file(f)
    first.close()
    second = RagIndex(tmp_path / "idx.sqlite", SynonymEmbedder())
    assert [d.name for d in second.list_documents()] == ["cars.txt"]
    assert second.index_file(f).status == "unchanged"
    assert second.search("automobile")[0].source_file == str(f.resolve())   # matrix loaded from BLOBs
    second.close()


def test_embedder_change_reembeds_chunks(tmp_path: Path, docs: Path) -> None:
    f = docs / "drinks.txt"
    f.write_text("The office machine makes espresso.")
    first = RagIndex(tmp_path / "idx", SynonymEmbedder())
    first.index_file(f)
    first.close()
    second = RagIndex(tmp_path / "idx", SynonymEmbedder(dim=32))
    assert second.search("beverage")[0].text == "The office machine makes espresso."
    with second._lock:
        assert len(second._conn.execute("SELECT embedding FROM chunks").fetchone()[0]) == 32 * 4
    second.close()


# ---------------------------------------------------------------- search and lookup

def test_search_keyword_boost_file_filter_and_grep(rag: RagIndex, docs: Path) -> None:
    a, b = docs / "a.txt", docs / "b.txt"
    a.write_text("Error E-4711 means the pump overheated; let it cool for an hour.")
    b.write_text("The pump manual covers installation and the warranty.")
    rag.index_file(a)
    rag.index_file(b)
    top = rag.search("E-4711")
    assert top[0].source_file == str(a.resolve()) and top[0].keyword_score > 0
    only_b = rag.search("pump", file=b)
    assert {h.source_file for h in only_b} == {str(b.resolve())}
    assert rag.search("pump", file=docs / "unknown.txt") == []
    hits, total = rag.grep("e-4711")
    assert total == 1 and hits[0].source_file == str(a.resolve())
    assert rag.grep("100%")[1] == 0   # LIKE wildcards are escaped
    assert rag.search("zzz unrelated qqq") == []


def test_find_documents(rag: RagIndex, docs: Path) -> None:
    (docs / "sub").mkdir()
    for name in ("report.txt", "sub/report.md", "budget.csv"):
        (docs / name).write_text(f"content of {name}")
        rag.index_file(docs / name)
    assert [d.name for d in rag.find_documents("budget.csv")] == ["budget.csv"]
    assert [d.name for d in rag.find_documents("budg")] == ["budget.csv"]
    assert len(rag.find_documents("report")) == 2
    assert [d.name for d in rag.find_documents(str(docs / "sub" / "report.md"))] == ["report.md"]
    assert rag.find_documents("nothing") == []
    assert rag.remove_document(docs / "budget.csv") and rag.find_documents("budget") == []


def test_index_directory_reports_progress_and_failures(rag: RagIndex, docs: Path) -> None:
    (docs / "nested").mkdir()
    (docs / ".hidden").mkdir()
    (docs / "a.txt").write_text("first file")
    (docs / "data.json").write_text('{"k": "second file"}')
    (docs / "skip.bin").write_bytes(b"\x00")
    (docs / "bad.txt").write_bytes(b"\x00binary")
    (docs / "nested" / "c.py").write_text("print('third file')")
    (docs / ".hidden" / "d.txt").write_text("hidden")
    calls = []
    flat = rag.index_directory(docs, progress=lambda label, done, total: calls.append((done, total)))
    assert (flat["files"], flat["indexed"], len(flat["failed"])) == (3, 2, 1)
    assert calls[0] == (0, 3) and calls[-1] == (3, 3)
    deep = rag.index_directory(docs, recursive=True)
    assert (deep["files"], deep["indexed"], deep["unchanged"]) == (4, 1, 2)
    assert rag.status()["documents"] == 3 and rag.status()["types"] == {"json": 1, "py": 1, "txt": 1}


# ---------------------------------------------------------------- watching

def test_watcher_reindexes_changed_new_and_deleted_files(rag: RagIndex, docs: Path) -> None:
    f = docs / "status.txt"
    f.write_text("The release is planned for March.")
    watcher, first = rag.watch(docs, interval=0.1)
    try:
        assert [r.status for r in first] == ["indexed"] and watcher.running
        f.write_text("The release moved to September after review.")
        assert _wait_for(lambda: rag.grep("September")[1] == 1)
        (docs / "new.md").write_text("A brand new roadmap document.")
        assert _wait_for(lambda: rag.find_documents("new.md") != [])
        f.unlink()
        assert _wait_for(lambda: rag.find_documents("status.txt") == [])
        assert watcher.reindexed >= 2 and rag.watched() == [str(docs.resolve())]
    finally:
        rag.stop_watchers()
    assert not watcher.running and rag.watchers() == []


def test_watcher_respects_allow(rag: RagIndex, docs: Path) -> None:
    (docs / "secret.txt").write_text("do not index")
    watcher = PollingWatcher(rag, docs, interval=60, allow=lambda p: p.name != "secret.txt")
    assert watcher.scan_once() == [] and watcher.errors and rag.list_documents() == []


# ---------------------------------------------------------------- the real embedder

def test_real_onnx_embedder_finds_by_meaning(tmp_path: Path, docs: Path) -> None:
    onnx = pytest.importorskip("gaia_lite.embed.onnx")
    embedder = onnx.OnnxEmbedder()
    try:
        embedder.load()
    except Exception as exc:  # model wheel missing on this machine
        pytest.skip(f"MiniLM ONNX model unavailable: {exc}")
    (docs / "pets.txt").write_text("Our cat sleeps on the sofa all afternoon.")
    (docs / "money.txt").write_text("Quarterly revenue grew by twelve percent.")
    (docs / "travel.txt").write_text("The train to Lyon leaves at seven in the morning.")
    rag = RagIndex(tmp_path / "idx", embedder)
    rag.index_directory(docs)
    assert rag.search("kitten napping on the couch", k=1)[0].source_file.endswith("pets.txt")
    assert rag.search("how much did sales increase", k=1)[0].source_file.endswith("money.txt")
    rag.close()
