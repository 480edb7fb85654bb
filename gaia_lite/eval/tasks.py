"""An end-to-end task suite: the real agent, a real model, fixture files, fixed answers.

``gaia-lite eval tasks`` runs each task of a suite (``gaia_lite.eval.suite``;
the built-in one is ``data/tasks/builtin.json``) once per arm, in a fresh
temporary working directory with a fresh gaia-lite data dir, and checks every
answer with deterministic rules: regexes for the expected facts, "no tool
calls" where none are needed, regexes over files a task should have written.

Besides success, each turn records what went wrong on the way: **invalid
calls** (an unknown tool or arguments that do not fit the schema: the
executor refused them before running), **malformed** answers (a call the
parser could not read, left as JSON in the answer) and **narrated** turns (an
answer that names a tool instead of calling it: "use the `browse_directory`
tool with ..." or just "list_recent_files").

``--repeat N`` runs the suite N times (run-major: each run is a whole pass)
and reports the mean and spread of tasks passed per arm, per split (dev /
test, from the suite's ``split`` marks) and per class; small models sample.
**Ungrounded** turns are answers whose specifics (numbers, file names, names) nothing the conversation
showed holds: its tool results, the user's messages, the saved facts shown (``grounding.ungrounded_in``). Each turn also records the judge's
guards that acted on its replies (``TurnFinished.guards``), and each arm counts, per guard, the turns it
acted on (``guards_fired``); a ``skip:NAME`` arm runs ``on`` with those guards off (``eval/arms.py``).

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
import statistics
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from gaia_lite.agent.replies import names_a_tool
from gaia_lite.events import ModelCallFinished, ToolCallFinished, TurnFailed, TurnFinished

from .arms import live_folder, task_folder
from .grounding import result_text, ungrounded_in
from .logscore import score_file
from .suite import Suite, Task, Turn, builtin_suite_path, check_answer, check_files_after, load_suite

__all__ = ["ARMS", "default_skills_dir", "Task", "Turn", "TASKS", "TurnResult", "TaskResult", "fixture_path",
           "prepare_workdir", "check_turn", "run_tasks", "summarize", "select_tasks", "builtin_suite",
           "is_narrated", "is_malformed", "inside", "pass_spread", "guards_fired", "finished_before"]

log = logging.getLogger("gaia_lite.eval.tasks")

FIXTURE_PACKAGE = "gaia_lite.eval"
FIXTURE_DIR = "data/tasks"


def builtin_suite() -> Suite:
    return load_suite(builtin_suite_path())


def select_tasks(names: Sequence[str] | None, suite: Suite | None = None) -> list[Task]:
    """The named tasks of ``suite`` (default: the built-in one) in suite order; unknown names raise ValueError."""
    return (suite or builtin_suite()).select(list(names or ()))


def default_skills_dir() -> Path:
    """The procedures written for this suite's goals (what the skills arm seeds by default)."""
    return Path(str(resources.files(FIXTURE_PACKAGE).joinpath("data/task_skills")))


def fixture_path(name: str) -> Path:
    path = Path(str(resources.files(FIXTURE_PACKAGE).joinpath(f"{FIXTURE_DIR}/{name}")))
    if not path.is_file():
        raise FileNotFoundError(f"task fixture {name} is missing from gaia_lite/eval/{FIXTURE_DIR}")
    return path


def prepare_workdir(task: Task, workdir: Path) -> None:
    """Create ``workdir`` with the task's text files and copied fixtures."""
    workdir.mkdir(parents=True, exist_ok=True)
    for dest, text in task.files:
        target = workdir / dest
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    for dest, source in task.copy:
        target = workdir / dest
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)


def check_turn(turn: Turn, answer: str, called: Sequence[str]) -> list[str]:
    """The rules this answer breaks (empty = pass)."""
    return check_answer(turn, answer, list(called))


def inside(workdir: Path, arguments: dict[str, Any]) -> bool:
    """Do all path-like arguments of a call stay inside ``workdir``? (What the suite's approver asks
    before a gated tool runs: writes, edits and shell commands are allowed in the task's temp dir only.)"""
    root = workdir.resolve()
    for key, value in arguments.items():
        if not isinstance(value, str) or not re.search(r"path|file|dir|folder|cwd", key, re.IGNORECASE):
            continue
        target = (root / Path(value).expanduser()).resolve()
        if target != root and root not in target.parents:
            return False
    return True


