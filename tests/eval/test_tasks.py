"""`eval tasks`: fixtures hold the expected facts, the answer rules are right, the runner logs and scores."""

from __future__ import annotations

import csv
import logging
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from gaia_lite.eval import tasks
from gaia_lite.events import ModelCallFinished, ToolCallFinished, TurnFinished, TurnStarted
from gaia_lite.eval.logscore import format_tool_calls
from gaia_lite import logline


def test_builtin_suite_loads_and_covers_every_headless_bundle() -> None:
    suite = tasks.builtin_suite()
    ids = [t.id for t in suite.tasks]
    assert len(ids) >= 60
    assert {"smart_discovery", "known_path_read", "data_vs_recall", "multi_step", "no_tools_needed"} <= set(ids)
    turns = [turn for t in suite.tasks for turn in t.turns]
    assert any(turn.no_tools for turn in turns) and any(turn.new_conversation for turn in turns)
    assert any(t.files_after for t in suite.tasks) and any(len(t.turns) >= 3 for t in suite.tasks)
    for task in suite.tasks:
        for _dest, source in task.copy:
            assert source.is_file()


ISSUE_28_CLASSES = {"search", "document", "one_step", "grounded", "look_alike", "memory", "no_tools"}


def test_builtin_suite_covers_the_failure_classes_in_both_splits() -> None:
    suite = tasks.builtin_suite()
    classes = {t.task_class for t in suite.tasks}
    assert ISSUE_28_CLASSES <= classes
    for cls in classes:  # every class is tuned on and held out
        assert {t.split for t in suite.tasks if t.task_class == cls} == {"dev", "test"}, cls
    test_share = sum(t.split == "test" for t in suite.tasks) / len(suite.tasks)
    assert 0.3 <= test_share <= 0.37


def test_every_builtin_task_sets_up(tmp_path: Path) -> None:
    for task in tasks.builtin_suite().tasks:
        tasks.prepare_workdir(task, tmp_path / task.id)
        for dest, _ in (*task.files, *task.copy):
            assert (tmp_path / task.id / dest).is_file(), (task.id, dest)


def test_sales_fixture_has_the_expected_numbers() -> None:
    with tasks.fixture_path("sales_data_2025.csv").open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    q1 = [r for r in rows if r["date"] < "2025-04-01"]
    assert sum(int(r["revenue"]) for r in q1) == 340_000
    totals: Counter[str] = Counter()
    for r in rows:
        totals[r["salesperson"]] += int(r["revenue"])
    (top, amount), (_second, runner_up) = totals.most_common(2)
    assert (top, amount) == ("Sarah Chen", 70_000) and runner_up < amount
    q1_totals: Counter[str] = Counter()
    for r in q1:
        q1_totals[r["salesperson"]] += int(r["revenue"])
    assert q1_totals.most_common(1) == [("Sarah Chen", 70_000)]
    for r in rows:  # revenue = units x unit price, so any way of computing it agrees
        assert int(r["revenue"]) == int(r["units"]) * float(r["unit_price"].strip("$").replace(",", ""))


def test_documents_hold_the_expected_facts() -> None:
    handbook = tasks.fixture_path("employee_handbook.md").read_text()
    assert "| First year | 15 days |" in handbook
    assert "up to 3 days per week with their manager's\napproval" in handbook
    assert "Contractors are not eligible for company benefits" in handbook
    report = tasks.fixture_path("acme_q3_report.md").read_text()
    assert "Q3 revenue was $14.2 million" in report and "15-18 %" in report


