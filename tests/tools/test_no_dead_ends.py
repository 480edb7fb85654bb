"""File tools that used to dead-end: a path outside the allowed folders or one that names nothing, a folder
searched by a wordy name or by the search root, an edit whose old text is a near miss, a glob in the shell,
and a read whose result the model answered with its metadata. Real files in temp folders, real tools."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from called import as_called
from gaia_lite.agent.fallback import answer_from_result
from gaia_lite.agent.results import compact_result
from gaia_lite.registry.context import ToolContext
from gaia_lite.tools import files, rag
from gaia_lite.tools.shell import RateLimiter, run_shell_command

read_file, edit_file, search_directory = (as_called(files.read_file), as_called(files.edit_file),
                                          as_called(files.search_directory))
index_document = as_called(rag.index_document)


# ---------------------------------------------------------------- paths outside or naming nothing

def test_a_path_outside_reads_the_file_of_that_name_inside_and_never_the_outside_one(tool_ctx, tmp_path: Path,
                                                                                   outside_dir: Path) -> None:
    (tmp_path / "hosts.txt").write_text("10.0.0.5 files.internal\n")
    invented = read_file(tool_ctx, "/etc/hosts.txt")   # the 0.5B's guess for the hosts.txt here
    assert invented["status"] == "success" and invented["content"] == "10.0.0.5 files.internal\n"
    assert invented["file_path"] == str(tmp_path / "hosts.txt") and "was not read" in invented["note"]
    (tmp_path / "secret_plans.txt").write_text("the plans in here\n")
    real = read_file(tool_ctx, str(outside_dir / "secret_plans.txt"))   # exists outside: still never read
    assert real["content"] == "the plans in here\n" and "outside the sandbox" not in str(real)


def test_an_outside_path_nothing_inside_stands_for_is_refused_as_before(tool_ctx, outside_dir: Path) -> None:
    for path in (str(outside_dir / "secret_plans.txt"), "/etc/zebra-migration.conf"):
        result = read_file(tool_ctx, path)
        assert result["status"] == "error" and "outside the allowed folders" in result["error"], result
        assert "outside the sandbox" not in str(result)


def test_a_credential_path_is_refused_even_when_a_namesake_is_inside(tool_ctx, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("harmless\n")
    result = read_file(tool_ctx, "/root/.ssh/id_rsa")
    assert result["status"] == "error" and "credential" in result["error"]


def test_a_missing_file_names_what_the_folder_holds(tool_ctx, tmp_path: Path) -> None:
    # "how many .txt files are in this folder?" was answered with read_file(<workdir>/notes.txt): a dead end
    for name in ("a.txt", "b.txt", "c.txt", "d.md"):
        (tmp_path / name).write_text(name)
    result = read_file(tool_ctx, str(tmp_path / "notes.txt"))
    assert result["status"] == "error" and result["folder_holds"] == ["a.txt", "b.txt", "c.txt", "d.md"]
    assert "This folder holds: a.txt, b.txt, c.txt, d.md." in result["error"]


def test_indexing_a_path_that_names_nothing_indexes_the_folder_the_user_named(rag_ctx: ToolContext) -> None:
    minutes = rag_ctx.workdir / "minutes"
    minutes.mkdir()
    (minutes / "2025-03-12.md").write_text("# Minutes, 12 March 2025\n\nNote-taker: Jonas Berg\n")
    (minutes / "2025-02-10.md").write_text("# Minutes, 10 February 2025\n\nNote-taker: Elif Demir\n")
    rag_ctx.request.message = "add the minutes folder to your docs and tell me who took notes at the March meeting"
    result = index_document(rag_ctx, str(rag_ctx.workdir / "notes.txt"))
    assert result["status"] == "success" and "Indexed 2 files in minutes/" in result["message"], result
    assert "Jonas Berg" in result["message"]                       # the passage that answers is in the message
    assert "Demir" not in result["message"]
    assert sorted(Path(d.path).name for d in rag_ctx.rag.list_documents()) == ["2025-02-10.md", "2025-03-12.md"]
    rag_ctx.request.message = "index my notes please"              # no folder named: the failure as before
    assert index_document(rag_ctx, "nothing-here.txt")["status"] == "error"


# ---------------------------------------------------------------- folders by wordy names

@pytest.fixture
def projects(tool_ctx, tmp_path: Path) -> Path:
    for f in ("clients/acme-corp/website-redesign/brief.md", "projects/2025/mobile-app-v2/README.md",
              "projects/2025/old-site/index.md"):
        (tmp_path / f).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / f).write_text("x\n")
    return tmp_path


@pytest.mark.parametrize("name, depth, folder", [
    ("mobile_app_v2_project", 1, "projects/2025/mobile-app-v2"),
    ("website_redesign_project", 2, "clients/acme-corp/website-redesign"),
    ("the Acme Corp client folder", 1, "clients/acme-corp"),
])
def test_a_wordy_folder_name_with_a_shallow_depth_is_found(tool_ctx, projects: Path, name: str, depth: int,
                                                           folder: str) -> None:
    result = search_directory(tool_ctx, name, max_depth=depth)
    assert result["directories"][0] == str(projects / folder), result
    assert result["note"] == f"nothing within max_depth {depth}; found deeper"


def test_the_search_root_as_the_name_means_the_folder_the_user_named(tool_ctx, projects: Path) -> None:
    tool_ctx.request.message = "what's in the mobile app v2 project?"
    for name in (str(projects), "."):
        result = search_directory(tool_ctx, name)
        assert result["directories"][0] == str(projects / "projects/2025/mobile-app-v2"), result
        assert "it holds 1 file: README.md" in result["message"]
    whole = search_directory(tool_ctx, str(projects / "clients"))
    assert whole["directories"] == [str(projects / "clients")] and "it holds 1 folder: acme-corp/" in whole["message"]


# ---------------------------------------------------------------- edits that nearly match

PLAN = "# Project plan\n\nOwner: Ines\nDeadline: 1 March\nStatus: on track\n"


def test_an_edit_that_differs_only_in_case_is_applied_and_says_so(tool_ctx, tmp_path: Path) -> None:
    plan = tmp_path / "project-plan.md"
    plan.write_text(PLAN)
    result = edit_file(tool_ctx, "project-plan.md", "deadline:  1 march", "Deadline: 15 March")
    assert result["status"] == "success" and plan.read_text() == PLAN.replace("1 March", "15 March")
    assert result["note"] == "old_content matched once with different spacing or case: 'Deadline: 1 March' was replaced"


def test_a_case_free_match_found_twice_is_not_a_guess(tool_ctx, tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("Todo: milk\ntodo: MILK\n")
    assert edit_file(tool_ctx, "notes.txt", "TODO: milk", "done")["status"] == "error"
    assert notes.read_text() == "Todo: milk\ntodo: MILK\n"


def test_an_edit_that_misses_quotes_the_closest_lines_to_copy(tool_ctx, tmp_path: Path) -> None:
    (tmp_path / "project-plan.md").write_text(PLAN)
    (tmp_path / "app.py").write_text("def main():\n    return compute_total(items)\n")
    missed = edit_file(tool_ctx, "project-plan.md", "the deadline is 14 March", "the deadline is 15 March")
    assert missed["status"] == "error" and missed["closest_lines"][0] == "Deadline: 1 March"
    assert "'Deadline: 1 March'" in missed["error"] and "cat" not in missed["error"]
    indented = edit_file(tool_ctx, "app.py", "return compute_totals(items)", "return 0")
    assert indented["closest_lines"][0] == "    return compute_total(items)"   # verbatim, indentation kept
    again = edit_file(tool_ctx, "project-plan.md", missed["closest_lines"][0], "Deadline: 15 March")
    assert again["status"] == "success"                                   # the quoted line is copyable


# ---------------------------------------------------------------- globs in the shell

@pytest.fixture
def logs(tool_ctx, tmp_path: Path) -> ToolContext:
    for name in ("app.log", "db.log", "readme.txt", "api_token.log", "-n"):
        (tmp_path / name).write_text(f"{name} line\n")
    tool_ctx.shell_limiter = RateLimiter(limits=((1000, 10.0),))
    return tool_ctx


def test_a_glob_names_the_files_inside_and_never_a_credential(logs: ToolContext) -> None:
    listed = run_shell_command(logs, "ls -l *.log")
    assert listed["status"] == "success" and "app.log" in listed["stdout"] and "db.log" in listed["stdout"]
    assert "api_token" not in listed["stdout"]                      # a credential's name is never expanded
    counted = run_shell_command(logs, "wc -l *")
    assert "api_token.log line" not in str(counted) and "./-n" in counted["stdout"]   # "-n" is a file, not -n


def test_a_glob_aimed_outside_is_refused_without_listing_it(logs: ToolContext, outside_dir: Path) -> None:
    result = run_shell_command(logs, f"cat {outside_dir}/*.txt")
    assert result["status"] == "error" and "outside the allowed folders" in result["error"]
    assert "secret_plans" not in str(result)


def test_patterns_a_program_matches_itself_are_left_to_it(logs: ToolContext) -> None:
    found = run_shell_command(logs, "find . -name *.log")
    assert "./app.log" in found["stdout"]
    assert run_shell_command(logs, 'ls "*.log"')["status"] == "error"   # quoted: the literal name


# ---------------------------------------------------------------- a read shaped for answering

def test_a_read_ends_with_the_text_after_its_short_facts(tool_ctx, tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "release_notes.md").write_text("# Release notes\n\n## 3.4.1\n- Fix export.\n")
    result: dict[str, Any] = read_file(tool_ctx, "release-notes.txt")
    assert list(result) == ["status", "file_path", "size_bytes", "lines", "content"]
    shown = compact_result(result)
    assert shown.endswith("## 3.4.1\n- Fix export.")   # nothing after the text for the model to copy
    assert result["file_path"] == str(tmp_path / "docs" / "release_notes.md")   # no note: it was given as the answer
    assert answer_from_result("read_file", result) == "release_notes.md says:\n# Release notes\n\n## 3.4.1\n- Fix export."