_MALFORMED = re.compile(r"[{\[]\s*[\"']?(name|tool|tool_name|function|arguments|tool_args)[\"']?\s*:", re.IGNORECASE)


def is_malformed(answer: str) -> bool:
    """An answer holding what was meant as a call (a JSON object with a name or arguments key)."""
    return bool(_MALFORMED.search(answer or ""))


def is_narrated(answer: str, tool_names: Iterable[str]) -> bool:
    """An answer that names a registered tool: a call described in prose, or a bare tool name,
    instead of a call made. (Tool names are snake_case identifiers a user-facing answer has no
    reason to contain.)"""
    return names_a_tool(answer or "", tool_names)


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
    tool_calls: int = 0  # calls the model made, whatever their outcome
    invalid_calls: int = 0  # unknown tool or bad arguments: refused before running
    malformed: bool = False  # the answer holds an unreadable call
    narrated: bool = False  # the answer names a tool instead of calling it
    ungrounded: bool = False  # the answer states specifics nothing shown holds (grounding.ungrounded_in)
    origin: str = "model"  # where the answer came from: model, amended or built (TurnFinished.origin)
    guards: list[str] = field(default_factory=list)  # the judge's guards that acted on a reply (TurnFinished.guards)
    calls: list[dict[str, Any]] = field(default_factory=list)  # each call: name, arguments, outcome, seconds (to read a failure)
    # each model call: seconds, prompt tokens, of them cached, and tokens written (where the time went)
    model_calls: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class TaskResult:
    task: str
    arm: str
    passed: bool
    seconds: float
    turns: list[TurnResult] = field(default_factory=list)
    setup_error: str | None = None
    files_failures: list[str] = field(default_factory=list)
    task_class: str = ""
    split: str | None = None
    run: int = 1  # which of the --repeat runs


@dataclass
class _Shown:
    """What a task's conversation has shown the model before this turn: the user's messages and the tool results
    (evidence for ``ungrounded_in``). A new conversation starts it again."""

    messages: list[str] = field(default_factory=list)
    results: list[str] = field(default_factory=list)


def _run_turn(agent: Any, index: int, turn: Turn, tool_names: Sequence[str], shown: _Shown) -> TurnResult:
    started = time.perf_counter()
    shown.messages.append(turn.prompt)
    results: list[ToolCallFinished] = []
    finished: TurnFinished | None = None
    failed: TurnFailed | None = None
    escapes = calls = invalid = 0
    made: list[dict[str, Any]] = []
    steps: list[dict[str, Any]] = []
    for ev in agent.run(turn.prompt):
        if isinstance(ev, TurnFinished):
            finished = ev
        elif isinstance(ev, TurnFailed):
            failed = ev
        elif isinstance(ev, ToolCallFinished):
            results.append(ev)
            calls += 1
            escapes += ev.escape_hatch
            invalid += getattr(ev, "outcome", "") == "invalid"
            made.append({"name": ev.name, "arguments": ev.arguments, "outcome": ev.outcome,
                         "seconds": round(ev.duration_s, 3)})
        elif isinstance(ev, ModelCallFinished):
            steps.append({"seconds": _rounded(ev.total_s), "ttft_s": _rounded(ev.ttft_s), "prompt_tokens": ev.prompt_tokens,
                          "cached_tokens": ev.cached_tokens, "completion_tokens": ev.completion_tokens})
    seconds = time.perf_counter() - started
    if finished is None:
        error = failed.error if failed is not None else "the turn ended without an answer"
        return TurnResult(index, turn.prompt, "", [], False, [f"turn failed: {error}"], seconds, None, None,
                          escapes, error, tool_calls=calls, invalid_calls=invalid, calls=made, model_calls=steps)
    ungrounded = ungrounded_in(finished.answer, results, shown.results, shown.messages, finished.facts) is not None
    shown.results.extend(map(result_text, results))
    called = list(finished.tools_called)
    failures = check_turn(turn, finished.answer, called)
    return TurnResult(index, turn.prompt, finished.answer, called, not failures, failures, seconds,
                      finished.steps, finished.ttft_s, escapes,
                      skills=list(finished.stats.get("skills", ())), loaded=len(finished.loaded_tools),
                      tool_calls=calls, invalid_calls=invalid, malformed=is_malformed(finished.answer),
                      narrated=is_narrated(finished.answer, tool_names), calls=made, model_calls=steps,
                      ungrounded=ungrounded, origin=finished.origin, guards=list(finished.guards))