@pytest.mark.parametrize(("task", "turn", "answer", "ok"), [
    ("smart_discovery", 0, "First-year employees get 15 days of PTO.", True),
    ("smart_discovery", 0, "They get 150 days.", False),
    ("smart_discovery", 1, "Up to three days a week, with approval.", True),
    ("known_path_read", 0, "Q3 revenue was $14.2 million.", True),
    ("known_path_read", 0, "Revenue: $14.2M", True),
    ("known_path_read", 0, "Revenue was $12.9 million.", False),
    ("known_path_read", 1, "The CEO expects 15-18% growth in 2026.", True),
    ("known_path_read", 1, "Growth of 15 to 18 percent.", True),
    ("data_vs_recall", 0, "Total Q1 revenue was $340,000.", True),
    ("data_vs_recall", 0, "Total was 340000 dollars", True),
    ("data_vs_recall", 0, "Total was $440,000", False),
    ("data_vs_recall", 1, "Sarah Chen sold the most: $70,000.", True),
    ("data_vs_recall", 1, "Raj Mehta with $69,000", False),
    ("multi_step", 0, "15 PTO days; 3 remote days a week; contractors are not eligible for benefits.", True),
    ("multi_step", 0, "15 PTO days; 3 remote days a week.", False),
    ("no_tools_needed", 0, "Paris.", True),
    ("no_tools_needed", 1, "15% of 200 is 30.", True),
    ("no_tools_needed", 1, "It is 300.", False),
])
def test_answer_rules(task: str, turn: int, answer: str, ok: bool) -> None:
    check = tasks.select_tasks([task])[0].turns[turn]
    assert (not tasks.check_turn(check, answer, [])) is ok


@pytest.mark.parametrize(("task", "turn", "answer", "ok"), [
    ("csv_total", 0, "The total of q1 is 425.", True),
    ("csv_total", 0, "The total is 4250.", False),
    ("search_content", 0, "field/day2.md mentions the heron.", True),
    ("search_content", 0, "day2.md and field/day1.md", False),  # a reject rule
    ("remember_preference", 1, "You prefer tea.", True),
    ("remember_preference", 1, "You prefer coffee over tea.", False),
    ("arithmetic", 0, "12 times 12 is 144.", True),
    # issue 28's tasks: any correct phrasing passes, the classic wrong answers fail
    ("data_orders_casual", 0, "Mila Novak spent the most, $470.00 over three orders.", True),
    ("data_orders_casual", 0, "Chloe Martin spent the most ($300).", False),
    ("data_total_casual", 0, "The q2 column adds up to 450.", True),
    ("data_followup_casual", 1, "There are 75 nuts left.", True),
    ("search_project_in_words", 0, "The website redesign is due on 14 November 2025.", True),
    ("search_project_in_words", 0, "Deadline: November 14th.", True),
    ("search_project_in_words", 0, "It is due 2 February 2026.", False),
    ("search_client_casual", 0, "Initech's number is +1 555 0177.", True),
    ("search_client_casual", 0, "Call +1 555 0142.", False),
    ("search_todo_comment", 0, "src/app.py has one: retry when the upload times out.", True),
    ("search_todo_comment", 0, "tests/test_app.py", False),
    ("search_apikey_casual", 0, "config/settings.yaml holds an api_key.", True),
    ("step_index_then_query", 0, "The Brightwave contract ends on 28 February 2026.", True),
    ("step_index_then_query", 0, "It ends on February 28, 2026.", True),
    ("step_index_then_query", 0, "It ends on 30 June 2025.", False),
    ("step_followup_analysis", 1, "Rent has the highest total: 3,600.", True),
    ("step_followup_analysis", 1, "Let's proceed with that analysis.", False),
    ("doc_according_unindexed", 0, "Flights must be booked at least 14 days ahead.", True),
    ("doc_according_unindexed", 0, "No documents are indexed yet.", False),
    ("doc_handbook_unindexed", 0, "No. Contractors are not eligible for company benefits.", True),
    ("doc_handbook_unindexed", 0, "Yes, contractors are eligible.", False),
    ("multi_step_casual", 0, "10 sick days; up to 5 PTO days carry over; furniture up to 600 dollars.", True),
    ("ground_listing", 0, "projects holds roadmap.md and budget.csv, and a folder, archive.", True),
    ("ground_listing", 0, "1 file and 2 folders: roadmap, budget, archive.", False),  # swapped counts
    ("ground_listing_casual", 0, "3 files (setup-guide.md, faq.md, api_reference.md) and 1 folder, images.", True),
    ("ground_path", 0, "They are in home-network/router_setup.txt.", True),
    ("ground_path", 0, "See /home/user/router_setup.txt.", False),
    ("ground_fact_subject", 1, "You see Dr. Alvarez on 12 May.", True),
    ("ground_fact_subject", 1, "You have an appointment on the 12th.", False),  # the subject was dropped
    ("keep_in_mind_fact", 1, "At 3:30 pm (15:30).", True),
    ("keep_in_mind_casual", 1, "Your gym membership number is GM-55-0912.", True),
    ("no_tool_sentence_why", 0, "Air scatters short blue wavelengths of sunlight more than red ones.", True),
    ("alike_find_recipe_casual", 0, "It's in cooking/breakfast/pancakes_recipe.txt: 2 eggs.", True),
    ("alike_find_recipe_casual", 0, "You need 200 g flour.", False),
])
def test_new_task_rules(task: str, turn: int, answer: str, ok: bool) -> None:
    check = tasks.select_tasks([task])[0].turns[turn]
    assert (not tasks.check_turn(check, answer, [])) is ok


