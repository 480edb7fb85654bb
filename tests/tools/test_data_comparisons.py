"""A comparison the message states ("fewer than 5 in stock", "started in 2023 or later") leads a table's
figures with the rows that meet it: on real files, through the real tools (read_file, analyze_data_file)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gaia_lite.registry.context import ToolContext, TurnRequest
from gaia_lite.tools.data import analyze_data_file
from gaia_lite.tools.files import read_file

INVENTORY = ("item,category,qty,price\nstapler,office,12,8.50\nprinter paper,office,3,24.00\ndesk lamp,furniture,7,39.90\n"
             "monitor stand,furniture,2,45.00\nwhiteboard markers,office,4,6.75\nchair mat,furniture,9,29.00\n"
             "label maker,office,1,54.00\n")
STAFF = ("name,dept,salary,start_date\nAnna Berg,sales,52000,2019-04-01\nBen Ortiz,it,61000,2023-02-15\n"
         "Cara Lind,sales,48000,2022-11-30\nDev Patel,it,70000,2024-06-01\nEla Novak,hr,45000,2021-01-10\n")


def _first_line(tool_ctx: ToolContext, name: str, text: str, message: str, *, tool=analyze_data_file) -> str:
    (tool_ctx.workdir / name).write_text(text)
    tool_ctx.request = TurnRequest(message)
    result = tool(tool_ctx, name)
    figures = result.get("figures") or result["message"]
    return figures.splitlines()[0]


def test_fewer_than_a_number_lists_the_rows_of_the_one_column_it_splits(tool_ctx: ToolContext) -> None:
    # 5 splits qty (1..12) and no price (6.75..54): the bound is about qty, though "stock" names no column
    line = _first_line(tool_ctx, "inventory.csv", INVENTORY, "which items in inventory.csv have fewer than 5 in stock?")
    assert line == "Rows where qty is under 5: 4 of 7: printer paper, monitor stand, whiteboard markers, label maker."


def test_read_file_of_a_table_leads_with_the_same_rows(tool_ctx: ToolContext) -> None:
    line = _first_line(tool_ctx, "inventory.csv", INVENTORY, "what's 2 or fewer in stock in inventory.csv",
                       tool=read_file)
    assert line == "Rows where qty is at most 2: 2 of 7: monitor stand, label maker."


def test_at_least_sets_a_bound_and_asks_for_no_lowest(tool_ctx: ToolContext) -> None:
    # 9 splits qty and price alike: no rows line, and "least" in "at least" put no lowest first
    line = _first_line(tool_ctx, "inventory.csv", INVENTORY, "what's at least 9 in stock in inventory.csv")
    assert not line.startswith("Lowest"), line


@pytest.mark.parametrize("message, expected", [
    ("who in staff.csv started in 2023 or later?", "start_date is in 2023 or later: 2 of 5: Ben Ortiz, Dev Patel."),
    ("who in staff.csv started before 2022", "start_date is before 2022: 2 of 5: Anna Berg, Ela Novak."),
    ("staff.csv: who joined after 2022?", "start_date is after 2022: 2 of 5: Ben Ortiz, Dev Patel."),
])
def test_a_year_is_held_to_the_date_column(tool_ctx: ToolContext, message: str, expected: str) -> None:
    line = _first_line(tool_ctx, "staff.csv", STAFF, message)
    assert line.startswith("Rows where " + expected), line


def test_a_named_number_column_wins_and_thousands_read_as_written(tool_ctx: ToolContext) -> None:
    line = _first_line(tool_ctx, "staff.csv", STAFF, "who in staff.csv has a salary over 50,000?")
    assert line.startswith("Rows where salary is over 50,000: 3 of 5: Anna Berg, Ben Ortiz, Dev Patel."), line


def test_a_comparison_and_a_named_value_hold_together(tool_ctx: ToolContext) -> None:
    line = _first_line(tool_ctx, "inventory.csv", INVENTORY, "office items with fewer than 5 left in inventory.csv")
    assert line.startswith("Rows where qty is under 5 and category is office: 3 of 7: printer paper, "
                           "whiteboard markers, label maker."), line


@pytest.mark.parametrize("message", [
    "what's the total qty in inventory.csv?",          # no comparison
    "items between 2 and 9 in stock in inventory.csv",  # two bounds: not read here
    "anything over 100 in inventory.csv?",              # splits no column: no rows to list, no guess
    "what is in inventory.csv, over 4 and under 9",     # two comparisons
])
def test_no_comparison_no_rows_line(tool_ctx: ToolContext, message: str) -> None:
    assert not _first_line(tool_ctx, "inventory.csv", INVENTORY, message).startswith("Rows where")


def test_a_bound_two_number_columns_would_both_fit_is_left_alone(tool_ctx: ToolContext) -> None:
    # 10 splits qty (1..12) and price (6.75..54) alike, and the message names neither
    assert not _first_line(tool_ctx, "inventory.csv", INVENTORY, "what is under 10 in inventory.csv").startswith(
        "Rows where")


def test_the_rows_that_answer_stand_alone_in_a_read(tool_ctx: ToolContext) -> None:
    # the 0.5B copied the whole block after the rows line, and answered "Anna Berg" from the sample rows
    (tool_ctx.workdir / "staff.csv").write_text(STAFF)
    tool_ctx.request = TurnRequest("who in staff.csv started in 2023 or later?")
    figures = read_file(tool_ctx, "staff.csv")["figures"].splitlines()
    assert figures[0].startswith("Rows where start_date is in 2023 or later: 2 of 5: Ben Ortiz, Dev Patel.")
    assert [f.split(":")[0] for f in figures[1:]] == ["Columns", "(staff.csv", "schema"], figures
    tool_ctx.request = TurnRequest("who in staff.csv earns the most?")   # no comparison: the whole block
    assert any(f.startswith("sample: ") for f in read_file(tool_ctx, "staff.csv")["figures"].splitlines())
