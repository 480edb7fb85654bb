"""analyze_data_file against tests/fixtures/sales_data_2025.csv, read as the model reads it.

The fixture answers GAIA's data_vs_recall_disambiguation scenario:
  * total Q1 2025 revenue = 340,000 (the whole file totals 434,000, so the
    date filter matters);
  * top salesperson in Q1 2025 = Sarah Chen with 70,000. She sells nothing
    after Q1 and everyone else stays below 70,000 over the year, so she is
    also the top salesperson overall, with the same 70,000;
  * Q2 alone has a different leader (Alex Morgan, 26,000).
"""

from __future__ import annotations

import csv
import shutil
from datetime import datetime
from decimal import Decimal
from pathlib import Path

import pytest

from gaia_lite.agent.results import compact_result
from gaia_lite.tools.data import analyze_data_file, parse_period, to_number

from tests.tools.called import as_called

analyze = as_called(analyze_data_file)

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "sales_data_2025.csv"


@pytest.fixture
def sales(tool_ctx, tmp_path: Path) -> str:
    shutil.copy(FIXTURE, tmp_path / "sales_data_2025.csv")
    return "sales_data_2025.csv"


def lines(result: dict, key: str = "message") -> list[str]:
    return str(result[key]).splitlines()


@pytest.mark.parametrize("period", ["2025-Q1", "Q1 2025", "q1-2025", "2025 Q1", "Q1",
                                    "2025-01-01..2025-03-31", "2025-01..2025-03", "January 2025 to March 2025"])
def test_total_q1_revenue_is_340000(tool_ctx, sales: str, period: str) -> None:
    result = analyze(tool_ctx, sales, date_range=period)
    assert result["status"] == "success"
    total, last = lines(result)[0], lines(result)[-1]
    assert total.startswith("Total in ") and total.endswith(" (16 of 23 rows): revenue 340,000; units 1,090.")
    assert last.startswith("(sales_data_2025.csv: 16 of 23 rows fall in ")   # what the file is, last


def test_without_a_filter_the_year_total_differs_and_the_quarters_come_with_it(tool_ctx, sales: str) -> None:
    result = analyze(tool_ctx, sales)
    assert lines(result)[:2] == ["Total over all 23 rows: revenue 434,000; units 1,418.",
                                 "revenue by quarter: 2025-Q1 340,000, 2025-Q2 80,000, 2025-Q3 14,000."]
    assert "unit_price" not in lines(result)[0]                      # a per-unit price is not summed
    assert lines(result)[-1] == "(sales_data_2025.csv: 23 rows, dated 2025-01-09 to 2025-08-21.)"


def test_the_top_of_each_group_is_named_with_its_figure(tool_ctx, sales: str) -> None:
    # "who sold the most?" with no group_by: the answer is in the summary (the 0.5B said "John Doe")
    result = analyze(tool_ctx, sales)
    assert "Top salesperson by total revenue: Sarah Chen 70,000; lowest: Alex Morgan 26,000." in lines(result)
    assert "Top region by total revenue: East 137,000; lowest: West 70,000." in lines(result)
    assert result["revenue by salesperson"] == ("Sarah Chen 70,000; Carlos Rivera 69,000; Emily Davis 68,000; "
                                               "Mike Johnson 67,000; Priya Patel 67,000; (+2 more)")


def test_top_salesperson_in_q1_is_sarah_chen_with_70000(tool_ctx, sales: str) -> None:
    result = analyze(tool_ctx, sales, group_by="salesperson", date_range="Q1 2025")
    assert "Top salesperson by total revenue: Sarah Chen 70,000; lowest: Carlos Rivera 45,000." in lines(result)
    assert result["revenue by salesperson"] == (   # the column asked for is ranked in full
        "Sarah Chen 70,000; Mike Johnson 62,000; Priya Patel 58,000; David Kim 55,000; Emily Davis 50,000; "
        "Carlos Rivera 45,000")


def test_group_by_is_matched_loosely_and_the_filter_changes_the_ranking(tool_ctx, sales: str) -> None:
    result = analyze(tool_ctx, sales, group_by="Sales Person", date_range="2025-Q2")
    assert result["revenue by salesperson"].startswith("Alex Morgan 26,000; ")
    assert "Total in 2025-04-01..2025-06-30 (5 of 23 rows): revenue 80,000; units 290." in lines(result)
    assert "note" not in result   # case and spaces are no news


