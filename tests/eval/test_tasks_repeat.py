"""`eval tasks --split/--repeat` end to end: the real command, agent and loader against the SCRIPTED FAKE
OpenAI server (tests/fakes; not a model: each reply is scripted), so the numbers it reports are known."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gaia_lite.embed.hashing import HashEmbedder
from gaia_lite.eval import tasks
from gaia_lite.events import ToolCallFinished, TurnFinished, TurnStarted
from tests.fakes.openai_server import FakeOpenAIServer, text_chunks

SUITE = {"name": "two capitals", "tasks": [
    {"id": "france", "class": "no_tools", "split": "dev",
     "turns": [{"prompt": "What is the capital of France?", "expect": ["paris"], "no_tools": True}]},
    {"id": "italy", "class": "no_tools", "split": "test",
     "turns": [{"prompt": "What is the capital of Italy?", "expect": ["rome"], "no_tools": True}]},
    {"id": "spain", "class": "geo", "split": "test",
     "turns": [{"prompt": "What is the capital of Spain?", "expect": ["madrid"], "no_tools": True}]}]}


def _eval_tasks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, replies: list[str], *args: str):
    from gaia_lite.cli.app import app

    monkeypatch.setattr("gaia_lite.cli.services.build_embedder", lambda settings, base_url: HashEmbedder())
    suite = tmp_path / "suite.json"
    suite.write_text(json.dumps(SUITE))
    # a server without JSON-schema replies: free calls, so each scripted text is one final answer
    with FakeOpenAIServer(reject_response_format=True) as srv:
        srv.script += [text_chunks(r) for r in replies]
        result = CliRunner().invoke(app, ["eval", "tasks", "--base-url", srv.base_url, "--no-local-server",
                                          "--arms", "on", "--suite", str(suite), "--out", str(tmp_path / "run"),
                                          *args])
        # the country each turn's request asked about (the capability probe, with response_format, aside)
        asked = [next(c for c in ("France", "Italy", "Spain") if c in req["messages"][-1]["content"])
                 for req in srv.requests if "response_format" not in req]
    return result, asked


def test_repeat_runs_the_suite_n_times_and_reports_mean_and_spread(tmp_path, monkeypatch) -> None:
    # run 1: France right, Italy right; run 2: France wrong, Italy right (Spain is not run: --task)
    result, asked = _eval_tasks(tmp_path, monkeypatch, ["Paris.", "Rome.", "Lyon.", "Rome."],
                                "--repeat", "2", "--task", "france", "--task", "italy", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["repeat"] == 2 and report["split"] == "all"
    assert asked == ["France", "Italy", "France", "Italy"]  # one model call per turn, run after run
    on = report["arms"]["on"]
    assert (on["tasks"], on["passed"], on["success"]) == (4, 3, 0.75)  # over every task run, as before
    assert on["passed_per_run"] == [2, 1] and on["tasks_per_run"] == 2
    assert (on["passed_mean"], on["passed_min"], on["passed_max"]) == (1.5, 1, 2)
    assert on["passed_stdev"] == pytest.approx(0.707, abs=1e-3) and on["success_mean"] == 0.75
    assert on["by_split"]["dev"]["passed_per_run"] == [1, 0] and on["by_split"]["test"]["passed_per_run"] == [1, 1]
    assert on["by_split"]["dev"]["turns"] == 2 and on["by_split"]["dev"]["narrated_turns"] == 0
    assert set(on["by_class"]) == {"no_tools"}
    assert (on["invalid_calls"], on["malformed_turns"], on["narrated_turns"], on["ungrounded_turns"]) == (0, 0, 0, 0)
    assert [(t["task"], t["run"], t["split"]) for t in report["tasks"]] == [
        ("france", 1, "dev"), ("italy", 1, "test"), ("france", 2, "dev"), ("italy", 2, "test")]
    assert (tmp_path / "run/01a-2/work").is_dir()  # each run in a fresh working dir


def test_split_keeps_to_the_held_out_tasks_and_the_table_shows_both(tmp_path, monkeypatch) -> None:
    result, asked = _eval_tasks(tmp_path, monkeypatch, ["Rome.", "Barcelona."], "--split", "test")
    assert result.exit_code == 0, result.output
    assert asked == ["Italy", "Spain"]
    assert "test split" in result.stdout and "1/2 (50" in result.stdout  # the held-out row
    assert "by class" in result.stdout and "ungrounded turns" in result.stdout


@pytest.mark.parametrize(("args", "message"), [
    (["--split", "train"], "--split 'train' is invalid; use dev, test or all"),
    (["--repeat", "0"], "--repeat 0 is invalid"),
    (["--split", "dev", "--task", "italy"], "no task of italy is in the dev split"),
    (["--seed", "-1"], "--seed -1 is invalid"),
])
def test_bad_split_and_repeat_are_one_line_errors(tmp_path: Path, args: list[str], message: str) -> None:
    import subprocess
    import sys

    suite = tmp_path / "suite.json"
    suite.write_text(json.dumps(SUITE))
    proc = subprocess.run([sys.executable, "-m", "gaia_lite", "eval", "tasks", "--suite", str(suite),
                           "--base-url", "http://127.0.0.1:9/api/v1", "--no-local-server", *args],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr  # bad input, before any server is asked
    assert message in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


class _ReadingAgent:
    """A scripted agent (no model): each turn reads clients.txt, then answers with the number it holds (odd turns)
    or one it does not (even turns)."""

    def __init__(self) -> None:
        self.turn = 0

    def run(self, prompt: str):
        self.turn += 1
        yield TurnStarted(self.turn, prompt)
        yield ToolCallFinished("c1", "read_file", {"file_path": "clients.txt"}, "success",
                               {"status": "success", "content": "Initech: phone 555-0177"}, 0.01)
        answer = "Paris, 555-0177." if self.turn % 2 else "Paris, 1234567890."
        yield TurnFinished(self.turn, answer, ("read_file",), 2, 0.1, 10, 0, ())


class _Services:
    def __init__(self) -> None:
        self.agent, self.rag = _ReadingAgent(), None

    def close(self) -> None:
        pass


def test_an_answer_stating_a_number_no_result_holds_is_counted_as_ungrounded(tmp_path: Path) -> None:
    task = tasks.Task("t", tuple(tasks.Turn(p, ("paris",)) for p in ("a", "b", "c", "d")), split="dev")
    report = tasks.run_tasks([task], ["on"], lambda *_: _Services(), tmp_path, repeat=1)
    assert report["arms"]["on"]["ungrounded_turns"] == 2
    assert report["arms"]["on"]["by_split"]["dev"]["ungrounded_turns"] == 2
    assert [t["ungrounded"] for t in report["tasks"][0]["turns"]] == [False, True, False, True]


def test_a_partial_run_counts_only_the_tasks_it_reached() -> None:
    done = [tasks.TaskResult("a", "on", True, 1.0, run=1), tasks.TaskResult("b", "on", False, 1.0, run=1),
            tasks.TaskResult("a", "on", True, 1.0, run=2)]
    spread = tasks.pass_spread(done)
    assert spread["passed_per_run"] == [1, 1] and spread["tasks_per_run"] == 2 and spread["runs"] == 2


# ---------------------------------------------------------------- --resume: a stopped run continues

def test_resume_runs_only_the_tasks_a_stopped_run_did_not_finish(tmp_path, monkeypatch) -> None:
    first, _ = _eval_tasks(tmp_path, monkeypatch, ["Paris.", "Milan.", "Madrid."], "--json")
    assert first.exit_code == 0, first.output
    partial = tmp_path / "run/report.partial.json"
    stopped = json.loads(partial.read_text())
    stopped["tasks"] = stopped["tasks"][:2]   # as a run killed during its third task leaves it
    partial.write_text(json.dumps(stopped))
    (tmp_path / "run/03a/work/left-behind.txt").write_text("from the stopped run")
    result, asked = _eval_tasks(tmp_path, monkeypatch, ["Madrid."], "--resume", "--json")
    assert result.exit_code == 0, result.output
    assert asked == ["Spain"]   # France and Italy are not asked again
    report = json.loads(result.stdout)
    assert [(t["task"], t["passed"]) for t in report["tasks"]] == [("france", True), ("italy", False), ("spain", True)]
    assert report["arms"]["on"]["passed_per_run"] == [2]
    assert not (tmp_path / "run/03a/work/left-behind.txt").exists()   # the re-run task started afresh


def test_a_task_whose_arms_did_not_all_finish_runs_again_in_every_arm(tmp_path: Path) -> None:
    made: list[str] = []

    def services(arm: str, *_: Path) -> _Services:
        made.append(arm)
        return _Services()

    done = [tasks.Task(n, (tasks.Turn("a", ("paris",)),)) for n in ("t1", "t2")]
    tasks.run_tasks(done, ["on", "off"], services, tmp_path)
    partial = tmp_path / "report.partial.json"
    stopped = json.loads(partial.read_text())
    stopped["tasks"] = stopped["tasks"][:3]   # t2 finished in "on" only
    partial.write_text(json.dumps(stopped))
    made.clear()
    report = tasks.run_tasks(done, ["on", "off"], services, tmp_path,
                             finished=tasks.finished_before(tmp_path, ["on", "off"]))
    assert made == ["on", "off"]   # t2 in both arms, interleaved as before
    assert [(t["task"], t["arm"]) for t in report["tasks"]] == [("t1", "on"), ("t1", "off"), ("t2", "on"), ("t2", "off")]


@pytest.mark.parametrize(("make", "args", "message"), [
    (lambda run: None, ["--resume"], "--resume needs --out DIR"),
    (lambda run: run.mkdir(), ["--resume", "--out", "{run}"], "holds no report.partial.json; run without --resume"),
    (lambda run: (run.mkdir(), (run / "report.partial.json").write_text('{"tasks": [{"task": "france", "arm": "off",'
                                                                         ' "run": 1, "passed": true, "seconds": 1.0, "turns": []}]}')),
     ["--resume", "--out", "{run}", "--arms", "on"], "was run with the arms off too; resume it with the same --arms"),
    (lambda run: (run.mkdir(), (run / "report.partial.json").write_text("{not json")),
     ["--resume", "--out", "{run}"], "cannot be resumed"),
])
def test_a_run_that_cannot_be_resumed_is_a_one_line_error(tmp_path: Path, make, args: list[str], message: str) -> None:
    run = tmp_path / "run"
    make(run)
    test_bad_split_and_repeat_are_one_line_errors(tmp_path, [a.format(run=run) for a in args], message)


def test_seed_gives_every_arm_of_a_run_the_same_sampler_seed(tmp_path, monkeypatch) -> None:
    """--seed 7: run 1's requests carry seed 7 in both arms, run 2's carry 8; without it no seed is sent."""
    from gaia_lite.cli.app import app

    monkeypatch.setattr("gaia_lite.cli.services.build_embedder", lambda settings, base_url: HashEmbedder())
    suite = tmp_path / "suite.json"
    suite.write_text(json.dumps(SUITE))

    def seeds(*args: str) -> tuple[dict, list, list]:
        with FakeOpenAIServer(reject_response_format=True) as srv:
            srv.script += [text_chunks("Paris.") for _ in range(4)]
            result = CliRunner().invoke(app, ["eval", "tasks", "--base-url", srv.base_url, "--no-local-server",
                                              "--arms", "on,free", "--suite", str(suite), "--task", "france",
                                              "--repeat", "2", "--json", "--out", str(tmp_path / args[-1]), *args[:-1]])
            assert result.exit_code == 0, result.output
            sent = [r.get("seed") for r in srv.requests if "response_format" not in r]
            return json.loads(result.stdout), sent, srv.slot_actions

    report, sent, erased = seeds("--seed", "7", "seeded")
    assert sent == [7, 7, 8, 8]  # run 1: on, free; run 2: on, free
    assert report["seed"] == 7 and report["arms"]["on"]["passed"] == 2
    # each task run starts from an empty prompt cache: a prompt computed on a cached prefix differs in its last bits
    assert erased == ["/api/slots/0?action=erase"] * 4  # base URL .../api/v1: the slots are under /api
    with FakeOpenAIServer(reject_response_format=True) as srv:  # the table says the run was seeded
        srv.script += [text_chunks("Paris.")]
        shown = CliRunner().invoke(app, ["eval", "tasks", "--base-url", srv.base_url, "--no-local-server", "--arms",
                                         "on", "--suite", str(suite), "--task", "france", "--seed", "3", "--out",
                                         str(tmp_path / "shown")]).stdout
    assert "eval tasks two capitals, seed 3, model" in shown, shown[:300]
    report, sent, erased = seeds("unseeded")
    assert sent == [None] * 4 and report["seed"] is None and erased == []
