"""`gaia-lite skills ...` through typer's CliRunner, with GAIA_HOME in a temp dir (conftest)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from gaia_lite.cli.app import app

SKILL = """---
name: sales-csv-report
when_to_use: Summarize the sales in a CSV file by region and save the totals as a markdown report
tools_required: [analyze_data_file, write_file]
---
1. Call `analyze_data_file` with a group-by on the region column.
2. Save the totals with `write_file`.
"""


@pytest.fixture
def cli(embedder: Any) -> Any:  # needs the real embedder for `add`
    runner = CliRunner()

    def run(*args: str) -> Any:
        return runner.invoke(app, ["skills", *args])

    return run


@pytest.fixture
def skill_file(tmp_path: Path) -> Path:
    path = tmp_path / "sales.md"
    path.write_text(SKILL, encoding="utf-8")
    return path


def test_add_list_show_disable_enable_delete(cli: Any, skill_file: Path) -> None:
    empty = cli("list")
    assert empty.exit_code == 0 and "No procedures yet" in empty.output

    added = cli("add", str(skill_file))
    assert added.exit_code == 0, added.output
    assert "Added sales-csv-report" in added.output

    listed = cli("list")
    assert listed.exit_code == 0 and "sales-csv-report  yes" in listed.output
    assert "analyze_data_file, write_file" in listed.output

    shown = cli("show", "sales-csv-report")
    assert shown.exit_code == 0 and shown.output.startswith("---\nname: sales-csv-report\n")
    assert "1. Call `analyze_data_file`" in shown.output and "# enabled; 0 successes in 0 uses" in shown.output

    assert cli("disable", "sales-csv-report").exit_code == 0
    rows = json.loads(cli("list", "--json").output)
    assert [(r["name"], r["enabled"], r["tools_required"]) for r in rows] == \
        [("sales-csv-report", False, ["analyze_data_file", "write_file"])]
    assert cli("enable", "sales-csv-report").exit_code == 0
    assert json.loads(cli("show", "sales-csv-report", "--json").output)["enabled"] is True

    deleted = cli("delete", "sales-csv-report", "--yes")
    assert deleted.exit_code == 0 and "Deleted sales-csv-report" in deleted.output
    assert json.loads(cli("list", "--json").output) == []


def test_shown_skill_file_can_be_added_again(cli: Any, skill_file: Path, tmp_path: Path) -> None:
    assert cli("add", str(skill_file)).exit_code == 0
    exported = tmp_path / "exported.md"
    exported.write_text(cli("show", "sales-csv-report").output, encoding="utf-8")
    again = cli("add", str(exported), "--replace")
    assert again.exit_code == 0 and "Replaced sales-csv-report" in again.output


def test_errors_are_one_line_with_non_zero_exits(cli: Any, skill_file: Path, tmp_path: Path) -> None:
    assert cli("add", str(skill_file)).exit_code == 0
    dup = cli("add", str(skill_file))
    assert dup.exit_code == 1 and "already exists; pass --replace" in dup.output
    for args in (("show", "nope"), ("disable", "nope"), ("enable", "nope"), ("delete", "nope", "-y")):
        res = cli(*args)
        assert res.exit_code == 1 and "no procedure named 'nope'" in res.output, args
    missing = cli("add", str(tmp_path / "missing.md"))
    assert missing.exit_code == 2 and "cannot read" in missing.output
    bad = tmp_path / "bad.md"
    bad.write_text("just some steps\n", encoding="utf-8")
    res = cli("add", str(bad))
    assert res.exit_code == 2 and "front matter" in res.output and "Traceback" not in res.output


def test_add_warns_about_tools_that_are_not_doc_tools(cli: Any, tmp_path: Path) -> None:
    path = tmp_path / "odd.md"
    path.write_text(SKILL.replace("sales-csv-report", "odd-one").replace("write_file]", "send_email]"),
                    encoding="utf-8")
    res = cli("add", str(path))
    assert res.exit_code == 0 and "will be ignored: send_email" in res.output


def test_memory_disabled_is_a_clear_error(cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GAIA_MEMORY_DISABLED", "1")
    res = cli("list")
    assert res.exit_code == 2 and "memory is disabled" in res.output


def test_synthesize_dry_run_needs_no_model(cli: Any, embedder: Any) -> None:
    from gaia_lite.config import load_settings
    from gaia_lite.memory.store import MemoryStore
    from gaia_lite.skills.recall import SkillService

    settings = load_settings({})
    mem = MemoryStore(settings.paths.memory_db, embedder)
    skills = SkillService(mem, embedder, {"search_file", "index_document", "summarize_document"})
    span = [("search_file", {"pattern": "str"}, True), ("index_document", {"path": "str"}, True),
            ("summarize_document", {"path": "str"}, True)]
    for goal in ("Find the quarterly report PDF on my computer and summarize it",
                 "find my quarterly report PDF and summarize it for me",
                 "Find the quarterly report pdf and give me a summary of it"):
        skills.record_turn(goal, span, True)
    mem.close()
    res = cli("synthesize", "--dry-run", "--json")
    assert res.exit_code == 0, res.output
    report = json.loads(res.output)
    assert report["spans"] == 3 and report["created"] == []
    assert [(o["status"], o["tools_required"]) for o in report["outcomes"]] == \
        [("planned", ["search_file", "index_document", "summarize_document"])]
    text = cli("synthesize", "--dry-run")
    assert "1 qualifying" in text.output and "would be distilled" in text.output


def test_synthesize_without_a_server_fails_cleanly(cli: Any) -> None:
    res = cli("synthesize", "--base-url", "http://127.0.0.1:9", "--no-local-server")
    assert res.exit_code == 3 and "cannot reach the model server" in res.output


def test_tools_select_loads_what_a_chat_turn_would_with_a_learned_procedure(cli: Any, skill_file: Path) -> None:
    runner = CliRunner()
    goal = "Summarize the sales in a CSV file by region and save the totals as a markdown report"
    before = json.loads(runner.invoke(app, ["tools", "select", goal, "--json"]).output)
    assert before["skills"] == [] and "skill" not in before["reasons"].values()
    assert cli("add", str(skill_file)).exit_code == 0
    after = runner.invoke(app, ["tools", "select", goal, "--json"])
    assert after.exit_code == 0, after.output
    report = json.loads(after.output)
    assert report["skills"] == ["sales-csv-report"]
    assert report["reasons"]["analyze_data_file"] == "skill" and report["reasons"]["write_file"] == "skill"
