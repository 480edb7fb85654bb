"""Suite files: what `eval tasks --suite FILE.json` accepts, and the one-line errors for what it does not."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gaia_lite.eval.suite import (SuiteError, Turn, builtin_suite_path, check_answer, check_files_after,
                                  draw_test_split, load_suite)


def _write(tmp_path: Path, suite: object) -> Path:
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(suite))
    return path


def test_a_suite_in_the_documented_format_loads(tmp_path: Path) -> None:
    (tmp_path / "fixtures").mkdir()
    (tmp_path / "fixtures/report.txt").write_text("Q3: 14.2m")
    path = _write(tmp_path, {"name": "mine", "tasks": [{
        "id": "csv_total",
        "files": {"sales.csv": "region,q1\nnorth,120\nsouth,150\n"},
        "copy": {"docs/report.txt": "fixtures/report.txt"},
        "index": ["docs/report.txt"],
        "turns": [{"prompt": "total of q1?", "expect": ["\\b270\\b"], "reject": ["\\b120\\b"]},
                  {"prompt": "and the capital of France?", "expect": ["paris"], "no_tools": True,
                   "new_conversation": True}],
        "files_after": {"sales.csv": ["north"]}, "class": "data", "split": "test"}]})
    suite = load_suite(path)
    (task,) = suite.tasks
    assert suite.name == "mine" and task.id == "csv_total"
    assert task.files == (("sales.csv", "region,q1\nnorth,120\nsouth,150\n"),)
    assert task.copy == (("docs/report.txt", (tmp_path / "fixtures/report.txt").resolve()),)
    assert task.turns[1] == Turn("and the capital of France?", ("paris",), (), True, True)
    assert task.files_after == (("sales.csv", ("north",)),)
    assert (task.task_class, task.split) == ("data", "test")


def test_class_and_split_are_optional(tmp_path: Path) -> None:
    (task,) = load_suite(_write(tmp_path, {"tasks": [{"id": "a", "turns": ["x"]}]})).tasks
    assert (task.task_class, task.split) == ("", None)


@pytest.mark.parametrize(("suite", "message"), [
    ({"tasks": []}, 'non-empty "tasks" list'),
    ({"tasks": [{"id": "a b", "turns": ["hi"]}]}, "id must be a name"),
    ({"tasks": [{"id": "a", "turns": []}]}, "task 'a': turns must be a non-empty list"),
    ({"tasks": [{"id": "a", "turns": [{"prompt": "x", "expect": ["("]}]}]}, "not a valid regular expression"),
    ({"tasks": [{"id": "a", "turns": [{"prompt": "x", "expcet": ["y"]}]}]}, "unknown field(s) expcet"),
    ({"tasks": [{"id": "a", "turns": ["x"], "files": {"../up.txt": "x"}}]}, "inside the task's working dir"),
    ({"tasks": [{"id": "a", "turns": ["x"], "copy": {"a.txt": "missing.txt"}}]}, "does not exist"),
    ({"tasks": [{"id": "a", "turns": ["x"], "index": ["nope.md"]}]}, "not among the task's files"),
    ({"tasks": [{"id": "a", "turns": ["x"]}, {"id": "a", "turns": ["y"]}]}, "appears twice"),
    ({"tasks": [{"id": "a", "turns": [{"prompt": "x", "no_tools": "yes"}]}]}, "no_tools must be true or false"),
    ({"tasks": [{"id": "a", "turns": ["x"], "split": "train"}]}, "task 'a'.split: expected \"dev\" or \"test\""),
    ({"tasks": [{"id": "a", "turns": ["x"], "class": "two words"}]}, "task 'a'.class: expected a name"),
    ({"tasks": [{"id": "a", "turns": ["x"], "clas": "data"}]}, "unknown field(s) clas"),
])
def test_bad_suites_name_the_task_and_the_field(tmp_path: Path, suite: object, message: str) -> None:
    with pytest.raises(SuiteError, match=None) as err:
        load_suite(_write(tmp_path, suite))
    assert message in str(err.value)


def test_not_json_says_where(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text('{"tasks": [\n  {"id": }]}')
    with pytest.raises(SuiteError, match="not valid JSON.*line 2"):
        load_suite(path)


def test_select_names_unknown_ids(tmp_path: Path) -> None:
    suite = load_suite(_write(tmp_path, {"tasks": [{"id": "a", "turns": ["x"]}, {"id": "b", "turns": ["y"]}]}))
    assert [t.id for t in suite.select(["b", "a"])] == ["a", "b"]
    with pytest.raises(SuiteError, match="unknown task.*zzz"):
        suite.select(["zzz"])


def test_select_keeps_to_a_split(tmp_path: Path) -> None:
    suite = load_suite(_write(tmp_path, {"tasks": [{"id": "a", "turns": ["x"], "split": "dev"},
                                                   {"id": "b", "turns": ["y"], "split": "test"},
                                                   {"id": "c", "turns": ["z"]}]}))
    assert [t.id for t in suite.select([], "all")] == ["a", "b", "c"]
    assert [t.id for t in suite.select([], "dev")] == ["a"]
    assert [t.id for t in suite.select(["a", "b"], "test")] == ["b"]
    with pytest.raises(SuiteError, match="no task of a is in the test split"):
        suite.select(["a"], "test")
    with pytest.raises(SuiteError, match="split 'train' is unknown"):
        suite.select([], "train")


def _classed(n_per_class: dict[str, int]) -> list:
    from gaia_lite.eval.suite import Task

    return [Task(f"{cls}{i}", (Turn("q"),), task_class=cls) for cls, n in n_per_class.items() for i in range(n)]


def test_the_test_split_is_a_seeded_draw_stratified_by_class() -> None:
    tasks = _classed({"a": 6, "b": 9, "c": 11, "d": 1})
    test = draw_test_split(tasks, seed=7)
    assert draw_test_split(list(reversed(tasks)), seed=7) == test  # the order in the file does not matter
    per_class = {cls: sum(t.id in test for t in tasks if t.task_class == cls) for cls in "abcd"}
    assert per_class == {"a": 2, "b": 3, "c": 4, "d": 0}
    assert any(draw_test_split(tasks, seed=s) != test for s in range(8, 12))  # the seed decides


def test_the_builtin_split_is_the_recorded_draw() -> None:
    """gaia_lite/eval/data/tasks/README.md records the seed; a split edited by hand fails here."""
    suite = load_suite(builtin_suite_path())
    assert {t.id for t in suite.tasks if t.split == "test"} == draw_test_split(suite.tasks, seed=28)
    assert all(t.split in ("dev", "test") and t.task_class for t in suite.tasks)


def test_answer_rules_expect_reject_and_no_tools() -> None:
    turn = Turn("q", expect=(r"\b270\b",), reject=(r"\b120\b",), no_tools=True)
    assert check_answer(turn, "It is 270.", []) == []
    assert check_answer(turn, "It is 120 + 150 = 270.", []) == [r"answer matches rejected /\b120\b/"]
    assert check_answer(turn, "Two hundred", ["read_file"]) == [
        r"answer lacks /\b270\b/", "called tools although none were needed: read_file"]


def test_files_after_checks_side_effects(tmp_path: Path) -> None:
    suite = load_suite(_write(tmp_path, {"tasks": [{"id": "e", "turns": ["x"],
                                                     "files_after": {"config.ini": ["port = 9090"], "new.txt": ["hi"]}}]}))
    (tmp_path / "config.ini").write_text("port = 8080\n")
    assert check_files_after(suite.tasks[0], tmp_path) == ["config.ini lacks /port = 9090/",
                                                           "new.txt does not exist after the task"]
    (tmp_path / "config.ini").write_text("PORT = 9090\n")
    (tmp_path / "new.txt").write_text("hi")
    assert check_files_after(suite.tasks[0], tmp_path) == []


def test_the_held_out_suite_loads_whole_and_shares_nothing_with_the_builtin_one() -> None:
    """holdout.json (data/tasks/README.md) is a suite of new tasks: no split marks, and no prompt, file path or
    file text taken from the built-in suite."""
    held = load_suite(builtin_suite_path().with_name("holdout.json"))
    builtin = load_suite(builtin_suite_path())
    assert len(held.tasks) >= 20 and all(t.split is None and t.task_class for t in held.tasks)
    prompts = {turn.prompt.lower() for t in builtin.tasks for turn in t.turns}
    assert not {turn.prompt.lower() for t in held.tasks for turn in t.turns} & prompts
    paths = {path for t in builtin.tasks for path, _ in t.files}
    texts = {text for t in builtin.tasks for _, text in t.files}
    assert not {path for t in held.tasks for path, _ in t.files} & paths
    assert not {text for t in held.tasks for _, text in t.files} & texts


def test_the_second_held_out_suite_loads_whole_and_shares_nothing_with_the_earlier_ones() -> None:
    """holdout2.json (data/tasks/README.md) is a second suite of new tasks: no split marks, and no prompt, file
    path or file text taken from the built-in suite or from holdout.json."""
    held = load_suite(builtin_suite_path().with_name("holdout2.json"))
    earlier = [load_suite(builtin_suite_path()), load_suite(builtin_suite_path().with_name("holdout.json"))]
    assert len(held.tasks) == 24 and all(t.split is None and t.task_class for t in held.tasks)
    prompts = {turn.prompt.lower() for s in earlier for t in s.tasks for turn in t.turns}
    assert not {turn.prompt.lower() for t in held.tasks for turn in t.turns} & prompts
    paths = {path for s in earlier for t in s.tasks for path, _ in t.files}
    texts = {text for s in earlier for t in s.tasks for _, text in t.files}
    assert not {path for t in held.tasks for path, _ in t.files} & paths
    assert not {text for t in held.tasks for _, text in t.files} & texts


def _word_runs(text: str, n: int = 5) -> set[tuple[str, ...]]:
    words = re.findall(r"[a-z0-9']+", text.lower())
    return {tuple(words[i:i + n]) for i in range(len(words) - n + 1)}


def test_the_third_held_out_suite_loads_whole_and_shares_nothing_with_the_earlier_ones() -> None:
    """holdout3.json (data/tasks/README.md) is a third suite of new tasks, written blind: no split marks, and no
    prompt, file path or file text taken from the built-in suite, holdout.json or holdout2.json; no prompt
    shares a run of five words with one of theirs. Failures name only holdout3's tasks."""
    held = load_suite(builtin_suite_path().with_name("holdout3.json"))
    earlier = [load_suite(builtin_suite_path()), load_suite(builtin_suite_path().with_name("holdout.json")),
               load_suite(builtin_suite_path().with_name("holdout2.json"))]
    assert len(held.tasks) >= 30 and all(t.split is None and t.task_class for t in held.tasks)
    prompts = {turn.prompt.lower() for s in earlier for t in s.tasks for turn in t.turns}
    paths = {path for s in earlier for t in s.tasks for path, _ in t.files}
    texts = {text for s in earlier for t in s.tasks for _, text in t.files}
    runs = set().union(*(_word_runs(turn.prompt) for s in earlier for t in s.tasks for turn in t.turns))
    assert [t.id for t in held.tasks if any(turn.prompt.lower() in prompts for turn in t.turns)] == []
    assert [t.id for t in held.tasks if any(path in paths for path, _ in t.files)] == []
    assert [t.id for t in held.tasks if any(text in texts for _, text in t.files)] == []
    assert [t.id for t in held.tasks if any(_word_runs(turn.prompt) & runs for turn in t.turns)] == []
