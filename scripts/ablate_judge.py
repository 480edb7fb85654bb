"""What each guard of the answer judge earns on the task suites (issue 43): the ablation table.

Phase 1 runs ``gaia-lite eval tasks --arms on`` over each suite (default: the three blind holdouts) with
each model (default: both) and counts, per guard, the turns it acted on and the tasks of those turns
(every turn records its guards: ``TurnFinished.guards``). Phase 2 re-runs, for each guard that fired (or
only those of ``--guards``), only the tasks it fired in, with the arm ``skip:GUARD`` (the ``on`` arm with
that guard off), and compares pass/fail with phase 1 on those tasks. A guard that never acted in a run
cannot have changed that run's outcome, so the tasks it did not fire in are not re-run; a guard that
never fired earns nothing and costs nothing on these suites (its row says 0). Both phases sample with the
same seeds (``--seed``, run k: seed+k-1) in the same working path (``runs/MODEL/SUITE/work``, moved to the
eval's own folder when it ends; the path is in the prompt), so a re-run replies as phase 1 did until the
guard would have acted: what differs is the guard's doing, not the model's sampling at temperature 0.1.
``--repeat N`` (both phases) measures N seeds.

Per guard and model: turns fired (and tasks), gains (task runs that pass with the guard and fail
without: fail→pass), losses (pass→fail), and seconds per task it added (mean on-arm seconds minus
skip-arm seconds over those tasks). The comparison is ``gaia_lite.eval.ablation``.

Every ``eval tasks`` call gets ``--max-steps 6 --max-tokens 256 --json`` and starts its own embedded
llama-server with ``-m MODEL`` unless one answers at LEMONADE_BASE_URL (then the script stops: that
server serves its own model whatever ``-m`` says; ``--any-server`` accepts it). GAIA_JUDGE_SKIP is
removed from their environment, so the ``on`` arm has every guard. A full suite takes 5-15 minutes per
model on a 2-core machine; phase 2 re-runs only a few tasks per guard, one eval (and one server start)
per guard, suite and model, most-fired guards first.

Output in ``--out`` (default ``ablation/``): ``runs/MODEL/SUITE/ARM.json`` (each eval's report, its
stderr in ``ARM.log``, its working dirs in ``ARM/``), and, rewritten after every eval, ``ablation.json``
and ``ablation.md`` (the table to paste into docs/architecture.md). Resumable: an eval whose report is
there is not run again; run the same command, on the same commit, to carry on. For the blind suites (file names starting
with ``holdout``) nothing printed or summarized names a task, a prompt or an answer: only counts (the
per-run reports keep what every ``eval tasks --out`` run keeps).

Usage (from the repo root, with the project's venv):
    .venv/bin/python scripts/ablate_judge.py [--suite FILE.json ...] [--model NAME ...] [--repeat N]
        [--guards a,b] [--out DIR] [--dry-run] [--any-server]
    flock /tmp/gaia-bench.lock nice -n -5 .venv/bin/python scripts/ablate_judge.py   # timed: under the bench lock
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # run as a file: this checkout's gaia_lite
    sys.path.insert(0, str(REPO))

from gaia_lite.eval.ablation import GuardCell, fired_in, guard_cell, render_table, task_runs  # noqa: E402
from gaia_lite.eval.arms import skip_arm  # noqa: E402

SUITES = REPO / "gaia_lite" / "eval" / "data" / "tasks"
DEFAULT_SUITES = tuple(SUITES / f"{name}.json" for name in ("holdout", "holdout2", "holdout3"))
DEFAULT_MODELS = ("qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b")
EVAL_FLAGS = ("--max-steps", "6", "--max-tokens", "256", "--json")
GUARDS_DOC = "docs/architecture.md"
_TURN_LINE = re.compile(r" turn \d+: (PASS|FAIL) ")


@dataclass(frozen=True)
class Plan:
    suites: tuple[Path, ...]
    models: tuple[str, ...]
    repeat: int
    guards: tuple[str, ...] | None  # None: every guard that fires
    out: Path
    dry_run: bool
    any_server: bool = False  # accept a server already answering (one model for all: pass one --model)
    seed: int = 1  # run k of every eval samples with seed+k-1

    def wants(self, guard: str) -> bool:
        return self.guards is None or guard in self.guards


@dataclass(frozen=True)
class Run:
    """One ``eval tasks`` call: one model, one suite, one arm (phase 2: only the tasks given)."""

    phase: int
    model: str
    suite: Path
    arm: str
    tasks: tuple[str, ...] = ()

    @property
    def dir(self) -> Path:
        return Path("runs") / self.model / self.suite.stem

    @property
    def stem(self) -> str:
        """Where the step's working dirs are kept once it ends: a digest of its arm, so the folder's name says nothing."""
        return "arm-" + hashlib.sha256(self.arm.encode()).hexdigest()[:8]

    @property
    def live(self) -> Path:
        """Every step of a model and suite works here while it runs: the path is in the prompt (eval.arms.live_folder)."""
        return self.dir / "work"

    def command(self, plan: Plan, tasks: Sequence[str] | None = None) -> list[str]:
        """The eval's argv; ``tasks`` stands in for the ``--task`` flags (what a printed command shows)."""
        chosen = [a for t in self.tasks for a in ("--task", t)] if tasks is None else list(tasks)
        return [sys.executable, "-m", "gaia_lite", "eval", "tasks", "--arms", self.arm, "--suite", str(self.suite),
                "-m", self.model, "--repeat", str(plan.repeat), "--seed", str(plan.seed), *EVAL_FLAGS, *chosen,
                "--out", str(plan.out / self.live)]

    def shown(self, plan: Plan) -> str:
        """The command as printed: a blind suite's task ids become a count."""
        if self.tasks and is_blind(self.suite):
            return shlex.join(self.command(plan, ["--task", f"<{len(self.tasks)} tasks of a blind suite>"]))
        return shlex.join(self.command(plan))

    def label(self) -> str:
        return f"phase {self.phase}, suite {self.suite.stem}, model {self.model}, arm {self.arm}" + (
            f" ({len(self.tasks)} tasks)" if self.tasks else "")


