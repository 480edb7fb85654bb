"""File tools on real files in tmp_path, always through the sandbox."""

from __future__ import annotations

import os
import re
import time
from datetime import date
from pathlib import Path

import pytest

from gaia_lite.agent.fallback import answer_from_result
from gaia_lite.registry.context import TurnRequest
from gaia_lite.registry.spec import spec_of
from gaia_lite.tools import files
from gaia_lite.tools.files import MAX_FILE_BYTES

from tests.tools.called import as_called

(browse_directory, edit_file, get_file_info, list_recent_files, read_file, search_directory, search_file,
 search_file_content, write_file) = map(as_called, (
    files.browse_directory, files.edit_file, files.get_file_info, files.list_recent_files, files.read_file,
    files.search_directory, files.search_file, files.search_file_content, files.write_file))


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "reports" / "2025").mkdir(parents=True)
    (tmp_path / "reports" / "2025" / "sales_data_2025.csv").write_text("date,revenue\n2025-01-01,10\n2025-02-01,20\n")
    (tmp_path / "reports" / "quarterly summary.md").write_text("# Summary\n\n## Q1\nRevenue grew.\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text(
        "import os\n\nclass Greeter:\n    def hello(self):\n        return 'hi'\n\ndef main():\n    pass\n")
    (tmp_path / "node_modules" / "pkg").mkdir(parents=True)
    (tmp_path / "node_modules" / "pkg" / "sales_data_2025.csv").write_text("ignored\n")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "sales_notes.txt").write_text("ignored\n")
    return tmp_path


# ---------------------------------------------------------------- every path tool is sandboxed

OUTSIDE_CALLS = {
    "read_file": lambda ctx, p: read_file(ctx, str(p / "secret_plans.txt")),
    "write_file": lambda ctx, p: write_file(ctx, str(p / "new.txt"), "x"),
    "edit_file": lambda ctx, p: edit_file(ctx, str(p / "secret_plans.txt"), "outside", "inside"),
    "get_file_info": lambda ctx, p: get_file_info(ctx, str(p / "secret_plans.txt")),
    "browse_directory": lambda ctx, p: browse_directory(ctx, str(p)),
    "search_directory": lambda ctx, p: search_directory(ctx, "x", search_root=str(p)),
    "search_file_content": lambda ctx, p: search_file_content(ctx, "outside", directory=str(p)),
    "list_recent_files": lambda ctx, p: list_recent_files(ctx, location=str(p)),
}


@pytest.mark.parametrize("name", list(OUTSIDE_CALLS))
def test_every_path_tool_refuses_outside_paths(tool_ctx, outside_dir: Path, name: str) -> None:
    result = OUTSIDE_CALLS[name](tool_ctx, outside_dir)
    assert result["status"] == "error"
    assert "--allowed-paths" in result["error"]
    assert (outside_dir / "secret_plans.txt").read_text() == "outside the sandbox\n"
    assert not (outside_dir / "new.txt").exists()


def test_write_and_edit_are_gated_reads_are_not() -> None:
    assert spec_of(files.write_file).gated and spec_of(files.edit_file).gated
    assert not spec_of(files.read_file).gated and not spec_of(files.search_file).gated


# ---------------------------------------------------------------- search_file / search_directory

def test_search_file_by_words_glob_regex_and_squashed_name(tool_ctx, tree: Path) -> None:
    by_words = search_file(tool_ctx, "sales 2025")
    assert [f["name"] for f in by_words["files"]] == ["sales_data_2025.csv"]     # node_modules skipped
    assert search_file(tool_ctx, "*.csv")["count"] == 1
    assert search_file(tool_ctx, r"^app\.py$")["files"][0]["path"] == str(tree / "src" / "app.py")
    assert search_file(tool_ctx, "salesdata")["count"] == 1
    assert search_file(tool_ctx, "quarterly summary")["count"] == 1


def test_search_file_filters_types_and_skips_hidden_and_vendor_dirs(tool_ctx, tree: Path) -> None:
    other_type = search_file(tool_ctx, "sales", file_types="md")   # offered as a close match, with why
    assert other_type["match"] == "close" and "sales_data_2025.csv (name holds every word, but not of type md)" \
        in other_type["message"], other_type["message"]
    assert search_file(tool_ctx, "sales", file_types=".csv, xlsx")["count"] == 1
    assert search_file(tool_ctx, "sales", file_types="spreadsheets")["count"] == 1   # a kind, not an extension
    assert search_file(tool_ctx, "sales_notes")["count"] == 0      # inside .git


def test_search_file_caps_results_and_reports_nothing_found(tool_ctx, tmp_path: Path) -> None:
    for i in range(25):
        (tmp_path / f"log_{i}.txt").write_text("x")
    many = search_file(tool_ctx, "log_")
    assert many["count"] == 25 and len(many["files"]) == 20 and many["truncated"]
    none = search_file(tool_ctx, "nothing-like-this")
    assert none["count"] == 0 and "message" in none
    assert search_file(tool_ctx, "  ")["status"] == "error"


def test_search_file_names_the_files_that_mention_words_no_file_is_named_after(tool_ctx, tmp_path: Path) -> None:
    (tmp_path / "field").mkdir()
    (tmp_path / "field" / "day1.md").write_text("Saw two mallards.\n")
    (tmp_path / "field" / "day2.md").write_text("A Blue Heron stood by the reeds.\n")
    result = search_file(tool_ctx, "blue heron")
    assert result["count"] == 0 and "appears in 1 file: field/day2.md" in result["message"]
    assert "appears in" not in search_file(tool_ctx, "*heron*")["message"]   # a glob is a name search only
    assert "appears in 1 file: field/day2.md" in search_file(tool_ctx, "blue heron.md")["message"]  # a guessed name
    found = search_file(tool_ctx, "day1")
    assert "appears in" not in found["message"] and found["hint"] == "read_file gives a file's text"


def test_words_wrapped_in_wildcards_are_still_looked_for_in_the_text(tool_ctx, tmp_path: Path) -> None:
    (tmp_path / "field").mkdir()
    (tmp_path / "field" / "day2.md").write_text("A Blue Heron stood by the reeds.\n")
    for pattern in (".*blue heron.*", "*blue heron*", "^.*blue heron.*$"):   # the 1.5B model sent the first
        assert "appears in 1 file: field/day2.md" in search_file(tool_ctx, pattern)["message"], pattern
    assert "appears in" not in search_file(tool_ctx, "*heron*")["message"]   # one word in a glob: a name search


@pytest.mark.parametrize("pattern", ["*.pdf|*.docx", "*.pdf;*.docx", "*.pdf, *.docx", "*.pdf *.docx", "*.{pdf,docx}"])
def test_a_list_of_globs_finds_the_files_any_of_them_names(tool_ctx, tmp_path: Path, pattern: str) -> None:
    (tmp_path / "letters").mkdir()
    for name in ("offer.pdf", "reply.docx", "notes.txt"):
        (tmp_path / "letters" / name).write_bytes(b"x")
    result = search_file(tool_ctx, pattern)
    assert sorted(f["name"] for f in result["files"]) == ["offer.pdf", "reply.docx"], pattern


