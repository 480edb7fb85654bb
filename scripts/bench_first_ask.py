"""The README's first command, as a user meets it: `gaia-lite ask "list the files in this folder"`.

Runs the `ask` (set-up already done) N times in a fresh folder of a few files, each with a fresh
GAIA_HOME except for the shared model cache, and reports per run: wall seconds, exit code, whether
the answer is clean (stdout holds no JSON, no tool name, no line twice) and names the folder's
files, plus the stderr tool lines. The target is a clean answer in <= 20 s on a quiet machine; the
load average is printed because a busy 2-core machine is not quiet.

Usage: .venv/bin/python scripts/bench_first_ask.py [--runs 3] [--json] [-- extra ask flags]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

QUESTION = "list the files in this folder"
FILES = {"notes.md": "# Notes\nBuy stamps.\n", "budget.csv": "item,amount\nrent,900\n",
         "photo_index.txt": "beach.jpg\n"}
TOOL_NAME = re.compile(r"\b[a-z]+_[a-z_]+\b")  # snake_case: what a tool name looks like


def clean(answer: str) -> list[str]:
    """What is wrong with this stdout as an answer (empty = clean)."""
    problems = []
    if not answer.strip():
        problems.append("empty")
    if "{" in answer or '"name"' in answer:
        problems.append("JSON")
    names = [n for n in TOOL_NAME.findall(answer) if n not in ("photo_index",)]
    if names:
        problems.append(f"tool names: {', '.join(sorted(set(names)))}")
    lines = [ln.strip() for ln in answer.splitlines() if ln.strip()]
    if len(lines) != len(set(lines)):
        problems.append("repeated lines")
    return problems


def run_once(gaia: str, extra: list[str], cache: Path) -> dict:
    with tempfile.TemporaryDirectory(prefix="first-ask-") as tmp:
        work = Path(tmp) / "work"
        work.mkdir()
        for name, text in FILES.items():
            (work / name).write_text(text)
        env = {**os.environ, "GAIA_HOME": str(Path(tmp) / "home")}
        env.pop("LEMONADE_BASE_URL", None)
        env["GAIA_MODELS_DIR"] = env.get("GAIA_MODELS_DIR", str(cache))
        started = time.perf_counter()
        proc = subprocess.run([gaia, "ask", QUESTION, *extra], cwd=work, env=env, capture_output=True, text=True,
                              timeout=600)
        seconds = time.perf_counter() - started
    answer = proc.stdout.strip()
    return {"seconds": round(seconds, 1), "exit_code": proc.returncode, "answer": answer,
            "problems": clean(answer), "names_files": sum(n in answer for n in FILES),
            "tool_lines": [ln for ln in proc.stderr.splitlines() if ln.startswith("→ ")],
            "stderr_tail": proc.stderr.strip().splitlines()[-3:]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("extra", nargs="*", help="extra flags for ask (after --)")
    args = ap.parse_args()
    gaia = str(Path(sys.executable).with_name("gaia-lite"))
    from gaia_lite.runtime.model import models_dir  # the assembled GGUFs: shared, not re-assembled per run

    load_start = os.getloadavg()
    runs = [run_once(gaia, args.extra, models_dir()) for _ in range(args.runs)]
    report = {"question": QUESTION, "runs": runs, "load_average_start": [round(x, 2) for x in load_start],
              "load_average_end": [round(x, 2) for x in os.getloadavg()],
              "median_seconds": statistics.median(r["seconds"] for r in runs),
              "clean_runs": sum(not r["problems"] and r["exit_code"] == 0 for r in runs),
              "within_20s": sum(r["seconds"] <= 20 for r in runs)}
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        for i, r in enumerate(runs, 1):
            print(f"run {i}: {r['seconds']} s, exit {r['exit_code']}, "
                  f"{'clean' if not r['problems'] else 'NOT clean: ' + '; '.join(r['problems'])}, "
                  f"names {r['names_files']}/{len(FILES)} files, tools: {' | '.join(r['tool_lines']) or 'none'}")
            print("   answer: " + r["answer"].replace("\n", "\n           "))
        print(f"median {report['median_seconds']} s; clean {report['clean_runs']}/{len(runs)}; "
              f"<= 20 s {report['within_20s']}/{len(runs)}; load average {report['load_average_start']} -> "
              f"{report['load_average_end']}")
    return 0 if report["clean_runs"] == len(runs) else 1


if __name__ == "__main__":
    sys.exit(main())
