"""Fixtures for the memory store and the document index: real SQLite files in tmp_path."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from gaia_lite.embed.hashing import HashEmbedder
from gaia_lite.memory.rag import RagIndex
from gaia_lite.memory.store import MemoryStore

# Test-only "meaning": words in one group share an axis, so a query can match a
# fact by meaning without sharing a single word with it (FTS cannot find it).
SYNONYMS = {
    "car": "vehicle", "automobile": "vehicle", "vehicle": "vehicle", "sedan": "vehicle",
    "drive": "vehicle",
    "physician": "doctor", "doctor": "doctor", "dentist": "doctor", "medic": "doctor",
    "beverage": "drink", "coffee": "drink", "tea": "drink", "espresso": "drink",
}


class SynonymEmbedder(HashEmbedder):
    """HashEmbedder that first maps words to a synonym group (a TEST embedder)."""

    kind = "synonym-test"

    def __init__(self, dim: int = 1024) -> None:  # wide, so hash collisions stay rare
        super().__init__(dim)

    def _embed_raw(self, texts: list[str]) -> np.ndarray:
        canon = [" ".join(SYNONYMS.get(w, w) for w in re.findall(r"[a-z0-9]+", t.lower())) for t in texts]
        return super()._embed_raw(canon)


@pytest.fixture
def embedder() -> SynonymEmbedder:
    return SynonymEmbedder()


@pytest.fixture
def store(tmp_path: Path, embedder: SynonymEmbedder):
    s = MemoryStore(tmp_path / "memory.db", embedder)
    yield s
    s.close()


@pytest.fixture
def rag(tmp_path: Path, embedder: SynonymEmbedder):
    r = RagIndex(tmp_path / "index", embedder)
    yield r
    r.close()


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    d = tmp_path / "docs"
    d.mkdir()
    return d
