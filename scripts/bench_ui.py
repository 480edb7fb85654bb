#!/usr/bin/env python
"""How much the chat screen costs: panel render time and first-token latency.

    python scripts/bench_ui.py [--runs 300] [--width 120 --height 40] [--json]

Measures, on a realistic state (a 10-turn conversation, a capped loaded set
with evictions and skips, a full TOOL_LOADER history):

* panel      render of the side panel to lines, cache off (what a panel change costs);
* frame      render of the whole side-by-side frame, caches cold / warm;
* first token: the time from the screen receiving the first TextDelta of a turn to
  that token being written to the terminal (rich Live refresh, output flushed),
  in the real ``Screen.run_turn`` loop. ``warm`` is the normal path (the panel was
  drawn when the selection arrived); ``cold`` invalidates the panel cache right
  before the first token (worst case); ``bar`` is the narrow layout.

The bar: the panel adds at most 10 ms to the first token.
Output goes to an in-memory terminal (escape codes on), so terminal emulator time
is not included.
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable, Iterator

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console  # noqa: E402

from gaia_lite.events import (Event, ModelCallFinished, TextDelta, ToolCallFinished, ToolCallStarted,  # noqa: E402
                              ToolsLoaded, ToolsSelected, TurnFinished, TurnStarted)
from gaia_lite.loader.bundles import load_bundles  # noqa: E402
from gaia_lite.ui.frame import Frame, LineCache, panel_width  # noqa: E402
from gaia_lite.ui.panel import render_panel  # noqa: E402
from gaia_lite.ui.screen import Screen  # noqa: E402
from gaia_lite.ui.view import BundleLayout, ChatView  # noqa: E402

CFG = load_bundles()
LAYOUT = BundleLayout(CFG.core, tuple((b.name, b.members) for b in CFG.bundles))
REGISTRY = sorted(CFG.members | {"load_tools"})
CORE = sorted(CFG.core)
ANSWER = ("The folder holds three files: notes.md (a short note), sales.csv (four rows of regional sales) "
          "and todo.txt. The total of the amount column in sales.csv is 425. ") * 3
DYNAMIC = [("browse_directory", "file_browse"), ("analyze_data_file", "data"), ("search_file", "file_search")]


def turn_events(turn: int, *, answer_tokens: int = 60) -> list[Event]:
    tool, bundle = DYNAMIC[turn % len(DYNAMIC)]
    loaded = sorted(CORE + [t for t, _ in DYNAMIC])
    reasons = {n: ("core" if n in CORE else "loaded") for n in loaded}
    reasons[tool] = "semantic"
    scores = {n: round(0.05 + (i % 7) * 0.04, 4) for i, n in enumerate(REGISTRY)}
    scores[tool] = 0.71
    skipped = [n for n in REGISTRY if scores[n] >= 0.25 and n not in loaded]
    record = {"turn": turn, "query_sha": "0123456789ab", "threshold": 0.25, "max_tools": 14, "scores": scores,
              "matched": sorted([tool, *skipped]), "bundle_pulled": [], "admitted": [tool],
              "evicted": ["get_file_info"], "skipped_at_cap": skipped, "loaded": loaded,
              "tools_hash": f"h{turn}", "selection_ms": 3.2}
    words = ANSWER.split(" ")
    deltas = [TextDelta(w + " ") for w in (words * 4)[:answer_tokens]]
    return [
        TurnStarted(turn, f"question number {turn} about the files in this folder"),
        ToolsSelected(turn, tuple(loaded), reasons, None, "", f"h{turn}", True, 2100, record),
        ToolCallStarted(f"c{turn}", tool, {"path": "sales.csv", "columns": ["amount"]}, "native"),
        ToolCallFinished(f"c{turn}", tool, {"path": "sales.csv", "columns": ["amount"]}, "success",
                         {"status": "success", "rows": 4, "total": 425}, 0.031),
        *deltas,
        ModelCallFinished(1, 0.4, 1.9, 2345, 2000, answer_tokens, 0),
        TurnFinished(turn, "".join(d.text for d in deltas), (tool,), 2, 0.4, 2345, 2000, tuple(loaded)),
    ]


def realistic_view(turns: int = 10) -> ChatView:
    view = ChatView()
    view.start_session(layout=LAYOUT, registry_names=REGISTRY, active=True, off_state=None, off_reason="",
                       max_tools=14)
    for t in range(1, turns + 1):
        for ev in turn_events(t):
            view.apply(ev)
        if t == 3:
            rec = {"turn": t, "event": "load_tools", "bundle": "clipboard",
                   "admitted": ["read_clipboard", "write_clipboard"], "evicted": ["search_file", "analyze_data_file"],
                   "skipped_at_cap": [], "loaded": [], "tools_hash": "hL", "selection_ms": 0.5}
            view.apply(ToolsLoaded("clipboard", ("read_clipboard", "write_clipboard"), tuple(view.panel.loaded),
                                   "hL", rec))
    return view


def terminal(width: int, height: int, file: Any = None) -> Console:
    return Console(file=file or io.StringIO(), width=width, height=height, force_terminal=True,
                   color_system="truecolor", _environ={})


def timed(fn: Callable[[], Any], runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def summary(samples: list[float]) -> dict[str, float]:
    ms = sorted(s * 1000 for s in samples)
    return {"median_ms": round(statistics.median(ms), 3), "p95_ms": round(ms[int(len(ms) * 0.95) - 1], 3),
            "max_ms": round(ms[-1], 3), "n": len(ms)}


def first_token(width: int, height: int, runs: int, *, cold: bool, pref: str = "auto") -> list[float]:
    samples = []
    for i in range(runs):
        view = realistic_view(6)
        sink = io.StringIO()
        screen = Screen(terminal(width, height, sink), view, pref=pref)  # type: ignore[arg-type]
        events = turn_events(7 + i)

        def stream() -> Iterator[Event]:
            for ev in events:
                if cold and isinstance(ev, TextDelta) and ev is events[4]:
                    view.panel_version += 1  # pretend the panel changed right before the first token
                yield ev

        screen.run_turn(stream())
        assert screen.first_token_latency_s is not None
        samples.append(screen.first_token_latency_s)
    return samples


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=300)
    ap.add_argument("--width", type=int, default=120)
    ap.add_argument("--height", type=int, default=40)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    w, h = args.width, args.height
    view = realistic_view()
    console = terminal(w, h)
    pw = panel_width(w)
    frame_h = h - 2
    opts = console.options.update(width=pw, height=frame_h)
    results = {
        "panel_render": summary(timed(lambda: console.render_lines(render_panel(view.panel, pw, frame_h), opts),
                                      args.runs)),
        "frame_render_cold": summary(timed(lambda: console.render_lines(Frame(view, cache=LineCache())),
                                           args.runs)),
    }
    warm = LineCache()
    console.render_lines(Frame(view, cache=warm))
    last = view.entries[-1]

    def grow() -> None:
        last.text += "x "
        last.rev += 1
        console.render_lines(Frame(view, cache=warm))

    results["frame_render_warm_delta"] = summary(timed(grow, args.runs))
    n = max(20, args.runs // 3)
    results["first_token_warm"] = summary(first_token(w, h, n, cold=False))
    results["first_token_cold_panel"] = summary(first_token(w, h, n, cold=True))
    results["first_token_bar_80x24"] = summary(first_token(80, 24, n, cold=False))
    results["budget_ms"] = 10.0
    results["size"] = f"{w}x{h}"
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print(f"chat screen rendering cost at {w}x{h} (panel {pw} columns), {args.runs} runs")
        for key, val in results.items():
            if isinstance(val, dict):
                print(f"  {key:<24} median {val['median_ms']:7.3f} ms   p95 {val['p95_ms']:7.3f} ms   "
                      f"max {val['max_ms']:7.3f} ms   (n={val['n']})")
        worst = results["first_token_cold_panel"]["p95_ms"]
        print(f"  first-token budget 10 ms: {'OK' if worst <= 10 else 'OVER'} (cold-panel p95 {worst:.3f} ms)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
