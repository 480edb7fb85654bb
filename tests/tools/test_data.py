"""analyze_data_file against tests/fixtures/sales_data_2025.csv.

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

from gaia_lite.tools.data import analyze_data_file, parse_period, to_number

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "sales_data_2025.csv"


@pytest.fixture
def sales(tool_ctx, tmp_path: Path) -> str:
    shutil.copy(FIXTURE, tmp_path / "sales_data_2025.csv")
    return "sales_data_2025.csv"


@pytest.mark.parametrize("period", ["2025-Q1", "Q1 2025", "q1-2025", "2025 Q1", "Q1",
                                    "2025-01-01..2025-03-31", "2025-01..2025-03", "January 2025 to March 2025"])
def test_total_q1_revenue_is_340000(tool_ctx, sales: str, period: str) -> None:
    result = analyze_data_file(tool_ctx, sales, date_range=period)
    assert result["status"] == "success"
    assert result["rows_analyzed"] == 16
    assert result["totals"]["revenue"] == 340000
    assert "340,000" in result["highlights"][0]


def test_without_a_filter_the_year_total_differs(tool_ctx, sales: str) -> None:
    result = analyze_data_file(tool_ctx, sales)
    assert result["rows_total"] == result["rows_analyzed"] == 23
    assert result["totals"]["revenue"] == 434000


def test_top_salesperson_in_q1_is_sarah_chen_with_70000(tool_ctx, sales: str) -> None:
    result = analyze_data_file(tool_ctx, sales, group_by="salesperson", date_range="Q1 2025")
    assert result["top_1"]["salesperson"] == "Sarah Chen"
    assert result["top_1"]["revenue"] == 70000
    assert result["ranked_by"] == "revenue"
    ranking = [(g["salesperson"], g["revenue"]) for g in result["groups"]]
    assert ranking == [("Sarah Chen", 70000), ("Mike Johnson", 62000), ("Priya Patel", 58000),
                       ("David Kim", 55000), ("Emily Davis", 50000), ("Carlos Rivera", 45000)]
    assert sum(r for _, r in ranking) == 340000
    assert "Sarah Chen with 70,000" in result["highlights"][1]


def test_top_salesperson_overall_is_also_sarah_chen_with_70000(tool_ctx, sales: str) -> None:
    result = analyze_data_file(tool_ctx, sales, group_by="Salesperson")      # column names match loosely
    assert (result["top_1"]["salesperson"], result["top_1"]["revenue"]) == ("Sarah Chen", 70000)
    assert result["groups"][1] == {"salesperson": "Carlos Rivera", "revenue": 69000, "units": 216, "rows": 3}


def test_the_filter_changes_the_ranking(tool_ctx, sales: str) -> None:
    q2 = analyze_data_file(tool_ctx, sales, group_by="salesperson", date_range="2025-Q2")
    assert (q2["top_1"]["salesperson"], q2["top_1"]["revenue"]) == ("Alex Morgan", 26000)
    assert q2["totals"]["revenue"] == 80000


@pytest.mark.parametrize("period, total", [("2025-01", 100000), ("January 2025", 100000), ("Jan 2025", 100000),
                                           ("2025-03-31", 30000), ("2025", 434000), ("2024", 0)])
def test_month_day_and_year_filters(tool_ctx, sales: str, period: str, total: int) -> None:
    assert analyze_data_file(tool_ctx, sales, date_range=period)["totals"]["revenue"] == total


def test_columns_restricts_the_totals(tool_ctx, sales: str) -> None:
    result = analyze_data_file(tool_ctx, sales, columns="units", group_by="region", date_range="Q1 2025")
    assert result["totals"] == {"units": 1090}
    assert result["ranked_by"] == "units"


def test_column_types_and_money_parsing(tool_ctx, sales: str) -> None:
    result = analyze_data_file(tool_ctx, sales)
    types = {c["name"]: c["type"] for c in result["columns"]}
    assert types == {"date": "date", "salesperson": "text", "region": "text", "product": "text",
                     "units": "number", "unit_price": "number", "revenue": "number"}
    assert "unit_price" not in result["totals"]                       # per-unit prices are not summed
    assert result["statistics"]["unit_price"]["max"] == 1000          # "$1,000.00" parsed


def test_trends_spending_and_full(tool_ctx, sales: str) -> None:
    trends = analyze_data_file(tool_ctx, sales, analysis_type="trends")["trends"]
    assert trends["quarterly"] == {"2025-Q1": 340000, "2025-Q2": 80000, "2025-Q3": 14000}
    assert trends["monthly"][0] == {"month": "2025-01", "rows": 5, "revenue": 100000}
    spending = analyze_data_file(tool_ctx, sales, analysis_type="spending")
    assert spending["group_by"] == "product" and spending["top_1"]["product"] == "Widget Pro"
    assert len(spending["largest_rows"]) == 5
    full = analyze_data_file(tool_ctx, sales, analysis_type="full", date_range="Q1 2025")
    assert full["breakdowns"]["salesperson"]["top_1"]["salesperson"] == "Sarah Chen"
    assert full["trends"]["quarterly"] == {"2025-Q1": 340000}


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
    result = analyze_data_file(tool_ctx, "sales.xlsx", group_by="salesperson", date_range="2025-Q1")
    assert result["totals"]["revenue"] == 340000
    assert (result["top_1"]["salesperson"], result["top_1"]["revenue"]) == ("Sarah Chen", 70000)


def test_tsv_and_semicolon_csv(tool_ctx, tmp_path: Path) -> None:
    (tmp_path / "t.tsv").write_text("day\tamount\n2025-01-02\t$1,234.50\n2025-04-01\t10\n")
    assert analyze_data_file(tool_ctx, "t.tsv", date_range="Q1 2025")["totals"]["amount"] == 1234.5
    (tmp_path / "s.csv").write_text("who;amount\nann;5\nbob;7\nann;1\n")
    result = analyze_data_file(tool_ctx, "s.csv", group_by="who")
    assert result["top_1"] == {"who": "bob", "amount": 7, "rows": 1}


@pytest.mark.parametrize("text, value", [("$1,234.50", Decimal("1234.50")), ("(200)", Decimal("-200")),
                                         ("-$5", Decimal("-5")), ("€3.5", Decimal("3.5")), ("12%", Decimal("12")),
                                         (42, Decimal("42")), (2.5, Decimal("2.5")), ("abc", None), ("", None),
                                         ("1.2.3", None), (True, None), (None, None)])
def test_to_number(text, value) -> None:
    assert to_number(text) == value


def test_parse_period_rejects_nonsense() -> None:
    with pytest.raises(ValueError):
        parse_period("sometime soon")
    label, inside = parse_period("2025-02")
    assert label == "2025-02-01..2025-02-28"
    assert inside(datetime(2025, 2, 28).date()) and not inside(datetime(2025, 3, 1).date())


@pytest.mark.parametrize("kwargs, fragment", [
    ({"columns": "profit"}, "number columns: units, unit_price, revenue"),
    ({"columns": "salesperson"}, "not a number column"),
    ({"group_by": "team"}, "columns: date, salesperson"),
    ({"date_range": "next week"}, "2025-Q1"),
    ({"analysis_type": "magic"}, "summary, spending, trends, full"),
], ids=["unknown-column", "text-column", "unknown-group", "bad-period", "bad-type"])
def test_bad_arguments_are_clear_errors(tool_ctx, sales: str, kwargs: dict, fragment: str) -> None:
    result = analyze_data_file(tool_ctx, sales, **kwargs)
    assert result["status"] == "error" and fragment in result["error"]


def test_a_text_report_is_read_as_text_not_refused(tool_ctx, tmp_path: Path) -> None:
    # the 0.5B model sends a Markdown report here for "what was Q3 revenue?"; the refusal became its answer
    (tmp_path / "q3.md").write_text("# Q3\n\nRevenue was $14.2 million.\n")
    result = analyze_data_file(tool_ctx, "q3.md", analysis_type="summary")
    assert result["status"] == "success" and result["note"] == "q3.md is not a table, so this is its text"
    assert "Revenue was $14.2 million." in result["content"]
    assert list(result)[-1] == "note"   # the text comes first: the 0.5B model answered with the first line


def test_file_errors(tool_ctx, tmp_path: Path, outside_dir: Path) -> None:
    assert "search_file" in analyze_data_file(tool_ctx, "missing.csv")["error"]
    assert "--allowed-paths" in analyze_data_file(tool_ctx, str(outside_dir / "secret_plans.txt"))["error"]
    (tmp_path / "photo.png").write_bytes(b"\x89PNG")
    assert "not a table" in analyze_data_file(tool_ctx, "photo.png")["error"]
    (tmp_path / "empty.csv").write_text("\n\n")
    assert "no rows" in analyze_data_file(tool_ctx, "empty.csv")["error"]
    (tmp_path / "broken.xlsx").write_bytes(b"not a zip file")
    assert "could not read" in analyze_data_file(tool_ctx, "broken.xlsx")["error"]
    (tmp_path / "nodates.csv").write_text("a,b\n1,2\n")
    assert "no column holds dates" in analyze_data_file(tool_ctx, "nodates.csv", date_range="2025")["error"]


def test_a_bare_name_falls_back_to_the_one_indexed_file_of_that_name(tool_ctx, tmp_path: Path) -> None:
    """The user indexed data/sales_data_2025.csv; the model asks for "sales_data_2025.csv"."""
    from gaia_lite.embed.hashing import HashEmbedder
    from gaia_lite.memory.rag import RagIndex

    (tmp_path / "data").mkdir()
    shutil.copy(FIXTURE, tmp_path / "data" / "sales_data_2025.csv")
    tool_ctx.rag = RagIndex(tmp_path / "index", HashEmbedder(dim=64))
    try:
        # not indexed yet: found as the one file of that name in the working directory (resolve_user_path)
        assert analyze_data_file(tool_ctx, "sales_data_2025.csv", columns="revenue")["status"] == "success"
        tool_ctx.rag.index_file(tmp_path / "data" / "sales_data_2025.csv")
        out = analyze_data_file(tool_ctx, "sales_data_2025.csv", date_range="2025-Q1", columns="revenue")
        assert out["status"] == "success" and out["file"] == str(tmp_path / "data" / "sales_data_2025.csv")
        # a second namesake makes the bare name ambiguous: the plain error again
        (tmp_path / "old").mkdir()
        shutil.copy(FIXTURE, tmp_path / "old" / "sales_data_2025.csv")
        tool_ctx.rag.index_file(tmp_path / "old" / "sales_data_2025.csv")
        assert "search_file" in analyze_data_file(tool_ctx, "sales_data_2025.csv")["error"]
    finally:
        tool_ctx.rag.close()


SMALL = "region,q1,q2\nnorth,120,90\nsouth,150,110\neast,95,130\nwest,60,70\n"


def test_a_small_table_comes_back_whole_so_a_follow_up_can_be_answered(tool_ctx, tmp_path: Path) -> None:
    (tmp_path / "sales.csv").write_text(SMALL)
    result = analyze_data_file(tool_ctx, "sales.csv")
    assert result["all_rows"][2] == {"region": "east", "q1": "95", "q2": "130"}   # "and what was its q1?"
    assert len(result["all_rows"]) == 4


def test_the_row_with_the_highest_value_is_named(tool_ctx, tmp_path: Path) -> None:
    (tmp_path / "sales.csv").write_text(SMALL)
    highlights = analyze_data_file(tool_ctx, "sales.csv", columns="q2")["highlights"]
    assert "Highest q2: east (130); lowest q2: west (70)" in highlights


def test_a_large_table_keeps_its_rows_to_itself(tool_ctx, sales: str) -> None:
    result = analyze_data_file(tool_ctx, sales)
    assert "all_rows" not in result
    assert not any(h.startswith("Highest") for h in result["highlights"])   # no column names each row


def test_quarter_totals_come_with_an_unfiltered_summary(tool_ctx, sales: str) -> None:
    result = analyze_data_file(tool_ctx, sales)
    assert result["quarterly"]["2025-Q1"] == 340000       # "Q1 revenue" asked without a date_range
    assert result["highlights"][0].startswith("revenue by quarter: 2025-Q1 340,000")   # read first
    assert list(result).index("quarterly") < list(result).index("totals")
    assert result["highlights"][1].startswith("Total revenue over every date (2025-")   # not "the" total
    assert "quarterly" not in analyze_data_file(tool_ctx, sales, date_range="2025-Q1")