def is_blind(suite: Path) -> bool:
    """A blind suite: nothing printed names its tasks, prompts or answers."""
    return suite.name.startswith("holdout")


class Clock:
    def __init__(self) -> None:
        self.start = time.monotonic()

    def __str__(self) -> str:
        s = int(time.monotonic() - self.start)
        return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


def say(clock: Clock, msg: str) -> None:
    print(f"[{clock}] {msg}", flush=True)


# ---------------------------------------------------------------- running one eval
def load_report(path: Path, arm: str) -> dict[str, Any] | None:
    """A finished eval's report, or None (not run, cut off, or another arm's)."""
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return report if isinstance(report, dict) and arm in report.get("arms", {}) else None


def _eval_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "GAIA_JUDGE_SKIP"}  # the on arm has every guard


@dataclass
class Relay:
    """Passes on an eval's progress lines; a blind suite's only as a count of the turns finished."""

    blind: bool
    clock: Clock
    turns: int = 0
    passed: int = 0

    def __call__(self, line: str) -> None:
        if not self.blind or line.startswith("started the embedded llama-server"):
            say(self.clock, "    " + line.rstrip())
            return
        found = _TURN_LINE.search(line)
        if found:
            self.turns += 1
            self.passed += found.group(1) == "PASS"
            say(self.clock, f"    turns finished: {self.turns} ({self.passed} passed)")


