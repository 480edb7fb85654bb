"""Class 5: two (or more) processes creating a fresh memory.db or rag.db at once.

Each worker waits on a barrier, then opens the same new file; all must
succeed and every migration must be recorded exactly once.
"""

from __future__ import annotations

import multiprocessing as mp
import sqlite3
from pathlib import Path

import pytest

from gaia_lite.embed.hashing import HashEmbedder
from gaia_lite.memory.rag import RagIndex
from gaia_lite.memory.store import MemoryStore


def _open_memory(path: str, barrier) -> None:
    barrier.wait()
    MemoryStore(Path(path)).close()


def _open_rag(path: str, barrier) -> None:
    barrier.wait()
    RagIndex(Path(path), HashEmbedder(dim=64)).close()


def _race(target, path: Path, workers: int) -> list[int]:
    spawn = mp.get_context("spawn")  # fresh interpreters, like separate gaia-lite processes
    barrier = spawn.Barrier(workers)
    procs = [spawn.Process(target=target, args=(str(path), barrier)) for _ in range(workers)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    return [p.exitcode for p in procs]


@pytest.mark.parametrize("round_", range(3))
def test_concurrent_first_start_of_memory_db(tmp_path: Path, round_: int) -> None:
    db = tmp_path / "memory.db"
    assert _race(_open_memory, db, 4) == [0, 0, 0, 0]
    names = [r[0] for r in sqlite3.connect(db).execute("SELECT name FROM schema_migrations")]
    assert names and len(names) == len(set(names))


def test_concurrent_first_start_of_rag_db(tmp_path: Path) -> None:
    folder = tmp_path / "rag"
    assert _race(_open_rag, folder, 4) == [0, 0, 0, 0]
