"""analyze_data_file without dead ends (issue 28, principles 2 and 5): names of columns and files as a
model guesses them, arguments that do not apply, and files that are no table, on real files."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gaia_lite.agent.results import compact_result
from gaia_lite.tools.data import analyze_data_file
from gaia_lite.tools.data_shape import match, named_in, split_names
from tests.tools.called import as_called

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "sales_data_2025.csv"
SMALL = "region,q1,q2\nnorth,120,90\nsouth,150,110\neast,95,130\nwest,60,70\n"
WEATHER = "city,temp_c,rain_mm\nOslo,4,30\nRome,15,12\nCairo,28,0\n"
analyze = as_called(analyze_data_file)


@pytest.mark.parametrize("wanted, column", [
    ("Revenue", "revenue"), ("unit price", "unit_price"), ("UNIT-PRICE", "unit_price"),   # case, separators
    ("temp", "temp_c"), ("revenue_usd", "revenue"),                                      # prefixes
    ("total revenue", "revenue"), ("sum of units", "units"), ("sales person", "salesperson"),
    ("reveune", "revenue"),                                                              # spelled nearly alike
    ("profit", None), ("1", None), ("", None),
])
def test_a_column_is_matched_the_way_people_name_it(wanted: str, column: str | None) -> None:
    names = ["date", "salesperson", "region", "units", "unit_price", "revenue", "temp_c"]
    assert match(names, wanted) == column


def test_two_columns_that_fit_equally_are_no_match() -> None:
    assert match(["q1_sales", "q1_costs"], "q1") is None


def test_columns_arguments_are_split_however_they_are_written() -> None:
    assert split_names('["region", "total_sales"]') == ["region", "total_sales"]
    assert split_names("{1,2}") == ["1", "2"]
    assert split_names("a; b|c") == ["a", "b", "c"]
    assert split_names(None) == []


def test_the_columns_a_message_names_in_its_order_and_not_in_file_names() -> None:
    names = ["region", "q1", "q2", "sales"]
    assert named_in(names, "Which region had the highest q2 in sales.csv?") == ["region", "q2"]


@pytest.fixture
def weather(tmp_path: Path) -> str:
    (tmp_path / "weather.csv").write_text(WEATHER)
    return "weather.csv"


def test_a_guessed_column_is_read_as_the_one_it_means(tool_ctx, weather: str) -> None:
    result = analyze(tool_ctx, weather, columns="temp")
    assert result["status"] == "success" and result["message"].splitlines()[0] == "Total over all 3 rows: temp_c 47."
    assert "read 'temp' as temp_c" in result["note"]


@pytest.mark.parametrize("kwargs, says", [
    ({"columns": "{1,2}"}, "no column is named like '1'"),
    ({"columns": "profit"}, "no column is named like 'profit'"),
    ({"group_by": "team"}, "no column to group by is named like 'team'"),
    ({"date_range": "next week"}, "date_range is left out: date_range 'next week' is not understood"),
], ids=["numbers-as-columns", "unknown-column", "unknown-group", "bad-period"])
def test_an_argument_that_does_not_apply_is_left_out_with_a_note(tool_ctx, tmp_path: Path, kwargs: dict,
                                                                  says: str) -> None:
    shutil.copy(FIXTURE, tmp_path / "sales.csv")
    result = analyze(tool_ctx, "sales.csv", **kwargs)
    assert result["status"] == "success", result
    assert "Top salesperson by total revenue: Sarah Chen 70,000" in result["message"]   # the answer is still there
    assert says in result["note"] and list(result)[-1] == "note"                 # said briefly, last
    if "no column" in says:
        assert "the columns are date, salesperson, region" in result["note"]


def test_a_text_column_among_the_numbers_groups_the_rows(tool_ctx, tmp_path: Path) -> None:
    shutil.copy(FIXTURE, tmp_path / "sales.csv")
    result = analyze(tool_ctx, "sales.csv", columns="region, total_sales")
    assert result["status"] == "success"
    assert list(result)[:3] == ["status", "message", "revenue by region"]
    assert "region holds text, so the rows are grouped by it" in result["note"]


def test_a_period_on_a_table_without_dates_is_left_out(tool_ctx, weather: str) -> None:
    result = analyze(tool_ctx, weather, date_range="2025-Q1")
    assert result["status"] == "success" and "Highest temp_c: Cairo" in result["message"]
    assert "no column holds dates" in result["note"]


def test_a_table_path_that_was_a_guess_finds_the_file_the_user_named(tool_ctx, tmp_path: Path) -> None:
    # "What is the total of q1 in sales.csv?": the 0.5B passed q1.csv, an error, then read_file
    (tmp_path / "sales.csv").write_text(SMALL)
    tool_ctx.request.message = "What is the total of q1 in sales.csv?"
    result = analyze(tool_ctx, str(tmp_path / "q1.csv"))
    assert result["status"] == "success" and result["message"].splitlines()[0] == "Total over all 4 rows: q1 425; q2 400."
    assert "this is sales.csv, the file the request names" in result["note"]


def test_a_table_in_a_folder_spelled_differently_is_found(tool_ctx, tmp_path: Path) -> None:
    (tmp_path / "exports" / "2025").mkdir(parents=True)
    shutil.copy(FIXTURE, tmp_path / "exports" / "2025" / "sales-data-2025.csv")
    result = analyze(tool_ctx, "export/2025/sales_data_2025.csv")
    assert result["status"] == "success" and result["file"] == "exports/2025/sales-data-2025.csv"
    assert "does not exist; this is exports/2025/sales-data-2025.csv" in result["note"]


def test_the_column_the_user_asks_about_comes_first(tool_ctx, tmp_path: Path) -> None:
    (tmp_path / "sales.csv").write_text(SMALL)
    tool_ctx.request.message = "Which region had the highest q2 in sales.csv?"
    message = analyze(tool_ctx, "sales.csv")["message"].splitlines()
    assert message[0:3] == ["Total over all 4 rows: q2 400; q1 425.",
                            "Highest q2: east (q2 130, q1 95); lowest q2: west (q2 70, q1 60).",
                            "Highest q1: south (q1 150, q2 110); lowest q1: west (q1 60, q2 70)."]


HANDBOOK = """# Handbook