def _rounded(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds, 3)


ServicesFactory = Callable[[str, Path, Path], Any]  # (arm, workdir, gaia home) -> Services
# Arms: "off" = every tool every turn; "on" = the dynamic loader; "free" = the loader with constrained
# calls turned off (calls parsed from free text); "gbnf" = the loader with replies held to a GBNF
# grammar (prose or one call), to compare with "on"'s JSON schema; "answer-first" = the first JSON-schema
# shape, {"answer"} beside {"name", "arguments"}, where "on" starts every reply with the choice
# ({"tool": <name> | "none", ...}) (the reply modes: docs/architecture.md, Glossary); "skills" = the
# loader with procedures seeded into the fresh memory DB (the factory seeds them), for the SKILL-tier lift;
# "nobridge" = "free" without the native path's call_tool bridge (prompt layout "append": a tool admitted
# later is appended to the tools array), so the bridge's effect on task success is measured side by side.
# Besides these, "skip:NAME[+NAME...]" is "on" with those guards of the judge off (eval/arms.py).
ARMS = ("off", "on", "free", "gbnf", "answer-first", "skills", "nobridge")
ORIGINS = ("model", "amended", "built")  # where a turn's answer came from (TurnFinished.origin)


def _new_conversation(agent: Any) -> None:
    """A fresh conversation for the same user: history and loader session go, memory stays."""
    start = getattr(agent, "new_conversation", None) or getattr(agent, "reset", None)
    if start is not None:
        start()


def _tool_names(services: Any) -> list[str]:
    registry = getattr(services, "registry", None)
    names = getattr(registry, "names", None)
    return list(names()) if callable(names) else []


def _run_task(task: Task, arm: str, make_services: ServicesFactory, root: Path,
              progress: Callable[[str], None], folder: str, run: int = 1, runs: int = 1,
              seed: int | None = None) -> TaskResult:
    workdir = root / folder / "work"
    home = root / folder / "home"
    prepare_workdir(task, workdir)
    started = time.perf_counter()
    log.info("EVAL_TASK %s", json.dumps({"task": task.id, "arm": arm} | ({"run": run} if runs > 1 else {})))
    services = make_services(arm, workdir, home)
    options = getattr(services.agent, "options", None)
    if seed is not None and options is not None:  # every arm of a run samples alike: they differ where inputs do
        options.seed = seed + run - 1
    result = TaskResult(task.id, arm, False, 0.0, task_class=task.task_class, split=task.split, run=run)
    label = f"{task.id} [{arm}{'' if runs == 1 else f' run {run}'}]"
    try:
        names = _tool_names(services)
        for rel in task.index:
            if services.rag is None:
                break
            try:
                services.rag.index_file(workdir / rel)
            except Exception as exc:  # a setup failure is reported, the task still runs
                result.setup_error = f"could not index {rel}: {exc}"
        shown = _Shown()
        for i, turn in enumerate(task.turns, 1):
            if turn.new_conversation and i > 1:
                _new_conversation(services.agent)
                shown = _Shown()
            outcome = _run_turn(services.agent, i, turn, names, shown)
            result.turns.append(outcome)
            progress(f"{label} turn {i}: {'PASS' if outcome.passed else 'FAIL'} "
                     f"({outcome.seconds:.1f} s, tools: {', '.join(outcome.called) or 'none'})")
    finally:
        services.close()
    result.files_failures = check_files_after(task, workdir)
    for failure in result.files_failures:
        progress(f"{label}: {failure}")
    result.seconds = time.perf_counter() - started
    result.passed = bool(result.turns) and all(t.passed for t in result.turns) and not result.files_failures
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


Finished = dict[tuple[str, str, int], "TaskResult"]  # (task, arm, run) -> its result, from a stopped run


def finished_before(run_dir: Path, arms: Sequence[str]) -> Finished:
    """The task runs a stopped ``eval tasks`` left in ``run_dir`` (its ``report.partial.json``), for ``--resume``:
    only a task whose every arm finished in a run counts, so the arms stay interleaved per task. ValueError,
    saying what to do, when there is nothing to resume or it ran other arms."""
    partial = run_dir / "report.partial.json"
    try:
        rows = json.loads(partial.read_text(encoding="utf-8"))["tasks"]
        done = {(r["task"], r["arm"], r["run"]): TaskResult(**{**r, "turns": [TurnResult(**t) for t in r["turns"]]})
                for r in rows}
    except FileNotFoundError:
        raise ValueError(f"nothing to resume in {run_dir}: it holds no report.partial.json; run without --resume")
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{partial} cannot be resumed ({type(exc).__name__}: {exc}); run again into a new --out")
    other = sorted({arm for _, arm, _ in done} - set(arms))
    if other:
        raise ValueError(f"{run_dir} was run with the arms {', '.join(other)} too; resume it with the same --arms")
    whole = {(task, run) for task, _, run in done if all((task, arm, run) in done for arm in arms)}
    return {key: result for key, result in done.items() if (key[0], key[2]) in whole}


