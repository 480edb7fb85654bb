"""What learning from use adds to selection time (the bar: ≤ 2 ms at p50).

    .venv/bin/python scripts/bench_learning.py [--dataset tests/data/judged_doc.json] [--rounds 3]

Two loaders over the doc registry, side by side in one run: *cold* (nothing learned, i.e. today's
loader) and *learned* (every case of ``--learn-from``, default the dataset itself, fed in as past
turns: up to 8 learned examples per tool; and, unless ``--no-forced-edges``, every pair of tools a
case names as a strong companion edge, the worst case for the companion step). For each case, both loaders
select the same query in alternating order, ``--rounds`` times. Query vectors are computed once and
served to both from a table, so the figures compare the loader's own work (scoring the bigger
example matrix, finding companions) without the embedder's noise; ``--with-embedding`` times the
whole selection, query embedding included. Prints p50/p95 per arm and the paired differences.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Sequence

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gaia_lite.embed import make_embedder  # noqa: E402
from gaia_lite.eval.recall import doc_registry, learn_from_cases, load_cases  # noqa: E402
from gaia_lite.loader.bundles import load_bundles  # noqa: E402
from gaia_lite.loader.cache import DocEmbeddingCache  # noqa: E402
from gaia_lite.loader.companions import MIN_SUPPORT, CompanionEdge, CompanionGraph  # noqa: E402
from gaia_lite.skills.learning import LearnedTools  # noqa: E402
from gaia_lite.loader.documents import load_examples  # noqa: E402
from gaia_lite.loader.loader import ToolLoader, selection_query  # noqa: E402
from gaia_lite.loader.presets import preset  # noqa: E402


class _QueryTable:
    """The real embedder for documents; query vectors computed once and then served from a dict."""

    def __init__(self, inner, live: bool) -> None:
        self.inner, self.live, self.id, self._q = inner, live, inner.id, {}

    def embed_documents(self, texts: Sequence[str]):
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str):
        if self.live:
            return self.inner.embed_query(text)
        if text not in self._q:
            self._q[text] = np.asarray(self.inner.embed_query(text), dtype=np.float32)
        return self._q[text]


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dataset", default=str(ROOT / "tests/data/judged_doc.json"))
    ap.add_argument("--learn-from", default=None)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--no-forced-edges", action="store_true",
                    help="keep only the companion edges learning finds (default: every pair of tools a training "
                         "case names is made a strong edge, the worst case for the companion step)")
    ap.add_argument("--with-embedding", action="store_true")
    args = ap.parse_args(argv)

    embedder = _QueryTable(make_embedder("onnx"), args.with_embedding)
    cases = load_cases(json.loads(Path(args.dataset).read_text(encoding="utf-8")))
    train = load_cases(json.loads(Path(args.learn_from or args.dataset).read_text(encoding="utf-8")))
    registry, core, bundles, _ = doc_registry()
    config = load_bundles("doc")
    settings = preset("default")
    learned = learn_from_cases(train, registry, prior=config.companions)
    if not args.no_forced_edges:
        pairs = sorted({(a, b) for c in train for a in c.expected for b in c.expected if a != b})
        forced = CompanionGraph(tuple(CompanionEdge(a, b, MIN_SUPPORT, MIN_SUPPORT) for a, b in pairs))
        learned = LearnedTools(learned.examples, forced)
    quiet = logging.Logger("bench", level=logging.WARNING)
    cache = DocEmbeddingCache(None)
    cold = ToolLoader(core, bundles, embedder, settings=settings, examples=load_examples("doc"),
                      aliases=config.aliases, doc_cache=cache, logger=quiet)
    warm = ToolLoader(core, bundles, embedder, settings=settings, examples=load_examples("doc"),
                      aliases=config.aliases, learned_examples=learned.examples,
                      companions=learned.companions, doc_cache=cache, logger=quiet)
    for loader in (cold, warm):  # build both indexes (and embed every query) before timing
        for c in cases:
            loader.select(selection_query(c.history, c.query), registry)
    times: dict[str, list[float]] = {"cold": [], "learned": []}
    for r in range(args.rounds):
        for i, c in enumerate(cases):
            order = (("cold", cold), ("learned", warm)) if (i + r) % 2 == 0 else (("learned", warm), ("cold", cold))
            for name, loader in order:
                loader.reset_session()
                sel = loader.select(selection_query(c.history, c.query), registry)
                times[name].append(sel.record.selection_ms)
    diffs = [b - a for a, b in zip(times["cold"], times["learned"])]
    n_examples = sum(len(v) for v in learned.examples.values())
    edges = sum(1 for e in learned.companions.edges if e.strong)
    print(f"{len(cases)} cases x {args.rounds} rounds, {'query embedding included' if args.with_embedding else 'query vectors precomputed'}; "
          f"learned {n_examples} examples over {len(learned.examples)} tools, {edges} companion edges; "
          f"load average {os.getloadavg()[0]:.1f}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(f"{'arm':10}{'p50 ms':>10}{'p95 ms':>10}")
    for name in ("cold", "learned"):
        print(f"{name:10}{_pct(times[name], 0.5):>10.3f}{_pct(times[name], 0.95):>10.3f}")
    print(f"{'added':10}{_pct(diffs, 0.5):>10.3f}{_pct(diffs, 0.95):>10.3f}   (paired per selection; mean {statistics.fmean(diffs):.3f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