def run_eval(run: Run, plan: Plan, clock: Clock) -> dict[str, Any]:
    """Run one eval (its stdout to the report file, its stderr to the log) and return its report."""
    target = plan.out / run.dir / f"{run.stem}.json"
    work, live = plan.out / run.dir / run.stem, plan.out / run.live
    for stale in (work, live):  # a cut-off earlier try leaves homes with stale state
        shutil.rmtree(stale, ignore_errors=True)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".json.part")
    started = time.monotonic()
    relay = Relay(is_blind(run.suite), clock)
    with partial.open("w", encoding="utf-8") as out, (target.with_suffix(".log")).open("w", encoding="utf-8") as log:
        proc = subprocess.Popen(run.command(plan), stdout=out, stderr=subprocess.PIPE, text=True, env=_eval_env(),
                                cwd=REPO)
        assert proc.stderr is not None
        for line in proc.stderr:
            log.write(line)
            log.flush()
            relay(line)
        code = proc.wait()
    if live.exists():
        live.rename(work)
    report = load_report(partial, run.arm) if code == 0 else None
    if report is None:
        raise SystemExit(f"ablate_judge: eval tasks failed (exit {code}) in {run.label()}; "
                         f"its stderr is in {target.with_suffix('.log')}")
    _check_server(report, run, plan)
    partial.replace(target)
    say(clock, f"  done in {time.monotonic() - started:.0f} s: {report['arms'][run.arm]['passed']}/"
               f"{report['arms'][run.arm]['tasks']} task runs passed")
    return report


def _check_server(report: dict[str, Any], run: Run, plan: Plan) -> None:
    """A server already answering at LEMONADE_BASE_URL serves its own model, whatever -m says (the report
    names the model asked for either way): only an embedded server is sure to be the model asked for."""
    if not report.get("embedded_server") and not plan.any_server:
        raise SystemExit(f"ablate_judge: in {run.label()} a model server already answered at LEMONADE_BASE_URL, "
                         f"so {run.model} may not be the model measured; stop it, point LEMONADE_BASE_URL at a "
                         "free port so that eval starts its own, or pass --any-server")


def report_of(run: Run, plan: Plan, clock: Clock) -> dict[str, Any] | None:
    """The run's report: kept from an earlier try, or run now (None on a dry run)."""
    kept = load_report(plan.out / run.dir / f"{run.stem}.json", run.arm)
    if kept is not None and kept.get("repeat", 1) != plan.repeat:
        raise SystemExit(f"ablate_judge: {plan.out} holds runs with --repeat {kept.get('repeat', 1)}, not "
                         f"{plan.repeat}; carry on with --repeat {kept.get('repeat', 1)} or give another --out")
    if kept is not None:
        say(clock, f"{run.label()}: kept from an earlier run")
        return kept
    if plan.dry_run:
        print(run.shown(plan))
        return None
    say(clock, f"{run.label()}: running")
    return run_eval(run, plan, clock)


# ---------------------------------------------------------------- the phases
Reports = dict[tuple[str, str, str], dict[str, Any]]  # (model, suite stem, arm) -> report


def phase_one(plan: Plan, reports: Reports, clock: Clock, write: Callable[[], None]) -> None:
    for model in plan.models:
        for suite in plan.suites:
            report = report_of(Run(1, model, suite, "on"), plan, clock)
            if report is not None:
                reports[(model, suite.stem, "on")] = report
                write()


def on_reports(plan: Plan, reports: Reports, model: str) -> dict[Path, dict[str, Any]]:
    """Phase 1's reports of one model, per suite (those run so far)."""
    return {s: reports[(model, s.stem, "on")] for s in plan.suites if (model, s.stem, "on") in reports}


def phase_two_runs(plan: Plan, reports: Reports, order: Sequence[str]) -> list[Run]:
    """Per model, suite and guard that fired there (most-fired guards first): the skip run of its tasks."""
    runs = []
    for model in plan.models:
        fired = {s: fired_in(r) for s, r in on_reports(plan, reports, model).items()}
        total = {g: sum(f[g].turns for f in fired.values() if g in f) for g in order}
        chosen = [g for g in sorted(order, key=lambda g: -total[g]) if total[g] and plan.wants(g)]
        runs += [Run(2, model, s, skip_arm([g]), f[g].tasks) for g in chosen for s, f in fired.items() if g in f]
    return runs


