"""`eval tasks --arms on,skip:NAME[+NAME...]`: the on arm with guards of the judge off, and `guards_fired`.

The end-to-end test runs the real command, agent and judge against the SCRIPTED FAKE OpenAI server
(tests/fakes; not a model: each reply is scripted), so what each arm's judge did is known."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gaia_lite.agent.judge import GUARDS
from gaia_lite.cli.eval_live import task_arm_settings
from gaia_lite.config import load_settings
from gaia_lite.embed.hashing import HashEmbedder
from gaia_lite.eval import ablation, tasks
from gaia_lite.eval.arms import arm_problem, arms_problem, skip_arm, skipped_guards
from tests.fakes.openai_server import FakeOpenAIServer, text_chunks


def test_a_skip_arm_names_its_guards_in_the_order_written() -> None:
    assert skipped_guards("skip:narrated+unread_file") == ("narrated", "unread_file")
    assert skipped_guards("skip: narrated ") == ("narrated",)
    assert skipped_guards("on") == () and skipped_guards("skills") == ()
    assert skip_arm(["narrated", "unread_file"]) == "skip:narrated+unread_file"
    assert skipped_guards(skip_arm([g.name for g in GUARDS])) == tuple(g.name for g in GUARDS)


@pytest.mark.parametrize(("arm", "problem"), [
    ("on", None),
    ("skip:narrated+unread_file", None),
    ("sometimes", "no arm is called 'sometimes'"),
    ("skip:", "'skip:' names no guard; spell it skip:NAME[+NAME...]"),
    ("skip:+", "'skip:+' names no guard"),
    ("skip:narated", "'skip:narated': no guard is called narated"),
    ("skip:narrated+repaeted", "no guard is called repaeted"),
    ("skip:narrated+narrated", "'skip:narrated+narrated' names a guard twice"),
])
def test_each_arm_is_checked_by_name(arm: str, problem: str | None) -> None:
    found = arm_problem(arm, tasks.ARMS)
    assert (found is None) if problem is None else (found is not None and problem in found), found


def test_a_list_of_arms_is_checked_whole() -> None:
    assert arms_problem(["on", "skip:narrated", "skip:unread_file"], tasks.ARMS) is None
    assert arms_problem([], tasks.ARMS) == "no arm given"
    assert arms_problem(["on", "skip:narrated", "skip:narrated"], tasks.ARMS) == "an arm is given twice"
    assert "no guard is called nope" in (arms_problem(["on", "skip:nope"], tasks.ARMS) or "")


def test_a_skip_arm_runs_as_on_with_its_guards_off_besides_any_already_off() -> None:
    base = load_settings({}, {})
    on = task_arm_settings(base, "on", "constrained")
    skip = task_arm_settings(base, "skip:narrated+unread_file", "constrained")
    assert (skip.dynamic_tools, skip.tool_calls, skip.prompt_layout) == (on.dynamic_tools, on.tool_calls,
                                                                         on.prompt_layout)
    assert on.judge_skip == () and skip.judge_skip == ("narrated", "unread_file")
    env_off = load_settings({}, {"GAIA_JUDGE_SKIP": "template,narrated"})
    assert task_arm_settings(env_off, "skip:narrated+unread_file", "constrained").judge_skip == \
        ("template", "narrated", "unread_file")


@pytest.mark.parametrize(("arms", "message"), [
    ("on,skip:narated", "--arms 'on,skip:narated' is invalid: 'skip:narated': no guard is called narated"),
    ("skip:", "names no guard; spell it skip:NAME[+NAME...]"),
])
def test_a_wrong_guard_in_an_arm_is_a_one_line_error(tmp_path: Path, arms: str, message: str) -> None:
    proc = subprocess.run([sys.executable, "-m", "gaia_lite", "eval", "tasks", "--arms", arms], capture_output=True,
                          text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def _turn(guards: list[str], passed: bool = True) -> tasks.TurnResult:
    return tasks.TurnResult(1, "q", "a", [], passed, [], 1.0, 1, 0.1, guards=guards)


def test_guards_fired_counts_each_guard_once_per_turn_it_acted_on() -> None:
    results = [tasks.TaskResult("a", "on", True, 3.0, [_turn(["narrated", "narrated"]), _turn([])]),
               tasks.TaskResult("b", "on", False, 5.0, [_turn(["unread_file", "narrated"], passed=False)]),
               tasks.TaskResult("a", "skip:narrated", True, 2.0, [_turn(["unread_file"])])]
    report = tasks.summarize(results, ["on", "skip:narrated"])
    assert report["arms"]["on"]["guards_fired"] == {"narrated": 2, "unread_file": 1}
    assert report["arms"]["skip:narrated"]["guards_fired"] == {"unread_file": 1}
    assert report["tasks"][0]["turns"][0]["guards"] == ["narrated", "narrated"]
    # the keys other code (and notes/summ.py) reads are all still there
    assert {"tasks", "passed", "success", "turns", "turns_passed", "seconds_per_task", "ungrounded_turns", "answers",
            "built_share_of_passed", "invalid_calls", "narrated_turns", "malformed_turns"} <= set(report["arms"]["on"])


SUITE = {"name": "one capital", "tasks": [
    {"id": "italy", "class": "no_tools",
     "turns": [{"prompt": "What is the capital of Italy?", "expect": ["rome"], "no_tools": True}]}]}
NARRATED_CALL = "I am not sure yet. I would call read_file to check."


def test_the_skip_arm_turns_the_guard_off_end_to_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gaia_lite.cli.app import app

    monkeypatch.setattr("gaia_lite.cli.services.build_embedder", lambda settings, base_url: HashEmbedder())
    suite = tmp_path / "suite.json"
    suite.write_text(json.dumps(SUITE))
    with FakeOpenAIServer(reject_response_format=True) as srv:
        # on: the narrated call ("I would call read_file") is asked again, then answered; skip: it is the answer
        srv.script += [text_chunks(NARRATED_CALL), text_chunks("Rome."), text_chunks(NARRATED_CALL)]
        result = CliRunner().invoke(app, ["eval", "tasks", "--base-url", srv.base_url, "--no-local-server", "--arms",
                                          "on,skip:narrated", "--suite", str(suite), "--out",
                                          str(tmp_path / "run"), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    on, skip = report["arms"]["on"], report["arms"]["skip:narrated"]
    assert (on["passed"], on["guards_fired"]) == (1, {"narrated": 1})
    assert skip["passed"] == 0 and "narrated" not in skip["guards_fired"]
    # a folder per task run, named by number and arm letter: neither the task's id nor a guard's name is in the path
    assert (tmp_path / "run/01a/work").is_dir() and (tmp_path / "run/01b/work").is_dir()
    assert (tmp_path / "run/tasks.tsv").read_text().splitlines()[1:] == ["01a\titaly\ton\t1", "01b\titaly\tskip:narrated\t1"]
    # and the ablation reads it: the guard fired in italy and turned it from fail to pass
    fired = ablation.fired_in(report)
    assert fired == {"narrated": ablation.Fired(1, ("italy",))}
    tally = ablation.compare(ablation.task_runs(report, "on"), ablation.task_runs(report, "skip:narrated"),
                             fired["narrated"].tasks)
    assert (tally.tasks, tally.gains, tally.losses) == (1, 1, 0)


def test_a_task_runs_folder_names_neither_its_task_nor_its_arm() -> None:
    from gaia_lite.eval.arms import task_folder

    assert [task_folder(7, 0), task_folder(7, 1, 2, 3), task_folder(12, 27)] == ["07a", "07b-2", "12bb"]


def test_every_arm_of_a_run_works_in_one_path_so_the_prompts_match(tmp_path: Path, monkeypatch) -> None:
    """The working folder's path is in the prompt: both arms see ".../01/work", then keep "01a" and "01b"."""
    from gaia_lite.cli.app import app
    from gaia_lite.eval.arms import live_folder

    assert live_folder(7) == "07"
    monkeypatch.setattr("gaia_lite.cli.services.build_embedder", lambda settings, base_url: HashEmbedder())
    suite = tmp_path / "suite.json"
    suite.write_text(json.dumps(SUITE))
    with FakeOpenAIServer(reject_response_format=True) as srv:
        srv.script += [text_chunks("Rome."), text_chunks("Rome.")]
        result = CliRunner().invoke(app, ["eval", "tasks", "--base-url", srv.base_url, "--no-local-server", "--arms",
                                          "on,skip:narrated", "--suite", str(suite), "--out", str(tmp_path / "run")])
        prompts = [json.dumps(r["messages"]) for r in srv.requests if "response_format" not in r]
    assert result.exit_code == 0, result.output
    assert len(prompts) == 2 and prompts[0] == prompts[1], "the arms' prompts differ"
    assert json.dumps(f"Working directory: {tmp_path / 'run' / '01' / 'work'}")[1:-1] in prompts[0]
    assert sorted(p.name for p in (tmp_path / "run").iterdir() if p.is_dir()) == ["01a", "01b"]