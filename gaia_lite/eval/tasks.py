"""An end-to-end task suite: the real agent, a real model, fixture files, fixed answers.

``gaia-lite eval tasks`` runs each task twice, loader off and loader on, in a
fresh temporary working directory with a fresh gaia-lite data dir, and checks
every answer with deterministic rules (regular expressions for the expected
facts and numbers; "no tool calls" where none are needed). The five tasks are
our own, modelled on GAIA's tool_selection scenarios:

=================  ==========================================================
smart_discovery    find the handbook nobody named the path of, answer 15 PTO
                   days, then the remote-work rule
known_path_read    read reports/acme_q3_report.md: $14.2 million, CEO outlook
data_vs_recall     totals over a CSV (Q1 $340,000; Sarah Chen, $70,000), which
                   needs analyze_data_file rather than RAG or memory
multi_step         an HR briefing from the handbook, then add Q3 revenue
no_tools_needed    capital of France, 15 % of 200: no tool calls at all
=================  ==========================================================

Every run logs the loader's ``TOOL_LOADER`` lines and the agent's
``TOOL_CALLS`` lines to one file, which ``gaia_lite.eval.logscore`` scores.
How agents are built is the caller's business (the CLI passes a factory over
``build_services``), so this module depends only on the agent's event stream.
"""

from __future__ import annotations

import json
import logging
import re
import shutil
import time
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from gaia_lite.events import ToolCallFinished, TurnFailed, TurnFinished

from .logscore import score_file

__all__ = ["ARMS", "default_skills_dir", "Check", "Task", "TASKS", "TurnResult", "TaskResult", "fixture_path", "prepare_workdir",
           "check_turn", "run_tasks", "summarize", "select_tasks"]

log = logging.getLogger("gaia_lite.eval.tasks")

FIXTURE_PACKAGE = "gaia_lite.eval"
FIXTURE_DIR = "data/tasks"


@dataclass(frozen=True)
class Check:
    """One user turn and the rules its answer must meet."""

    prompt: str
    expect: tuple[str, ...]  # regexes (case-insensitive); every one must match the answer
    no_tools: bool = False  # the turn must finish without any tool call


@dataclass(frozen=True)
class Task:
    name: str
    description: str
    files: tuple[tuple[str, str], ...]  # (fixture file, path inside the working dir)
    turns: tuple[Check, ...]
    index: tuple[str, ...] = ()  # working-dir paths indexed before the first turn (as GAIA's setup does)


_PTO = r"\b15\b"
_REMOTE = r"\b(3|three)\b"
_Q3 = r"14\.2\s*(million|mn|m\b)|14,200,000"
_OUTLOOK = r"15\s*(%|percent)?\s*(-|–|to|and)\s*18\s*(%|percent)"
_Q1 = r"340,?000|340\s*k\b|340 thousand"

TASKS: tuple[Task, ...] = (
    Task("smart_discovery", "find an unnamed file, index or read it, answer; follow-up without re-indexing",
         (("employee_handbook.md", "company/hr/policies/employee_handbook.md"),
          ("meeting_notes.md", "company/notes/meeting_notes.md"),
          ("budget_notes.md", "company/finance/budget_notes.md"),
          ("README.md", "README.md")),
         (Check("How many days of paid time off do first-year employees get? The employee handbook is "
                "somewhere in this folder.", (_PTO,)),
          Check("And how many days a week can people work from home?", (_REMOTE,)))),
    Task("known_path_read", "read a file at a given path directly",
         (("acme_q3_report.md", "reports/acme_q3_report.md"),
          ("acme_q2_report.md", "reports/acme_q2_report.md")),
         (Check("What was Acme's revenue in Q3? The report is reports/acme_q3_report.md.", (_Q3,)),
          Check("What revenue growth does the CEO expect for 2026, according to that report?", (_OUTLOOK,))),
         index=("reports/acme_q3_report.md",)),
    Task("data_vs_recall", "aggregate questions over a CSV go to the data tool",
         (("sales_data_2025.csv", "data/sales_data_2025.csv"),),
         (Check("What was the total revenue in Q1 2025 in data/sales_data_2025.csv?", (_Q1,)),
          Check("Who was the top salesperson by total revenue in that file, and how much did they sell?",
                (r"sarah\s+chen", r"70,?000|70\s*k\b"))),
         index=("data/sales_data_2025.csv",)),
    Task("multi_step", "a compound briefing from one document, then a fact from a second one",
         (("employee_handbook.md", "docs/employee_handbook.md"),
          ("acme_q3_report.md", "reports/acme_q3_report.md")),
         (Check("Give me a short HR briefing from docs/employee_handbook.md: how many PTO days first-year "
                "staff get, how many remote days per week are allowed, and whether contractors get benefits.",
                (_PTO, _REMOTE, r"not eligible|ineligible|aren't eligible|are not eligible|no (company )?benefits"
                                r"|do not (get|receive|qualify)|don't (get|receive|qualify)|not entitled|excluded")),
          Check("Now add the Q3 revenue from reports/acme_q3_report.md to the briefing.", (_Q3,))),
         index=("docs/employee_handbook.md", "reports/acme_q3_report.md")),
    Task("no_tools_needed", "general knowledge and arithmetic: answered without tools",
         (("README.md", "README.md"),),
         (Check("What is the capital of France?", (r"\bparis\b",), no_tools=True),
          Check("What is 15% of 200?", (r"\b30\b",), no_tools=True))),
)


