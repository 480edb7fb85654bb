"""The document index: files -> page-marked text -> chunks -> vectors, in one SQLite file.

``RagIndex`` keeps documents, their extracted text and their chunks (with
float32 embedding BLOBs) in SQLite, so an index survives restarts. A file is
identified by its absolute path; re-indexing is a no-op when size and mtime
match, or else when the sha256 of the content matches, and a changed file
has its chunks replaced in one transaction. Search is an exact cosine over an
in-memory matrix of all chunk vectors plus a keyword boost (the share of query
words a chunk contains), so an exact term such as an error code also counts.

Durability: the index uses ``synchronous=NORMAL``. In WAL mode that survives a
killed process; an OS crash can lose the last commits, and the next
index run simply redoes that work from the source files.

Watching folders (``RagIndex.watch``) is done by ``memory/watch.py``.
"""

from __future__ import annotations

import json
import logging
import re
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, ContextManager, Sequence

import numpy as np

from gaia_lite.embed.base import EmbedderError

from .extract import (BAD_NAME, CHUNK_WORDS, OVERLAP_WORDS, ExtractionError, chunk_pages, extract_pages,
                      has_utf8_name, is_supported, iter_supported_files, sha256_file, shown, split_pages,
                      with_page_markers)
from .migrations import RAG_MIGRATIONS, locked_transaction, open_database
from .store import (STOPWORDS, VectorIndex, encode_vector, fts_query, load_vectors, now_iso,
                    reset_vectors_if_embedder_changed)
from .records import IndexResult
from .watch import DEFAULT_POLL_SECONDS, PollingWatcher

__all__ = ["RagIndex", "Hit", "IndexResult", "DocumentInfo", "PollingWatcher", "ExtractionError",
           "DEFAULT_POLL_SECONDS"]

log = logging.getLogger(__name__)

KEYWORD_BOOST = 0.15            # added to the cosine, times the share of query words present
ProgressFn = Callable[[str, int, int], None]


@dataclass(frozen=True)
class Hit:
    source_file: str
    page: int
    score: float
    text: str
    chunk_index: int
    vector_score: float = 0.0
    keyword_score: float = 0.0


@dataclass(frozen=True)
class DocumentInfo:
    id: int
    path: str
    sha256: str
    mtime: float
    size: int
    pages: int
    chunks: int
    indexed_at: str

    @property
    def name(self) -> str:
        return Path(self.path).name

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "path": self.path, "type": Path(self.path).suffix.lower().lstrip("."),
                "pages": self.pages, "chunks": self.chunks, "size": self.size, "indexed_at": self.indexed_at}


_DOC_COLUMNS = "id, path, sha256, mtime, size, pages, chunks, indexed_at"


def _keywords(text: str) -> list[str]:
    words = [w for w in re.findall(r"\w+", text.lower()) if w not in STOPWORDS and len(w) > 1]
    return list(dict.fromkeys(words))


