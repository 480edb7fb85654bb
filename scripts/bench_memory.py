"""How fast is exact (brute-force numpy) vector search over memory? Is FAISS needed?

Measures, for 10k and 100k stored facts:

* ``VectorIndex.search`` (one matrix-vector product + argpartition) at 384
  dims (MiniLM) and 768 dims (EmbeddingGemma);
* the cost of loading that matrix from SQLite BLOBs (done once per process);
* an end-to-end ``MemoryStore.recall`` (vector + FTS5 + RRF) on a real file.

Run: ``python scripts/bench_memory.py [--sizes 10000 100000] [--repeats 50]``.
Vectors are random and unit-length: search time does not depend on content.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

import numpy as np

from gaia_lite.embed.hashing import HashEmbedder
from gaia_lite.memory.store import MemoryStore, VectorIndex, encode_vector, now_iso


def _unit(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    m = rng.standard_normal((n, dim), dtype=np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def _ms(fn, repeats: int) -> tuple[float, float]:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.95) - 1]


def bench_index(n: int, dim: int, repeats: int, rng: np.random.Generator) -> None:
    mat = _unit(rng, n, dim)
    index = VectorIndex()
    t = time.perf_counter()
    for i, row in enumerate(mat):
        index.add(i, row)
    build = time.perf_counter() - t
    queries = _unit(rng, repeats, dim)
    it = iter(queries)
    med, p95 = _ms(lambda: index.search(next(it), 50), repeats)
    mb = n * dim * 4 / 2**20
    print(f"  VectorIndex  n={n:>7,} dim={dim}: search top-50 median {med:6.2f} ms, p95 {p95:6.2f} ms "
          f"(matrix {mb:5.0f} MiB, built row by row in {build:.2f} s)")


def bench_store(n: int, repeats: int, rng: np.random.Generator) -> None:
    words = [f"w{i}" for i in range(5000)]
    embedder = HashEmbedder(dim=384)
    with tempfile.TemporaryDirectory() as tmp:
        store = MemoryStore(Path(tmp) / "memory.db", embedder)
        vecs = _unit(rng, n, 384)
        now = now_iso()
        rows = []
        for i in range(n):
            text = " ".join(rng.choice(words, 12))
            rows.append((uuid.uuid4().hex[:12], "fact", text, now, now, encode_vector(vecs[i])))
        with store.transaction() as c:  # bulk load straight into the table: remember() fsyncs per fact
            c.executemany("INSERT INTO knowledge(id, category, content, created_at, updated_at, embedding) "
                          "VALUES (?,?,?,?,?,?)", rows)
        store.close()
        store = MemoryStore(Path(tmp) / "memory.db", embedder)
        t = time.perf_counter()
        store.recall("w1 w2 w3", limit=5)  # first call loads the matrix from SQLite
        load = time.perf_counter() - t
        queries = iter([" ".join(rng.choice(words, 4)) for _ in range(repeats)])
        med, p95 = _ms(lambda: store.recall(next(queries), limit=5), repeats)
        print(f"  MemoryStore  n={n:>7,} dim=384: recall (hybrid) median {med:6.2f} ms, p95 {p95:6.2f} ms "
              f"(first call incl. matrix load {load:.2f} s)")
        store.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--repeats", type=int, default=50)
    ap.add_argument("--no-store", action="store_true", help="skip the end-to-end MemoryStore runs")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    print(f"numpy {np.__version__}, python {sys.version.split()[0]}")
    for n in args.sizes:
        for dim in (384, 768):
            bench_index(n, dim, args.repeats, rng)
        if not args.no_store:
            bench_store(n, min(args.repeats, 20), rng)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
