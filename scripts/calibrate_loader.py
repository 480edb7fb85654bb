#!/usr/bin/env python3
"""Calibrate the tool loader: recall and cost curves vs τ and the cap, plus the public sets.

Prints Markdown (the body of docs/loader-calibration.md):

    python scripts/calibrate_loader.py                      # judged set curves, both presets
    python scripts/calibrate_loader.py --public --limit 3000  # + every file in evaldata/
    python scripts/calibrate_loader.py --split dev          # tune on dev, report test separately

Costs are native-schema tokens of the loaded set / the whole 37-tool set
(chars/4 proxy unless --tokens server --base-url ... is given).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from pathlib import Path
from typing import Any, Callable, Sequence

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from gaia_lite.embed.base import Embedder  # noqa: E402
from gaia_lite.eval.recall import JudgedCase, run_recall  # noqa: E402
from gaia_lite.eval.tokens import TokenCounter, make_token_counter  # noqa: E402
from gaia_lite.loader.presets import PRESETS, LoaderSettings  # noqa: E402

JUDGED = REPO / "tests" / "data" / "judged_doc.json"
EVALDATA = REPO.parent / "shared" / "evaldata"
PUBLIC = ("bfcl_multiturn", "bfcl_pooled", "metatool", "toolbench", "seal_tools")


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def _row(label: str, r: dict[str, Any]) -> str:
    kinds = r["recall_by_kind"]
    return (f"| {label} | **{_pct(r['recall'])}** | {_pct(kinds.get('single', 0))} | {_pct(kinds.get('multi', 0))} | "
            f"{_pct(kinds.get('drift', 0))} | {_pct(kinds.get('ambiguous', 0))} | {r['mean_loaded']:.1f} | "
            f"{r['mean_native_tokens']:.0f} | **{_pct(r['native_cost_ratio'])}** | {r['no_tool_mean_loaded']:.1f} | "
            f"{_pct(r['r_at_5'])} | {r['selection_ms_p50']:.1f} |")


HEADER = ("| setting | recall % | single | multi | drift | ambiguous | mean loaded | native tok | cost % of all | "
          "no-tool loaded | R@5 % | p50 ms |\n|---|---|---|---|---|---|---|---|---|---|---|---|")


def _split_filter(split: str) -> Callable[[JudgedCase], bool] | None:
    if split == "all":
        return None
    return lambda c: c.id.startswith(f"{split}-")


def _run(settings: LoaderSettings, embedder: Embedder, counter: TokenCounter, split: str,
         cache_dir: str | None) -> dict[str, Any]:
    return run_recall(JUDGED, registry_mode="doc", settings=settings, embedder=embedder, token_counter=counter,
                      case_filter=_split_filter(split), cache_dir=cache_dir)


def presets_table(embedder: Embedder, counter: TokenCounter, cache_dir: str | None) -> list[str]:
    out = ["### Presets on the judged set, per split", "",
           "`dev` was used to choose the scoring structure; `test` was not looked at while choosing.", "",
           HEADER.replace("| setting |", "| preset / split |")]
    for name in PRESETS:
        for split in ("dev", "test", "all"):
            out.append(_row(f"`{name}` / {split}", _run(PRESETS[name], embedder, counter, split, cache_dir)))
    return out + [""]


def judged_curves(embedder: Embedder, counter: TokenCounter, split: str, cache_dir: str | None,
                  taus: Sequence[float], caps: Sequence[int], per_turns: Sequence[int]) -> list[str]:
    out: list[str] = []

    def run(settings: LoaderSettings) -> dict[str, Any]:
        return _run(settings, embedder, counter, split, cache_dir)

    for name in ("gaia", "default"):
        base = PRESETS[name]
        out += [f"### `{name}` preset curves, split `{split}`", "", f"Preset: `{base}`", ""]
        out += [f"τ sweep (cap {base.max_tools}):", "", HEADER]
        for t in taus:
            out.append(_row(f"τ {t:.2f}", run(base.replace(threshold=t))))
        out += ["", f"cap sweep (τ {base.threshold}):", "", HEADER]
        for c in caps:
            out.append(_row(f"cap {c}", run(base.replace(max_tools=c))))
        if name == "default":
            out += ["", f"per-turn picks sweep (τ {base.threshold}, cap {base.max_tools}; the clear-winner rule "
                        "still applies):", "", HEADER]
            for k in per_turns:
                out.append(_row(f"per_turn {k}", run(base.replace(per_turn=k))))
            out += ["", "ablations (one lever changed at a time):", "", HEADER]
            ablations = {
                "no examples (views summary+params)": base.replace(views=("summary", "params")),
                "no BM25 (lexical_weight 0)": base.replace(lexical_weight=0.0),
                "BM25 weight 0.01": base.replace(lexical_weight=0.01),
                "BM25 weight 0.03": base.replace(lexical_weight=0.03),
                "no clause split": base.replace(split_clauses=False),
                "no current-message scoring": base.replace(score_current=False),
                "views combined by max": base.replace(combine="max"),
                "no clear-winner rule": base.replace(confident=None),
                "GAIA ranking (ties by name)": base.replace(ranking="gaia"),
                "bundle pull-in on": base.replace(bundle_pull=True),
            }
            for label, settings in ablations.items():
                out.append(_row(label, run(settings)))
        out.append("")
    return out


def public_table(embedder: Embedder, limit: int | None, cache_dir: str | None, files: Sequence[str]) -> list[str]:
    out = ["| dataset | preset | cases run | R@1 % | R@5 % | R@10 % | MRR | recall % | mean loaded | "
           "cost % of all | p50 ms | p95 ms |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name in files:
        path = EVALDATA / f"{name}.json"
        for preset in ("gaia", "default"):
            started = time.time()
            r = run_recall(path, registry_mode="dataset", preset=preset, embedder=embedder, limit=limit,
                           cache_dir=cache_dir)
            print(f"  {name} {preset}: {time.time() - started:.0f}s", file=sys.stderr, flush=True)
            out.append(f"| {name} | {preset} | {r['cases']} | {_pct(r['r_at_1'])} | {_pct(r['r_at_5'])} | "
                       f"{_pct(r['r_at_10'])} | {r['mrr']:.3f} | {_pct(r['recall'])} | {r['mean_loaded']:.1f} | "
                       f"{_pct(r['native_cost_ratio'])} | {r['selection_ms_p50']:.1f} | {r['selection_ms_p95']:.1f} |")
    return out


def latency_table(cache_dir: str | None, samples: int, threads: int = 1) -> list[str]:
    """Selection cost per turn: wall time and the CPU time of the selecting thread.

    With one ONNX thread (the default here) the thread CPU time is the whole
    cost of a selection and barely depends on what else the machine is doing;
    ``threads=2`` is what the agent runs with (wall time is then the number).
    """
    import json
    import random
    import statistics

    from gaia_lite.embed.onnx import OnnxEmbedder
    from gaia_lite.eval.recall import dataset_registry, doc_registry, load_cases
    from gaia_lite.loader.cache import DocEmbeddingCache
    from gaia_lite.loader.documents import load_examples
    from gaia_lite.loader.loader import ToolLoader
    from gaia_lite.loader.query import selection_query

    embedder = OnnxEmbedder(threads=threads)
    out = [f"### Selection latency ({threads} ONNX thread(s); final turn of each case, history selected first, "
           "query LRU emptied)", "",
           "| set | preset | turns timed | wall p50 ms | wall p95 ms | thread CPU p50 ms | thread CPU p95 ms |",
           "|---|---|---|---|---|---|---|"]
    sets = [("judged_doc", JUDGED, "doc")] + [(n, EVALDATA / f"{n}.json", "dataset") for n in ("metatool", "seal_tools")]
    for label, path, mode in sets:
        data = json.loads(path.read_text(encoding="utf-8"))
        cases = load_cases(data)
        if len(cases) > samples:
            cases = random.Random(0).sample(cases, samples)
        if mode == "doc":
            registry, core, bundles, _ = doc_registry()
        else:
            registry, core, bundles = dataset_registry(data["tools"])
        for name in ("gaia", "default"):
            settings = PRESETS[name]
            examples = load_examples("doc") if mode == "doc" and "examples" in settings.views else {}
            loader = ToolLoader(core, bundles, embedder, settings=settings, examples=examples,
                                doc_cache=DocEmbeddingCache(cache_dir), logger=logging.Logger("lat", logging.WARNING))
            loader.select("warm up", registry)
            wall: list[float] = []
            cpu: list[float] = []
            for case in cases:
                loader.reset_session()
                embedder._cache.clear()  # every query must really be embedded
                for i, turn in enumerate(case.history):
                    loader.select(selection_query(case.history[:i], turn), registry)
                q = selection_query(case.history, case.query)
                c0, w0 = time.thread_time(), time.perf_counter()
                loader.select(q, registry)
                cpu.append((time.thread_time() - c0) * 1000)
                wall.append((time.perf_counter() - w0) * 1000)

            def p(values: list[float], q: float) -> float:
                return statistics.quantiles(values, n=100)[int(q * 100) - 1] if len(values) > 1 else values[0]

            out.append(f"| {label} | {name} | {len(cases)} | {statistics.median(wall):.1f} | {p(wall, 0.95):.1f} | "
                       f"{statistics.median(cpu):.1f} | {p(cpu, 0.95):.1f} |")
            print(f"  latency {label} {name} done", file=sys.stderr, flush=True)
    return out + [""]


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--split", default="all", choices=["all", "dev", "test"])
    ap.add_argument("--splits", default=None, help="comma list of splits to print one after another")
    ap.add_argument("--taus", default="0.10,0.15,0.20,0.25,0.30,0.35")
    ap.add_argument("--caps", default="11,12,13,14,15,16,18,38")
    ap.add_argument("--per-turns", default="1,2,3,4,5")
    ap.add_argument("--public", action="store_true", help="also run every evaldata file in dataset mode")
    ap.add_argument("--public-only", action="store_true")
    ap.add_argument("--latency", action="store_true", help="only the selection latency table")
    ap.add_argument("--latency-samples", type=int, default=200)
    ap.add_argument("--latency-threads", type=int, default=1)
    ap.add_argument("--files", default=",".join(PUBLIC))
    ap.add_argument("--limit", type=int, default=None, help="sample this many cases per public file")
    ap.add_argument("--tokens", default="chars", choices=["chars", "minilm", "server", "auto"])
    ap.add_argument("--base-url", default=None)
    ap.add_argument("--cache-dir", default=str(Path.home() / ".cache" / "gaia-lite" / "tool-docs"))
    args = ap.parse_args(argv)

    from gaia_lite.embed.onnx import OnnxEmbedder

    embedder = OnnxEmbedder()
    counter = make_token_counter(args.tokens, args.base_url)
    lines = [f"_Generated by `python scripts/calibrate_loader.py {' '.join(argv or sys.argv[1:])}`; "
             f"embedder `{embedder.id}`, tokens `{counter.name}`; 1-min load average at start "
             f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (selection_ms is wall time and rises with it)._", ""]
    if args.latency:
        print("\n".join(lines + latency_table(args.cache_dir, args.latency_samples, args.latency_threads)))
        return 0
    if not args.public_only:
        lines += presets_table(embedder, counter, args.cache_dir)
        splits = args.splits.split(",") if args.splits else [args.split]
        for split in splits:
            lines += judged_curves(embedder, counter, split, args.cache_dir,
                                   [float(x) for x in args.taus.split(",")], [int(x) for x in args.caps.split(",")],
                                   [int(x) for x in args.per_turns.split(",")])
    if args.public or args.public_only:
        lines += ["### Public sets (`--registry dataset`)", "",
                  f"Sample: {'all cases' if args.limit is None else f'{args.limit} cases per file (seed 0)'}.", ""]
        lines += public_table(embedder, args.limit, args.cache_dir, args.files.split(","))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
