"""Rows added to a CSV or TSV file (tools/table_rows.py), through the real write_file and edit_file on real files."""

from __future__ import annotations

from pathlib import Path

import pytest

from gaia_lite.registry.context import ToolContext, TurnRequest
from gaia_lite.registry.execute import Decision, ToolExecutor
from gaia_lite.registry.registry import ToolRegistry
from gaia_lite.registry.spec import spec_of
from gaia_lite.tools.files import edit_file, write_file
from gaia_lite.tools.table_rows import rows_to_add

RACES = "date,race,distance_km,time\n2025-03-09,Spring 10K,10,52:10\n2025-05-18,Harbour Half,21.1,1:58:40\n"
LOGGED = "log my race in races_2025.csv: 2025-09-14, River Run, 5 km, 24:55"


def _call(ctx: ToolContext, message: str, name: str, **args: str) -> dict:
    """A call as the agent makes it: both file tools registered, so a write that stands for an edit is one."""
    ctx.request = TurnRequest(message=message)
    registry = ToolRegistry([spec_of(write_file), spec_of(edit_file)])
    return ToolExecutor(registry, ctx, approve=lambda s, a: Decision.ALLOW).execute(name, args).payload


def test_one_row_written_over_the_table_is_added_after_its_rows(tool_ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "races_2025.csv").write_text(RACES)
    result = _call(tool_ctx, LOGGED, "write_file", file_path="races_2025.csv",
                   content="2025-09-14, River Run, 5 km, 24:55")
    assert result["status"] == "success", result
    # the file's own style: no spaces after commas, the km left out where the column holds bare numbers
    assert (tmp_path / "races_2025.csv").read_text() == RACES + "2025-09-14,River Run,5,24:55\n"


def test_the_header_written_again_with_the_new_row_is_not_doubled(tool_ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "races_2025.csv").write_text(RACES)
    _call(tool_ctx, LOGGED, "write_file", file_path="races_2025.csv",
          content="date,race,distance_km,time\n2025-09-14,River Run,5,24:55\n")
    assert (tmp_path / "races_2025.csv").read_text() == RACES + "2025-09-14,River Run,5,24:55\n"


def test_a_last_row_replaced_with_the_new_one_is_kept(tool_ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "races_2025.csv").write_text(RACES)
    result = _call(tool_ctx, LOGGED, "edit_file", file_path="races_2025.csv",
                   old_content="2025-05-18,Harbour Half,21.1,1:58:40", new_content="2025-09-14,River Run,5,24:55")
    assert (tmp_path / "races_2025.csv").read_text() == RACES + "2025-09-14,River Run,5,24:55\n"
    assert "2 rows there were kept" in result["note"]


def test_a_tsv_row_written_with_commas_goes_in_with_tabs(tool_ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "log.tsv").write_text("day\tmiles\nmon\t3\ntue\t4\n")
    _call(tool_ctx, "add wed 6 miles to log.tsv", "write_file", file_path="log.tsv", content="wed,6")
    assert (tmp_path / "log.tsv").read_text() == "day\tmiles\nmon\t3\ntue\t4\nwed\t6\n"


def test_a_file_without_a_final_newline_gets_one_before_the_row(tool_ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "races_2025.csv").write_text(RACES.rstrip("\n"))
    _call(tool_ctx, LOGGED, "write_file", file_path="races_2025.csv", content="2025-09-14,River Run,5,24:55")
    assert (tmp_path / "races_2025.csv").read_text() == RACES + "2025-09-14,River Run,5,24:55\n"


@pytest.mark.parametrize("message,content", [
    # the user asks for a table in place of this one
    ("replace races_2025.csv with just this race: 2025-09-14, River Run, 5, 24:55", "2025-09-14,River Run,5,24:55"),
    # a row of another shape is no row of this table
    (LOGGED, "2025-09-14,River Run,24:55"),
    # the row's values are not the message's: the model's own table
    ("log my race in races_2025.csv", "2025-10-01,City Dash,8,40:00"),
    # no word of adding
    ("races_2025.csv should read 2025-09-14, River Run, 5, 24:55", "2025-09-14,River Run,5,24:55"),
], ids=["replace-asked", "other-shape", "values-unsaid", "no-word-of-adding"])
def test_other_writes_are_written_as_asked(tool_ctx: ToolContext, tmp_path: Path, message: str, content: str) -> None:
    (tmp_path / "races_2025.csv").write_text(RACES)
    _call(tool_ctx, message, "write_file", file_path="races_2025.csv", content=content)
    assert (tmp_path / "races_2025.csv").read_text() == content


def test_the_whole_table_written_again_with_a_row_more_is_written_as_is() -> None:
    assert rows_to_add(LOGGED, RACES, RACES + "2025-09-14,River Run,5,24:55\n", "races_2025.csv") is None


def test_a_row_the_table_holds_is_not_added_again() -> None:
    assert rows_to_add("add 2025-03-09 Spring 10K 10 52:10 to races.csv", RACES,
                       "2025-03-09,Spring 10K,10,52:10", "races.csv") is None


@pytest.mark.parametrize("new,why", [
    ("2025-09-14,River Run,24:55", "has 3 fields and the rows of races_2025.csv have 4"),
    ("2025-05-18,Harbour Half,21.1,1:58:41", "is not the row the request adds"),
], ids=["a-field-short", "the-last-row-changed"])
def test_an_edit_that_would_put_no_row_of_the_request_over_the_last_is_refused(tool_ctx: ToolContext, tmp_path: Path,
                                                                                new: str, why: str) -> None:
    # held to an edit from the last row, the 1.5B wrote "2025-05-18,10 km,48:12" and the 0.5B changed 23:48 to 23:49;
    # both replaced the last race (probe55)
    (tmp_path / "races_2025.csv").write_text(RACES)
    result = _call(tool_ctx, LOGGED, "edit_file", file_path="races_2025.csv",
                   old_content="2025-05-18,Harbour Half,21.1,1:58:40", new_content=new)
    assert result["status"] == "error" and why in result["error"], result
    assert "like the last row '2025-05-18,Harbour Half,21.1,1:58:40'" in result["error"]
    assert (tmp_path / "races_2025.csv").read_text() == RACES


def test_a_change_of_the_row_the_request_names_is_made(tool_ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "races_2025.csv").write_text(RACES)
    _call(tool_ctx, "add a minute to my harbour half time in races_2025.csv", "edit_file", file_path="races_2025.csv",
          old_content="2025-05-18,Harbour Half,21.1,1:58:40", new_content="2025-05-18,Harbour Half,21.1,1:59:40")
    assert "1:59:40" in (tmp_path / "races_2025.csv").read_text()