def select_tasks(names: Sequence[str] | None) -> list[Task]:
    """The named tasks in suite order (all when ``names`` is empty); unknown names raise ValueError."""
    if not names:
        return list(TASKS)
    known = {t.name: t for t in TASKS}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"unknown task(s) {', '.join(unknown)}; choose from {', '.join(known)}")
    return [t for t in TASKS if t.name in set(names)]


def default_skills_dir() -> Path:
    """The procedures written for this suite's goals (what the skills arm seeds by default)."""
    return Path(str(resources.files(FIXTURE_PACKAGE).joinpath("data/task_skills")))


def fixture_path(name: str) -> Path:
    path = Path(str(resources.files(FIXTURE_PACKAGE).joinpath(f"{FIXTURE_DIR}/{name}")))
    if not path.is_file():
        raise FileNotFoundError(f"task fixture {name} is missing from gaia_lite/eval/{FIXTURE_DIR}")
    return path


def prepare_workdir(task: Task, workdir: Path) -> None:
    """Copy the task's fixtures into ``workdir`` (which is created)."""
    workdir.mkdir(parents=True, exist_ok=True)
    for name, dest in task.files:
        target = workdir / dest
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(fixture_path(name), target)


def check_turn(check: Check, answer: str, called: Sequence[str]) -> list[str]:
    """The rules this answer breaks (empty = pass)."""
    failures = [f"answer lacks /{rx}/" for rx in check.expect if not re.search(rx, answer or "", re.IGNORECASE)]
    if check.no_tools and called:
        failures.append(f"called tools although none were needed: {', '.join(called)}")
    return failures


@dataclass
class TurnResult:
    turn: int
    prompt: str
    answer: str
    called: list[str]
    passed: bool
    failures: list[str]
    seconds: float
    steps: int | None
    ttft_s: float | None
    escape_hatches: int = 0
    error: str | None = None
    skills: list[str] = field(default_factory=list)  # procedures recalled for this turn
    loaded: int | None = None  # tools the prompt showed at the end of the turn


@dataclass
class TaskResult:
    task: str
    arm: str
    passed: bool
    seconds: float
    turns: list[TurnResult] = field(default_factory=list)
    setup_error: str | None = None


def _run_turn(agent: Any, index: int, check: Check) -> TurnResult:
    started = time.perf_counter()
    finished: TurnFinished | None = None
    failed: TurnFailed | None = None
    escapes = 0
    for ev in agent.run(check.prompt):
        if isinstance(ev, TurnFinished):
            finished = ev
        elif isinstance(ev, TurnFailed):
            failed = ev
        elif isinstance(ev, ToolCallFinished) and ev.escape_hatch:
            escapes += 1
    seconds = time.perf_counter() - started
    if finished is None:
        error = failed.error if failed is not None else "the turn ended without an answer"
        return TurnResult(index, check.prompt, "", [], False, [f"turn failed: {error}"], seconds, None, None,
                          escapes, error)
    called = list(finished.tools_called)
    failures = check_turn(check, finished.answer, called)
    return TurnResult(index, check.prompt, finished.answer, called, not failures, failures, seconds,
                      finished.steps, finished.ttft_s, escapes,
                      skills=list(finished.stats.get("skills", ())), loaded=len(finished.loaded_tools))


ServicesFactory = Callable[[str, Path, Path], Any]  # (arm, workdir, gaia home) -> Services
# Arms: "off" = every tool every turn; "on" = the dynamic loader; "skills" = the loader with
# procedures seeded into the fresh memory DB (the factory seeds them), for the SKILL-tier lift.
ARMS = ("off", "on", "skills")


