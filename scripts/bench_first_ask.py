"""The README's first command, as a user meets it: `gaia-lite ask "list the files in this folder"`.

Runs the `ask` (set-up already done) N times in a fresh folder of a few files, each with a fresh
GAIA_HOME except for the shared model cache, set up as scripts/setup.sh leaves a home (``serve
--warm``), and reports per run: wall seconds, exit code, whether the answer is clean (stdout holds no JSON, no tool name, no line twice) and names the folder's
files, plus the stderr tool lines. The target is a clean answer in <= 20 s on a quiet machine; the
load average is printed because a busy 2-core machine is not quiet.

``--sequence`` (issue 29) runs, in each fresh folder and home, like against like:

1. ``first``: the README's ask, a server started (its shared prompt prefix restored from the file
   ``serve --warm`` saved at set-up);
2. ``second``: the same command again, the second ask in a row: the kept server is reused. Its
   share of the first's wall time is the issue's "second ask" figure;
3. ``new_kept``: a different question (``SECOND``: a file read, a longer answer) on the kept server;
4. ``serve --stop``, then ``restarted``: that different question again on a new server, its prefix
   restored. ``new_kept / restarted`` is the kept server's share for a new question, both arms
   doing the same work (an honest ratio: a different question costs a different decode and tools).

Per ask: wall seconds, the time from launch to the answer's first byte on stdout, the agent's TTFT
of its first model call and the server's prompt/cached tokens of it (turns.jsonl), started or
reused, and what happened to the prefix (gaia-lite.log). Every run stops its kept server before
the next one starts.

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


SECOND = "what is in notes.md?"  # --sequence's new question in the same folder (a read, a longer answer)


def _ask(gaia: str, question: str, extra: list[str], work: Path, env: dict[str, str], home: Path) -> dict:
    started = time.perf_counter()
    # unbuffered bytes: read(1) takes one byte off the pipe and communicate() reads the rest
    proc = subprocess.Popen([gaia, "ask", question, *extra], cwd=work, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, bufsize=0)
    assert proc.stdout is not None
    first_byte = proc.stdout.read(1)  # the answer streams: its first byte is what the user waits for
    first_output_s = time.perf_counter() - started if first_byte else None
    rest, err = proc.communicate(timeout=600)
    seconds = time.perf_counter() - started
    answer = (first_byte + rest).decode("utf-8", "replace").strip()
    stderr = err.decode("utf-8", "replace")
    out = {"seconds": round(seconds, 2), "first_output_s": round(first_output_s, 2) if first_output_s else None,
           "exit_code": proc.returncode, "answer": answer,
           "problems": clean(answer), "names_files": sum(n in answer for n in FILES),
           "tool_lines": [ln for ln in stderr.splitlines() if ln.startswith("→ ")],
           "stderr_tail": stderr.strip().splitlines()[-3:],
           "server": "reused" if "reusing the embedded" in stderr
           else "started" if "started the embedded" in stderr else "none"}
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
            # what scripts/setup.sh leaves in a home: the shared prefix saved, the tool vectors and the
            # server's capabilities cached (a home that never ran it would make the first ask look slower)
            subprocess.run([gaia, "serve", "--warm"], cwd=work, env=env, capture_output=True, timeout=600)
            first = _ask(gaia, QUESTION, extra, work, env, home)
            if not sequence:
                return first
            first["prefix"] = _prefix_events(home)
            second = _ask(gaia, QUESTION, extra, work, env, home)
            new_kept = _ask(gaia, SECOND, extra, work, env, home)
            subprocess.run([gaia, "serve", "--stop"], env=env, capture_output=True, timeout=60)
            seen = len(_prefix_events(home))
            restarted = _ask(gaia, SECOND, extra, work, env, home)
            restarted["prefix"] = _prefix_events(home)[seen:]
            return {**first, "second": second, "new_kept": new_kept, "restarted": restarted,
                    "second_share": _share(second, first), "new_kept_share": _share(new_kept, restarted)}
        finally:  # never leave a kept server running into the next run (or after the folder is gone)
            subprocess.run([gaia, "serve", "--stop"], env=env, capture_output=True, timeout=60)


def _share(a: dict, b: dict) -> float | None:
    return round(a["seconds"] / b["seconds"], 3) if b["seconds"] else None


def _median_of(runs: list[dict], arm: str, key: str) -> float | None:
    values = [r[arm].get(key) for r in runs if r[arm].get(key) is not None]
    return statistics.median(values) if values else None


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
                      median_second_ttft_s=_median_of(runs, "second", "ttft_s"),
                      median_second_first_output_s=_median_of(runs, "second", "first_output_s"),
                      median_new_kept_share=statistics.median(r["new_kept_share"] for r in runs),
                      median_new_kept_ttft_s=_median_of(runs, "new_kept", "ttft_s"),
                      median_restarted_seconds=statistics.median(r["restarted"]["seconds"] for r in runs),
                      restarted_prefilled_share=[
                          round(1 - (r["restarted"].get("cached_tokens") or 0) / r["restarted"]["prompt_tokens"], 3)
                          if r["restarted"].get("prompt_tokens") else None for r in runs])
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        for i, r in enumerate(runs, 1):
            print(f"run {i}: {r['seconds']} s, exit {r['exit_code']}, "
                  f"{'clean' if not r['problems'] else 'NOT clean: ' + '; '.join(r['problems'])}, "
                  f"names {r['names_files']}/{len(FILES)} files, tools: {' | '.join(r['tool_lines']) or 'none'}")
            print("   answer: " + r["answer"].replace("\n", "\n           "))
            if args.sequence:
                for label, a in (("first", r), ("second, same ask (kept alive)", r["second"]),
                                 ("new question (kept alive)", r["new_kept"]),
                                 ("new question after restart", r["restarted"])):
                    print(f"   {label}: {a['seconds']} s, first output {a.get('first_output_s')} s, server "
                          f"{a['server']}, TTFT {a.get('ttft_s')} s, prompt "
                          f"{a.get('prompt_tokens')} ({a.get('cached_tokens')} cached)"
                          + (f", prefix {'/'.join(a['prefix'])}" if a.get("prefix") else "")
                          + ("" if not a["problems"] else f", NOT clean: {'; '.join(a['problems'])}"))
                print(f"   second/first wall time: {r['second_share']}; new question kept/restarted: "
                      f"{r['new_kept_share']}")
        print(f"median {report['median_seconds']} s; clean {report['clean_runs']}/{len(runs)}; "
              f"<= 20 s {report['within_20s']}/{len(runs)}; <= 15 s {report['within_15s']}/{len(runs)}; "
              f"load average {report['load_average_start']} -> {report['load_average_end']}")
        if args.sequence:
            print(f"second ask (same command, kept alive) / first: median {report['median_second_share']}, its TTFT "
                  f"median {report['median_second_ttft_s']} s, first output {report['median_second_first_output_s']} s; "
                  f"new question kept / after restart: median {report['median_new_kept_share']} (TTFT "
                  f"{report['median_new_kept_ttft_s']} s); after a restart: median "
                  f"{report['median_restarted_seconds']} s, prefilled share {report['restarted_prefilled_share']}")
    return 0 if report["clean_runs"] == len(runs) else 1


if __name__ == "__main__":
    sys.exit(main())
