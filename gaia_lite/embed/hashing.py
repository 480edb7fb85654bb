"""A deterministic, dependency-free test embedder.

Texts become bags of lowercase word hashes (plus explicit ``[axis:weight]``
overrides), so tests can build exact cosine scores without a model. It is
named a test embedder everywhere it is used; it is never a default.
"""

from __future__ import annotations

import hashlib
import re

import numpy as np

from .base import Embedder, EmbedderError, EmbedderSpec

__all__ = ["HashEmbedder", "FixedEmbedder"]


class HashEmbedder(Embedder):
    """Feature-hashing bag of words: shared words give positive cosine."""

    kind = "hash"

    def __init__(self, dim: int = 256) -> None:
        super().__init__(EmbedderSpec(model=f"hash-{dim}", dim=dim))
        self.fail = False

    def _embed_raw(self, texts: list[str]) -> np.ndarray:
        if self.fail:
            raise EmbedderError("test embedder set to fail")
        dim = self.spec.dim or 256
        out = np.zeros((len(texts), dim), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in re.findall(r"[a-z0-9]+", t.lower()):
                h = int.from_bytes(hashlib.blake2b(w.encode(), digest_size=8).digest(), "little")
                out[i, h % dim] += 1.0 if (h >> 63) == 0 else -1.0
        return out


class FixedEmbedder(Embedder):
    """Returns vectors from a lookup table: exact scores for loader tests.

    ``table`` maps a text (or a prefix ending in ':' such as a tool name
    followed by ':') to a vector; unknown texts get the zero vector.
    """

    kind = "fixed"

    def __init__(self, table: dict[str, list[float]], dim: int) -> None:
        super().__init__(EmbedderSpec(model="fixed", dim=dim))
        self.table = table
        self.fail = False
        self.calls = 0

    def _embed_raw(self, texts: list[str]) -> np.ndarray:
        self.calls += 1
        if self.fail:
            raise EmbedderError("test embedder set to fail")
        dim = self.spec.dim or 1
        out = np.zeros((len(texts), dim), dtype=np.float32)
        for i, t in enumerate(texts):
            vec = self.table.get(t)
            if vec is None:
                head = t.split(":", 1)[0] + ":"
                vec = self.table.get(head)
            if vec is not None:
                out[i] = np.asarray(vec, dtype=np.float32)
        return out