def test_edit_tasks_check_the_file_not_the_reply(tmp_path: Path) -> None:
    from gaia_lite.eval.suite import check_files_after

    task = tasks.select_tasks(["alike_update_casual"])[0]
    tasks.prepare_workdir(task, tmp_path)
    assert check_files_after(task, tmp_path)  # untouched: fails
    plan = tmp_path / "project-plan.md"
    plan.write_text(plan.read_text().replace("Deadline: 1 March", "Deadline: 15 March"))
    assert check_files_after(task, tmp_path) == []


@pytest.mark.parametrize(("answer", "narrated"), [
    ("list_recent_files", True),
    ("To list the files you can use the `browse_directory` tool with these arguments.", True),
    ("The folder holds notes.md and budget.csv.", False),
    ("I read the file (read-only) and found 8080.", False),
])
def test_narration_is_an_answer_that_names_a_tool(answer: str, narrated: bool) -> None:
    assert tasks.is_narrated(answer, ["list_recent_files", "browse_directory", "read_file"]) is narrated


@pytest.mark.parametrize(("answer", "malformed"), [
    ('{"name": "read_file", "arguments": {"file_path": "a"', True),
    ("```json\n{'tool': 'read_file'}\n```", True),
    ("The port is 8080 {see config}.", False),
])
def test_malformed_is_an_unreadable_call_left_in_the_answer(answer: str, malformed: bool) -> None:
    assert tasks.is_malformed(answer) is malformed


def test_gated_calls_are_approved_inside_the_task_dir_only(tmp_path: Path) -> None:
    assert tasks.inside(tmp_path, {"file_path": "notes/a.txt", "content": "/etc/passwd"})
    assert tasks.inside(tmp_path, {"command": "wc -l words.txt"})
    assert not tasks.inside(tmp_path, {"file_path": "../outside.txt"})
    assert not tasks.inside(tmp_path, {"file_path": "/etc/hosts"})
    assert not tasks.inside(tmp_path, {"working_directory": "/"})


def test_no_tools_rule_fails_a_right_answer_reached_with_a_tool() -> None:
    check = tasks.select_tasks(["no_tools_needed"])[0].turns[0]
    assert tasks.check_turn(check, "Paris", ["search_file"]) == [
        "called tools although none were needed: search_file"]


def test_select_tasks() -> None:
    assert [t.name for t in tasks.select_tasks([])] == [t.name for t in tasks.builtin_suite().tasks]
    assert [t.name for t in tasks.select_tasks(["no_tools_needed", "smart_discovery"])] == [
        "smart_discovery", "no_tools_needed"]
    with pytest.raises(ValueError, match="unknown task"):
        tasks.select_tasks(["nope"])


def test_prepare_workdir(tmp_path: Path) -> None:
    task = tasks.select_tasks(["smart_discovery"])[0]
    tasks.prepare_workdir(task, tmp_path / "w")
    assert (tmp_path / "w/company/hr/policies/employee_handbook.md").is_file()
    tasks.prepare_workdir(tasks.select_tasks(["csv_total"])[0], tmp_path / "c")
    assert (tmp_path / "c/sales.csv").read_text().startswith("region,q1,q2\n")