def test_a_guessed_type_that_no_file_has_falls_back_on_the_files_the_request_names(tool_ctx, tmp_path: Path) -> None:
    # the letter is a .txt; the user guessed "a PDF or a Word document", and words no file holds (pdf, word, sure)
    # outweighed the two that point to it (renewal in its name, mortgage in its folder)
    (tmp_path / "finance" / "house" / "mortgage").mkdir(parents=True)
    (tmp_path / "finance" / "house" / "insurance").mkdir(parents=True)
    (tmp_path / "finance" / "house" / "mortgage" / "2026-renewal-offer.txt").write_text(
        "Halden Building Society\nYour fixed rate ends 31 January 2027.\nNew 5-year fix offered: 4.19%\n")
    (tmp_path / "finance" / "house" / "mortgage" / "original-offer-2021.txt").write_text("Fixed for 5 years at 1.89%\n")
    (tmp_path / "finance" / "house" / "insurance" / "buildings-renewal-2026.txt").write_text("Premium 312.40\n")
    tool_ctx.request = TurnRequest("Where is my mortgage renewal letter? It might be a PDF or a Word document, I'm not sure.")
    result = search_file(tool_ctx, "*.pdf|*.docx", deep_search=True)
    assert result["match"] == "request"
    assert result["message"].startswith("For the request: finance/house/mortgage/2026-renewal-offer.txt")
    assert [f["name"] for f in result["files"]] == ["2026-renewal-offer.txt"]


def test_a_guessed_extension_finds_the_file_under_its_real_one(tool_ctx, tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "employee_handbook.md").write_text("# Handbook\nFirst-year employees get 15 days.\n")
    result = search_file(tool_ctx, "employee_handbook.txt", file_types="txt")
    assert [f["name"] for f in result["files"]] == ["employee_handbook.md"]
    assert "extension .md, not .txt" in result["message"] and result["match"] == "close"
    assert "# Handbook\nFirst-year employees get 15 days." in result["message"]   # the one close file's text
    right = search_file(tool_ctx, "employee_handbook.md")
    assert right["count"] == 1 and "match" not in right and "extension" not in right["message"]
    assert search_file(tool_ctx, "payroll.txt")["count"] == 0   # no file of that name at all


