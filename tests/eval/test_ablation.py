"""What each guard earns (gaia_lite/eval/ablation.py, scripts/ablate_judge.py): phase 2's comparison, the
cells over suites, the Markdown table, and the script's plan. No model: the reports are built from real
TaskResult/TurnResult values through `tasks.summarize`, as `eval tasks --json` builds them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gaia_lite.agent.judge import GUARDS
from gaia_lite.eval import tasks
from gaia_lite.eval.ablation import (Fired, GuardCell, TaskRuns, Tally, compare, fired_in, guard_cell,
                                     render_table, task_runs)
from scripts import ablate_judge


def _task(name: str, arm: str, passed: bool, seconds: float, *guards: list[str], run: int = 1) -> tasks.TaskResult:
    turns = [tasks.TurnResult(i, "q", "a", [], passed, [], seconds, 1, 0.1, guards=g) for i, g in enumerate(guards, 1)]
    return tasks.TaskResult(name, arm, passed, seconds, turns, run=run)


def _report(*results: tasks.TaskResult) -> dict[str, Any]:
    """An eval tasks report over these results, through JSON as the script reads it."""
    return json.loads(json.dumps(tasks.summarize(results, list(dict.fromkeys(r.arm for r in results)))))


ON = _report(_task("a", "on", True, 10.0, ["narrated"], []),
             _task("b", "on", False, 8.0, ["narrated", "narrated"]),
             _task("c", "on", True, 4.0, ["unread_file"]),
             _task("d", "on", True, 3.0, []))


def test_fired_in_counts_turns_once_and_names_the_tasks_in_suite_order() -> None:
    assert fired_in(ON) == {"narrated": Fired(2, ("a", "b")), "unread_file": Fired(1, ("c",))}
    assert ON["arms"]["on"]["guards_fired"] == {"narrated": 2, "unread_file": 1}  # the same count, per arm


def test_phase_two_counts_fail_to_pass_as_a_gain_and_pass_to_fail_as_a_loss() -> None:
    skip = _report(_task("a", "skip:narrated", False, 6.0, []), _task("b", "skip:narrated", True, 5.0, []))
    tally = compare(task_runs(ON, "on"), task_runs(skip, "skip:narrated"), ("a", "b"))
    # a passes with the guard and fails without (a gain); b the reverse (a loss)
    assert (tally.tasks, tally.gains, tally.losses, tally.missing) == (2, 1, 1, ())
    assert tally.seconds_added == pytest.approx((10 + 8) / 2 - (6 + 5) / 2)


def test_with_repeats_only_the_difference_in_passes_counts_not_which_runs_passed() -> None:
    on = {"a": TaskRuns(3, 2, 30.0), "b": TaskRuns(3, 3, 12.0)}
    skip = {"a": TaskRuns(3, 2, 24.0), "b": TaskRuns(3, 1, 9.0)}
    tally = compare(on, skip, ["a", "b"])
    assert (tally.gains, tally.losses) == (2, 0)  # a: 2 vs 2 passes is no change; b: 3 vs 1 is two gains
    assert tally.seconds_added == pytest.approx(42 / 6 - 33 / 6)


def test_a_task_the_skip_run_lacks_or_ran_otherwise_is_not_compared() -> None:
    tally = compare({"a": TaskRuns(1, 1, 5.0), "b": TaskRuns(2, 1, 5.0)}, {"b": TaskRuns(1, 0, 5.0)}, ["a", "b"])
    assert (tally.tasks, tally.gains, tally.losses, tally.missing, tally.seconds_added) == (0, 0, 0, ("a", "b"), None)


def test_a_guard_cell_adds_its_suites_and_counts_those_still_pending() -> None:
    on2 = _report(_task("x", "on", True, 2.0, ["narrated"]))
    skip2 = _report(_task("x", "skip:narrated", False, 1.0, []))
    fired, fired2 = fired_in(ON), fired_in(on2)
    skip = {"a": TaskRuns(1, 0, 6.0), "b": TaskRuns(1, 0, 5.0)}
    both = guard_cell([(fired.get("narrated"), task_runs(ON, "on"), skip),
                       (fired2.get("narrated"), task_runs(on2, "on"), task_runs(skip2, "skip:narrated"))])
    assert (both.fired_turns, both.fired_tasks, both.pending) == (3, 3, 0)
    assert (both.tally.gains, both.tally.losses, both.tally.tasks) == (2, 0, 3)
    pending = guard_cell([(fired.get("narrated"), task_runs(ON, "on"), None),
                          (fired2.get("narrated"), task_runs(on2, "on"), task_runs(skip2, "skip:narrated"))])
    assert (pending.fired_turns, pending.pending, pending.tally.tasks) == (3, 1, 1)
    assert guard_cell([(fired.get("template"), task_runs(ON, "on"), None)]) == GuardCell()  # never fired


def test_the_table_has_a_row_per_guard_and_four_columns_per_model() -> None:
    cells = {("narrated", "qwen2.5-coder-0.5b"): GuardCell(3, 2, Tally(2, 1, 0, 2, 18.0, 2, 11.0)),
             ("narrated", "qwen2.5-coder-1.5b"): GuardCell(1, 1, Tally(), pending=1),
             ("unread_file", "qwen2.5-coder-0.5b"): GuardCell(1, 1, Tally(1, 0, 1, 1, 4.0, 1, 5.0))}
    table = render_table(cells, ["narrated", "unread_file", "template"], ["qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"])
    assert table.splitlines() == [
        "| guard | 0.5b fired (tasks) | 0.5b gains | 0.5b losses | 0.5b s/task | 1.5b fired (tasks) | 1.5b gains"
        " | 1.5b losses | 1.5b s/task |",
        "|---|---|---|---|---|---|---|---|---|",
        "| narrated | 3 (2) | 1 | 0 | +3.5 | 1 (1) | … | … | … |",
        "| unread_file | 1 (1) | 0 | 1 | -1.0 | 0 | · | · | · |",
        "| template | 0 | · | · | · | 0 | · | · | · |"]


def test_the_table_pasted_into_the_guards_section_keeps_the_guards_table_test_true() -> None:
    import re

    table = render_table({}, [g.name for g in GUARDS], ["qwen2.5-coder-0.5b"])
    assert not re.findall(r"^\| `(\w+)` \|", table, re.MULTILINE)  # tests/test_docs_architecture.py's pattern
    assert len(table.splitlines()) == 2 + len(GUARDS)


# ---------------------------------------------------------------- the script's plan
def _plan(tmp_path: Path, *suites: str, guards: tuple[str, ...] | None = None) -> ablate_judge.Plan:
    return ablate_judge.Plan(tuple(tmp_path / s for s in suites), ("m1",), 1, guards, tmp_path / "out", True)


def test_phase_two_reruns_only_the_tasks_each_guard_fired_in_most_fired_first(tmp_path: Path) -> None:
    plan = _plan(tmp_path, "builtin.json", "holdout9.json")
    other = _report(_task("z", "on", True, 1.0, ["unread_file"]))
    reports = {("m1", "builtin", "on"): ON, ("m1", "holdout9", "on"): other}
    runs = ablate_judge.phase_two_runs(plan, reports, [g.name for g in GUARDS])
    assert [(r.arm, r.suite.stem, r.tasks) for r in runs] == [
        ("skip:narrated", "builtin", ("a", "b")), ("skip:unread_file", "builtin", ("c",)),
        ("skip:unread_file", "holdout9", ("z",))]
    only = ablate_judge.phase_two_runs(_plan(tmp_path, "builtin.json", guards=("unread_file", "template")),
                                       reports, [g.name for g in GUARDS])
    assert [(r.arm, r.tasks) for r in only] == [("skip:unread_file", ("c",))]


def test_a_blind_suites_tasks_are_never_printed_or_summarized(tmp_path: Path) -> None:
    plan = _plan(tmp_path, "holdout9.json", "builtin.json")
    blind = ablate_judge.Run(2, "m1", tmp_path / "holdout9.json", "skip:narrated", ("secret_task", "other_task"))
    shown = blind.shown(plan)
    assert "secret_task" not in shown and "--task '<2 tasks of a blind suite>'" in shown
    assert blind.command(plan).count("--task") == 2 and "secret_task" in blind.command(plan)
    open_run = ablate_judge.Run(2, "m1", tmp_path / "builtin.json", "skip:narrated", ("a",))
    assert "--task a" in open_run.shown(plan)
    secret = _report(_task("secret_task", "on", True, 1.0, ["narrated"]))
    data = ablate_judge.summary(plan, {("m1", "holdout9", "on"): secret, ("m1", "builtin", "on"): ON},
                                [g.name for g in GUARDS])
    text = json.dumps(data)
    assert "secret_task" not in text
    assert data["guards"]["narrated"]["m1"]["tasks"] == {"builtin": ["a", "b"]}
    cell = data["guards"]["narrated"]["m1"]
    assert (cell["fired_turns"], cell["pending_suites"]) == (3, 2)


def test_every_eval_gets_the_measurement_flags_and_its_own_folder(tmp_path: Path) -> None:
    plan = _plan(tmp_path, "holdout.json")
    run = ablate_judge.Run(1, "qwen2.5-coder-1.5b", tmp_path / "holdout.json", "on")
    cmd = run.command(plan)
    joined = " ".join(cmd)
    assert "eval tasks --arms on" in joined and "-m qwen2.5-coder-1.5b --repeat 1" in joined
    assert "--max-steps 6 --max-tokens 256 --json" in joined and "--seed 1" in joined
    # every arm works at one path (it is in the prompt), kept apart afterwards under a digest of the arm
    assert cmd[-2:] == ["--out", str(tmp_path / "out/runs/qwen2.5-coder-1.5b/holdout/work")]
    skip = ablate_judge.Run(2, "qwen2.5-coder-1.5b", tmp_path / "holdout.json", "skip:narrated", ("a",))
    assert skip.command(plan)[-2:] == cmd[-2:]
    assert run.stem != "on" and len(run.stem) == len("arm-") + 8 and run.stem != skip.stem


@pytest.mark.parametrize(("args", "message"), [
    (["--guards", "narrated,narated"], "--guards: no guard is called narated"),
    (["--guards", ","], "--guards names no guard"),
    (["--repeat", "0"], "--repeat 0 is invalid"),
    (["--seed", "-2"], "--seed -2 is invalid"),
    (["--suite", "nope.json"], "no suite file nope.json"),
])
def test_bad_flags_are_one_line_errors(capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    with pytest.raises(SystemExit) as done:
        ablate_judge.main([*args, "--dry-run"])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err


def test_a_dry_run_prints_phase_one_and_runs_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    suite = tmp_path / "builtin.json"
    suite.write_text("{}")
    assert ablate_judge.main(["--suite", str(suite), "--dry-run", "--out", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert out.count(" eval tasks --arms on ") == 2  # one per default model
    assert "qwen2.5-coder-0.5b" in out and "qwen2.5-coder-1.5b" in out
    assert not (tmp_path / "out").exists()


# ---------------------------------------------------------------- the script end to end
CAPITAL = {"name": "one capital", "tasks": [
    {"id": "italy", "class": "no_tools",
     "turns": [{"prompt": "What is the capital of Italy?", "expect": ["rome"], "no_tools": True}]}]}
NARRATED_CALL = "I am not sure yet. I would call read_file to check."


@pytest.mark.timeout(600)
def test_the_script_runs_both_phases_writes_the_table_and_resumes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """The real `eval tasks` subprocesses against the SCRIPTED FAKE server (tests/fakes; not a model): on the
    on arm the judge asks the narrated call again and "Rome." passes; without narrated it fails."""
    from tests.fakes.openai_server import FakeOpenAIServer, text_chunks

    suite = tmp_path / "holdout_capital.json"  # blind by its name: no task id may be printed
    suite.write_text(json.dumps(CAPITAL))
    args = ["--suite", str(suite), "--model", "qwen2.5-coder-0.5b", "--out", str(tmp_path / "out"), "--any-server"]
    monkeypatch.setenv("GAIA_AUTO_START_SERVER", "0")  # never a llama-server here
    monkeypatch.setenv("GAIA_JUDGE_SKIP", "narrated")  # the script's on arm has every guard all the same
    with FakeOpenAIServer(reject_response_format=True) as srv:
        monkeypatch.setenv("LEMONADE_BASE_URL", srv.base_url)
        srv.script += [text_chunks(NARRATED_CALL), text_chunks("Rome."), text_chunks(NARRATED_CALL)]
        assert ablate_judge.main(args) == 0
        first = capsys.readouterr().out
        asked = len(srv.requests)
        assert ablate_judge.main(args) == 0  # resumed: every eval's report is there, nothing runs again
        again = capsys.readouterr().out
        assert len(srv.requests) == asked
    data = json.loads((tmp_path / "out/ablation.json").read_text())
    cell = data["guards"]["narrated"]["qwen2.5-coder-0.5b"]
    assert {k: cell[k] for k in ("fired_turns", "fired_tasks", "gains", "losses", "pending_suites")} == \
        {"fired_turns": 1, "fired_tasks": 1, "gains": 1, "losses": 0, "pending_suites": 0}
    assert "tasks" not in cell and "italy" not in json.dumps(data)
    assert "| narrated | 1 (1) | 1 | 0 |" in (tmp_path / "out/ablation.md").read_text()
    assert "turns finished: 1 (1 passed)" in first and "italy" not in first + again and "Rome" not in first
    assert again.count("kept from an earlier run") == 2
    runs = tmp_path / "out/runs/qwen2.5-coder-0.5b/holdout_capital"
    on, skip = (ablate_judge.Run(1, "m", suite, "on").stem, ablate_judge.Run(2, "m", suite, "skip:narrated").stem)
    assert (runs / on / "01a/work").is_dir() and (runs / skip / "01a/work").is_dir() and not (runs / "work").exists()
    assert all(r.get("seed") == 1 for r in srv.requests if "response_format" not in r)


def test_a_resumed_run_with_another_repeat_stops_instead_of_mixing_them(tmp_path: Path) -> None:
    plan = _plan(tmp_path, "builtin.json")
    run = ablate_judge.Run(1, "m1", tmp_path / "builtin.json", "on")
    kept = plan.out / run.dir / f"{run.stem}.json"
    kept.parent.mkdir(parents=True)
    kept.write_text(json.dumps({**ON, "repeat": 3}))
    with pytest.raises(SystemExit, match="holds runs with --repeat 3, not 1"):
        ablate_judge.report_of(run, plan, ablate_judge.Clock())
    kept.write_text(json.dumps({**ON, "repeat": 1}))
    assert ablate_judge.report_of(run, plan, ablate_judge.Clock()) == {**ON, "repeat": 1}
