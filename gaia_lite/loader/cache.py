"""On-disk cache of tool-document embeddings.

Keyed by (embedder id, sha256(document text)), so a changed docstring or a
different embedder misses and nothing stale is ever served. One ``.npz`` file
per embedder id holds the keys and a float32 matrix; it is rewritten atomically
(temp file + ``os.replace``) so a crash or a second process never leaves a torn
file (the last writer wins, which only costs a re-embed).

The cache object outlives ``ToolLoader.reset_session()``: a second run of the
same tool set embeds nothing.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import threading
from pathlib import Path
from typing import Sequence

import numpy as np

__all__ = ["DocEmbeddingCache", "doc_key"]


def doc_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class DocEmbeddingCache:
    """Tool-document vectors per embedder. ``directory=None`` keeps it in memory only."""

    def __init__(self, directory: str | Path | None = None) -> None:
        self.directory = Path(directory) if directory is not None else None
        self._rows: dict[str, dict[str, np.ndarray]] = {}  # embedder id -> key -> row
        self._dirty: set[str] = set()
        # tools that join mid-session (MCP servers) are embedded from a background thread
        self._lock = threading.RLock()

    def _path(self, embedder_id: str) -> Path | None:
        if self.directory is None:
            return None
        slug = hashlib.sha256(embedder_id.encode("utf-8")).hexdigest()[:16]
        return self.directory / f"tool-docs-{slug}.npz"

    def _table(self, embedder_id: str) -> dict[str, np.ndarray]:
        table = self._rows.get(embedder_id)
        if table is None:
            table = self._read(embedder_id)
            self._rows[embedder_id] = table
        return table

    def _read(self, embedder_id: str) -> dict[str, np.ndarray]:
        path = self._path(embedder_id)
        if path is None or not path.exists():
            return {}
        try:
            with np.load(path, allow_pickle=False) as data:
                if str(data["embedder_id"]) != embedder_id:
                    return {}  # slug collision: treat as empty rather than serve wrong vectors
                keys = [str(k) for k in data["keys"]]
                matrix = np.asarray(data["vectors"], dtype=np.float32)
        except (OSError, KeyError, ValueError):
            return {}  # unreadable cache = empty cache; it is rebuilt on the next flush
        return {k: matrix[i] for i, k in enumerate(keys)}

    def lookup(self, embedder_id: str, keys: Sequence[str]) -> list[np.ndarray | None]:
        with self._lock:
            table = self._table(embedder_id)
            return [table.get(k) for k in keys]

    def store(self, embedder_id: str, keys: Sequence[str], vectors: np.ndarray) -> None:
        if len(keys) != len(vectors):
            raise ValueError(f"{len(keys)} keys for {len(vectors)} vectors")
        with self._lock:
            table = self._table(embedder_id)
            for k, row in zip(keys, np.asarray(vectors, dtype=np.float32)):
                table[k] = row
            if keys:
                self._dirty.add(embedder_id)

    def __len__(self) -> int:
        return sum(len(t) for t in self._rows.values())

    def flush(self) -> None:
        """Write every changed table to disk (no-op for an in-memory cache)."""
        with self._lock:
            self._flush()

    def _flush(self) -> None:
        for embedder_id in sorted(self._dirty):
            path = self._path(embedder_id)
            if path is None:
                continue
            table = self._rows[embedder_id]
            keys = sorted(table)
            matrix = np.stack([table[k] for k in keys]) if keys else np.zeros((0, 0), np.float32)
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".tool-docs-", suffix=".npz", dir=path.parent)
            try:
                with os.fdopen(fd, "wb") as fh:
                    np.savez(fh, embedder_id=np.array(embedder_id), keys=np.array(keys), vectors=matrix)
                os.replace(tmp, path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        self._dirty.clear()