@pytest.mark.parametrize("period, total", [("2025-01", "100,000"), ("January 2025", "100,000"), ("Jan 2025", "100,000"),
                                           ("2025-03-31", "30,000"), ("2025", "434,000"),
                                           # no year: the file's one year ("March 5 to March 20" was left out)
                                           ("March 31", "30,000"), ("January", "100,000"),
                                           ("Jan 1 to Jan 31", "100,000"), ("March 31 2025", "30,000")])
def test_month_day_and_year_filters(tool_ctx, sales: str, period: str, total: str) -> None:
    assert lines(analyze(tool_ctx, sales, date_range=period))[0].split(": ")[1].startswith(f"revenue {total};")


def test_a_period_with_no_rows_says_so(tool_ctx, sales: str) -> None:
    result = analyze(tool_ctx, sales, date_range="2024")
    assert result["message"] == ("sales_data_2025.csv: none of its 23 rows fall in 2024-01-01..2024-12-31; "
                                 "the file's rows are dated 2025-01-09 to 2025-08-21.")


def test_columns_restricts_the_totals(tool_ctx, sales: str) -> None:
    result = analyze(tool_ctx, sales, columns="units", group_by="region", date_range="Q1 2025")
    assert "Total in 2025-01-01..2025-03-31 (16 of 23 rows): units 1,090." in lines(result)
    assert result["units by region"] == "East 345; North 299; South 276; West 170"


def test_column_figures_name_the_row_of_the_min_and_max(tool_ctx, sales: str) -> None:
    columns = lines(analyze(tool_ctx, sales), "number columns")
    assert columns[0] == ("revenue: total 434,000, mean 18,869.57, min 5,000 (Mike Johnson, 2025-07-15), "
                          "max 30,000 (Carlos Rivera, 2025-03-31)")
    assert columns[2].startswith("unit_price: mean 505.43, min 125 (Emily Davis, 2025-01-16), max 1,000")  # "$1,000.00"


def test_the_period_the_user_names_comes_first_when_the_call_has_no_date_range(tool_ctx, sales: str) -> None:
    # the 0.5B passed no date_range for "total revenue in Q1 2025" and answered with the year's total
    tool_ctx.request.message = "What was the total revenue in Q1 2025 in data/sales_data_2025.csv?"
    result = analyze(tool_ctx, sales)
    assert lines(result)[0] == ("Total in Q1 2025 (2025-01-01..2025-03-31): revenue 340,000; units 1,090 (16 rows). "
                                "Top salesperson by total revenue in Q1 2025: Sarah Chen 70,000; lowest: Carlos Rivera 45,000.")
    # a total asked of a period the message names: the whole year's total is no answer, so it is not shown
    assert not any("434,000" in line for line in lines(result))
    tool_ctx.request.message = "sales_data_2025.csv - who sold the most?"   # the file's 2025 is no period
    assert lines(analyze(tool_ctx, sales))[0] == "Total over all 23 rows: revenue 434,000; units 1,418."


def test_trends_spending_and_full(tool_ctx, sales: str) -> None:
    trends = analyze(tool_ctx, sales, analysis_type="trends")
    assert lines(trends, "revenue by month")[0] == "2025-01: 100,000"
    spending = analyze(tool_ctx, sales, analysis_type="spending")
    assert "Top product by total revenue: Widget Pro 138,000; lowest: Sensor Kit 63,000." in lines(spending)
    assert list(spending).index("revenue by product") < list(spending).index("revenue by salesperson")
    assert len(spending["largest rows"]) == 5 and spending["largest rows"][0]["revenue"] == "30000"
    full = analyze(tool_ctx, sales, analysis_type="full", date_range="Q1 2025")
    assert {"revenue by salesperson", "revenue by region", "revenue by product", "revenue by month"} <= set(full)


def test_xlsx_gives_the_same_answers(tool_ctx, tmp_path: Path) -> None:
    import openpyxl
    wb = openpyxl.Workbook()
    ws = wb.active
    with open(FIXTURE, newline="") as fh:
        for i, row in enumerate(csv.reader(fh)):
            if i:
                row = [datetime.fromisoformat(row[0]), *row[1:4], int(row[4]), row[5], float(row[6])]
            ws.append(row)
    wb.save(tmp_path / "sales.xlsx")
    result = analyze(tool_ctx, "sales.xlsx", group_by="salesperson", date_range="2025-Q1")
    assert "Total in 2025-01-01..2025-03-31 (16 of 23 rows): revenue 340,000; units 1,090." in lines(result)
    assert result["revenue by salesperson"].startswith("Sarah Chen 70,000; ")


