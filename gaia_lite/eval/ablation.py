"""What each guard of the answer judge earns: the pure half of ``scripts/ablate_judge.py``.

Phase 1 runs the ``on`` arm of ``eval tasks``; each turn records the guards that acted on its replies.
Phase 2 re-runs, per guard, only the tasks it fired in, with the arm ``skip:GUARD``. A guard that never
acted in a run cannot have changed that run's outcome, so only those tasks can differ. This module reads
the two reports and counts, per guard: the turns it fired on, the task runs it turned from fail to pass
(gains: pass with it, fail without), from pass to fail (losses), and the seconds per task it added.

With ``--repeat N`` a task counts up to N times: per task, gains are the passes the ``on`` arm has over
the ``skip`` arm (losses the reverse), so two arms that pass a task equally often differ by nothing,
whichever runs passed. The model samples (temperature 0.1): a gain or loss of one run is weak evidence.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

__all__ = ["TaskRuns", "Fired", "Tally", "GuardCell", "task_runs", "fired_in", "compare", "guard_cell",
           "render_table", "model_label", "SuitePart"]


@dataclass(frozen=True)
class TaskRuns:
    """One task in one arm: its runs, how many passed, and their seconds summed."""

    runs: int = 0
    passed: int = 0
    seconds: float = 0.0


@dataclass(frozen=True)
class Fired:
    """Where a guard acted in one report: the turns, and the tasks of those turns (suite order)."""

    turns: int
    tasks: tuple[str, ...]


@dataclass(frozen=True)
class Tally:
    """Phase 2's comparison over some tasks (sums, so suites add up)."""

    tasks: int = 0  # tasks compared
    gains: int = 0  # task runs that pass with the guard and fail without it
    losses: int = 0  # task runs that fail with the guard and pass without it
    on_runs: int = 0
    on_seconds: float = 0.0
    skip_runs: int = 0
    skip_seconds: float = 0.0
    missing: tuple[str, ...] = ()  # tasks the skip report lacks, or ran a different number of times

    def __add__(self, other: "Tally") -> "Tally":
        return Tally(self.tasks + other.tasks, self.gains + other.gains, self.losses + other.losses,
                     self.on_runs + other.on_runs, self.on_seconds + other.on_seconds,
                     self.skip_runs + other.skip_runs, self.skip_seconds + other.skip_seconds,
                     self.missing + other.missing)

    @property
    def seconds_added(self) -> float | None:
        """Mean seconds per task run with the guard minus without it, over the tasks compared."""
        if not self.on_runs or not self.skip_runs:
            return None
        return round(self.on_seconds / self.on_runs - self.skip_seconds / self.skip_runs, 2)


@dataclass(frozen=True)
class GuardCell:
    """One guard and one model over the suites: where it fired, and phase 2's tally so far."""

    fired_turns: int = 0
    fired_tasks: int = 0
    tally: Tally = field(default_factory=Tally)
    pending: int = 0  # suites where it fired whose skip run has not finished


def task_runs(report: Mapping[str, Any], arm: str) -> dict[str, TaskRuns]:
    """Per task of ``arm`` in an ``eval tasks`` report (its ``tasks`` list): runs, passes, seconds."""
    found: dict[str, TaskRuns] = {}
    for t in report.get("tasks", ()):
        if t["arm"] != arm:
            continue
        was = found.get(t["task"], TaskRuns())
        found[t["task"]] = TaskRuns(was.runs + 1, was.passed + bool(t["passed"]), was.seconds + float(t["seconds"]))
    return found


def fired_in(report: Mapping[str, Any], arm: str = "on") -> dict[str, Fired]:
    """Per guard that acted in ``arm``: the turns it acted on (once a turn) and the tasks they belong to."""
    turns: dict[str, int] = defaultdict(int)
    tasks: dict[str, dict[str, None]] = defaultdict(dict)  # an ordered set: suite order
    for t in report.get("tasks", ()):
        if t["arm"] != arm:
            continue
        for turn in t["turns"]:
            for guard in set(turn.get("guards") or ()):
                turns[guard] += 1
                tasks[guard][t["task"]] = None
    return {g: Fired(turns[g], tuple(tasks[g])) for g in sorted(turns)}


def compare(on: Mapping[str, TaskRuns], skip: Mapping[str, TaskRuns], tasks: Iterable[str]) -> Tally:
    """The ``on`` arm against the ``skip`` arm over ``tasks``: task runs gained and lost by the guard,
    and the seconds on each side. A task either side lacks, or ran a different number of times, is
    listed in ``missing`` and not compared."""
    total = Tally()
    for task in tasks:
        a, b = on.get(task), skip.get(task)
        if a is None or b is None or a.runs != b.runs or not a.runs:
            total = total + Tally(missing=(task,))
            continue
        total = total + Tally(1, max(0, a.passed - b.passed), max(0, b.passed - a.passed),
                              a.runs, a.seconds, b.runs, b.seconds)
    return total


# One suite of one model for one guard: where it fired in the on arm (None: never), the on arm's task runs,
# and the skip arm's (None: phase 2 has not run there).
SuitePart = tuple[Fired | None, Mapping[str, TaskRuns], Mapping[str, TaskRuns] | None]


def guard_cell(parts: Iterable[SuitePart]) -> GuardCell:
    """One guard over the suites of one model, a ``SuitePart`` per suite."""
    cell = GuardCell()
    for fired, on, skip in parts:
        if fired is None or not fired.tasks:
            continue
        tally = cell.tally if skip is None else cell.tally + compare(on, skip, fired.tasks)
        cell = GuardCell(cell.fired_turns + fired.turns, cell.fired_tasks + len(fired.tasks), tally,
                         cell.pending + (skip is None))
    return cell


def model_label(model: str) -> str:
    """qwen2.5-coder-0.5b -> 0.5b: a column header that fits."""
    return model.removeprefix("qwen2.5-coder-")


def _cells(cell: GuardCell | None) -> list[str]:
    """fired, gains, losses, seconds: '·' where the guard never fired, '…' where phase 2 is pending."""
    if cell is None or not cell.fired_turns:
        return ["0", "·", "·", "·"]
    fired = f"{cell.fired_turns} ({cell.fired_tasks})"
    if cell.pending:
        return [fired, "…", "…", "…"]
    added = cell.tally.seconds_added
    return [fired, str(cell.tally.gains), str(cell.tally.losses), "-" if added is None else f"{added:+.1f}"]


def render_table(cells: Mapping[tuple[str, str], GuardCell], guards: Sequence[str], models: Sequence[str]) -> str:
    """The Markdown table: a row per guard (in ``guards`` order), per model four columns: turns fired
    (tasks), gains, losses, seconds added per task. Guard names are plain, not code: the guards table
    of docs/architecture.md is the one whose rows name them in backticks."""
    head = ["guard"] + [f"{model_label(m)} {c}" for m in models
                        for c in ("fired (tasks)", "gains", "losses", "s/task")]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for g in guards:
        row = [g] + [c for m in models for c in _cells(cells.get((g, m)))]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines) + "\n"
