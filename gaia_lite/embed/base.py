"""The Embedder interface shared by the loader, memory, RAG and skills.

Every implementation returns float32, L2-normalised rows, so a dot product is
a cosine. Repeated texts hit an in-process LRU keyed by (embedder id, sha256).
Any failure to embed is raised as EmbedderError: the loader relies on that one
type to fall back to the full registry.
"""

from __future__ import annotations

import hashlib
import threading
from abc import ABC, abstractmethod
from collections import OrderedDict
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from gaia_lite.errors import GaiaError

__all__ = ["Embedder", "EmbedderError", "EmbedderSpec", "normalize_rows"]


class EmbedderError(GaiaError, RuntimeError):  # a RuntimeError too: callers catch it as one
    """The embedder could not produce vectors (model missing, server down, bad reply)."""


@dataclass(frozen=True)
class EmbedderSpec:
    """What config says about an embedder: never hard-coded in the implementations."""
    model: str
    dim: int | None = None
    query_prefix: str = ""
    document_prefix: str = ""


def normalize_rows(matrix: np.ndarray) -> np.ndarray:
    m = np.asarray(matrix, dtype=np.float32)
    if m.ndim == 1:
        m = m[None, :]
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (m / norms).astype(np.float32)


class Embedder(ABC):
    """Base class: subclasses implement ``_embed_raw`` for a batch of texts."""

    def __init__(self, spec: EmbedderSpec, cache_size: int = 2048) -> None:
        self.spec = spec
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()
        self.cache_hits = 0
        self.cache_misses = 0

    @property
    def id(self) -> str:
        """Stable identity for on-disk caches: kind, model, dim and prefixes."""
        s = self.spec
        return f"{self.kind}:{s.model}:{s.dim or '?'}:{s.query_prefix!r}:{s.document_prefix!r}"

    kind: str = "base"

    @property
    def dim(self) -> int | None:
        return self.spec.dim

    @abstractmethod
    def _embed_raw(self, texts: list[str]) -> np.ndarray:
        """Return one row per text (any scale). Raise EmbedderError on failure."""

    def _key(self, text: str) -> str:
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        keys = [self._key(t) for t in texts]
        with self._lock:  # tools joining mid-session (MCP) are embedded from another thread
            missing = [i for i, k in enumerate(keys) if k not in self._cache]
        fresh: dict[str, np.ndarray] = {}
        if missing:
            todo = [texts[i] for i in missing]
            try:
                raw = self._embed_raw(todo)
            except EmbedderError:
                raise
            except Exception as exc:  # any backend failure is an embedder failure
                raise EmbedderError(f"{self.kind} embedder failed: {exc}") from exc
            rows = normalize_rows(raw)
            if rows.shape[0] != len(todo):
                raise EmbedderError(f"{self.kind} embedder returned {rows.shape[0]} vectors for {len(todo)} texts")
            fresh = {keys[i]: row for i, row in zip(missing, rows)}
        out = []
        with self._lock:
            for k, row in fresh.items():
                self._cache[k] = row
                if len(self._cache) > self._cache_size:
                    self._cache.popitem(last=False)
            self.cache_misses += len(missing)
            self.cache_hits += len(texts) - len(missing)
            for k in keys:
                row = fresh.get(k)
                if row is None:
                    row = self._cache.get(k)
                if row is None:  # evicted before it could be read (another thread filled the cache)
                    raise EmbedderError("embedding cache too small for this batch")
                if k in self._cache:
                    self._cache.move_to_end(k)
                out.append(row)
        if not out:
            return np.zeros((0, self.spec.dim or 0), dtype=np.float32)
        return np.stack(out)

    def embed_query(self, text: str) -> np.ndarray:
        """One L2-normalised query vector (the query prefix applied)."""
        return self._embed([self.spec.query_prefix + text])[0]

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """L2-normalised document vectors, one row each (the document prefix applied)."""
        return self._embed([self.spec.document_prefix + t for t in texts])