def phase_two(plan: Plan, reports: Reports, clock: Clock, write: Callable[[], None], order: Sequence[str]) -> None:
    runs = phase_two_runs(plan, reports, order)
    say(clock, f"phase 2: {len(runs)} skip runs, from the phase-1 reports there are")
    for i, run in enumerate(runs, 1):
        say(clock, f"phase 2 run {i}/{len(runs)}")
        report = report_of(run, plan, clock)
        if report is not None:
            reports[(run.model, run.suite.stem, run.arm)] = report
            write()
    ran = sum(len(on_reports(plan, reports, m)) for m in plan.models)
    if plan.dry_run and ran < len(plan.models) * len(plan.suites):
        print("# then, for each guard that fired in a phase-1 run: the same command with --arms skip:GUARD "
              "and --task for each task it fired in (printed here once phase 1 has run)")


# ---------------------------------------------------------------- the outputs
def cells(plan: Plan, reports: Reports, order: Sequence[str]) -> dict[tuple[str, str], GuardCell]:
    """Per guard and model, its cell over the suites run so far."""
    found = {}
    for model in plan.models:
        ons = on_reports(plan, reports, model)
        fired = {s: fired_in(r) for s, r in ons.items()}
        for g in order:
            skips = {s: reports.get((model, s.stem, skip_arm([g]))) for s in ons}
            found[(g, model)] = guard_cell(
                (fired[s].get(g), task_runs(ons[s], "on"),
                 None if skips[s] is None else task_runs(skips[s], skip_arm([g]))) for s in ons)
    return found


def summary(plan: Plan, reports: Reports, order: Sequence[str]) -> dict[str, Any]:
    """ablation.json: settings, phase 1 per model and suite, and per guard and model its cell (counts
    only; a non-blind suite's tasks are named)."""
    found = cells(plan, reports, order)
    phase1 = {m: {s.stem: _phase1_counts(r) for s, r in on_reports(plan, reports, m).items()} for m in plan.models}
    shown = [g for g in order if plan.wants(g)]
    guards = {g: {m: _cell_json(found[(g, m)], _named_tasks(plan, reports, m, g)) for m in plan.models} for g in shown}
    return {"suites": [s.name for s in plan.suites], "models": list(plan.models), "repeat": plan.repeat,
            "eval_flags": list(EVAL_FLAGS), "commit": _commit(), "updated": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
            "phase1": phase1, "guards": guards,
            "table": render_table(found, shown, plan.models)}


def _phase1_counts(report: dict[str, Any]) -> dict[str, Any]:
    arm = report["arms"]["on"]
    return {k: arm.get(k) for k in ("tasks", "passed", "runs", "turns", "turns_passed", "seconds_per_task",
                                     "guards_fired")}


def _cell_json(cell: GuardCell, named: dict[str, list[str]]) -> dict[str, Any]:
    t = cell.tally
    out = {"fired_turns": cell.fired_turns, "fired_tasks": cell.fired_tasks, "compared_tasks": t.tasks,
           "gains": t.gains, "losses": t.losses, "seconds_added": t.seconds_added, "pending_suites": cell.pending,
           "not_compared": len(t.missing), "on_runs": t.on_runs, "skip_runs": t.skip_runs}
    return out | ({"tasks": named} if named else {})


def _named_tasks(plan: Plan, reports: Reports, model: str, guard: str) -> dict[str, list[str]]:
    """The tasks a guard fired in, per non-blind suite (the blind suites' stay unnamed)."""
    named = {}
    for s, report in on_reports(plan, reports, model).items():
        fired = None if is_blind(s) else fired_in(report).get(guard)
        if fired is not None:
            named[s.stem] = list(fired.tasks)
    return named


def _commit() -> str | None:
    done = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=REPO, capture_output=True, text=True)
    return done.stdout.strip() or None


