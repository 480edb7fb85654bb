"""Exact vector search for memory facts and document chunks.

Every stored vector sits in one float32 matrix in memory and a query is a
single matrix product: at the sizes a personal assistant reaches, that is
fast enough that no ANN library is needed (``scripts/bench_memory.py``).
SQLite stays the source of truth (vectors are BLOBs next to their rows); the
matrix is rebuilt from it on load, so it is only valid for this process.
"""

from __future__ import annotations

import logging
import sqlite3
from typing import Callable, ContextManager, Hashable, Iterable

import numpy as np

__all__ = ["VectorIndex", "encode_vector", "decode_vector", "load_vectors", "reset_vectors_if_embedder_changed"]

# The store's logger: these messages are about the store's data, whichever module logs them.
log = logging.getLogger("gaia_lite.memory.store")


def encode_vector(vec: np.ndarray) -> bytes:
    """Little-endian float32 bytes for a BLOB column."""
    return np.asarray(vec, dtype="<f4").tobytes()


def decode_vector(blob: bytes) -> np.ndarray:
    return np.frombuffer(blob, dtype="<f4")


class VectorIndex:
    """Exact cosine search over L2-normalised rows kept in one growable float32 matrix."""

    def __init__(self) -> None:
        self._mat = np.zeros((0, 0), dtype=np.float32)
        self._keys: list[Hashable] = []
        self._pos: dict[Hashable, int] = {}

    def __len__(self) -> int:
        return len(self._keys)

    @property
    def dim(self) -> int:
        return self._mat.shape[1]

    def add(self, key: Hashable, vec: np.ndarray) -> bool:
        """Insert or replace; a vector of another dimension is refused (False)."""
        v = np.asarray(vec, dtype=np.float32).ravel()
        if len(self._keys) == 0 and key not in self._pos:
            self._mat = np.zeros((max(16, self._mat.shape[0]), v.shape[0]), dtype=np.float32)
        if v.shape[0] != self.dim:
            return False
        row = self._pos.get(key)
        if row is None:
            row = len(self._keys)
            if row == self._mat.shape[0]:
                grown = np.zeros((row * 2, self.dim), dtype=np.float32)
                grown[:row] = self._mat
                self._mat = grown
            self._keys.append(key)
            self._pos[key] = row
        self._mat[row] = v
        return True

    def remove(self, key: Hashable) -> None:
        row = self._pos.pop(key, None)
        if row is None:
            return
        last = len(self._keys) - 1
        if row != last:
            moved = self._keys[last]
            self._mat[row] = self._mat[last]
            self._keys[row] = moved
            self._pos[moved] = row
        self._keys.pop()

    def search(self, query: np.ndarray, k: int, among: Iterable[Hashable] | None = None,
               min_score: float = -1.0) -> list[tuple[Hashable, float]]:
        """Top ``k`` (key, cosine) pairs, best first, optionally only ``among`` some keys."""
        n = len(self._keys)
        if n == 0 or k <= 0:
            return []
        q = np.asarray(query, dtype=np.float32).ravel()
        if q.shape[0] != self.dim:
            return []
        if among is None:
            rows = None
            scores = self._mat[:n] @ q
        else:
            rows = np.fromiter((self._pos[key] for key in among if key in self._pos), dtype=np.int64)
            if rows.size == 0:
                return []
            scores = self._mat[rows] @ q
        k = min(k, scores.shape[0])
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top], kind="stable")]
        out = []
        for i in top:
            s = float(scores[i])
            if s < min_score:
                break
            out.append((self._keys[int(rows[i]) if rows is not None else int(i)], s))
        return out


def reset_vectors_if_embedder_changed(conn: sqlite3.Connection, table: str, embedder_id: str) -> bool:
    """Inside a transaction: clear ``table.embedding`` if ``meta`` names another embedder.

    Vectors from two models are not comparable, so they are dropped and
    re-embedded lazily by ``load_vectors``. Returns True when they were dropped.
    """
    row = conn.execute("SELECT value FROM meta WHERE key='embedder_id'").fetchone()
    changed = row is not None and row[0] != embedder_id
    if changed:
        log.warning("%s: embedder changed (%s -> %s); vectors will be re-embedded", table, row[0], embedder_id)
        conn.execute(f"UPDATE {table} SET embedding=NULL")
    conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('embedder_id', ?)", (embedder_id,))
    return changed


def load_vectors(conn: sqlite3.Connection, table: str, key_col: str, text_col: str,
                 embed: Callable[[list[str]], np.ndarray | None],
                 transaction: Callable[[], ContextManager[sqlite3.Connection]], batch: int = 64) -> VectorIndex:
    """Build the in-memory index from ``table``'s BLOBs, embedding rows that lack one.

    ``embed`` returns None when the embedder fails: the rest stay without a
    vector (keyword search still finds them) and are retried on the next load.
    """
    index = VectorIndex()
    for key, blob in conn.execute(f"SELECT {key_col}, embedding FROM {table} WHERE embedding IS NOT NULL"):
        index.add(key, decode_vector(blob))
    missing = conn.execute(f"SELECT {key_col}, {text_col} FROM {table} WHERE embedding IS NULL").fetchall()
    for start in range(0, len(missing), batch):
        rows = missing[start:start + batch]
        vecs = embed([text for _, text in rows])
        if vecs is None:
            break
        with transaction() as c:
            c.executemany(f"UPDATE {table} SET embedding=? WHERE {key_col}=?",
                          [(encode_vector(v), key) for (key, _), v in zip(rows, vecs)])
        for (key, _), v in zip(rows, vecs):
            index.add(key, v)
    return index
