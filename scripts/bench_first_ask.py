"""The README's first command, as a user meets it: `gaia-lite ask "list the files in this folder"`.

Runs the `ask` (set-up already done) N times in a fresh folder of a few files, each with a fresh
GAIA_HOME except for the shared model cache, and reports per run: wall seconds, exit code, whether
the answer is clean (stdout holds no JSON, no tool name, no line twice) and names the folder's
files, plus the stderr tool lines. The target is a clean answer in <= 20 s on a quiet machine; the
load average is printed because a busy 2-core machine is not quiet.

``--sequence`` (issue 29) runs, in each fresh folder and home: the first ask, a second ask within the
keep-alive (the kept server is reused), then ``serve --stop`` and an ask after the restart (a new
server, the shared prompt prefix restored from its saved file); per ask: wall seconds, TTFT and the
server's prompt/cached tokens of the first model call (from turns.jsonl), started or reused, and what
happened to the prefix (gaia-lite.log). Every run stops its kept server before the next one starts.

Usage: .venv/bin/python scripts/bench_first_ask.py [--runs 3] [--sequence] [--json] [-- extra ask flags]
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


SECOND = "what is in notes.md?"  # the second ask of --sequence: a new question in the same folder


def _ask(gaia: str, question: str, extra: list[str], work: Path, env: dict[str, str], home: Path) -> dict:
    started = time.perf_counter()
    proc = subprocess.run([gaia, "ask", question, *extra], cwd=work, env=env, capture_output=True, text=True,
                          timeout=600)
    seconds = time.perf_counter() - started
    answer = proc.stdout.strip()
    out = {"seconds": round(seconds, 1), "exit_code": proc.returncode, "answer": answer,
           "problems": clean(answer), "names_files": sum(n in answer for n in FILES),
           "tool_lines": [ln for ln in proc.stderr.splitlines() if ln.startswith("→ ")],
           "stderr_tail": proc.stderr.strip().splitlines()[-3:],
           "server": "reused" if "reusing the embedded" in proc.stderr
           else "started" if "started the embedded" in proc.stderr else "none"}
    try:
        turn = json.loads((home / "state" / "turns.jsonl").read_text().splitlines()[-1])
        out.update(ttft_s=round(turn["ttft_s"], 3) if turn.get("ttft_s") else None,
                   prompt_tokens=turn.get("prompt_tokens"), cached_tokens=turn.get("cached_tokens"))
    except (OSError, ValueError, IndexError, KeyError):
        pass
    return out


def _prefix_events(home: Path) -> list[str]:
    try:
        log = (home / "state" / "gaia-lite.log").read_text()
    except OSError:
        return []
    return [json.loads(m)["action"] for m in re.findall(r"PREFIX_CACHE (\{.*\})", log)]


def run_once(gaia: str, extra: list[str], cache: Path, sequence: bool = False) -> dict:
    with tempfile.TemporaryDirectory(prefix="first-ask-") as tmp:
        work = Path(tmp) / "work"
        work.mkdir()
        for name, text in FILES.items():
            (work / name).write_text(text)
        home = Path(tmp) / "home"
        env = {**os.environ, "GAIA_HOME": str(home)}
        env.pop("LEMONADE_BASE_URL", None)
        env["GAIA_MODELS_DIR"] = env.get("GAIA_MODELS_DIR", str(cache))
        try:
            first = _ask(gaia, QUESTION, extra, work, env, home)
            if not sequence:
                return first
            first["prefix"] = _prefix_events(home)
            second = _ask(gaia, SECOND, extra, work, env, home)
            subprocess.run([gaia, "serve", "--stop"], env=env, capture_output=True, timeout=60)
            seen = len(_prefix_events(home))
            restarted = _ask(gaia, QUESTION, extra, work, env, home)
            restarted["prefix"] = _prefix_events(home)[seen:]
            return {**first, "second": second, "restarted": restarted,
                    "second_share": round(second["seconds"] / first["seconds"], 3) if first["seconds"] else None}
        finally:  # never leave a kept server running into the next run (or after the folder is gone)
            subprocess.run([gaia, "serve", "--stop"], env=env, capture_output=True, timeout=60)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--sequence", action="store_true", help="first ask, a second one within the keep-alive, "
                    "and one after a restart, per run")
    ap.add_argument("extra", nargs="*", help="extra flags for ask (after --)")
    args = ap.parse_args()
    gaia = str(Path(sys.executable).with_name("gaia-lite"))
    from gaia_lite.runtime.model import models_dir  # the assembled GGUFs: shared, not re-assembled per run

    load_start = os.getloadavg()
    runs = [run_once(gaia, args.extra, models_dir(), args.sequence) for _ in range(args.runs)]
    report = {"question": QUESTION, "runs": runs, "load_average_start": [round(x, 2) for x in load_start],
              "load_average_end": [round(x, 2) for x in os.getloadavg()],
              "median_seconds": statistics.median(r["seconds"] for r in runs),
              "clean_runs": sum(not r["problems"] and r["exit_code"] == 0 for r in runs),
              "within_20s": sum(r["seconds"] <= 20 for r in runs), "within_15s": sum(r["seconds"] <= 15 for r in runs)}
    if args.sequence:
        report.update(median_second_share=statistics.median(r["second_share"] for r in runs),
                      median_second_ttft_s=statistics.median(r["second"].get("ttft_s") or 0 for r in runs),
                      median_restarted_seconds=statistics.median(r["restarted"]["seconds"] for r in runs))
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        for i, r in enumerate(runs, 1):
            print(f"run {i}: {r['seconds']} s, exit {r['exit_code']}, "
                  f"{'clean' if not r['problems'] else 'NOT clean: ' + '; '.join(r['problems'])}, "
                  f"names {r['names_files']}/{len(FILES)} files, tools: {' | '.join(r['tool_lines']) or 'none'}")
            print("   answer: " + r["answer"].replace("\n", "\n           "))
            if args.sequence:
                for label, a in (("first", r), ("second (kept alive)", r["second"]), ("after restart", r["restarted"])):
                    print(f"   {label}: {a['seconds']} s, server {a['server']}, TTFT {a.get('ttft_s')} s, prompt "
                          f"{a.get('prompt_tokens')} ({a.get('cached_tokens')} cached)"
                          + (f", prefix {'/'.join(a['prefix'])}" if a.get("prefix") else "")
                          + ("" if not a["problems"] else f", NOT clean: {'; '.join(a['problems'])}"))
                print(f"   second/first wall time: {r['second_share']}")
        print(f"median {report['median_seconds']} s; clean {report['clean_runs']}/{len(runs)}; "
              f"<= 20 s {report['within_20s']}/{len(runs)}; <= 15 s {report['within_15s']}/{len(runs)}; "
              f"load average {report['load_average_start']} -> {report['load_average_end']}")
        if args.sequence:
            print(f"second ask (kept alive) / first: median {report['median_second_share']}, its TTFT median "
                  f"{report['median_second_ttft_s']} s; after a restart: median {report['median_restarted_seconds']} s")
    return 0 if report["clean_runs"] == len(runs) else 1


if __name__ == "__main__":
    sys.exit(main())
