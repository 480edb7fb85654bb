"""Overhead of the shell tool's OS sandbox: run_shell_command per call, sandbox on vs off.

The two arms are interleaved in one run (on/off, then off/on, ...), so machine
load hits both alike; each arm's median per call and the on/off ratio are
printed, per command and per root. Roots: a small temporary folder and a
larger tree (a local clone of this repository by default, since a worktree's
.git link points outside it), as the sandbox walks the roots for credential
files to hide on every call.

Usage: .venv/bin/python scripts/bench_shell_sandbox.py [--rounds 40] [--root DIR] [--json]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gaia_lite.registry.context import ToolContext
from gaia_lite.tools import os_sandbox
from gaia_lite.tools.sandbox import Sandbox
from gaia_lite.registry.limits import RateLimiter
from gaia_lite.tools.shell import run_shell_command

COMMANDS = ("cat README.md", "grep -rln import tools", "ls -la | wc -l", "git status --short")


def _small_root(base: Path) -> Path:
    root = base / "small"
    (root / "tools").mkdir(parents=True)
    (root / "README.md").write_text("# small\n")
    for i in range(50):
        (root / "tools" / f"m{i}.py").write_text(f"import os\nx = {i}\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def _call(ctx: ToolContext, command: str, sandbox_on: bool) -> float:
    os.environ["GAIA_SHELL_SANDBOX"] = "auto" if sandbox_on else "off"
    start = time.perf_counter()
    result = run_shell_command(ctx, command)
    elapsed = time.perf_counter() - start
    if result["status"] != "success":
        raise SystemExit(f"{command!r} failed with the sandbox {'on' if sandbox_on else 'off'}: {result['error']}")
    return elapsed


def bench(root: Path, rounds: int) -> list[dict]:
    ctx = ToolContext(workdir=root, sandbox=Sandbox([root]), data_dir=root / ".bench-data",
                      shell_limiter=RateLimiter(limits=((10**9, 1.0),)))
    rows = []
    for command in COMMANDS:
        times: dict[bool, list[float]] = {True: [], False: []}
        _call(ctx, command, True), _call(ctx, command, False)  # warm caches and the bwrap probe
        for i in range(rounds):
            for arm in ((True, False) if i % 2 == 0 else (False, True)):
                times[arm].append(_call(ctx, command, arm))
        on, off = statistics.median(times[True]), statistics.median(times[False])
        rows.append({"root": str(root), "command": command, "rounds": rounds, "median_on_ms": round(on * 1000, 2),
                     "median_off_ms": round(off * 1000, 2), "ratio": round(on / off, 2),
                     "extra_ms": round((on - off) * 1000, 2)})
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--root", type=Path, default=None,
                        help="the larger root (default: a local clone of this repository)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    logging.getLogger("gaia_lite.tools.shell").setLevel(logging.ERROR)  # the off arm's notice
    box = os_sandbox.detect()
    if not box.active:
        print(f"no OS sandbox to measure: {box.reason}", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        large = args.root
        if large is None:
            large = Path(tmp) / "clone"
            subprocess.run(["git", "clone", "-q", "--local", str(Path(__file__).resolve().parents[1]), str(large)],
                           check=True)
        rows = bench(_small_root(Path(tmp)), args.rounds) + bench(large.resolve(), args.rounds)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(f"run_shell_command per call, median of {args.rounds} interleaved rounds ({box.binary})")
    print(f"{'root':<34} {'command':<22} {'off ms':>8} {'on ms':>8} {'ratio':>6} {'extra ms':>9}")
    for r in rows:
        print(f"{r['root'][-34:]:<34} {r['command']:<22} {r['median_off_ms']:>8} {r['median_on_ms']:>8} "
              f"{r['ratio']:>6} {r['extra_ms']:>9}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