def run_tasks(tasks: Iterable[Task], arms: Sequence[str], make_services: ServicesFactory, run_dir: Path, *,
              progress: Callable[[str], None] | None = None, repeat: int = 1,
              finished: Finished | None = None, seed: int | None = None,
              before_each: Callable[[], object] | None = None) -> dict[str, Any]:
    """Run every task in every arm (interleaved per task), ``repeat`` times over (each run a whole
    pass, so a stopped run leaves whole runs behind), and return the report dict.

    ``run_dir`` receives the working dirs and homes (a folder per task run, named by ``task_folder`` and mapped
    to its task, arm and run in ``tasks.tsv``; each arm works in the run's ``live_folder`` first, so the path in
    the prompt is the same in every arm), ``tasks.log`` and, after every finished task,
    ``report.partial.json``. ``finished`` (``finished_before``, for ``--resume``): task runs kept as they are, not
    run again; any other task run's folder starts afresh. ``seed``: run N's requests, in every arm, carry the
    sampler seed ``seed + N - 1``, so two arms given the same input reply alike and differ only where they differ.
    ``before_each`` is called before every task run (``eval tasks --seed``: empty the server's prompt cache).
    """
    if repeat < 1:
        raise ValueError(f"repeat must be >= 1, got {repeat}")
    say = progress or (lambda _msg: None)
    run_dir.mkdir(parents=True, exist_ok=True)
    log_path = run_dir / "tasks.log"
    chosen = list(tasks)
    results: list[TaskResult] = []
    kept = finished or {}
    folders = run_dir / "tasks.tsv"
    folders.write_text("folder\ttask\tarm\trun\n")
    with _LogCapture(log_path):
        for run in range(1, repeat + 1):
            for number, task in enumerate(chosen, 1):
                for arm_number, arm in enumerate(arms):
                    folder = task_folder(task.number or number, arm_number, run, repeat)
                    with folders.open("a") as out:
                        out.write(f"{folder}\t{task.id}\t{arm}\t{run}\n")
                    if (task.id, arm, run) in kept:
                        results.append(kept[(task.id, arm, run)])
                        continue
                    live = live_folder(task.number or number)
                    for stale in (folder, live):  # a stopped run's: what its task wrote must not meet the new run
                        shutil.rmtree(run_dir / stale, ignore_errors=True)
                    if before_each is not None:
                        before_each()
                    try:
                        results.append(_run_task(task, arm, make_services, run_dir, say, live, run, repeat, seed))
                    finally:
                        if (run_dir / live).exists():
                            (run_dir / live).rename(run_dir / folder)
                    # a partial report after every task: a long suite on a slow machine still leaves numbers
                    (run_dir / "report.partial.json").write_text(json.dumps(summarize(results, arms)))
    report = summarize(results, arms)
    report["repeat"] = repeat
    report["seed"] = seed
    report["log"] = str(log_path)
    if set(arms) - {"off"}:  # the off arm logs no TOOL_LOADER lines
        report["log_score"] = score_file(log_path).to_dict()
    return report


def pass_spread(results: Sequence[TaskResult]) -> dict[str, Any]:
    """Tasks passed per run, and their mean and spread over the runs (stdev 0.0 for one run).

    A run where a task was not reached (a stopped suite) counts only the tasks it reached, so a
    partial report is honest about what ran: ``tasks_per_run`` is the most any run reached."""
    runs = sorted({r.run for r in results})
    per_run = [sum(r.passed for r in results if r.run == k) for k in runs]
    reached = [sum(1 for r in results if r.run == k) for k in runs]
    mean = statistics.fmean(per_run) if per_run else None
    tasks_per_run = max(reached, default=0)
    return {
        "runs": len(runs),
        "tasks_per_run": tasks_per_run,
        "passed_per_run": per_run,
        "passed_mean": round(mean, 3) if mean is not None else None,
        "passed_min": min(per_run, default=None),
        "passed_max": max(per_run, default=None),
        "passed_stdev": round(statistics.stdev(per_run), 3) if len(per_run) > 1 else (0.0 if per_run else None),
        "success_mean": round(mean / tasks_per_run, 4) if mean is not None and tasks_per_run else None,
    }