def _run_task(task: Task, arm: str, make_services: ServicesFactory, root: Path,
              progress: Callable[[str], None]) -> TaskResult:
    workdir = root / f"{task.name}-{arm}" / "work"
    home = root / f"{task.name}-{arm}" / "home"
    prepare_workdir(task, workdir)
    started = time.perf_counter()
    log.info("EVAL_TASK %s", json.dumps({"task": task.name, "arm": arm}))
    services = make_services(arm, workdir, home)
    result = TaskResult(task.name, arm, False, 0.0)
    try:
        for rel in task.index:
            if services.rag is None:
                break
            try:
                services.rag.index_file(workdir / rel)
            except Exception as exc:  # a setup failure is reported, the task still runs
                result.setup_error = f"could not index {rel}: {exc}"
        for i, check in enumerate(task.turns, 1):
            turn = _run_turn(services.agent, i, check)
            result.turns.append(turn)
            progress(f"{task.name} [{arm}] turn {i}: {'PASS' if turn.passed else 'FAIL'} "
                     f"({turn.seconds:.1f} s, tools: {', '.join(turn.called) or 'none'})")
    finally:
        services.close()
    result.seconds = time.perf_counter() - started
    result.passed = bool(result.turns) and all(t.passed for t in result.turns)
    return result


class _LogCapture:
    """Route the gaia_lite INFO lines (TOOL_LOADER, TOOL_CALLS) into one file for the run."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.logger = logging.getLogger("gaia_lite")
        self.handler = logging.FileHandler(path, encoding="utf-8")
        self.handler.setLevel(logging.INFO)
        self.handler.setFormatter(logging.Formatter("%(asctime)s | %(levelname)s | %(name)s | %(message)s"))

    def __enter__(self) -> "_LogCapture":
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._level = self.logger.level
        if self.logger.getEffectiveLevel() > logging.INFO:
            self.logger.setLevel(logging.INFO)
        self.logger.addHandler(self.handler)
        return self

    def __exit__(self, *exc: object) -> None:
        self.logger.removeHandler(self.handler)
        self.handler.close()
        self.logger.setLevel(self._level)


def run_tasks(tasks: Iterable[Task], arms: Sequence[str], make_services: ServicesFactory, run_dir: Path, *,
              progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Run every task in every arm (interleaved per task) and return the report dict.

    ``run_dir`` receives the working dirs, the homes, ``tasks.log`` and, after every
    finished run, ``report.partial.json``.
    """
    say = progress or (lambda _msg: None)
    run_dir.mkdir(parents=True, exist_ok=True)
    log_path = run_dir / "tasks.log"
    results: list[TaskResult] = []
    with _LogCapture(log_path):
        for task in tasks:
            for arm in arms:
                results.append(_run_task(task, arm, make_services, run_dir, say))
                # a partial report after every run: a long suite on a slow machine still leaves numbers
                (run_dir / "report.partial.json").write_text(json.dumps(summarize(results, arms)))
    report = summarize(results, arms)
    report["log"] = str(log_path)
    if "on" in arms or "skills" in arms:  # the off arm logs no TOOL_LOADER lines
        report["log_score"] = score_file(log_path).to_dict()
    return report


def summarize(results: Sequence[TaskResult], arms: Sequence[str]) -> dict[str, Any]:
    per_arm: dict[str, Any] = {}
    for arm in arms:
        mine = [r for r in results if r.arm == arm]
        turns = [t for r in mine for t in r.turns]
        tool_turns = [t for t in turns if t.called]
        loaded = [t.loaded for t in turns if t.loaded is not None]
        per_arm[arm] = {
            "tasks": len(mine),
            "passed": sum(r.passed for r in mine),
            "success": round(sum(r.passed for r in mine) / len(mine), 4) if mine else None,
            "turns": len(turns),
            "turns_passed": sum(t.passed for t in turns),
            "turn_success": round(sum(t.passed for t in turns) / len(turns), 4) if turns else None,
            "tool_calls": sum(len(t.called) for t in turns),
            "turns_with_tools": len(tool_turns),
            "escape_hatches": sum(t.escape_hatches for t in turns),
            "skill_turns": sum(bool(t.skills) for t in turns),
            "mean_loaded": round(sum(loaded) / len(loaded), 2) if loaded else None,
            "model_calls": sum(t.steps or 0 for t in turns),
            "failed_turns": sum(t.error is not None for t in turns),
            "seconds": round(sum(r.seconds for r in mine), 1),
        }
    return {"arms": per_arm, "tasks": [asdict(r) for r in results]}
