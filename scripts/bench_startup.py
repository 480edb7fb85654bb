#!/usr/bin/env python3
"""Start-up time of gaia-lite commands that need no model: whole-process wall time, median of N runs.

    .venv/bin/python scripts/bench_startup.py                     # this checkout's gaia-lite
    .venv/bin/python scripts/bench_startup.py --exe /work/main/.venv/bin/gaia-lite --exe .venv/bin/gaia-lite
    .venv/bin/python scripts/bench_startup.py --json

Each run is a fresh process (``subprocess``), so the figure is what a user waits for: the
interpreter's start, the imports and the command. With several ``--exe`` the runs are interleaved
(one of each in turn), so a change in the machine's load hits every executable alike. Run it on a
quiet machine; on a busy one the CPU time (user + sys of the process, also a median) moves less
than the wall time.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

COMMANDS = (("--help",), ("config", "show"), ("tools", "--help"))


def _default_exe() -> str:
    """The gaia-lite next to this interpreter (the virtualenv's), else the one on PATH."""
    beside = Path(sys.executable).with_name("gaia-lite")
    return str(beside) if beside.exists() else "gaia-lite"


def time_once(exe: str, args: tuple[str, ...]) -> tuple[float, float]:
    """(wall, CPU) seconds of ``exe args`` from spawn to exit; a failed command is an error, not a figure."""
    env = {**os.environ, "COLUMNS": "100"}
    cpu_before = _children_cpu()
    start = time.perf_counter()
    done = subprocess.run([exe, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"bench_startup: `{exe} {' '.join(args)}` exited {done.returncode}: "
                         f"{done.stderr.decode(errors='replace').strip()[-300:]}")
    return elapsed, _children_cpu() - cpu_before


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def bench(exes: list[str], runs: int) -> list[dict[str, object]]:
    """One row per (executable, command): medians of ``runs`` interleaved runs, and the wall time's spread."""
    times: dict[tuple[str, tuple[str, ...]], list[tuple[float, float]]] = {(e, c): [] for e in exes for c in COMMANDS}
    for exe in exes:  # one untimed run each: the first one after an install compiles the .pyc files
        time_once(exe, COMMANDS[0])
    for _ in range(runs):
        for cmd in COMMANDS:
            for exe in exes:
                times[(exe, cmd)].append(time_once(exe, cmd))
    rows: list[dict[str, object]] = []
    for (exe, cmd), pairs in times.items():
        wall = [w for w, _ in pairs]
        rows.append({"exe": exe, "command": "gaia-lite " + " ".join(cmd), "median_s": round(statistics.median(wall), 3),
                     "min_s": round(min(wall), 3), "max_s": round(max(wall), 3),
                     "cpu_median_s": round(statistics.median(c for _, c in pairs), 3), "runs": len(pairs)})
    return rows


def print_table(rows: list[dict[str, object]], exes: list[str]) -> None:
    """Commands down, executables across: the median wall time (min-max) and the median CPU time, in seconds."""
    cells = {(r["exe"], r["command"]): f"{r['median_s']:.3f} ({r['min_s']:.2f}-{r['max_s']:.2f}) "
             f"cpu {r['cpu_median_s']:.3f}" for r in rows}
    commands = list(dict.fromkeys(str(r["command"]) for r in rows))
    width = max(len(c) for c in commands)
    for i, exe in enumerate(exes, start=1):
        print(f"[{i}] {exe}")
    head = [f"[{i}] wall median (min-max), cpu median" for i in range(1, len(exes) + 1)]
    print(f"{'command':<{width}}  " + "  ".join(f"{h:<36}" for h in head))
    for cmd in commands:
        print(f"{cmd:<{width}}  " + "  ".join(f"{cells[(exe, cmd)]:<36}" for exe in exes))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exe", action="append", help="A gaia-lite executable to time (repeatable; default: "
                        "this virtualenv's)")
    parser.add_argument("--runs", type=int, default=7, help="Runs per command and executable (default 7)")
    parser.add_argument("--json", action="store_true", help="Print the rows as JSON")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    exes = args.exe or [_default_exe()]
    rows = bench(exes, args.runs)
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print_table(rows, exes)


if __name__ == "__main__":
    main()