## Leave

Staff get 25 vacation days per year.
Contractors are not eligible for company benefits.

## Equipment

Every employee receives a laptop.
"""


def test_a_document_is_read_as_text_with_the_lines_that_answer_first(tool_ctx, tmp_path: Path) -> None:
    # the 0.5B sent the handbook here for "are contractors eligible for benefits?"
    (tmp_path / "handbook.md").write_text(HANDBOOK)
    tool_ctx.request.message = "According to handbook.md, are contractors eligible for company benefits?"
    result = analyze(tool_ctx, "handbook.md")
    assert result["status"] == "success" and list(result)[:2] == ["status", "message"]
    assert result["message"].splitlines()[:2] == ["From handbook.md:",
                                                  "- Contractors are not eligible for company benefits."]
    # the section that answers first, then the rest (a small model copies from the top)
    assert result["text"] == ("## Leave\n\nStaff get 25 vacation days per year.\n"
                              "Contractors are not eligible for company benefits.\n\n# Handbook\n\n"
                              "## Equipment\n\nEvery employee receives a laptop.")
    assert "content" not in result and "analysis" not in result   # the built answer is the message
    assert result["note"].startswith("handbook.md is not a table, so this is its text, the sections that answer first")


def test_prose_in_a_table_file_is_not_summarised_as_a_table(tool_ctx, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("Call the plumber on Friday, then pay the rent.\nBuy milk.\n"
                                        "Renew the passport, before June.\n")
    result = analyze(tool_ctx, "notes.txt")
    assert result["status"] == "success" and "Renew the passport" in result["content"]
    assert "not a table" in result["note"] and "message" not in result   # no question, no lines
    (tmp_path / "one.csv").write_text("amount\n5\n7\n")   # one column of numbers is a table
    assert analyze(tool_ctx, "one.csv")["message"].splitlines()[0] == "Total over all 2 rows: amount 12."


def test_file_errors_say_what_is_wrong(tool_ctx, tmp_path: Path, outside_dir: Path) -> None:
    assert "search_file" in analyze(tool_ctx, "missing.csv")["error"]
    assert "--allowed-paths" in analyze(tool_ctx, str(outside_dir / "secret_plans.txt"))["error"]
    (tmp_path / "photo.png").write_bytes(b"\x89PNG")
    assert "not a table" in analyze(tool_ctx, "photo.png")["error"]
    (tmp_path / "empty.csv").write_text("\n\n")
    assert "no rows" in analyze(tool_ctx, "empty.csv")["error"]
    (tmp_path / "broken.xlsx").write_bytes(b"not a zip file")
    assert "could not read" in analyze(tool_ctx, "broken.xlsx")["error"]


def test_what_the_model_reads_is_plain_lines_and_compact(tool_ctx, tmp_path: Path) -> None:
    # statistics as JSON ("revenue={"sum": ...}") were copied into answers as "score={"
    shutil.copy(FIXTURE, tmp_path / "sales.csv")
    shown = compact_result(analyze(tool_ctx, "sales.csv"))
    assert "{" not in shown and "=" not in shown
    # about 400 tokens for a 23-row, 7-column table with three groupings, and about 100 for its schema and
    # three sample rows (``schema``, ``sample``)
    assert len(shown) < 1800
    assert shown.index("Sarah Chen 70,000") < shown.index("revenue by salesperson")


def test_an_average_asked_for_comes_before_the_total_in_a_column_line(tool_ctx, weather: str) -> None:
    # "avg temp in weather_log.csv?": the 0.5B answered "temp_c 60." from "temp_c: total 60, mean 12, ..."
    from gaia_lite.tools.files import read_file

    tool_ctx.request.message = "avg temp in weather.csv?"
    figures = as_called(read_file)(tool_ctx, weather)["figures"]
    line = next(ln for ln in figures.splitlines() if ln.startswith("temp_c: "))
    assert line.startswith("temp_c: mean ") and "total 47" in line
    tool_ctx.request.message = "total temp in weather.csv?"
    figures = as_called(read_file)(tool_ctx, weather)["figures"]
    assert "temp_c: total 47, mean" in figures
