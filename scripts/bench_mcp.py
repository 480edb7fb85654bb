#!/usr/bin/env python
"""Selection over MCP tools, measured: recall through a real MCP session, and what a
large MCP server costs the agent.

    python scripts/bench_mcp.py recall [--limit 200] [--cache-dir DIR] [--json]
    python scripts/bench_mcp.py agent  [--tools 600] [--turns 3] [--parts selection,startup] [--json]

``recall``: for every set in shared/evaldata, R@5 (and R@1, MRR) of the loader with the set's
tools read from the file (``--registry dataset``) and served by the fixture MCP server
(``--registry mcp``), plus R@5 of plain BM25 over the same tool documents (the lexical floor).
Same cases (a fixed sample of ``--limit``), same embedder, same vector cache.

``agent``: the doc registry alone vs the doc registry plus the fixture server serving the first
``--tools`` tools of bfcl_pooled, on the judged doc set's queries (default preset):

* selection ms per turn (p50 / p95), both arms in one run, interleaved;
* first-turn prompt tokens (the native tools array of the loaded set plus the bundle menu, chars/4);
* start-up: wall time from a fresh process to the first selection done, cold (empty vector cache)
  and warm (second start), with and without the server.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

EVALDATA = Path(os.environ.get("GAIA_EVALDATA", "/work/shared/evaldata"))
SETS = ("bfcl_multiturn", "bfcl_pooled", "metatool", "toolbench", "seal_tools")
REPO = Path(__file__).resolve().parents[1]


def _embedder() -> Any:
    from gaia_lite.embed import make_embedder

    return make_embedder("onnx")


def bm25_r_at_5(path: Path, limit: int | None, seed: int = 0) -> float:
    """R@5 of BM25 alone over the loader's lexical documents of the set's tools (final query text)."""
    import random

    from gaia_lite.eval.recall import _hit, dataset_registry, load_cases
    from gaia_lite.loader.lexical import Bm25Index, tool_lexical_text

    data = json.loads(path.read_text(encoding="utf-8"))
    registry, _, _ = dataset_registry(data["tools"])
    index = Bm25Index.build([tool_lexical_text(s) for s in registry])
    names = registry.names()
    cases = load_cases(data)
    if limit is not None and limit < len(cases):
        cases = sorted(random.Random(seed).sample(cases, limit), key=lambda c: c.id)
    hits = scored = 0
    for case in cases:
        if not case.expected or any(t not in registry for t in case.expected):
            continue
        scores = index.score(case.query)
        order = sorted(range(len(names)), key=lambda i: -scores[i])
        ranks = {names[i]: r + 1 for r, i in enumerate(order)}
        scored += 1
        hits += _hit(case.expected, lambda t: ranks[t] <= 5, case.match)
    return hits / scored if scored else 0.0


def recall(args: argparse.Namespace) -> dict[str, Any]:
    from gaia_lite.eval.recall import run_recall

    embedder = _embedder()
    rows = {}
    for name in SETS:
        path = EVALDATA / f"{name}.json"
        row: dict[str, Any] = {}
        for mode in ("dataset", "mcp"):
            started = time.perf_counter()
            r = run_recall(path, registry_mode=mode, preset="default", embedder=embedder, limit=args.limit,
                           cache_dir=args.cache_dir)
            row[mode] = {k: r[k] for k in ("tools", "scored_cases", "r_at_1", "r_at_5", "mrr", "recall",
                                           "selection_ms_p50", "selection_ms_p95")}
            row[mode]["wall_s"] = round(time.perf_counter() - started, 1)
            if mode == "mcp":
                row[mode]["connect_s"] = round(r["mcp_connect_s"], 2)
        row["bm25_r_at_5"] = bm25_r_at_5(path, args.limit)
        rows[name] = row
        print(f"{name}: R@5 dataset {row['dataset']['r_at_5']:.3f} mcp {row['mcp']['r_at_5']:.3f} "
              f"bm25 {row['bm25_r_at_5']:.3f}", file=sys.stderr, flush=True)
    return {"limit": args.limit, "load_avg": os.getloadavg(), "sets": rows}


def _subset(tools: int) -> Path:
    data = json.loads((EVALDATA / "bfcl_pooled.json").read_text(encoding="utf-8"))
    out = Path(tempfile.mkdtemp(prefix="gl-mcp-bench-")) / f"bfcl_pooled_{tools}.json"
    out.write_text(json.dumps({"tools": data["tools"][:tools], "cases": []}))
    return out


STARTUP = r"""
import json, sys, time
t0 = time.perf_counter()
from gaia_lite.config import load_settings
from gaia_lite.cli.wiring import build_embedder, build_loader, build_mcp, build_tool_set
settings = load_settings({"dynamic_tools": True})
embedder = build_embedder(settings, settings.base_url)
loader = build_loader(settings, embedder)
mcp = build_mcp(settings, loader, grace=600.0)
tools = build_tool_set(settings, loader, native=True, joins=mcp.joins if mcp else None)
state = tools.selector.select([], "what is the weather in Paris tomorrow?")
ready = time.perf_counter() - t0
print(json.dumps({"ready_s": ready, "tools": len(tools.registry)}))
if mcp: mcp.close()
loader.close()
"""


def _startup(home: Path) -> dict[str, Any]:
    env = {**os.environ, "GAIA_HOME": str(home)}
    out = subprocess.run([sys.executable, "-c", STARTUP], cwd=REPO, env=env, capture_output=True, text=True,
                         timeout=900)
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-2000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def selection(subset: Path, queries_n: int, home: str | None) -> dict[str, Any]:
    """Selection ms per turn and first-turn tokens, both arms interleaved over the judged doc queries."""
    from gaia_lite.agent.selection import ToolSelector
    from gaia_lite.cli.wiring import build_loader, build_mcp, build_registry
    from gaia_lite.config import McpServer, load_settings
    from gaia_lite.eval.recall import load_cases
    from gaia_lite.registry.render import native_json, render_native

    server = McpServer("fixture", command=sys.executable, args=("-m", "gaia_lite.eval.mcp_fixture", str(subset)))
    embedder = _embedder()
    os.environ["GAIA_HOME"] = home or tempfile.mkdtemp(prefix="gl-mcp-home-")  # a kept home keeps its vectors
    base = load_settings({"dynamic_tools": True})
    arms: dict[str, Any] = {}
    selectors = {}
    for arm, servers in (("no_mcp", ()), ("mcp", (server,))):
        settings = base.replace(mcp_servers=servers)
        loader = build_loader(settings, embedder)
        mcp = build_mcp(settings, loader, grace=600.0)
        registry = build_registry(settings, with_loader=True)
        selector = ToolSelector(registry, loader, joins=mcp.joins if mcp else None)
        selector.absorb_joins()
        loader.score("", registry)  # index built before timing (the agent warms it in the background)
        selectors[arm] = (selector, registry, mcp)
    queries = [c.query for c in load_cases(json.loads((REPO / "tests/data/judged_doc.json").read_text()))]
    queries = queries[:queries_n]
    times: dict[str, list[float]] = {a: [] for a in selectors}
    tokens: dict[str, list[int]] = {a: [] for a in selectors}
    for q in queries:  # interleaved arms: the machine's load hits both alike
        for arm, (selector, registry, _) in selectors.items():
            selector.reset()
            embedder._cache.clear()  # each arm pays for its query embedding, as a real turn does
            state = selector.select([], q)
            times[arm].append(state.record.selection_ms)
            prompt = native_json(render_native(registry, state.visible_names(registry))) + (state.menu or "")
            tokens[arm].append(len(prompt) // 4)
    for arm, (selector, registry, mcp) in selectors.items():
        arms[arm] = {"tools": len(registry), "turns": len(times[arm]),
                     "selection_ms_p50": statistics.median(times[arm]),
                     "selection_ms_p95": sorted(times[arm])[int(0.95 * (len(times[arm]) - 1))],
                     "first_turn_tokens_mean": statistics.fmean(tokens[arm])}
        if mcp:
            mcp.close()
    arms["token_ratio"] = arms["mcp"]["first_turn_tokens_mean"] / arms["no_mcp"]["first_turn_tokens_mean"]
    return arms


def startups(subset: Path, turns: int) -> dict[str, Any]:
    """Wall time from a fresh process to its first selection, cold then ``turns`` warm starts per arm."""
    # start-up: a fresh process each, cold cache then warm, without and with the server
    starts: dict[str, Any] = {}
    homes = {}
    for arm in ("no_mcp", "mcp"):
        h = Path(tempfile.mkdtemp(prefix=f"gl-start-{arm}-"))
        if arm == "mcp":
            (h / "config.toml").write_text(
                f'[mcp.servers.fixture]\ncommand = {json.dumps(sys.executable)}\n'
                f'args = ["-m", "gaia_lite.eval.mcp_fixture", {json.dumps(str(subset))}]\n')
        homes[arm] = h
        cold = _startup(h)
        starts[arm] = {"cold_s": cold["ready_s"], "tools": cold["tools"], "warm": []}
    for _ in range(turns):  # warm starts interleaved: the machine's load hits both alike
        for arm, h in homes.items():
            starts[arm]["warm"].append(_startup(h)["ready_s"])
    for arm in homes:
        starts[arm]["warm_s"] = statistics.median(starts[arm]["warm"])
    starts["warm_extra_s"] = starts["mcp"]["warm_s"] - starts["no_mcp"]["warm_s"]
    return starts


def agent(args: argparse.Namespace) -> dict[str, Any]:
    subset = _subset(args.tools)
    parts = set(args.parts.split(","))
    out: dict[str, Any] = {"server_tools": args.tools, "load_avg_before": os.getloadavg()}
    if "selection" in parts:
        out["selection"] = selection(subset, args.queries, args.home)
        out["queries"] = out["selection"]["mcp"]["turns"]
    if "startup" in parts:
        out["startup"] = startups(subset, args.turns)
    out["load_avg"] = os.getloadavg()
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    r = sub.add_parser("recall")
    r.add_argument("--limit", type=int, default=200)
    r.add_argument("--cache-dir", default=str(Path(tempfile.gettempdir()) / "gl-mcp-bench-cache"))
    a = sub.add_parser("agent")
    a.add_argument("--tools", type=int, default=600)
    a.add_argument("--queries", type=int, default=80)
    a.add_argument("--turns", type=int, default=3, help="warm starts per arm (median)")
    a.add_argument("--parts", default="selection,startup", help="what to measure (comma-separated)")
    a.add_argument("--home", help="GAIA_HOME for the selection part (reuse one to skip embedding the tools)")
    for p in (r, a):
        p.add_argument("--json", action="store_true")
    args = parser.parse_args()
    report = recall(args) if args.what == "recall" else agent(args)
    print(json.dumps(report, indent=None if args.json else 2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