def write_outputs(plan: Plan, reports: Reports, order: Sequence[str]) -> None:
    data = summary(plan, reports, order)
    plan.out.mkdir(parents=True, exist_ok=True)
    for name, text in (("ablation.json", json.dumps(data, indent=1) + "\n"), ("ablation.md", _markdown(data))):
        part = plan.out / f"{name}.part"
        part.write_text(text, encoding="utf-8")
        part.replace(plan.out / name)


def _markdown(data: dict[str, Any]) -> str:
    phase1 = "; ".join(f"{m} {s} {c['passed']}/{c['tasks']}" for m, by in data["phase1"].items() for s, c in by.items())
    return (f"What each guard earns: `scripts/ablate_judge.py` on {', '.join(data['suites'])}, repeat "
            f"{data['repeat']}, commit {data['commit']}, {data['updated']} (on arm, task runs passed: {phase1}). "
            "Per model: turns the guard acted on (tasks), task runs it turned fail→pass (gains) and pass→fail "
            "(losses) against the arm without it, and the seconds per task it added; · never fired, … not "
            "yet compared.\n\n" + data["table"])


# ---------------------------------------------------------------- main
def parse(argv: Sequence[str] | None, known: Sequence[str]) -> Plan:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--suite", action="append", type=Path, help="a task suite (repeatable; default: the 3 holdouts)")
    p.add_argument("--model", "-m", action="append", help="a model (repeatable; default: 0.5b and 1.5b)")
    p.add_argument("--repeat", type=int, default=1, help="runs of every task, both phases (default 1)")
    p.add_argument("--seed", type=int, default=1, help="run k of every eval samples with seed+k-1 (default 1)")
    p.add_argument("--guards", help="compare only these guards in phase 2 (comma list; default: all that fire)")
    p.add_argument("--out", type=Path, default=REPO / "ablation", help="output folder (default: ablation/)")
    p.add_argument("--dry-run", action="store_true", help="print the eval commands instead of running them")
    p.add_argument("--any-server", action="store_true", help="accept a model server already answering at "
                   "LEMONADE_BASE_URL (default: stop when one does: it serves its own model, whatever -m says)")
    a = p.parse_args(argv)
    guards = tuple(g.strip() for g in a.guards.split(",") if g.strip()) if a.guards else None
    problem = _problem(a, guards, known)
    if problem:
        p.exit(2, f"ablate_judge: {problem}\n")
    return Plan(tuple(s.resolve() for s in a.suite or DEFAULT_SUITES), tuple(a.model or DEFAULT_MODELS), a.repeat,
                guards, a.out.resolve(), a.dry_run, a.any_server, a.seed)


def _problem(a: argparse.Namespace, guards: tuple[str, ...] | None, known: Sequence[str]) -> str | None:
    wrong = [g for g in guards or () if g not in known]
    missing = [str(s) for s in a.suite or DEFAULT_SUITES if not s.is_file()]
    if a.repeat < 1:
        return f"--repeat {a.repeat} is invalid; expected a whole number >= 1"
    if a.seed < 0:
        return f"--seed {a.seed} is invalid; expected a whole number >= 0"
    if guards is not None and not guards:
        return "--guards names no guard; give a comma list such as narrated,template"
    if wrong:
        return f"--guards: no guard is called {', '.join(wrong)} (the guards are the judge's table in {GUARDS_DOC})"
    return f"no suite file {missing[0]}" if missing else None


def main(argv: Sequence[str] | None = None) -> int:
    from gaia_lite.agent.judge import GUARDS

    order = [g.name for g in GUARDS]
    plan = parse(argv, order)
    clock = Clock()
    reports: Reports = {}
    write = (lambda: None) if plan.dry_run else (lambda: write_outputs(plan, reports, order))
    say(clock, f"phase 1: the on arm, {len(plan.suites)} suites x {len(plan.models)} models, repeat {plan.repeat}")
    phase_one(plan, reports, clock, write)
    phase_two(plan, reports, clock, write, order)
    if not plan.dry_run:
        write()
        say(clock, f"done: {plan.out / 'ablation.md'} and ablation.json")
        print(_markdown(summary(plan, reports, order)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