def _turn_counts(mine: Sequence[TaskResult]) -> dict[str, Any]:
    """What went wrong on the way, over every turn of these task runs (per arm, and per split)."""
    turns = [t for r in mine for t in r.turns]
    return {
        "turns": len(turns),
        "turns_passed": sum(t.passed for t in turns),
        "turn_success": round(sum(t.passed for t in turns) / len(turns), 4) if turns else None,
        "invalid_calls": sum(t.invalid_calls for t in turns),
        "malformed_turns": sum(t.malformed for t in turns),
        "narrated_turns": sum(t.narrated for t in turns),
        "ungrounded_turns": sum(t.ungrounded for t in turns),
        "answers": {o: sum(t.origin == o for t in turns) for o in ORIGINS},
        # answers the agent built, among the turns that passed: the model should do the task, not the agent
        "built_share_of_passed": round(sum(t.passed and t.origin == "built" for t in turns)
                                       / max(1, sum(t.passed for t in turns)), 4),
        "seconds_per_task": round(sum(r.seconds for r in mine) / len(mine), 1) if mine else None,
    }


def _groups(mine: Sequence[TaskResult], key: Callable[[TaskResult], str]) -> dict[str, Any]:
    keys = sorted({key(r) for r in mine})
    return {k: {**pass_spread([r for r in mine if key(r) == k]), **_turn_counts([r for r in mine if key(r) == k])}
            for k in keys}


def summarize(results: Sequence[TaskResult], arms: Sequence[str]) -> dict[str, Any]:
    """Per arm: success over every task run (``tasks``/``passed`` count runs x tasks), the mean and
    spread over runs, what went wrong on the way, and the same per split and per class when the
    suite marks them. Every key of a one-run report before splits is still there, same meaning."""
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
            **_turn_counts(mine),
            "tool_calls": sum(max(t.tool_calls, len(t.called)) for t in turns),
            "turns_with_tools": len(tool_turns),
            "files_failed": sum(bool(r.files_failures) for r in mine),
            "mean_first_ttft_s": _mean([r.turns[0].ttft_s for r in mine if r.turns]),
            "escape_hatches": sum(t.escape_hatches for t in turns),
            "skill_turns": sum(bool(t.skills) for t in turns),
            "mean_loaded": round(sum(loaded) / len(loaded), 2) if loaded else None,
            "model_calls": sum(t.steps or 0 for t in turns),
            "failed_turns": sum(t.error is not None for t in turns),
            "seconds": round(sum(r.seconds for r in mine), 1),
            "time": _where_time_went(turns),
            "guards_fired": guards_fired(turns),
            **pass_spread(mine),
        }
        if any(r.split for r in mine):
            per_arm[arm]["by_split"] = _groups(mine, lambda r: r.split or "unmarked")
        if any(r.task_class for r in mine):
            per_arm[arm]["by_class"] = _groups(mine, lambda r: r.task_class or "unclassed")
    return {"arms": per_arm, "tasks": [asdict(r) for r in results]}


def guards_fired(turns: Sequence[TurnResult]) -> dict[str, int]:
    """Per guard of the agent's judge, the turns it acted on (once per turn, however often it acted in it)."""
    counts = Counter(g for t in turns for g in set(t.guards))
    return dict(sorted(counts.items()))


def _where_time_went(turns: Sequence[TurnResult]) -> dict[str, Any]:
    """The turns' seconds in model calls and in tools, and the tokens the server prefilled (prompt tokens
    not in its cache) and wrote: on a CPU these decide a task's wall time."""
    steps = [s for t in turns for s in t.model_calls]
    return {
        "model_seconds": round(sum(s["seconds"] or 0.0 for s in steps), 1),
        "tool_seconds": round(sum(c.get("seconds", 0.0) for t in turns for c in t.calls), 1),
        "prefilled_tokens": sum((s["prompt_tokens"] or 0) - (s["cached_tokens"] or 0) for s in steps),
        "written_tokens": sum(s["completion_tokens"] or 0 for s in steps),
    }


def _mean(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return round(sum(known) / len(known), 3) if known else None
