"""Persistent memory: facts, conversation turns and tool history in one SQLite file.

Recall is hybrid: an exact cosine search over every stored vector (a numpy
matrix kept in memory, loaded lazily) and an FTS5 BM25 search, fused with
reciprocal-rank fusion (k=60, weights 0.6 vector / 0.4 BM25). Exact search is
fast enough that no ANN library is needed (``scripts/bench_memory.py``).

Durability: WAL mode with ``synchronous=FULL``. In WAL mode NORMAL already
survives ``kill -9`` (a committed transaction sits in the WAL file, and the OS
keeps it), but an OS crash or power cut can roll back the last commits. A
remembered fact is a promise to the user and facts arrive a few per turn, so
paying one fsync per commit buys "acknowledged means on disk" outright.

Threads: one connection (``check_same_thread=False``) guarded by one re-entrant
lock; every public method takes it. The in-memory vector matrix is only valid
for this process: another process writing the same file is seen by FTS at
once, and by vector search after a restart.
"""

from __future__ import annotations

import logging
import re
import sqlite3
import threading
import uuid
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, ContextManager, Iterable, Iterator, Sequence

import numpy as np

from gaia_lite.embed.base import EmbedderError

from .credentials import looks_like_credential, mask_credentials
from .keywords import STOPWORDS, fts_query, word_overlap
from .migrations import MEMORY_MIGRATIONS, Migration, apply_migrations, locked_transaction, open_database
from .records import (CATEGORIES, FACT_COLUMNS, Fact, MemoryInputError, RecallResult, Remembered,
                      current_first, fact_from_row)
from .times import now_iso, parse_time
from .vectors import VectorIndex, decode_vector, encode_vector, load_vectors, reset_vectors_if_embedder_changed

# Names from the sibling modules stay importable from here: callers and the
# document index imported them from this module before it was split.
__all__ = [
    "MemoryStore", "Fact", "RecallResult", "Remembered", "MemoryInputError",
    "CATEGORIES", "looks_like_credential", "mask_credentials",
    "VectorIndex", "encode_vector", "decode_vector", "load_vectors", "reset_vectors_if_embedder_changed",
    "fts_query", "parse_time", "now_iso", "STOPWORDS",
]

log = logging.getLogger(__name__)

MAX_FACT_CHARS = 2000
MAX_TURN_CHARS = 4000
DEDUP_OVERLAP = 0.8
RRF_K = 60
VECTOR_WEIGHT, BM25_WEIGHT = 0.6, 0.4