class _FakeAgent:
    """Answers from a table; with the loader 'on' it writes the log lines the real agent and loader write."""

    def __init__(self, arm: str, answers: dict[str, tuple[str, list[str]]]) -> None:
        self.arm = arm
        self.answers = answers
        self.turn = 0

    def run(self, prompt: str):
        self.turn += 1
        answer, called = self.answers.get(prompt, ("I don't know", []))
        yield TurnStarted(self.turn, prompt)
        if self.arm == "on":
            logging.getLogger("gaia_lite.loader").info(logline.format_selection(logline.selection_payload(
                turn=self.turn, query_sha="x", threshold=0.2, max_tools=14, scores={}, matched=[], bundle_pulled=[],
                admitted=[], evicted=[], skipped_at_cap=[], loaded=["read_file"], skill=None, tools_hash="h",
                selection_ms=1.0)))
        yield ModelCallFinished(0, 0.1, 0.4, 300, 200, 20, len(called))
        for name in called:
            yield ToolCallFinished("c", name, {}, "success", {}, 0.25, escape_hatch=name != "read_file")
        logging.getLogger("gaia_lite.agent").info(
            format_tool_calls(self.turn if self.arm == "on" else 0, self.turn, called))
        yield TurnFinished(self.turn, answer, tuple(called), 1, 0.1, 100, 0, ("read_file",))


class _FakeServices:
    def __init__(self, agent: _FakeAgent) -> None:
        self.agent = agent
        self.rag = None
        self.closed = False

    def close(self) -> None:
        self.closed = True


def test_run_tasks_reports_per_arm_and_scores_the_log(tmp_path: Path) -> None:
    task = tasks.select_tasks(["known_path_read"])[0]
    answers = {task.turns[0].prompt: ("It was $14.2 million.", ["read_file"]),
               task.turns[1].prompt: ("About 15-18% growth.", ["query_specific_file"])}
    made: list[tuple[str, Path, Path]] = []
    services: list[_FakeServices] = []

    def factory(arm: str, workdir: Path, home: Path) -> Any:
        made.append((arm, workdir, home))
        assert (workdir / "reports/acme_q3_report.md").is_file()
        s = _FakeServices(_FakeAgent(arm, answers if arm == "on" else {}))
        services.append(s)
        return s

    report = tasks.run_tasks([task], ["off", "on"], factory, tmp_path / "run")
    assert [m[0] for m in made] == ["off", "on"] and all(s.closed for s in services)
    # one path for both arms (it is in the prompt), named by the task's place in the suite (2nd), and a fresh
    # home each: the first arm's folder moved on to 02a when it ended
    assert task.number == 2 and len({m[2] for m in made}) == 1 and made[0][2] == tmp_path / "run" / "02" / "home"
    assert [p.name for p in sorted((tmp_path / "run").iterdir()) if p.is_dir()] == ["02a", "02b"]
    arms = report["arms"]
    assert arms["off"]["success"] == 0.0 and arms["on"]["success"] == 1.0
    assert arms["on"]["tool_calls"] == 2 and arms["on"]["escape_hatches"] == 1
    on_turns = [t for r in report["tasks"] if r["arm"] == "on" for t in r["turns"]]
    assert [c["name"] for t in on_turns for c in t["calls"]] == ["read_file", "query_specific_file"]
    assert all({"arguments", "outcome"} <= set(c) for t in on_turns for c in t["calls"])  # to read a failure
    # where the time went: model calls (prefilled = prompt - cached) and tools
    assert arms["on"]["time"] == {"model_seconds": 0.8, "tool_seconds": 0.5, "prefilled_tokens": 200,
                                  "written_tokens": 40}
    assert on_turns[0]["model_calls"] == [{"seconds": 0.4, "ttft_s": 0.1, "prompt_tokens": 300, "cached_tokens": 200,
                                           "completion_tokens": 20}]
    ls = report["log_score"]
    assert ls["turns"] == 2 and ls["unfiltered_turns"] == 2
    assert ls["recall"] == pytest.approx(0.5)  # query_specific_file was not loaded on turn 2
    assert Path(report["log"]).read_text().count("EVAL_TASK") == 2


class _SkillAgent(_FakeAgent):
    """Reports a recalled procedure on the first turn, the way the real agent's TurnFinished.stats does."""

    def run(self, prompt: str):
        for ev in super().run(prompt):
            if isinstance(ev, TurnFinished) and self.turn == 1:
                ev = TurnFinished(ev.turn, ev.answer, ev.tools_called, 2, ev.ttft_s, ev.prompt_tokens,
                                  ev.cached_tokens, ("read_file", "search_file"), {"skills": ["find-it"]})
            yield ev


