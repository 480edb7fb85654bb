"""Task suites as JSON files: what ``gaia-lite eval tasks --suite FILE.json`` reads.

A suite is data, so anyone can grow it or hold one out without touching code::

    {"name": "my suite", "tasks": [{"id": "csv_total",
      "description": "optional",
      "files": {"sales.csv": "region,q1\\nnorth,120\\n"},
      "copy": {"docs/report.pdf": "fixtures/report.pdf"},
      "index": ["docs/report.pdf"],
      "turns": [{"prompt": "...", "expect": ["\\\\b270\\\\b"], "reject": ["..."],
                 "no_tools": false, "new_conversation": false}],
      "files_after": {"config.ini": ["port = 9090"]},
      "class": "data", "split": "test"}]}

- ``files``: text files created in the task's fresh working dir;
- ``copy``: working-dir path -> a file relative to the suite file;
- ``index``: working-dir paths put into the document index before the first turn;
- ``expect`` / ``reject``: case-insensitive regexes the final answer must / must not match;
- ``no_tools``: the turn must finish without a tool call;
- ``new_conversation``: start a new conversation first (memory is kept);
- ``files_after``: regexes a working-dir file must match once the task is over;
- ``class`` (optional): the failure class the task probes (letters, digits, _ -), for per-class reports
  and for drawing splits stratified by class;
- ``split`` (optional): ``dev`` (tune on it) or ``test`` (held out: report, never tune); a task
  without one belongs to neither and runs only with ``--split all``.

``load_suite`` checks all of it up front and raises ``SuiteError`` naming the
task and the field, so a typo never costs a model run.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from dataclasses import dataclass
from importlib import resources
from pathlib import Path, PurePosixPath
from typing import Any

from gaia_lite.errors import InputError
from gaia_lite.jsonfile import read_json

__all__ = ["SuiteError", "Turn", "Task", "Suite", "SPLITS", "load_suite", "builtin_suite_path", "check_answer",
           "check_files_after", "draw_test_split"]

SPLITS = ("dev", "test")


class SuiteError(InputError, ValueError):
    """A suite file that cannot be run, with what is wrong and where."""


@dataclass(frozen=True)
class Turn:
    """One user turn and the rules its answer must meet."""

    prompt: str
    expect: tuple[str, ...] = ()  # every one must match the answer (case-insensitive)
    reject: tuple[str, ...] = ()  # none may match
    no_tools: bool = False  # the turn must finish without any tool call
    new_conversation: bool = False  # a fresh conversation before this turn; memory stays


@dataclass(frozen=True)
class Task:
    id: str
    turns: tuple[Turn, ...]
    description: str = ""
    files: tuple[tuple[str, str], ...] = ()  # (working-dir path, text)
    copy: tuple[tuple[str, Path], ...] = ()  # (working-dir path, source file)
    index: tuple[str, ...] = ()  # working-dir paths indexed before the first turn
    files_after: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (working-dir path, regexes)
    task_class: str = ""  # the failure class it probes ("class" in the file)
    split: str | None = None  # "dev", "test" or unmarked
    number: int = 0  # its place in the suite file, from 1 (0: not from a file); names its folders in a run

    @property
    def name(self) -> str:
        return self.id


@dataclass(frozen=True)
class Suite:
    name: str
    tasks: tuple[Task, ...]
    path: Path

    def select(self, ids: list[str] | tuple[str, ...] | None, split: str = "all") -> list[Task]:
        """The named tasks in suite order (all when ``ids`` is empty), kept to ``split`` (dev, test or
        all); unknown ids, an unknown split or an empty selection raise SuiteError."""
        if split != "all" and split not in SPLITS:
            raise SuiteError(f"split {split!r} is unknown; choose dev, test or all")
        chosen = list(self.tasks)
        if ids:
            known = {t.id for t in self.tasks}
            unknown = [i for i in ids if i not in known]
            if unknown:
                raise SuiteError(f"unknown task(s) {', '.join(unknown)} in suite {self.name!r}; "
                                 f"choose from {', '.join(t.id for t in self.tasks)}")
            chosen = [t for t in chosen if t.id in set(ids)]
        if split != "all":
            chosen = [t for t in chosen if t.split == split]
            if not chosen:
                raise SuiteError(f"no task{' of ' + ', '.join(ids) if ids else ''} is in the {split} split of "
                                 f"suite {self.name!r}; mark tasks with \"split\": \"{split}\" or use --split all")
        return chosen


def builtin_suite_path() -> Path:
    return Path(str(resources.files("gaia_lite.eval").joinpath("data/tasks/builtin.json")))


def _rel_path(value: Any, where: str) -> str:
    """A relative path that stays inside the working dir."""
    if not isinstance(value, str) or not value.strip():
        raise SuiteError(f"{where}: expected a relative path, got {value!r}")
    p = PurePosixPath(value)
    if p.is_absolute() or ".." in p.parts:
        raise SuiteError(f"{where}: {value!r} must be a relative path inside the task's working dir")
    return value


def _regexes(value: Any, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise SuiteError(f"{where}: expected a list of regular expressions")
    for rx in value:
        try:
            re.compile(rx)
        except re.error as exc:
            raise SuiteError(f"{where}: /{rx}/ is not a valid regular expression ({exc})") from None
    return tuple(value)


def _str_map(value: Any, where: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise SuiteError(f"{where}: expected an object of path -> value")
    return value


_TURN_KEYS = {"prompt", "expect", "reject", "no_tools", "new_conversation"}
_TASK_KEYS = {"id", "description", "files", "copy", "index", "turns", "files_after", "class", "split"}


def _turn(raw: Any, where: str) -> Turn:
    if isinstance(raw, str):
        raw = {"prompt": raw}
    if not isinstance(raw, dict):
        raise SuiteError(f"{where}: expected an object with a prompt")
    extra = set(raw) - _TURN_KEYS
    if extra:
        raise SuiteError(f"{where}: unknown field(s) {', '.join(sorted(extra))}; "
                         f"expected {', '.join(sorted(_TURN_KEYS))}")
    prompt = raw.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        raise SuiteError(f"{where}: prompt must be a non-empty string")
    for flag in ("no_tools", "new_conversation"):
        if not isinstance(raw.get(flag, False), bool):
            raise SuiteError(f"{where}: {flag} must be true or false")
    return Turn(prompt, _regexes(raw.get("expect"), f"{where}.expect"), _regexes(raw.get("reject"), f"{where}.reject"),
                raw.get("no_tools", False), raw.get("new_conversation", False))


def _task(raw: Any, where: str, base: Path, number: int = 0) -> Task:
    if not isinstance(raw, dict):
        raise SuiteError(f"{where}: expected an object")
    tid = raw.get("id")
    if not isinstance(tid, str) or not re.fullmatch(r"[A-Za-z0-9_.-]+", tid):
        raise SuiteError(f"{where}: id must be a name of letters, digits, _ . - (got {tid!r})")
    where = f"task {tid!r}"
    extra = set(raw) - _TASK_KEYS
    if extra:
        raise SuiteError(f"{where}: unknown field(s) {', '.join(sorted(extra))}; "
                         f"expected {', '.join(sorted(_TASK_KEYS))}")
    turns = raw.get("turns")
    if not isinstance(turns, list) or not turns:
        raise SuiteError(f"{where}: turns must be a non-empty list")
    files = []
    for dest, text in _str_map(raw.get("files"), f"{where}.files").items():
        if not isinstance(text, str):
            raise SuiteError(f"{where}.files[{dest!r}]: expected the file's text")
        files.append((_rel_path(dest, f"{where}.files"), text))
    copies = []
    for dest, src in _str_map(raw.get("copy"), f"{where}.copy").items():
        if not isinstance(src, str):
            raise SuiteError(f"{where}.copy[{dest!r}]: expected a path relative to the suite file")
        source = (base / src).resolve()
        if not source.is_file():
            raise SuiteError(f"{where}.copy[{dest!r}]: {source} does not exist")
        copies.append((_rel_path(dest, f"{where}.copy"), source))
    index = raw.get("index") or []
    if not isinstance(index, list):
        raise SuiteError(f"{where}.index: expected a list of working-dir paths")
    present = {d for d, _ in files} | {d for d, _ in copies}
    for rel in index:
        if _rel_path(rel, f"{where}.index") not in present:
            raise SuiteError(f"{where}.index: {rel!r} is not among the task's files or copies")
    after = tuple((_rel_path(p, f"{where}.files_after"), _regexes(rx, f"{where}.files_after[{p!r}]"))
                  for p, rx in _str_map(raw.get("files_after"), f"{where}.files_after").items())
    description = raw.get("description", "")
    if not isinstance(description, str):
        raise SuiteError(f"{where}.description: expected a string")
    task_class = raw.get("class", "")
    if not isinstance(task_class, str) or (task_class and not re.fullmatch(r"[A-Za-z0-9_-]+", task_class)):
        raise SuiteError(f"{where}.class: expected a name of letters, digits, _ - (got {task_class!r})")
    split = raw.get("split")
    if split is not None and split not in SPLITS:
        raise SuiteError(f"{where}.split: expected \"dev\" or \"test\" (got {split!r})")
    return Task(tid, tuple(_turn(t, f"{where} turn {i}") for i, t in enumerate(turns, 1)), description,
                tuple(files), tuple(copies), tuple(index), after, task_class, split, number)


def load_suite(path: Path) -> Suite:
    """Read and check a suite file; ``copy`` sources resolve against the file's folder."""
    path = Path(path)
    try:
        raw = read_json(path)
    except ValueError as exc:
        raise SuiteError(f"suite file {exc}") from None
    if not isinstance(raw, dict) or not isinstance(raw.get("tasks"), list) or not raw["tasks"]:
        raise SuiteError(f"{path}: expected an object with a non-empty \"tasks\" list")
    tasks = tuple(_task(t, f"{path.name} task #{i}", path.parent, i) for i, t in enumerate(raw["tasks"], 1))
    seen: set[str] = set()
    for t in tasks:
        if t.id in seen:
            raise SuiteError(f"{path}: task id {t.id!r} appears twice")
        seen.add(t.id)
    name = raw.get("name") if isinstance(raw.get("name"), str) else path.stem
    return Suite(name, tasks, path)