class MemoryStore:
    """Facts, conversation turns and tool history in one SQLite file (see module doc)."""

    min_similarity = 0.2  # vector hits below this cosine are not candidates

    def __init__(self, path: Path, embedder: Any = None, *,
                 migrations: Sequence[Migration] = MEMORY_MIGRATIONS) -> None:
        self.path = Path(path)
        self.embedder = embedder
        self._lock = threading.RLock()
        self._conn = open_database(self.path, migrations, synchronous="FULL")
        self._vectors: VectorIndex | None = None
        if embedder is not None:
            with self.transaction() as c:
                reset_vectors_if_embedder_changed(c, "knowledge", embedder.id)

    # ---- connection policy, shared with modules that add their own tables
    def transaction(self) -> ContextManager[sqlite3.Connection]:
        """The locked connection inside ``BEGIN IMMEDIATE`` … ``COMMIT`` (rollback on error)."""
        return locked_transaction(self._conn, self._lock)

    @contextmanager
    def reading(self) -> Iterator[sqlite3.Connection]:
        """The locked connection for reads."""
        with self._lock:
            yield self._conn

    def apply_migrations(self, migrations: Iterable[Migration]) -> list[str]:
        """Apply extra migrations (e.g. a ``procedures`` table); returns the names run now."""
        with self._lock:
            return apply_migrations(self._conn, migrations)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> "MemoryStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- embeddings
    def _embed(self, texts: list[str]) -> np.ndarray | None:
        if self.embedder is None or not texts:
            return None
        try:
            return self.embedder.embed_documents(texts)
        except EmbedderError as exc:
            log.warning("memory: embedding failed, keyword search only for now: %s", exc)
            return None

    def _index(self) -> VectorIndex | None:
        """The vector matrix, loaded on first use; facts missing a vector are embedded then."""
        if self.embedder is None:
            return None
        if self._vectors is None:
            self._vectors = load_vectors(self._conn, "knowledge", "id", "content", self._embed, self.transaction)
        return self._vectors

    # ---- facts
    @staticmethod
    def _check_content(content: str) -> str:
        text = (content or "").strip()
        if not text:
            raise MemoryInputError("the fact is empty; pass the text to remember")
        reason = looks_like_credential(text)
        if reason:
            raise MemoryInputError(f"refused to store this because {reason}; never store secrets in memory")
        return text[:MAX_FACT_CHARS]

    @staticmethod
    def _check_category(category: str) -> str:
        cat = (category or "fact").strip().lower()
        if cat not in CATEGORIES:
            raise MemoryInputError(f"unknown category {category!r}; use one of {', '.join(sorted(CATEGORIES))}")
        return cat

    def remember(self, content: str, *, category: str = "fact", domain: str = "", context: str = "",
                 entity: str = "", sensitive: bool = False, due_at: str = "",
                 confidence: float = 0.7, source: str = "tool") -> Remembered:
        """Store a fact (or refresh a near-identical one of the same category/context/entity)."""
        text = self._check_content(content)
        cat = self._check_category(category)
        if cat == "error" and re.search(r"(?i)time[sd]? ?out|connection (refused|reset)|rate.?limit"
                                        r"|temporar|try again|\b50[234]\b", text):
            raise MemoryInputError("this looks like a transient error; only remember errors that will recur")
        due = parse_time(due_at, field="due_at") if due_at else None
        domain, context, entity = domain.strip(), context.strip(), entity.strip()
        with self._lock:  # embedding under the lock too: embedders' caches are not thread-safe
            vec = self._embed([text])
            now = now_iso()
            dup = self._find_duplicate(text, cat, context, entity)
            with self.transaction() as c:
                if dup:
                    c.execute("UPDATE knowledge SET content=?, updated_at=?, sensitive=MAX(sensitive, ?), "
                              "due_at=COALESCE(?, due_at), domain=CASE WHEN ?='' THEN domain ELSE ? END, "
                              "embedding=? WHERE id=?",
                              (text, now, int(sensitive), due, domain, domain,
                               encode_vector(vec[0]) if vec is not None else None, dup))
                    key = dup
                else:
                    key = uuid.uuid4().hex[:12]
                    c.execute("INSERT INTO knowledge(id, category, content, domain, context, entity, sensitive, "
                              "due_at, confidence, source, created_at, updated_at, embedding) "
                              "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                              (key, cat, text, domain, context, entity, int(sensitive), due, confidence,
                               source, now, now, encode_vector(vec[0]) if vec is not None else None))
            self._sync_vector(key, vec)
            return Remembered(key, dup is not None)

    add_fact = remember

    def _find_duplicate(self, text: str, category: str, context: str, entity: str) -> str | None:
        match = fts_query(text)
        if not match:
            return None
        rows = self._conn.execute(
            "SELECT k.id, k.content FROM knowledge_fts JOIN knowledge k ON k.row_id = knowledge_fts.rowid "
            "WHERE knowledge_fts MATCH ? AND k.category=? AND k.context=? COLLATE NOCASE "
            "AND k.entity=? COLLATE NOCASE ORDER BY bm25(knowledge_fts) LIMIT 20",
            (match, category, context, entity)).fetchall()
        best = max(rows, key=lambda r: word_overlap(text, r[1]), default=None)
        return best[0] if best and word_overlap(text, best[1]) >= DEDUP_OVERLAP else None

    def _sync_vector(self, key: str, vec: np.ndarray | None) -> None:
        if self._vectors is None:
            return
        if vec is None:
            self._vectors.remove(key)  # stale now; backfilled on the next load
        else:
            self._vectors.add(key, vec[0])

    def get(self, knowledge_id: str) -> Fact | None:
        with self.reading() as c:
            row = c.execute(f"SELECT {FACT_COLUMNS} FROM knowledge WHERE id=?", (knowledge_id,)).fetchone()
        return fact_from_row(row) if row else None

    def _filters(self, category: str, domain: str, context: str, entity: str,
                 time_from: str, time_to: str, prefix: str = "") -> tuple[str, list[Any]]:
        clauses, args = [], []
        for col, val in (("category", category), ("domain", domain), ("context", context), ("entity", entity)):
            if val and val.strip():
                clauses.append(f"{prefix}{col} = ? COLLATE NOCASE")
                args.append(val.strip())
        if time_from:
            clauses.append(f"{prefix}created_at >= ?")
            args.append(parse_time(time_from, field="time_from"))
        if time_to:
            clauses.append(f"{prefix}created_at <= ?")
            args.append(parse_time(time_to, field="time_to", end_of_day=True))
        return (" AND ".join(clauses) or "1"), args

    def recall(self, query: str = "", *, category: str = "", domain: str = "", context: str = "",
               entity: str = "", limit: int = 0, offset: int = 0, time_from: str = "",
               time_to: str = "", count_use: bool = True) -> RecallResult:
        """Hybrid search with ``query``; without one, browse by filters (newest first).

        ``limit`` 0 means 5 for a search and 20 for browsing; it is clamped to 1..100.
        ``count_use`` False leaves ``use_count`` alone (a person browsing is not the agent using a fact).
        """
        limit = max(1, min(100, int(limit) or (5 if query.strip() else 20)))
        offset = max(0, int(offset))
        if category:
            category = self._check_category(category)
        where, args = self._filters(category, domain, context, entity, time_from, time_to, "k.")
        with self._lock:
            if not query.strip():
                rows = self._conn.execute(
                    f"SELECT {FACT_COLUMNS} FROM knowledge k WHERE {where} "
                    "ORDER BY updated_at DESC, row_id DESC LIMIT ? OFFSET ?", (*args, limit + 1, offset)).fetchall()
                return RecallResult([fact_from_row(r) for r in rows[:limit]], len(rows) > limit, "browse")
            pool = max(50, (offset + limit) * 3)
            vector_ids = self._vector_candidates(query, pool, where, args)
            keyword_ids = self._keyword_candidates(query, pool, where, args)
            fused: dict[str, float] = {}
            for weight, ranked in ((VECTOR_WEIGHT, vector_ids or []), (BM25_WEIGHT, keyword_ids)):
                for rank, key in enumerate(ranked, start=1):
                    fused[key] = fused.get(key, 0.0) + weight / (RRF_K + rank)
            order = sorted(fused, key=lambda key: -fused[key])
            page = order[offset:offset + limit]
            mode = "keyword" if vector_ids is None else "hybrid"
            if not page:
                return RecallResult([], False, mode)
            rows = {r[0]: r for r in self._conn.execute(
                f"SELECT {FACT_COLUMNS} FROM knowledge WHERE id IN ({','.join('?' * len(page))})", page)}
            if count_use:
                with self.transaction() as c:
                    c.executemany("UPDATE knowledge SET use_count = use_count + 1 WHERE id=?", [(p,) for p in page])
            facts = [fact_from_row(rows[key], fused[key]) for key in page if key in rows]
            return RecallResult(facts, len(order) > offset + limit, mode)

    def relevant_facts(self, query: str, *, limit: int = 3, min_similarity: float = 0.5) -> list[Fact]:
        """Saved facts close in meaning to ``query`` (cosine >= ``min_similarity``), best first, for the
        agent to show beside the user's message. Sensitive facts are left out, and a look-up is not
        counted as a use. Empty without an embedder: keyword overlap alone would drag in facts that
        merely share a word."""
        index = self._index() if query.strip() else None
        if index is None or len(index) == 0:
            return []
        try:
            q = self.embedder.embed_query(query)
        except EmbedderError as exc:
            log.warning("memory: query embedding failed, no saved facts shown this turn: %s", exc)
            return []
        with self._lock:
            hits = index.search(q, limit * 2, None, min_similarity)
            if not hits:
                return []
            ids = [key for key, _ in hits]
            rows = {r[0]: r for r in self._conn.execute(
                f"SELECT {FACT_COLUMNS} FROM knowledge WHERE id IN ({','.join('?' * len(ids))})", ids)}
        facts = [fact_from_row(rows[key], score) for key, score in hits if key in rows]
        return current_first([f for f in facts if not f.sensitive])[:limit]

    def _vector_candidates(self, query: str, pool: int, where: str, args: list[Any]) -> list[str] | None:
        """Ids by cosine (best first); None when vector search is unavailable."""
        index = self._index()
        if index is None:
            return None
        if len(index) == 0:
            return []
        try:
            q = self.embedder.embed_query(query)
        except EmbedderError as exc:
            log.warning("memory: query embedding failed, keyword search only: %s", exc)
            return None
        among = None
        if where != "1":
            among = [r[0] for r in self._conn.execute(f"SELECT k.id FROM knowledge k WHERE {where}", args)]
        return [key for key, _ in index.search(q, pool, among, self.min_similarity)]

    def _keyword_candidates(self, query: str, pool: int, where: str, args: list[Any]) -> list[str]:
        match = fts_query(query)
        if not match:
            return []
        return [r[0] for r in self._conn.execute(
            "SELECT k.id FROM knowledge_fts JOIN knowledge k ON k.row_id = knowledge_fts.rowid "
            f"WHERE knowledge_fts MATCH ? AND {where} ORDER BY bm25(knowledge_fts) LIMIT ?",
            (match, *args, pool))]

    def update(self, knowledge_id: str, *, content: str | None = None, category: str | None = None,
               domain: str | None = None, context: str | None = None, entity: str | None = None,
               sensitive: bool | None = None, due_at: str | None = None,
               reminded_at: str | None = None) -> Fact | None:
        """Change the given fields (None = keep; "" clears due_at/reminded_at). None if no such id."""
        changes: dict[str, Any] = {}
        if content is not None:
            changes["content"] = self._check_content(content)
        if category is not None:
            changes["category"] = self._check_category(category)
        for col, val in (("domain", domain), ("context", context), ("entity", entity)):
            if val is not None:
                changes[col] = val.strip()
        if sensitive is not None:
            changes["sensitive"] = int(bool(sensitive))
        for col, val in (("due_at", due_at), ("reminded_at", reminded_at)):
            if val is not None:
                changes[col] = parse_time(val, field=col) if val.strip() else None
        with self._lock:
            vec = self._embed([changes["content"]]) if "content" in changes else None
            if "content" in changes:
                changes["embedding"] = encode_vector(vec[0]) if vec is not None else None
            changes["updated_at"] = now_iso()
            with self.transaction() as c:
                cur = c.execute(f"UPDATE knowledge SET {', '.join(f'{k}=?' for k in changes)} WHERE id=?",
                                (*changes.values(), knowledge_id))
            if cur.rowcount == 0:
                return None
            if "content" in changes:
                self._sync_vector(knowledge_id, vec)
            return self.get(knowledge_id)

    def forget(self, knowledge_id: str) -> bool:
        """Delete a fact and its vector. False if there was no such id."""
        with self._lock:
            with self.transaction() as c:
                gone = c.execute("DELETE FROM knowledge WHERE id=?", (knowledge_id,)).rowcount > 0
            if gone and self._vectors is not None:
                self._vectors.remove(knowledge_id)
            return gone

    # ---- conversations and tool history
    def add_turn(self, session_id: str, role: str, content: str) -> int:
        """Store one chat turn (credential-shaped text masked, cut to 4,000 chars)."""
        if not (role or "").strip():
            raise MemoryInputError("role is required (user, assistant, tool or system)")
        text = mask_credentials(content or "")[:MAX_TURN_CHARS]
        with self.transaction() as c:
            return c.execute("INSERT INTO conversations(session_id, role, content, ts) VALUES (?,?,?,?)",
                             (session_id, role.strip(), text, now_iso())).lastrowid

    def search_turns(self, query: str = "", *, days: int = 0, time_from: str = "", time_to: str = "",
                     limit: int = 10, session_id: str = "") -> list[dict[str, Any]]:
        """Past turns matching ``query`` (BM25 order) or, without one, newest first in the window."""
        limit = max(1, min(50, int(limit) or 10))
        clauses, args = [], []
        if days:
            days = max(1, min(365, int(days)))
            clauses.append("c.ts >= ?")
            args.append((datetime.now(timezone.utc) - timedelta(days=days)).isoformat(timespec="microseconds"))
        if time_from:
            clauses.append("c.ts >= ?")
            args.append(parse_time(time_from, field="time_from"))
        if time_to:
            clauses.append("c.ts <= ?")
            args.append(parse_time(time_to, field="time_to", end_of_day=True))
        if session_id:
            clauses.append("c.session_id = ?")
            args.append(session_id)
        where = " AND ".join(clauses) or "1"
        cols = "c.id, c.session_id, c.role, c.content, c.ts"
        match = fts_query(query) if query.strip() else None
        with self.reading() as c:
            if match:
                rows = c.execute(f"SELECT {cols} FROM conversations_fts JOIN conversations c "
                                 f"ON c.id = conversations_fts.rowid WHERE conversations_fts MATCH ? AND {where} "
                                 "ORDER BY bm25(conversations_fts) LIMIT ?", (match, *args, limit)).fetchall()
            else:
                rows = c.execute(f"SELECT {cols} FROM conversations c WHERE {where} ORDER BY c.id DESC LIMIT ?",
                                 (*args, limit)).fetchall()
        return [dict(zip(("id", "session_id", "role", "content", "ts"), r)) for r in rows]

    def record_tool_call(self, tool: str, *, session_id: str = "", args: str = "{}", status: str = "",
                         error: str = "", duration_ms: float | None = None) -> int:
        """Append one tool execution to ``tool_history`` (JSON ``args``, masked)."""
        with self.transaction() as c:
            return c.execute("INSERT INTO tool_history(session_id, tool, args, status, error, duration_ms, ts) "
                             "VALUES (?,?,?,?,?,?,?)", (session_id, tool, mask_credentials(args), status,
                                                         error, duration_ms, now_iso())).lastrowid

    def stats(self) -> dict[str, int]:
        with self.reading() as c:
            return {t: c.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
                    for t in ("knowledge", "conversations", "tool_history")}