def test_the_one_file_a_name_search_finds_comes_with_its_first_lines(tool_ctx, tmp_path: Path) -> None:
    (tmp_path / "archive" / "2024").mkdir(parents=True)
    (tmp_path / "archive" / "2024" / "invoice_0193.txt").write_text(
        "Invoice 0193\nCustomer: Lindqvist Bakery\nTotal due: 1,245.50 EUR\n")
    (tmp_path / "old_invoice_0193.txt").write_text("superseded\n")
    result = search_file(tool_ctx, "invoice_0193.txt")      # two hits, one with exactly that name
    assert result["count"] == 2
    assert result["message"] == ("Found archive/2024/invoice_0193.txt. It begins:\n"
                                 "Invoice 0193\nCustomer: Lindqvist Bakery\nTotal due: 1,245.50 EUR")
    several = search_file(tool_ctx, "invoice")["message"]   # several files: no guess which one
    assert "begins" not in several and "archive/2024/invoice_0193.txt" in several
    (tmp_path / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00")
    assert search_file(tool_ctx, "photo.png")["message"] == "Found photo.png."   # not text: no preview


def test_search_file_never_looks_outside_the_roots(tool_ctx, tree: Path, outside_dir: Path) -> None:
    assert search_file(tool_ctx, "secret_plans")["count"] == 0


def test_search_file_depth(tool_ctx, tmp_path: Path) -> None:
    deep = tmp_path.joinpath(*[f"d{i}" for i in range(20)])   # beyond the default's sixteen levels
    deep.mkdir(parents=True)
    (deep / "buried_treasure.txt").write_text("x")
    assert search_file(tool_ctx, "buried_treasure")["count"] == 0
    assert search_file(tool_ctx, "buried_treasure", deep_search=True)["count"] == 1


def test_search_directory(tool_ctx, tree: Path) -> None:
    result = search_directory(tool_ctx, "REPORT")
    assert result["directories"] == [str(tree / "reports")]
    assert search_directory(tool_ctx, "2025", search_root="reports")["count"] == 1
    shallow = search_directory(tool_ctx, "2025", max_depth=1)   # max_depth is a hint: too shallow looks deeper
    assert shallow["count"] == 1 and shallow["note"] == "nothing within max_depth 1; found deeper"
    assert search_directory(tool_ctx, "")["status"] == "error"


# ---------------------------------------------------------------- read_file

def test_read_text_file(tool_ctx, tree: Path) -> None:
    result = read_file(tool_ctx, "reports/quarterly summary.md")
    assert result["status"] == "success"
    assert result["content"].startswith("# Summary")
    assert result["lines"] == 4 and result["size_bytes"] == (tree / "reports/quarterly summary.md").stat().st_size
    assert "analysis" not in result   # a short file's headings are its text
    assert list(result)[-1] == "content"  # the text closes the result; the size is among the short facts before it


def test_read_counts_a_lists_entries_not_its_lines(tool_ctx, tmp_path: Path) -> None:
    (tmp_path / "packing.md").write_text("# Packing list\n\n- passport\n- charger\n- sunscreen\n- boots\n- snacks\n")
    result = read_file(tool_ctx, "packing.md")
    assert result["lines"] == 7 and result["list_entries"] == "5"   # a title and a blank line are no entries
    assert list(result)[-1] == "content"


def test_read_says_a_lists_entries_by_heading_tick_and_nesting(tool_ctx, tmp_path: Path) -> None:
    (tmp_path / "todo.md").write_text("# Todo\n## House\n- [x] fix tap\n- [ ] paint fence\n  - buy paint\n"
                                      "## Car\n1. [ ] oil change\n2) [X] tyres\n3. wash\n"
                                      "```\n- not an entry: code\n```\n")
    assert read_file(tool_ctx, "todo.md")["list_entries"] == \
        "5 (under House 2, under Car 3; 2 ticked (checked), 2 open (unchecked)), and 1 nested under them"


def test_read_of_text_with_one_bullet_or_none_gives_no_entry_count(tool_ctx, tmp_path: Path) -> None:
    (tmp_path / "note.txt").write_text("Call the plumber on Monday.\n- bring the invoice\n")
    (tmp_path / "plain.txt").write_text("eggs\nmilk\n")
    assert "list_entries" not in read_file(tool_ctx, "note.txt")
    assert "list_entries" not in read_file(tool_ctx, "plain.txt")   # lines: 2 says it


def test_read_long_markdown_outlines_its_headings(tool_ctx, tmp_path: Path) -> None:
    (tmp_path / "long.md").write_text("# Summary\n" + "text\n" * 80 + "## Q1\nmore\n")
    result = read_file(tool_ctx, "long.md")
    assert list(result)[:2] == ["status", "file_path"] and list(result)[-1] == "content"
    assert [h["title"] for h in result["analysis"]["headers"]] == ["Summary", "Q1"]


def test_read_python_lists_symbols(tool_ctx, tree: Path) -> None:
    analysis = read_file(tool_ctx, "src/app.py")["analysis"]
    assert analysis["syntax_ok"] is True
    assert analysis["classes"][0]["name"] == "Greeter" and analysis["classes"][0]["methods"] == ["hello"]
    assert [f["name"] for f in analysis["functions"]] == ["main"]
    assert analysis["imports"] == ["os"]


def test_read_python_with_syntax_error(tool_ctx, tmp_path: Path) -> None:
    (tmp_path / "bad.py").write_text("def broken(:\n")
    analysis = read_file(tool_ctx, "bad.py")["analysis"]
    assert analysis["syntax_ok"] is False and "line 1" in analysis["syntax_error"]


def test_read_csv_leads_with_its_computed_figures(tool_ctx, tree: Path) -> None:
    result = read_file(tool_ctx, "reports/2025/sales_data_2025.csv")
    shown = result["figures"].splitlines()
    assert "Total over all 2 rows: revenue 30." in shown and "Columns: date, revenue" in shown
    assert list(result).index("figures") < list(result).index("content") and result["content"].startswith("date,")


@pytest.mark.parametrize("name, hint", [("report.pdf", "index_document"), ("letter.docx", "index_document"),
                                        ("budget.xlsx", "analyze_data_file"), ("photo.png", "analyze_image")])
def test_read_refuses_binary_documents_with_a_hint(tool_ctx, tmp_path: Path, name: str, hint: str) -> None:
    (tmp_path / name).write_bytes(b"%PDF-1.7 binary\x00\x01")
    result = read_file(tool_ctx, name)
    assert result["status"] == "error" and hint in result["error"]


def test_read_refuses_big_binary_missing_and_folders(tool_ctx, tmp_path: Path) -> None:
    with open(tmp_path / "huge.log", "wb") as fh:
        fh.truncate(MAX_FILE_BYTES + 1)                      # sparse: no real 10 MB written
    assert "10 MB" in read_file(tool_ctx, "huge.log")["error"]
    (tmp_path / "blob.bin").write_bytes(b"abc\x00def")
    assert "binary" in read_file(tool_ctx, "blob.bin")["error"]
    assert "does not exist" in read_file(tool_ctx, "nope.txt")["error"]
    (tmp_path / "folder").mkdir()
    # a folder read is its listing (the 0.5B read "wiki" for "how many .md files in wiki?"), said as one
    (tmp_path / "folder" / "a.md").write_text("a")
    listed = read_file(tool_ctx, "folder")
    assert listed["message"].startswith("folder holds 1 file: a.md") and "browse_directory" in listed["note"]
    # the working folder itself is no folder asked about (a model passes it for "what OS is this?")
    assert "browse_directory" in read_file(tool_ctx, str(tmp_path))["error"]


def _versions(root: Path, folder: str, names: list[str]) -> Path:
    (root / folder).mkdir(parents=True)
    for name in names:
        (root / folder / name).write_text(f"{name} text\n")
    return root / folder


def test_a_made_up_name_for_one_files_versions_reads_the_current_one(tool_ctx, tmp_path: Path) -> None:
    # "report.txt" for "tl;dr of the latest boiler service report" got "does not exist" and two dated names, and
    # the 1.5B answered that the report does not exist
    _versions(tmp_path, "house/maintenance", ["boiler-service-2025-10.txt", "boiler-service-2026-11.txt"])
    tool_ctx.request = TurnRequest("tl;dr of the latest boiler service report pls")
    read = read_file(tool_ctx, "report.txt")
    assert read["status"] == "success" and read["file_path"].endswith("boiler-service-2026-11.txt")
    # an undated name among dated ones is the current one
    _versions(tmp_path, "kitchen/sourdough", ["starter-log.txt", "starter-log-2025.txt"])
    tool_ctx.request = TurnRequest("how big is my sourdough startr log?")
    assert read_file(tool_ctx, "sourdough_startr.log")["file_path"].endswith("sourdough/starter-log.txt")


def test_the_version_a_request_does_not_leave_out_is_read_and_files_of_two_names_stay_the_models_to_pick(
        tool_ctx, tmp_path: Path) -> None:
    _versions(tmp_path, "kitchen/sourdough", ["starter-log.txt", "starter-log-2025.txt"])
    tool_ctx.request = TurnRequest("how big is my sourdough startr log? not the 2025 one")
    said = read_file(tool_ctx, "sourdough_startr.log")   # the one it does not leave out (probe52)
    assert said["status"] == "success" and said["file_path"].endswith("starter-log.txt"), said
    _versions(tmp_path, "post", ["bank-letter-2025.txt", "council-letter-2026.txt"])   # not one file's versions
    tool_ctx.request = TurnRequest("what did the letter say?")
    assert read_file(tool_ctx, "letter.txt")["status"] == "error"


@pytest.mark.parametrize("names, current", [
    (["boiler-service-2025-10.txt", "boiler-service-2026-11.txt"], "boiler-service-2026-11.txt"),
    (["starter-log-2025.txt", "starter-log.txt"], "starter-log.txt"),
    (["cv-2024.md", "cv-2026.md", "cv-2025.md"], "cv-2026.md"),
    (["cv-2024.md", "cv-2024.pdf"], None),          # two formats, not two versions
    (["notes.md", "notes-2025.md", "notes-old.md"], None),
    (["a-2025.md", "b-2026.md"], None),
    (["plan-2025-v1.md", "plan-2025-v2.md"], None),  # one date: no current one by date
])
def test_newest_version(tmp_path: Path, names: list[str], current: str | None) -> None:
    from gaia_lite.tools.file_walk import newest_version

    picked = newest_version([tmp_path / n for n in names])
    assert (picked.name if picked else None) == current


def test_read_refuses_credentials_inside_the_root(tool_ctx, tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("TOKEN=x\n")
    result = read_file(tool_ctx, ".env")
    assert result["status"] == "error" and "credential" in result["error"]


def test_read_truncates_very_long_text(tool_ctx, tmp_path: Path) -> None:
    (tmp_path / "long.txt").write_text("word " * 20_000)
    result = read_file(tool_ctx, "long.txt")
    assert result["truncated"] is True and len(result["content"]) == 50_000 and "hint" in result


# ---------------------------------------------------------------- search_file_content

def test_grep_with_line_numbers_and_context(tool_ctx, tree: Path) -> None:
    result = search_file_content(tool_ctx, r"def \w+", context_lines=1, regex=True)
    assert result["count"] == 2 and result["files"] == ["src/app.py (2)"]
    assert result["message"].splitlines()[1:] == [   # grep's shape: groups that touch are not cut apart
        "src/app.py-3- class Greeter:", "src/app.py:4: def hello(self):", "src/app.py-5- return 'hi'",
        "src/app.py:7: def main():", "src/app.py-8- pass", "(all in src/app.py)"]   # line 6, blank, says nothing


def test_grep_case_and_literal_fallback(tool_ctx, tree: Path, tmp_path: Path) -> None:
    assert search_file_content(tool_ctx, "REVENUE")["count"] == 2       # csv header + markdown line
    assert search_file_content(tool_ctx, "REVENUE", case_sensitive=True)["count"] == 0
    assert search_file_content(tool_ctx, "Revenue", case_sensitive=True)["count"] == 1
    (tmp_path / "calc.py").write_text("total = f(x\n")
    literal = search_file_content(tool_ctx, "f(x")                 # literal by default
    assert literal["count"] == 1 and literal["message"].splitlines()[1] == "calc.py:1: total = f(x"


def test_grep_for_a_file_name_shows_that_file(tool_ctx, tmp_path: Path) -> None:
    # the 0.5B model searched the text of files for "config.ini" to answer "what port is set in config.ini?"
    (tmp_path / "config.ini").write_text("[server]\nport = 8080\n")
    result = search_file_content(tool_ctx, "config.ini", file_pattern=".*ini")   # a regex in a glob's place
    assert result["count"] == 0 and result["message"].endswith("It begins:\n[server]\nport = 8080")
    assert "a file has that name" in result["message"]
    assert answer_from_result("search_file_content", result).startswith("No file's text holds 'config.ini'")
    assert "a file has that name" not in search_file_content(tool_ctx, "port")["message"]   # found in the text


def test_grep_file_pattern_single_file_and_credentials(tool_ctx, tree: Path, tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("revenue_token=1\n")
    (tmp_path / "deploy.env").write_text("revenue_token=1\n")
    every = search_file_content(tool_ctx, "revenue", file_pattern="*")
    assert every["files"] == ["reports/2025/sales_data_2025.csv (1)", "reports/quarterly summary.md (1)"]
    only_csv = search_file_content(tool_ctx, "revenue", file_pattern="*.csv")
    assert only_csv["count"] == 1
    one = search_file_content(tool_ctx, "Greeter", directory="src/app.py")
    assert one["count"] == 1
    assert search_file_content(tool_ctx, "")["status"] == "error"


# ---------------------------------------------------------------- write_file / edit_file

def test_write_creates_file_and_folders(tool_ctx, tmp_path: Path) -> None:
    result = write_file(tool_ctx, "out/new/notes.md", "line one\r\nline two\n")
    assert result["status"] == "success" and result["created"] is True and result["backup_path"] is None
    assert (tmp_path / "out" / "new" / "notes.md").read_bytes() == b"line one\r\nline two\n"


def test_write_overwrite_makes_a_backup_in_the_data_dir(tool_ctx, tmp_path: Path) -> None:
    (tmp_path / "plan.txt").write_text("version 1\n")
    result = write_file(tool_ctx, "plan.txt", "version 2\n")
    assert result["created"] is False
    backup = Path(result["backup_path"])
    assert backup.read_text() == "version 1\n" and backup.parent == tool_ctx.data_dir / "backups"
    assert (tmp_path / "plan.txt").read_text() == "version 2\n"


def test_one_setting_line_written_over_a_config_file_sets_that_line_and_keeps_the_rest(tool_ctx, tmp_path: Path) -> None:
    # asked to "bump the version to 2.1.0", the 1.5B wrote "version = 2.1.0" over all of setup.cfg (test split)
    from gaia_lite.registry.execute import Decision, ToolExecutor
    from gaia_lite.registry.registry import ToolRegistry

    (tmp_path / "setup.cfg").write_text("[metadata]\nname = demo\nversion = 2.0.3\n")
    executor = ToolExecutor(ToolRegistry([spec_of(files.write_file), spec_of(files.edit_file)]), tool_ctx,
                            approve=lambda s, a: Decision.ALLOW)
    done = executor.execute("write_file", {"file_path": "setup.cfg", "content": "version = 2.1.0\n"})
    assert done.ok and done.name == "edit_file" and done.requested == "write_file", done
    assert done.payload["note"] == "setup.cfg holds more than that line: edit_file set it and kept the rest."
    assert (tmp_path / "setup.cfg").read_text() == "[metadata]\nname = demo\nversion = 2.1.0\n"
    # a key set in two sections: edit_file's question, and the file as it was
    (tmp_path / "db.ini").write_text("[primary]\nport = 5432\n[replica]\nport = 5433\n")
    two = executor.execute("write_file", {"file_path": "db.ini", "content": "port = 6000"})
    assert two.name == "edit_file" and not two.ok, two
    assert (tmp_path / "db.ini").read_text() == "[primary]\nport = 5432\n[replica]\nport = 5433\n"
    # a line that sets no key of the file, or a new file, is written as asked
    for name, text in (("setup.cfg", "all new text"), ("fresh.cfg", "version = 1.0.0")):
        assert executor.execute("write_file", {"file_path": name, "content": text}).name == "write_file"
        assert (tmp_path / name).read_text() == text


def test_write_refusals(tool_ctx, tmp_path: Path) -> None:
    assert "create_dirs" in write_file(tool_ctx, "missing/x.txt", "x", create_dirs=False)["error"]
    assert "credential" in write_file(tool_ctx, ".env", "TOKEN=1")["error"]
    assert "credential" in write_file(tool_ctx, "keys/server.pem", "x")["error"]
    assert not (tmp_path / "keys").exists()
    assert "10 MB" in write_file(tool_ctx, "big.txt", "x" * (MAX_FILE_BYTES + 1))["error"]
    (tmp_path / "adir").mkdir()
    assert "folder" in write_file(tool_ctx, "adir", "x")["error"]


def test_write_to_system_folder_refused_even_if_root(tmp_path: Path) -> None:
    from gaia_lite.registry.context import ToolContext
    from gaia_lite.tools.sandbox import Sandbox
    ctx = ToolContext(workdir=tmp_path, sandbox=Sandbox([tmp_path, "/etc"]), data_dir=tmp_path / "d")
    result = write_file(ctx, "/etc/gaia-lite-test.conf", "x")
    assert result["status"] == "error" and "system folder" in result["error"]
    assert not Path("/etc/gaia-lite-test.conf").exists()


def test_edit_replaces_first_occurrence_and_returns_a_diff(tool_ctx, tmp_path: Path) -> None:
    (tmp_path / "todo.txt").write_text("buy milk\nbuy milk\ncall mom\n")
    result = edit_file(tool_ctx, "todo.txt", "buy milk", "buy bread")
    assert result["status"] == "success" and result["occurrences"] == 2 and result["replaced"] == 1
    assert (tmp_path / "todo.txt").read_text() == "buy bread\nbuy milk\ncall mom\n"
    assert "-buy milk" in result["diff"] and "+buy bread" in result["diff"]
    assert Path(result["backup_path"]).read_text() == "buy milk\nbuy milk\ncall mom\n"


def test_edit_finds_the_snippet_when_only_its_spacing_differs(tool_ctx, tmp_path: Path) -> None:
    config = tmp_path / "config.ini"
    config.write_text("[server]\nhost = files.internal.example\nport = 8080\n")
    result = edit_file(tool_ctx, "config.ini", "port=8080", "port = 9090")
    assert result["status"] == "success" and "different spacing" in result["note"]
    assert config.read_text() == "[server]\nhost = files.internal.example\nport = 9090\n"
    assert Path(result["backup_path"]).read_text().endswith("port = 8080\n")


def test_an_edit_finds_the_file_when_the_model_dropped_a_folder(tool_ctx, tmp_path: Path) -> None:
    # Qwen2.5-Coder-1.5B wrote <workdir's parent>/config.ini; the write was refused and it said "changed"
    config = tmp_path / "config.ini"
    config.write_text("port = 8080\n")
    result = edit_file(tool_ctx, str(tmp_path.parent / "config.ini"), "port = 8080", "port = 9090")
    assert result["status"] == "success" and config.read_text() == "port = 9090\n"
    # a new file there lands in the working directory, as the call is run (gaia_lite/registry/paths.py)
    assert write_file(tool_ctx, str(tmp_path.parent / "new.txt"), "x")["file_path"] == str(tmp_path / "new.txt")
    assert not (tmp_path.parent / "new.txt").exists()


@pytest.mark.parametrize("old", ["port=80",        # a whole-word match only: not inside "port = 8080"
                                 "port: 8080",     # another separator is another text
                                 "x=1"])           # twice in the file: which one would be a guess
def test_a_loose_match_is_never_a_guess(tool_ctx, tmp_path: Path, old: str) -> None:
    config = tmp_path / "config.ini"
    config.write_text("port = 8080\nx = 1\ny = 2\nx = 1\n")
    assert edit_file(tool_ctx, "config.ini", old, "changed")["status"] == "error"
    assert config.read_text() == "port = 8080\nx = 1\ny = 2\nx = 1\n"


def test_edit_not_found_shows_the_closest_line(tool_ctx, tmp_path: Path) -> None:
    (tmp_path / "todo.txt").write_text("def compute_total(items):\n    return sum(items)\n")
    result = edit_file(tool_ctx, "todo.txt", "def compute_totals(items):", "x")
    assert result["status"] == "error" and "compute_total(items)" in result["error"]
    assert "\n" not in result["error"]
    assert (tmp_path / "todo.txt").read_text().startswith("def compute_total(items)")
    assert edit_file(tool_ctx, "todo.txt", "", "x")["status"] == "error"
    assert "does not exist" in edit_file(tool_ctx, "nope.txt", "a", "b")["error"]


# ---------------------------------------------------------------- browse / info / recent


def test_a_listing_has_dates_only_when_sorted_by_them(tool_ctx, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a")
    plain = browse_directory(tool_ctx, str(tmp_path))["entries"]
    assert plain == [{"name": "a.txt", "type": "file", "size_bytes": 1}]
    dated = browse_directory(tool_ctx, str(tmp_path), sort_by="modified")["entries"]
    assert dated[0]["modified"].startswith(str(date.today().year))

def test_browse_defaults_to_workdir_with_folders_first(tool_ctx, tree: Path, monkeypatch) -> None:
    monkeypatch.setenv("HOME", "/nonexistent-home")
    result = browse_directory(tool_ctx)
    assert result["path"] == str(tree.resolve())
    names = [e["name"] for e in result["entries"]]
    assert names == ["node_modules", "reports", "src"]           # hidden .git/.gaia-data left out
    assert all(e["type"] == "folder" for e in result["entries"])
    hidden = browse_directory(tool_ctx, show_hidden=True)
    assert ".git" in [e["name"] for e in hidden["entries"]]


def test_browse_sorting_limits_and_errors(tool_ctx, tmp_path: Path) -> None:
    for i in range(205):
        (tmp_path / f"f{i:03}.txt").write_text("x" * i)
    result = browse_directory(tool_ctx, sort_by="size")
    assert result["files"] == 205 and len(result["entries"]) == 200 and result["truncated"]
    assert result["entries"][0]["name"] == "f204.txt"
    assert browse_directory(tool_ctx, sort_by="colour")["status"] == "error"
    assert browse_directory(tool_ctx, "f001.txt")["status"] == "error"


def test_get_file_info_for_text_csv_and_folder(tool_ctx, tree: Path) -> None:
    info = get_file_info(tool_ctx, "reports/2025/sales_data_2025.csv")
    assert info["status"] == "success" and info["data_rows"] == 2 and info["extension"] == ".csv"
    assert info["preview"].splitlines()[0] == "date,revenue"
    folder = get_file_info(tool_ctx, "reports")
    assert folder["type"] == "folder" and folder["items"] == 2 and folder["subfolders"] == 1
    assert get_file_info(tool_ctx, "missing.txt")["status"] == "error"


def test_list_recent_files(tool_ctx, tree: Path) -> None:
    old = tree / "src" / "app.py"
    stamp = time.time() - 90 * 86400
    os.utime(old, (stamp, stamp))
    recent = list_recent_files(tool_ctx, days=30)
    names = [f["name"] for f in recent["files"]]
    assert "app.py" not in names and "sales_data_2025.csv" in names
    assert "sales_notes.txt" not in names                              # .git skipped
    assert [f["name"] for f in list_recent_files(tool_ctx, file_types="md")["files"]] == ["quarterly summary.md"]
    assert list_recent_files(tool_ctx, location="reports", max_results=1)["truncated"] is True
    assert list_recent_files(tool_ctx, max_results="many")["status"] == "error"


def test_files_written_at_once_are_listed_newest_first_by_the_dates_in_their_names(tool_ctx, tmp_path: Path) -> None:
    journal = tmp_path / "journal"
    journal.mkdir()
    for day in ("2026-04-27", "2026-06-08", "2026-03-14"):
        (journal / f"{day}.md").write_text(f"# {day}\n")
        os.utime(journal / f"{day}.md", (time.time(), int(time.time())))   # one time, as when unpacked
    names = [f["name"] for f in files.list_recent_files(tool_ctx)["files"]]
    assert names == ["2026-06-08.md", "2026-04-27.md", "2026-03-14.md"]
    entries = {e["name"]: e for e in files.browse_directory(tool_ctx, "journal")["entries"]}
    assert entries["2026-06-08.md"].get("latest by its date") and entries["2026-03-14.md"].get("earliest by its date")
    assert "newest" not in entries["2026-06-08.md"], "one time for all: no file is newest by it"


def test_a_listing_flags_no_dated_end_when_two_names_share_the_date(tool_ctx, tmp_path: Path) -> None:
    for name in ("scan_20250114.pdf", "scan_20250114-2.pdf", "notes.txt"):
        (tmp_path / name).write_text("x")
    entries = files.browse_directory(tool_ctx)["entries"]
    assert not any(k.endswith("by its date") for e in entries for k in e)


def test_list_recent_files_reads_file_names_given_as_types_as_their_extensions(tool_ctx, tree: Path) -> None:
    # the README's ask: the 0.5B passed the names browse_directory had just shown as file_types
    got = list_recent_files(tool_ctx, file_types="budget.csv, quarterly summary.md")
    assert sorted(f["name"] for f in got["files"]) == ["quarterly summary.md", "sales_data_2025.csv"]
    assert "note" not in got


def test_list_recent_files_without_a_match_names_the_newest_files_and_why(tool_ctx, tree: Path) -> None:
    for path in tree.rglob("*"):
        if path.is_file():
            stamp = time.time() - 90 * 86400
            os.utime(path, (stamp, stamp))
    got = list_recent_files(tool_ctx, days=7)
    assert got["status"] == "success" and got["files"], got
    assert "sales_data_2025.csv" in [f["name"] for f in got["files"]]
    assert got["note"] == "No file matched the last 7 days; these are the newest files there."
    typed = list_recent_files(tool_ctx, file_types="pdf", days=365)
    assert typed["note"] == "No file matched the last 365 days and types pdf; these are the newest files there."


REPORT = ("# Acme Q3 2025\n\n## Highlights\n- Q3 revenue was $14.2 million, up 11 % from Q3 2024.\n"
          + "".join(f"- Item {i}: steady.\n" for i in range(20))
          + "## Outlook\nWe expect growth of 15-18 % for 2026, driven by the\ncloud segment.\n")


def test_a_long_texts_lines_on_the_request_close_the_read(tool_ctx, tmp_path: Path) -> None:
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports/acme_q3_report.md").write_text(REPORT)
    tool_ctx.request.message = "What was Acme's revenue in Q3? The report is reports/acme_q3_report.md."
    result = read_file(tool_ctx, "reports/acme_q3_report.md")
    assert list(result)[-2:] == ["content", "lines_matching_request"]  # read last, nearest the answer
    assert result["lines_matching_request"][0] == "line 4: - Q3 revenue was $14.2 million, up 11 % from Q3 2024."
    tool_ctx.request.message = "what growth does the CEO expect for 2026?"
    ran_on = read_file(tool_ctx, "reports/acme_q3_report.md")["lines_matching_request"]
    assert ran_on[0] == "line 26: We expect growth of 15-18 % for 2026, driven by the cloud segment."  # the sentence's end
    # answered from the result alone, those lines are the answer, not the whole text
    assert answer_from_result("read_file", result, tmp_path).startswith(
        "From reports/acme_q3_report.md, the lines on your question:\n- line 4: - Q3")


def test_a_short_text_or_a_request_that_asks_nothing_of_it_is_read_as_is(tool_ctx, tmp_path: Path) -> None:
    (tmp_path / "short.md").write_text("# Notes\nQ3 revenue was up.\n")
    (tmp_path / "long.md").write_text(REPORT)
    tool_ctx.request.message = "what was the Q3 revenue?"
    assert list(read_file(tool_ctx, "short.md"))[-1] == "content"
    tool_ctx.request.message = "read long.md"
    assert list(read_file(tool_ctx, "long.md"))[-1] == "content"


def test_an_edit_without_old_content_offers_the_lines_like_the_new_text(tool_ctx, tmp_path: Path) -> None:
    # the 1.5B bumped setup.cfg's version with old_content "" and gave up on "cannot be empty"
    cfg = tmp_path / "setup.cfg"
    cfg.write_text("[metadata]\nname = acme-tools\nversion = 2.0.3\n\n[options]\npackages = find:\n")
    result = edit_file(tool_ctx, "setup.cfg", "", "Version two point one")   # sets no key: which line is unknown
    assert result["status"] == "error" and result["closest_lines"][0] == "version = 2.0.3"
    assert result["error"].startswith("old_content is empty: give the exact text to replace. The lines of setup.cfg "
                                      "most like the new text: 'version = 2.0.3'")
    assert cfg.read_text().count("2.0.3") == 1   # nothing written


def test_an_edit_without_old_content_sets_the_one_line_of_that_key(tool_ctx, tmp_path: Path) -> None:
    cfg = tmp_path / "setup.cfg"
    cfg.write_text("[metadata]\nname = acme-tools\nversion = 2.0.3\n\n[options]\npackages = find:\n")
    result = edit_file(tool_ctx, "setup.cfg", "", "version = 2.1.0")
    assert result["status"] == "success", result
    assert cfg.read_text() == "[metadata]\nname = acme-tools\nversion = 2.1.0\n\n[options]\npackages = find:\n"
    assert result["note"] == "old_content was empty: the one line setting that key, 'version = 2.0.3', is now 'version = 2.1.0'"
    # YAML keeps its indentation, JSON its comma
    (tmp_path / "app.yaml").write_text("app:\n  debug: true\n  name: x\n")
    assert edit_file(tool_ctx, "app.yaml", "", "debug: false")["status"] == "success"
    assert (tmp_path / "app.yaml").read_text() == "app:\n  debug: false\n  name: x\n"
    (tmp_path / "s.json").write_text('{\n  "theme": "light",\n  "size": 14\n}\n')
    edit_file(tool_ctx, "s.json", "", '"theme": "dark"')
    assert (tmp_path / "s.json").read_text() == '{\n  "theme": "dark",\n  "size": 14\n}\n'


def test_a_setting_written_in_another_style_edits_the_files_line_for_that_key(tool_ctx, tmp_path: Path) -> None:
    # shown settings.json, the 0.5B wrote old_content "theme: light" and new_content "theme: dark"
    (tmp_path / "settings.json").write_text('{\n  "theme": "light",\n  "font_size": 14\n}\n')
    result = edit_file(tool_ctx, "settings.json", "theme: light", "theme: dark")
    assert result["status"] == "success", result
    assert (tmp_path / "settings.json").read_text() == '{\n  "theme": "dark",\n  "font_size": 14\n}\n'
    assert result["note"] == ("old_content 'theme: light' is not in the file: the one line setting that key, "
                              "'\"theme\": \"light\",', is now '\"theme\": \"dark\",'")
    # another key, or a key the file does not set, is still an error naming the closest lines
    assert edit_file(tool_ctx, "settings.json", "theme: light", "mode: dark")["status"] == "error"
    assert edit_file(tool_ctx, "settings.json", "colour: red", "colour: blue")["status"] == "error"
    assert (tmp_path / "settings.json").read_text().count('"dark"') == 1


def test_an_old_content_that_is_only_the_key_stands_for_the_line_setting_it(tool_ctx, tmp_path: Path) -> None:
    # a replace of the text "host" with "host = 0.0.0.0" wrote "host = 0.0.0.0 = localhost" into the INI file
    ini = tmp_path / "app.ini"
    ini.write_text("[server]\nport = 8080\nhost = localhost\n")
    result = edit_file(tool_ctx, "app.ini", "host", "host = 0.0.0.0")
    assert result["status"] == "success", result
    assert ini.read_text() == "[server]\nport = 8080\nhost = 0.0.0.0\n"
    assert result["note"] == ("old_content 'host' is only the key: the one line setting that key, 'host = localhost', "
                              "is now 'host = 0.0.0.0'")
    # the key with its separator, the new line in another style: written in the file's own
    assert edit_file(tool_ctx, "app.ini", "port:", "port: 9090")["status"] == "success"
    assert ini.read_text() == "[server]\nport = 9090\nhost = 0.0.0.0\n"
    (tmp_path / "s.json").write_text('{\n  "theme": "light",\n  "size": 14\n}\n')
    assert edit_file(tool_ctx, "s.json", '"theme"', '"theme": "dark"')["status"] == "success"
    assert (tmp_path / "s.json").read_text() == '{\n  "theme": "dark",\n  "size": 14\n}\n'


def test_a_key_alone_set_in_two_sections_is_an_error_naming_both(tool_ctx, tmp_path: Path) -> None:
    db = tmp_path / "db.ini"
    db.write_text("[primary]\nport = 5432\n[replica]\nport = 5433\n")
    result = edit_file(tool_ctx, "db.ini", "port", "port = 6000")
    assert result["status"] == "error" and result["closest_lines"] == ["port = 5432", "port = 5433"], result
    assert result["error"] == ("old_content 'port' is only the key, and db.ini sets that key in 2 places: 'port = 5432' "
                               "(under [primary]); 'port = 5433' (under [replica]). Call edit_file again with the one "
                               "to change as old_content")
    assert db.read_text() == "[primary]\nport = 5432\n[replica]\nport = 5433\n"
    # a word that is no key of the file, or a new line for another key, is a plain replace as before
    (tmp_path / "notes.txt").write_text("host the party on friday\n")
    assert edit_file(tool_ctx, "notes.txt", "host", "plan")["status"] == "success"
    assert (tmp_path / "notes.txt").read_text() == "plan the party on friday\n"


def test_an_edit_that_would_change_nothing_is_an_error_not_a_success(tool_ctx, tmp_path: Path) -> None:
    # "settings.json - switch the theme to dark pls": the 0.5B swapped the values, old_content "theme = 'dark'" and
    # new_content "theme = 'light'"; the line was set to what it already said and reported as updated (probe42)
    settings = tmp_path / "settings.json"
    settings.write_text('{\n  "theme": "light",\n  "font_size": 14\n}\n')
    swapped = edit_file(tool_ctx, "settings.json", "theme = 'dark'", "theme = 'light'")
    assert swapped["status"] == "error" and swapped["closest_lines"] == ['"theme": "light",']
    assert swapped["error"] == ("old_content \"theme = 'dark'\" is not in the file, and the one line setting that key "
                                "already reads '\"theme\": \"light\",': nothing changed. Call edit_file again with "
                                "new_content as the line should read after the change")
    same = edit_file(tool_ctx, "settings.json", '"font_size": 14', '"font_size": 14')
    assert same["status"] == "error" and same["error"].startswith("nothing changed: new_content is the text")
    assert settings.read_text() == '{\n  "theme": "light",\n  "font_size": 14\n}\n'
    assert not (tmp_path / ".gaia-data" / "backups").exists()   # nothing written, so nothing backed up
    # the call as it should have been still works
    assert edit_file(tool_ctx, "settings.json", "theme = 'light'", "theme = 'dark'")["status"] == "success"
    assert '"theme": "dark",' in settings.read_text()


def test_an_edit_that_would_break_a_json_toml_or_yaml_file_is_not_written(tool_ctx, tmp_path: Path) -> None:
    # for "switch the theme to dark", the 0.5B replaced the line "{" with "{'theme': 'dark'}" (probe42)
    settings = tmp_path / "settings.json"
    settings.write_text('{\n  "theme": "light"\n}\n')
    broken = edit_file(tool_ctx, "settings.json", "{", "{'theme': 'dark'}")
    assert broken["status"] == "error" and broken["error"].startswith(
        "not written: the edit would make settings.json invalid JSON (Expecting property name enclosed in double "
        "quotes"), broken
    assert settings.read_text() == '{\n  "theme": "light"\n}\n'
    (tmp_path / "pyproject.toml").write_text('[tool.black]\nline-length = 100\n')
    toml = edit_file(tool_ctx, "pyproject.toml", "line-length = 100", "line-length: 120")
    assert toml["status"] == "error" and "invalid TOML" in toml["error"], toml
    assert edit_file(tool_ctx, "pyproject.toml", "line-length = 100", "line-length = 120")["status"] == "success"
    # in deploy.yml the 0.5B replaced "service: web" with the request's words (probe_data3)
    (tmp_path / "deploy.yml").write_text("service: web\nreplicas: 2\nregion: eu-west-1\n")
    yml = edit_file(tool_ctx, "deploy.yml", "service: web", "scale deploy.yml to 4 replicas")
    assert yml["status"] == "error" and "invalid YAML" in yml["error"] and "\n" not in yml["error"], yml
    assert edit_file(tool_ctx, "deploy.yml", "replicas: 2", "replicas: 4")["status"] == "success"
    # a file that did not parse before may be edited as any text
    (tmp_path / "draft.json").write_text('{"a": 1,,}\n')
    assert edit_file(tool_ctx, "draft.json", '"a": 1', '"a": 2')["status"] == "success"


def test_an_edit_without_old_content_of_a_key_set_twice_names_each_with_its_section(tool_ctx, tmp_path: Path) -> None:
    # the 1.5B's call for "chnage max_connections for the primary db in db.ini to 200": two sections set it
    ini = tmp_path / "db.ini"
    ini.write_text("[primary]\nhost = db1\nmax_connections = 100\n\n[replica]\nhost = db2\nmax_connections = 50\n")
    result = edit_file(tool_ctx, "db.ini", "", "max_connections = 200")
    assert result["status"] == "error" and result["closest_lines"] == ["max_connections = 100", "max_connections = 50"]
    assert result["error"] == ("old_content was empty, and db.ini sets that key in 2 places: 'max_connections = 100' "
                               "(under [primary]); 'max_connections = 50' (under [replica]). Call edit_file again "
                               "with the one to change as old_content")
    assert "200" not in ini.read_text()
    # the request names one of the sections: that one's line is set
    tool_ctx.request.message = "chnage max_connections for the primary db in db.ini to 200"
    assert edit_file(tool_ctx, "db.ini", "", "max_connections = 200")["status"] == "success"
    assert ini.read_text() == "[primary]\nhost = db1\nmax_connections = 200\n\n[replica]\nhost = db2\nmax_connections = 50\n"


def test_a_folders_files_found_by_a_glob_flag_the_one_clearly_largest(tool_ctx, tmp_path: Path) -> None:
    # "which file in reports is the largest?" got search_file("/reports/*"), and the 0.5B named q3.txt (probe42)
    (tmp_path / "reports").mkdir()
    for name, size in (("q1.txt", 10), ("q2.txt", 1212), ("q3.txt", 252)):
        (tmp_path / "reports" / name).write_text(("Q report. " * 200)[:size])
    tool_ctx.request.message = "which file in reports is the largest?"
    found = search_file(tool_ctx, "/reports/*")
    assert found["files"] == ["reports/q1.txt", "reports/q2.txt (1,212 B, largest)", "reports/q3.txt"], found
    assert found["message"].startswith("3 files under reports/"), "the folder's words lead with no file's lines"
    # the 1.5B read the flag on the list and named another file "2.8 MB" (probe44): the message says it too, as a
    # ranking by size (the 0.5B listed all five files for "the 3 largest", probe46)
    assert found["message"].endswith("; by size, largest first: reports/q2.txt (1,212 B), reports/q3.txt (252 B), "
                                     "reports/q1.txt (10 B)"), found["message"]
    (tmp_path / "reports" / "q1.txt").write_text("Q report. " * 70)   # 700 B: no file is twice the next
    again = search_file(tool_ctx, "/reports/*")
    assert all("largest" not in f for f in again["files"]), again
    tool_ctx.request.message = "how many files are in reports?"   # no size asked: no ranking
    assert "by size" not in search_file(tool_ctx, "/reports/*")["message"]


def test_an_edit_whose_new_text_is_the_request_itself_is_not_written(tool_ctx, tmp_path: Path) -> None:
    # for "scale deploy.yml to 4 replicas" the 0.5B replaced "service: web" with those words (probe_data3)
    (tmp_path / "notes.md").write_text("# Plan\nscale later\n")
    tool_ctx.request.message = "notes.md - add a line: ship on Friday."
    assert edit_file(tool_ctx, "notes.md", "scale later", "notes.md - add a line: ship on Friday")["error"].startswith(
        "new_content is the request itself")
    assert (tmp_path / "notes.md").read_text() == "# Plan\nscale later\n"
    assert edit_file(tool_ctx, "notes.md", "scale later", "scale later\nship on Friday.")["status"] == "success"


@pytest.mark.parametrize("name,date", [("2026-06-08.md", "2026-06-08"), ("scan_20250114.pdf", "2025-01-14"),
                                       ("invoice-2024_03.txt", "2024-03"), ("IMG_20240102_1200.jpg", "2024-01-02"),
                                       ("report-202506.txt", None), ("v2.1.0.txt", None), ("2026-13-01.md", None),
                                       ("notes 2025.md", None)])
def test_the_date_a_file_name_carries(name: str, date: str | None) -> None:
    from gaia_lite.tools.file_walk import name_date

    assert name_date(name) == date


def test_a_guessed_folder_lists_the_one_clearly_closest_and_says_so(tool_ctx, tmp_path: Path) -> None:
    for name in ("hobbies/sewing/patterns/wrap-top.pdf", "hobbies/sewing/fabric/linen.jpg"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x")
    listing = files.browse_directory(tool_ctx, str(tmp_path / "sewing_patterns"))
    assert listing["path"] == str(tmp_path / "hobbies/sewing/patterns")
    assert listing["note"].startswith(f"{tmp_path / 'sewing_patterns'} does not exist; this is hobbies/sewing/patterns")
    found = files.search_file(tool_ctx, "*.pdf", search_root="sewing_patterns")
    assert found["count"] == 1 and found["searched"] == [str(tmp_path / "hobbies/sewing/patterns")]
    (tmp_path / "hobbies/sewing/fabric/linen.jpg").write_text("linen, sage green")
    (tmp_path / "hobbies/sewing/patterns/notes.txt").write_text("sage green lining")
    grep = files.search_file_content(tool_ctx, "sage green", directory="sewing_patterns")
    assert grep["count"] == 1 and grep["files"] == ["hobbies/sewing/patterns/notes.txt (1)"]  # not the fabric's


def test_a_guessed_folder_with_no_clear_match_is_an_error_naming_the_close_ones(tool_ctx, tmp_path: Path) -> None:
    for name in ("a/notes/x.txt", "b/notes/y.txt"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x")
    from gaia_lite.registry.failure import ToolFailure

    with pytest.raises(ToolFailure, match="is not an existing folder; close folders: "):
        files.browse_directory(tool_ctx, "notes")
    (tmp_path / "plain.txt").write_text("x")
    with pytest.raises(ToolFailure, match="is not an existing folder"):   # a file is no folder, however close
        files.browse_directory(tool_ctx, "plain.txt")


def test_a_content_search_of_a_made_up_folder_named_like_files_searches_those_files(tool_ctx, tmp_path: Path) -> None:
    # "whats our wifi password? its in the router notes somewhere": the 1.5B searched a folder "router_notes"
    (tmp_path / "home/network").mkdir(parents=True)
    (tmp_path / "home/network/router-notes.txt").write_text("Main network: Nettlebank-5G\nGuest network: Nettlebank-Guest\n")
    (tmp_path / "home/network/router-notes-old.txt").write_text("Main network: Nettlebank\n")
    (tmp_path / "home/network/isp-contract.txt").write_text("Guest network costs extra\n")
    found = files.search_file_content(tool_ctx, "guest network", directory=str(tmp_path / "router_notes"))
    assert found["files"] == ["home/network/router-notes.txt (1)"]   # the files named so, not the folder
    from gaia_lite.registry.failure import ToolFailure

    with pytest.raises(ToolFailure, match="is not an existing folder"):   # named like no file or folder
        files.search_file_content(tool_ctx, "guest", directory="modem_manuals")


def test_a_read_of_a_made_up_file_named_like_a_folder_lists_that_folder(tool_ctx, tmp_path: Path) -> None:
    setlists = tmp_path / "music-stuff/band/setlists"
    setlists.mkdir(parents=True)
    for name, size in (("open-mic.txt", 200), ("pub-night.txt", 400), ("wedding-gig.txt", 900), ("fete.txt", 300)):
        (setlists / name).write_text("x" * size)
    result = read_file(tool_ctx, "setslist.txt")
    assert result["path"] == str(setlists) and "the folder named like it" in result["note"]
    assert {e["name"]: e.get("largest") for e in result["entries"]}["wedding-gig.txt"] is True
    missing = read_file(tool_ctx, "zebra-crossing.txt")   # named like no folder: the error as before
    assert missing["status"] == "error" and "does not exist" in missing["error"]


def test_a_json_lines_comma_left_out_of_its_edit_is_kept(tool_ctx, tmp_path: Path) -> None:
    (tmp_path / "settings.json").write_text('{\n  "shop_name": "Hollow Oak Joinery",\n  "currency": "GBP"\n}\n')
    result = edit_file(tool_ctx, "settings.json", '"shop_name": "Hollow Oak Joinery",', '"shop_name": "Hollow Oak Carpentry"')
    assert result["status"] == "success"
    assert (tmp_path / "settings.json").read_text() == '{\n  "shop_name": "Hollow Oak Carpentry",\n  "currency": "GBP"\n}\n'


def test_a_content_search_no_line_holds_whole_finds_the_lines_with_one_of_its_words(tool_ctx, tmp_path: Path) -> None:
    (tmp_path / "jobs").mkdir()
    (tmp_path / "jobs/maria-cv.md").write_text("# Maria Lopez\nPhone: 07700 900873\nEmail: maria@example.org\n")
    tool_ctx.request.message = "what phone number is on my CV?"
    result = search_file_content(tool_ctx, "phone number", directory="jobs")
    assert result["count"] == 1 and "lines with 'phone' instead" in result["message"]
    assert "jobs/maria-cv.md:2: Phone: 07700 900873" in result["message"]


def test_info_and_recent_files_lead_with_a_sentence_a_person_reads(tool_ctx, tree: Path) -> None:
    # built from the result, these answers were "Here is what I found: - files: app.py, ... - days: 30"
    # (bare names, no folder) and "- size bytes: 38 - modified: 2026-...T16:33:01"
    from gaia_lite.agent.fallback import answer_from_result

    info = get_file_info(tool_ctx, "reports/2025/sales_data_2025.csv")
    assert re.fullmatch(r"reports/2025/sales_data_2025\.csv is a file of [\d,]+ B, 2 data rows, "
                        r"modified \d{4}-\d\d-\d\d \d\d:\d\d\.", info["message"]), info["message"]
    folder = get_file_info(tool_ctx, "reports")
    assert folder["message"].startswith("reports is a folder holding 2 items (1 of them folders), modified ")
    stamp = time.time() - 90 * 86400
    os.utime(tree / "src" / "app.py", (stamp, stamp))
    recent = list_recent_files(tool_ctx, days=30)
    said = answer_from_result("list_recent_files", recent, tree)
    assert said.startswith(f"{recent['count']} files here changed in the last 30 days, newest first: "), said
    assert "reports/2025/sales_data_2025.csv (" in said and "src/app.py" not in said
    assert str(tree) not in said and "days:" not in said
    none = list_recent_files(tool_ctx, location="reports", file_types="pdf", days=7)
    assert none["message"].startswith("No file in reports matched the last 7 days and types pdf. The newest files "
                                      "there: "), none["message"]


def test_a_folder_that_holds_one_file_shows_its_start_and_its_lines_on_the_request(tool_ctx, tmp_path: Path) -> None:
    # the 0.5B listed the plan's folder for "what is the deadline ...? its plan is somewhere in this folder" and
    # answered "projects/2025/website-redesign holds 1 file: plan.md" (test split, 3 runs of 3)
    folder = tmp_path / "projects" / "2025" / "website-redesign"
    folder.mkdir(parents=True)
    (folder / "plan.md").write_text("# Website redesign\n\nOwner: Priya Nair\n\n## Scope\n- landing page\n- blog\n"
                                    "- audit\n\n## Milestones\n- launch deadline: 14 November 2025\n")
    tool_ctx.request.message = "What is the deadline for the website redesign project?"
    said = browse_directory(tool_ctx, "projects/2025/website-redesign")["message"]
    assert said.startswith("projects/2025/website-redesign holds 1 file: plan.md. plan.md begins:\n# Website "
                           "redesign\n"), said
    assert said.endswith("Its lines on the request:\nline 11: - launch deadline: 14 November 2025"), said
    # a folder with more in it, or whose one file is no text, is listed as before
    (folder / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
    assert "begins" not in browse_directory(tool_ctx, "projects/2025/website-redesign")["message"]
    (folder / "plan.md").unlink()
    assert browse_directory(tool_ctx, "projects/2025/website-redesign")["message"] == \
        "projects/2025/website-redesign holds 1 file: logo.png"


def test_a_glob_in_a_folder_that_is_no_folder_but_a_files_name_finds_that_file(tool_ctx, tmp_path: Path) -> None:
    # "wheres my pancake recipe? how many eggs": the 0.5B searched "/pancakes/*.txt" and was told how many .txt
    # files the working folder holds (test split)
    for folder, name, text in (("breakfast", "pancakes.txt", "Pancakes\n- 2 eggs\n"), ("dinner", "risotto.txt", "x\n")):
        (tmp_path / "cooking" / folder).mkdir(parents=True, exist_ok=True)
        (tmp_path / "cooking" / folder / name).write_text(text)
    tool_ctx.request.message = "wheres my pancake recipe? how many eggs"
    found = search_file(tool_ctx, "/pancakes/*.txt", search_root=str(tmp_path))
    assert [f["name"] for f in found["files"]] == ["pancakes.txt"] and "2 eggs" in found["message"], found
    # a folder that exists is counted in, and one that names nothing here is still said to be no folder
    assert search_file(tool_ctx, "breakfast/*.txt")["message"].startswith("1 .txt file under cooking/breakfast/")
    assert "is not an existing folder" in search_file(tool_ctx, "recipes/*.txt")["error"]