def test_skills_arm_counts_fired_turns_loaded_tools_and_model_calls(tmp_path: Path) -> None:
    task = tasks.select_tasks(["known_path_read"])[0]
    answers = {task.turns[0].prompt: ("It was $14.2 million.", ["read_file"])}

    def factory(arm: str, workdir: Path, home: Path) -> Any:
        return _FakeServices((_SkillAgent if arm == "skills" else _FakeAgent)("on", answers))

    report = tasks.run_tasks([task], ["on", "skills"], factory, tmp_path / "run")
    on, sk = report["arms"]["on"], report["arms"]["skills"]
    assert (on["skill_turns"], sk["skill_turns"]) == (0, 1)
    assert (on["mean_loaded"], sk["mean_loaded"]) == (1.0, 1.5)
    assert (on["model_calls"], sk["model_calls"]) == (2, 3)
    assert report["tasks"][1]["turns"][0]["skills"] == ["find-it"]
    assert "log_score" in report  # the skills arm runs the loader, so its log is scored


@pytest.mark.parametrize(("args", "message"), [
    (["--arms", "on,sometimes"], "--arms 'on,sometimes' is invalid"),
    (["--arms", "on,on"], "--arms 'on,on' is invalid"),
    (["--arms", "skills", "--skills", "{empty}"], "no *.md skill files there"),
])
def test_bad_arms_and_skill_dirs_are_one_line_errors(tmp_path: Path, args: list[str], message: str) -> None:
    import subprocess
    import sys

    (tmp_path / "empty").mkdir()
    args = [a.replace("{empty}", str(tmp_path / "empty")) for a in args]
    proc = subprocess.run([sys.executable, "-m", "gaia_lite", "eval", "tasks", *args], capture_output=True,
                          text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def test_default_skills_dir_holds_the_task_procedures() -> None:
    names = sorted(p.stem for p in tasks.default_skills_dir().glob("*.md"))
    assert names == ["answer-from-unlocated-document", "briefing-from-document", "figure-from-report-at-path",
                     "totals-from-csv"]


def test_the_nobridge_arm_is_the_free_arm_without_the_call_tool_bridge() -> None:
    from gaia_lite.cli.eval_live import task_arm_settings
    from gaia_lite.config import load_settings
    from gaia_lite.loader.presets import layout_for

    base = load_settings({}, {})
    free = task_arm_settings(base, "free", "constrained")
    nobridge = task_arm_settings(base, "nobridge", "constrained")
    assert (free.dynamic_tools, free.tool_calls, layout_for(free.prompt_layout, free.preset)) == (True, "free", "stable")
    assert (nobridge.dynamic_tools, nobridge.tool_calls, layout_for(nobridge.prompt_layout, nobridge.preset)) \
        == (True, "free", "append")
    assert task_arm_settings(base, "on", "constrained").tool_calls == "constrained"
    assert task_arm_settings(base, "off", "free").dynamic_tools is False


def test_the_on_and_off_arms_send_the_compact_grammar_where_the_server_honours_it(monkeypatch) -> None:
    from gaia_lite.agent.constrained import GRAMMAR_MODE
    from gaia_lite.cli import eval_live, services
    from gaia_lite.config import load_settings
    from gaia_lite.llm.structured import Capabilities

    base = load_settings({}, {})
    for found, mode in [(Capabilities(True, True), GRAMMAR_MODE), (Capabilities(True, False), "constrained"),
                        (Capabilities(), "free")]:
        monkeypatch.setattr(services, "structured_replies", lambda *_args: found)
        assert eval_live._calls_mode(base, None, None) == mode
    assert eval_live.task_arm_settings(base, "on", GRAMMAR_MODE).tool_calls == GRAMMAR_MODE
    assert [eval_live.task_arm_settings(base, arm, GRAMMAR_MODE).tool_calls for arm in ("free", "gbnf", "answer-first")] \
        == ["free", "gbnf", "answer-first"]