class RagIndex:
    """Indexed documents and chunk vectors in SQLite (see the module docstring)."""

    def __init__(self, path: Path | str, embedder: Any, *, chunk_words: int = CHUNK_WORDS,
                 overlap_words: int = OVERLAP_WORDS) -> None:
        path = Path(path)
        if path.is_dir() or not path.suffix:
            path = path / "rag.sqlite"
        self.path = path
        self.embedder = embedder
        self.chunk_words, self.overlap_words = chunk_words, overlap_words
        self._lock = threading.RLock()
        self._embed_lock = threading.Lock()
        self._conn = open_database(path, RAG_MIGRATIONS, synchronous="NORMAL")
        self._vectors: VectorIndex | None = None
        self._watchers: dict[str, PollingWatcher] = {}
        if embedder is not None:
            with self._transaction() as c:
                reset_vectors_if_embedder_changed(c, "chunks", embedder.id)

    def _transaction(self) -> ContextManager[sqlite3.Connection]:
        return locked_transaction(self._conn, self._lock)

    def close(self) -> None:
        """Stop the watchers, then close the database."""
        self.stop_watchers()
        with self._lock:
            self._conn.close()

    # ---- vectors
    def _embed(self, texts: list[str]) -> np.ndarray | None:
        if self.embedder is None or not texts:
            return None
        with self._embed_lock:
            try:
                return self.embedder.embed_documents(texts)
            except EmbedderError as exc:
                log.warning("rag: embedding failed: %s", exc)
                return None

    def _index(self) -> VectorIndex | None:
        if self.embedder is None:
            return None
        if self._vectors is None:
            self._vectors = load_vectors(self._conn, "chunks", "id", "text", self._embed, self._transaction)
        return self._vectors

    # ---- indexing
    def index_file(self, path: Path | str) -> IndexResult:
        """Index one file; unchanged content is a no-op. Raises ExtractionError/EmbedderError."""
        started = time.monotonic()
        p = Path(path).expanduser().resolve()
        if not has_utf8_name(p):  # SQLite stores paths as UTF-8 text; a bad name would fail there, mid-write
            raise ExtractionError(f"{shown(p)}: the file name is not valid UTF-8; rename the file to index it")
        if not p.is_file():
            raise ExtractionError(f"{p} does not exist or is not a file")
        if not is_supported(p):
            raise ExtractionError(f"{p.name}: unsupported file type {p.suffix or '(none)'}")
        st = p.stat()
        old = self.document(p)
        if old and old.size == st.st_size and old.mtime == st.st_mtime:
            return IndexResult(str(p), "unchanged", old.pages, old.chunks, old.size)
        digest = sha256_file(p)
        if old and old.sha256 == digest:
            with self._transaction() as c:
                c.execute("UPDATE documents SET mtime=? WHERE id=?", (st.st_mtime, old.id))
            return IndexResult(str(p), "unchanged", old.pages, old.chunks, old.size)
        pages = extract_pages(p)
        chunks = chunk_pages(list(enumerate(pages, start=1)), self.chunk_words, self.overlap_words)
        vecs = np.zeros((0, 0), dtype=np.float32)
        if self.embedder is not None and chunks:
            vecs = self._embed([c.text for c in chunks])
            if vecs is None:
                raise EmbedderError(f"could not embed {p.name}; is the embedding model available?")
        with self._lock:
            with self._transaction() as c:
                if old:
                    stale = [r[0] for r in c.execute("SELECT id FROM chunks WHERE doc_id=?", (old.id,))]
                    c.execute("DELETE FROM chunks WHERE doc_id=?", (old.id,))
                    c.execute("UPDATE documents SET sha256=?, mtime=?, size=?, pages=?, chunks=?, indexed_at=? "
                              "WHERE id=?", (digest, st.st_mtime, st.st_size, len(pages), len(chunks),
                                             now_iso(), old.id))
                    doc_id = old.id
                else:
                    stale = []
                    doc_id = c.execute("INSERT INTO documents(path, sha256, mtime, size, pages, chunks, indexed_at) "
                                       "VALUES (?,?,?,?,?,?,?)", (str(p), digest, st.st_mtime, st.st_size,
                                                                   len(pages), len(chunks), now_iso())).lastrowid
                c.execute("INSERT OR REPLACE INTO document_text(doc_id, text) VALUES (?, ?)",
                          (doc_id, with_page_markers(pages)))
                new_ids = []
                for i, ch in enumerate(chunks):
                    blob = encode_vector(vecs[i]) if len(vecs) else None
                    new_ids.append(c.execute("INSERT INTO chunks(doc_id, idx, page, text, embedding) "
                                             "VALUES (?,?,?,?,?)", (doc_id, ch.idx, ch.page, ch.text, blob)).lastrowid)
            if self._vectors is not None:
                for key in stale:
                    self._vectors.remove(key)
                for key, v in zip(new_ids, vecs):
                    self._vectors.add(key, v)
        note = "" if chunks else "no extractable text (a scanned PDF needs OCR first)"
        return IndexResult(str(p), "updated" if old else "indexed", len(pages), len(chunks), st.st_size,
                           round(time.monotonic() - started, 3), note)

    def index_directory(self, directory: Path | str, *, recursive: bool = False,
                        progress: ProgressFn | None = None,
                        cancel: threading.Event | None = None,
                        allow: Callable[[Path], bool] | None = None) -> dict[str, Any]:
        """Index every supported file in ``directory``; ``allow`` can veto single files. A file whose name
        is not UTF-8 is listed in ``skipped``, shown escaped (``bad\\xff.txt``), and not counted in ``files``."""
        files, skipped = [], []
        for f in iter_supported_files(Path(directory).expanduser().resolve(), recursive):
            if has_utf8_name(f):
                files.append(f)
            else:
                skipped.append({"file": shown(f), "reason": BAD_NAME})
        counts = {"indexed": 0, "updated": 0, "unchanged": 0}
        failed: list[dict[str, str]] = []
        for i, f in enumerate(files):
            if cancel is not None and cancel.is_set():
                return {**counts, "failed": failed, "skipped": skipped, "files": len(files), "cancelled": True}
            if progress:
                progress(f"indexing {f.name}", i, len(files))
            if allow is not None and not allow(f):
                failed.append({"file": str(f), "error": "outside the allowed folders"})
                continue
            try:
                counts[self.index_file(f).status] += 1
            except (ExtractionError, EmbedderError, OSError) as exc:
                failed.append({"file": str(f), "error": str(exc)})
        if progress:
            progress("indexing done", len(files), len(files))
        return {**counts, "failed": failed, "skipped": skipped, "files": len(files), "cancelled": False}

    def remove_document(self, path: Path | str) -> bool:
        doc = self.document(path)
        if doc is None:
            return False
        with self._lock:
            with self._transaction() as c:
                stale = [r[0] for r in c.execute("SELECT id FROM chunks WHERE doc_id=?", (doc.id,))]
                c.execute("DELETE FROM documents WHERE id=?", (doc.id,))
            if self._vectors is not None:
                for key in stale:
                    self._vectors.remove(key)
        return True

    # ---- lookup
    def document(self, path: Path | str) -> DocumentInfo | None:
        key = str(Path(path).expanduser().resolve())
        with self._lock:
            row = self._conn.execute(f"SELECT {_DOC_COLUMNS} FROM documents WHERE path=?", (key,)).fetchone()
        return DocumentInfo(*row) if row else None

    def list_documents(self) -> list[DocumentInfo]:
        with self._lock:
            rows = self._conn.execute(f"SELECT {_DOC_COLUMNS} FROM documents ORDER BY path").fetchall()
        return [DocumentInfo(*r) for r in rows]

    def find_documents(self, name: str) -> list[DocumentInfo]:
        """Indexed documents matching ``name``: exact path, else exact basename, else substring."""
        name = name.strip()
        if not name:
            return []
        docs = self.list_documents()
        exact = str(Path(name).expanduser().resolve()) if Path(name).expanduser().is_absolute() else None
        for test in (lambda d: d.path == exact,
                     lambda d: d.name.lower() == Path(name).name.lower(),
                     lambda d: name.lower() in d.path.lower()):
            found = [d for d in docs if test(d)]
            if found:
                return found
        return []

    def document_text(self, path: Path | str) -> str | None:
        """The stored text with ``[Page N]`` markers, as extracted when indexed."""
        doc = self.document(path)
        if doc is None:
            return None
        with self._lock:
            row = self._conn.execute("SELECT text FROM document_text WHERE doc_id=?", (doc.id,)).fetchone()
        return row[0] if row else None

    def document_pages(self, path: Path | str) -> list[tuple[int, str]]:
        """(page number, text) pairs of an indexed document; empty if not indexed."""
        text = self.document_text(path)
        return split_pages(text) if text is not None else []

    @staticmethod
    def supports(path: Path | str) -> bool:
        """Whether ``path`` has a file type this index can read."""
        return is_supported(Path(path))

    def chunk_count(self) -> int:
        with self._lock:
            return self._conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]

    def status(self) -> dict[str, Any]:
        docs = self.list_documents()
        types: dict[str, int] = {}
        for d in docs:
            kind = Path(d.path).suffix.lower().lstrip(".")
            types[kind] = types.get(kind, 0) + 1
        return {"documents": len(docs), "chunks": self.chunk_count(), "total_size": sum(d.size for d in docs),
                "types": types, "index_path": str(self.path),
                "embedder": getattr(self.embedder, "id", None), "watched_directories": self.watched()}

    # ---- search
    def search(self, query: str, k: int = 5, file: Path | str | None = None,
               min_score: float = 0.1, docs: Sequence[int] | None = None) -> list[Hit]:
        """Best ``k`` chunks for ``query`` (cosine + keyword boost), optionally within one
        file or among the document ids ``docs`` (the caller's scope).

        A chunk with a cosine under ``min_score`` and none of the query's words is dropped.
        """
        keywords = _keywords(query)
        with self._lock:
            doc_filter, args = "", []
            if file is not None:
                doc = self.document(file)
                if doc is None or (docs is not None and doc.id not in docs):
                    return []
                doc_filter, args = " AND c.doc_id = ?", [doc.id]
            elif docs is not None:
                if not docs:
                    return []
                doc_filter, args = f" AND c.doc_id IN ({','.join('?' * len(docs))})", list(docs)
            among = None
            if doc_filter:
                among = [r[0] for r in self._conn.execute(f"SELECT c.id FROM chunks c WHERE 1{doc_filter}", args)]
            cosine: dict[int, float] = {}
            index = self._index()
            q = None
            if index is not None and len(index):
                try:
                    with self._embed_lock:
                        q = self.embedder.embed_query(query)
                except EmbedderError as exc:
                    log.warning("rag: query embedding failed, keyword search only: %s", exc)
                if q is not None:
                    cosine = dict(index.search(q, max(4 * k, 20), among))
            match = fts_query(query)
            if match:
                for (cid,) in self._conn.execute(
                        "SELECT c.id FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid "
                        f"WHERE chunks_fts MATCH ?{doc_filter} ORDER BY bm25(chunks_fts) LIMIT 20", (match, *args)):
                    cosine.setdefault(cid, 0.0)
            if not cosine:
                return []
            if q is not None:
                cosine.update(index.search(q, len(cosine), list(cosine)))
            rows = self._conn.execute(
                "SELECT c.id, d.path, c.page, c.text, c.idx FROM chunks c JOIN documents d ON d.id = c.doc_id "
                f"WHERE c.id IN ({','.join('?' * len(cosine))})", list(cosine)).fetchall()
        hits = []
        for cid, path, page, text, idx in rows:
            words = set(re.findall(r"\w+", text.lower()))
            coverage = sum(1 for w in keywords if w in words) / len(keywords) if keywords else 0.0
            vec = cosine.get(cid, 0.0)
            if vec < min_score and coverage == 0:
                continue
            hits.append(Hit(path, page, round(vec + KEYWORD_BOOST * coverage, 4), text, idx,
                            round(vec, 4), round(coverage, 3)))
        hits.sort(key=lambda h: (-h.score, h.source_file, h.chunk_index))
        return hits[:k]

    def grep(self, pattern: str, limit: int = 10, docs: Sequence[int] | None = None) -> tuple[list[Hit], int]:
        """Chunks containing ``pattern`` (case-insensitive substring) and the total count,
        optionally only among the document ids ``docs``."""
        like = "%" + pattern.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        where, args = "lower(c.text) LIKE ? ESCAPE '\\'", [like]
        if docs is not None:
            where += f" AND c.doc_id IN ({','.join('?' * len(docs))})" if docs else " AND 0"
            args += list(docs)
        with self._lock:
            total = self._conn.execute(f"SELECT COUNT(*) FROM chunks c WHERE {where}", args).fetchone()[0]
            rows = self._conn.execute(
                "SELECT d.path, c.page, c.text, c.idx FROM chunks c JOIN documents d ON d.id = c.doc_id "
                f"WHERE {where} ORDER BY d.path, c.idx LIMIT ?", (*args, limit)).fetchall()
        return [Hit(path, page, 1.0, text, idx) for path, page, text, idx in rows], total

    # ---- watched folders (persisted, so a composition root can resume them)
    def watched(self) -> list[str]:
        with self._lock:
            row = self._conn.execute("SELECT value FROM meta WHERE key='watch_dirs'").fetchone()
        return json.loads(row[0]) if row else []

    def set_watched(self, directory: Path | str, watched: bool = True) -> None:
        key = str(Path(directory).expanduser().resolve())
        with self._lock:
            dirs = [d for d in self.watched() if d != key] + ([key] if watched else [])
            with self._transaction() as c:
                c.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('watch_dirs', ?)", (json.dumps(dirs),))

    def watch(self, directory: Path | str, *, interval: float = DEFAULT_POLL_SECONDS,
              allow: Callable[[Path], bool] | None = None) -> tuple["PollingWatcher", list[IndexResult]]:
        """Index ``directory`` now, then keep polling it; watching it again restarts its watcher."""
        watcher = PollingWatcher(self, directory, interval=interval, allow=allow)
        key = str(watcher.directory)
        old = self._watchers.pop(key, None)
        if old is not None:
            old.stop()
        first = watcher.scan_once()
        self._watchers[key] = watcher.start()
        self.set_watched(key)
        return watcher, first

    def watchers(self) -> list["PollingWatcher"]:
        return list(self._watchers.values())

    def stop_watchers(self) -> None:
        """Stop every watcher thread (the persisted list of folders is kept)."""
        while self._watchers:
            self._watchers.popitem()[1].stop()
