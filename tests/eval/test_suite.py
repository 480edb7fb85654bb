"""Suite files: what `eval tasks --suite FILE.json` accepts, and the one-line errors for what it does not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gaia_lite.eval.suite import SuiteError, Turn, check_answer, check_files_after, load_suite


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
        "files_after": {"sales.csv": ["north"]}}]})
    suite = load_suite(path)
    (task,) = suite.tasks
    assert suite.name == "mine" and task.id == "csv_total"
    assert task.files == (("sales.csv", "region,q1\nnorth,120\nsouth,150\n"),)
    assert task.copy == (("docs/report.txt", (tmp_path / "fixtures/report.txt").resolve()),)
    assert task.turns[1] == Turn("and the capital of France?", ("paris",), (), True, True)
    assert task.files_after == (("sales.csv", ("north",)),)


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