def test_tsv_and_semicolon_csv(tool_ctx, tmp_path: Path) -> None:
    (tmp_path / "t.tsv").write_text("day\tamount\n2025-01-02\t$1,234.50\n2025-04-01\t10\n")
    assert "Total in 2025-01-01..2025-03-31 (1 of 2 rows): amount 1,234.50." in lines(
        analyze(tool_ctx, "t.tsv", date_range="Q1 2025"))
    (tmp_path / "s.csv").write_text("who;amount\nann;5\nbob;7\nann;1\n")
    result = analyze(tool_ctx, "s.csv", group_by="who")
    assert "Top who by total amount: bob 7; lowest: ann 6." in lines(result)


@pytest.mark.parametrize("text, value", [("$1,234.50", Decimal("1234.50")), ("(200)", Decimal("-200")),
                                         ("-$5", Decimal("-5")), ("€3.5", Decimal("3.5")), ("12%", Decimal("12")),
                                         (42, Decimal("42")), (2.5, Decimal("2.5")), ("abc", None), ("", None),
                                         ("1.2.3", None), (True, None), (None, None)])
def test_to_number(text, value) -> None:
    assert to_number(text) == value


def test_parse_period_rejects_nonsense() -> None:
    with pytest.raises(ValueError):
        parse_period("sometime soon")
    with pytest.raises(ValueError):   # a day without a year, and no year to read it in
        parse_period("March 5 to March 20")
    assert parse_period("March 5 to March 20", 2026)[0] == "2026-03-05..2026-03-20"
    assert parse_period("March 5 2024 to March 20", 2026)[0] == "2024-03-05..2024-03-20"   # a year given is kept
    label, inside = parse_period("2025-02")
    assert label == "2025-02-01..2025-02-28"
    assert inside(datetime(2025, 2, 28).date()) and not inside(datetime(2025, 3, 1).date())



def test_a_bare_name_falls_back_to_the_one_indexed_file_of_that_name(tool_ctx, tmp_path: Path) -> None:
    """The user indexed data/sales_data_2025.csv; the model asks for "sales_data_2025.csv"."""
    from gaia_lite.embed.hashing import HashEmbedder
    from gaia_lite.memory.rag import RagIndex

    (tmp_path / "data").mkdir()
    shutil.copy(FIXTURE, tmp_path / "data" / "sales_data_2025.csv")
    tool_ctx.rag = RagIndex(tmp_path / "index", HashEmbedder(dim=64))
    try:
        # not indexed yet: found as the one file of that name in the allowed folders
        found = analyze(tool_ctx, "sales_data_2025.csv", columns="revenue")
        assert found["status"] == "success" and found["file"] == "data/sales_data_2025.csv"
        tool_ctx.rag.index_file(tmp_path / "data" / "sales_data_2025.csv")
        out = analyze(tool_ctx, "sales_data_2025.csv", date_range="2025-Q1", columns="revenue")
        assert out["status"] == "success" and out["file"] == "data/sales_data_2025.csv"
        # a second namesake makes the bare name ambiguous: the candidates are named
        (tmp_path / "team").mkdir()
        shutil.copy(FIXTURE, tmp_path / "team" / "sales_data_2025.csv")
        tool_ctx.rag.index_file(tmp_path / "team" / "sales_data_2025.csv")
        ambiguous = analyze(tool_ctx, "sales_data_2025.csv")
        assert ambiguous["status"] == "error" and "data/sales_data_2025.csv" in ambiguous["error"]
    finally:
        tool_ctx.rag.close()


SMALL = "region,q1,q2\nnorth,120,90\nsouth,150,110\neast,95,130\nwest,60,70\n"


def test_a_small_table_comes_back_whole_so_a_follow_up_can_be_answered(tool_ctx, tmp_path: Path) -> None:
    (tmp_path / "sales.csv").write_text(SMALL)
    result = analyze(tool_ctx, "sales.csv")
    assert result["rows"][2] == {"region": "east", "q1": "95", "q2": "130"}   # "and what was its q1?"
    assert len(result["rows"]) == 4


def test_the_row_with_the_highest_value_is_named_with_its_other_figures(tool_ctx, tmp_path: Path) -> None:
    (tmp_path / "sales.csv").write_text(SMALL)
    result = analyze(tool_ctx, "sales.csv", columns="q2")
    assert "Highest q2: east (q2 130, q1 95); lowest q2: west (q2 70, q1 60)." in lines(result)
    assert lines(result)[0] == "Total over all 4 rows: q2 400."


def test_a_large_table_keeps_its_rows_to_itself(tool_ctx, sales: str) -> None:
    result = analyze(tool_ctx, sales)
    assert "rows" not in result
    assert not any(line.startswith("Highest") for line in lines(result))   # no column names each row