def draw_test_split(tasks: list[Task] | tuple[Task, ...], seed: int, share: float = 1 / 3) -> set[str]:
    """The ids a seeded draw puts in the test split: within each class (sorted ids, shuffled by
    ``random.Random(seed)``, classes in sorted order) the first ``round(n * share)``. Stratified, so
    every class is held out in proportion; seeded, so the split is a record, not a choice."""
    by_class: dict[str, list[str]] = defaultdict(list)
    for t in tasks:
        by_class[t.task_class].append(t.id)
    rng = random.Random(seed)
    test: set[str] = set()
    for cls in sorted(by_class):
        ids = sorted(by_class[cls])
        rng.shuffle(ids)
        test.update(ids[:round(len(ids) * share)])
    return test


def check_answer(turn: Turn, answer: str, called: list[str] | tuple[str, ...]) -> list[str]:
    """The rules this answer breaks (empty = pass)."""
    text = answer or ""
    failures = [f"answer lacks /{rx}/" for rx in turn.expect if not re.search(rx, text, re.IGNORECASE)]
    failures += [f"answer matches rejected /{rx}/" for rx in turn.reject if re.search(rx, text, re.IGNORECASE)]
    if turn.no_tools and called:
        failures.append(f"called tools although none were needed: {', '.join(called)}")
    return failures


def check_files_after(task: Task, workdir: Path) -> list[str]:
    """The side effects this task should have left and did not."""
    failures = []
    for rel, patterns in task.files_after:
        target = workdir / rel
        try:
            text = target.read_text(encoding="utf-8", errors="replace")
        except OSError:
            failures.append(f"{rel} does not exist after the task")
            continue
        failures += [f"{rel} lacks /{rx}/" for rx in patterns if not re.search(rx, text, re.IGNORECASE)]
    return failures
