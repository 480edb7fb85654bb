"""SQL a small model writes from memory, in other dialects, runs over the table as it means (tools/sql_dialect.py):
a real CSV in a temp dir, real SQLite, the tool called as the agent calls it."""

from __future__ import annotations

import pytest

from gaia_lite.tools.data import analyze_data_file
from gaia_lite.tools.sql_dialect import date_part
from tests.tools.called import as_called
from tests.tools.test_data_query import expenses  # noqa: F401  (the fixture)

analyze = as_called(analyze_data_file)

# the expenses of tests/tools/test_data_query.py: January 1,397.40 in 5 rows (dates written 01/03/2025 ...),
# February 119.99, groceries 182.40


@pytest.mark.parametrize(("query", "lead", "note"), [
    # SQL Server's TOP n is SQLite's LIMIT n
    ("SELECT TOP 1 category, SUM(amount) AS total FROM data GROUP BY category ORDER BY total DESC",
     "1 row:\ncategory | total\nrent | 1200", "TOP 1 read as LIMIT 1"),
    # MySQL's MONTH() and YEAR() run as written
    ("SELECT SUM(amount) FROM data WHERE YEAR(date) = 2025 AND MONTH(date) = 2",
     "SUM(amount) over the rows where YEAR(date) = 2025 AND MONTH(date) = 2: 119.99.", None),
    # PostgreSQL's EXTRACT and ILIKE
    ("SELECT SUM(amount) FROM data WHERE EXTRACT(MONTH FROM date) = 1",
     "SUM(amount) over the rows where MONTH(date) = 1: 1397.40.", "EXTRACT(MONTH FROM ...) read as MONTH(...)"),
    ("SELECT SUM(amount) FROM data WHERE category ILIKE 'Groceries'",
     "SUM(amount) over the rows where category LIKE 'Groceries': 182.40.", "ILIKE read as LIKE"),
    # dates as the file writes them, compared with a date column the table holds as ISO text
    ("SELECT SUM(amount) FROM data WHERE date >= '01/01/2025' AND date <= '01/31/2025'",
     "SUM(amount) over the rows where date >= '2025-01-01' AND date <= '2025-01-31': 1397.40.",
     "'01/31/2025' read as '2025-01-31'"),
    ("SELECT COUNT(*) FROM data WHERE date BETWEEN '1/1/2025' AND '1/10/2025'",
     "COUNT(*) over the rows where date BETWEEN '2025-01-01' AND '2025-01-10': 3.", "the table holds dates as"),
])
def test_another_dialects_query_runs_as_it_means(tool_ctx, expenses: str, query: str, lead: str,
                                                 note: str | None) -> None:
    result = analyze(tool_ctx, expenses, query=query)
    assert result["status"] == "success", result
    assert result["message"].startswith(lead), result["message"]
    if note:
        assert note in result["message"], result["message"]


def test_a_top_inside_a_subquery_limits_the_subquery(tool_ctx, expenses: str) -> None:
    result = analyze(tool_ctx, expenses,
                     query="SELECT COUNT(*) FROM data WHERE amount > (SELECT TOP 1 amount FROM data ORDER BY amount)")
    assert result["message"].startswith("COUNT(*) over the rows where amount > (SELECT amount FROM data ORDER BY "
                                        "amount LIMIT 1): 6."), result["message"]


def test_a_top_beside_a_limit_keeps_the_limit(tool_ctx, expenses: str) -> None:
    result = analyze(tool_ctx, expenses, query="SELECT TOP 5 note FROM data ORDER BY amount DESC LIMIT 1")
    assert result["message"].startswith("note: January rent."), result["message"]


def test_a_date_like_text_compared_with_a_text_column_is_left_as_written(tool_ctx, expenses: str) -> None:
    result = analyze(tool_ctx, expenses, query="SELECT note FROM data WHERE note = '01/15/2025'")
    assert "No rows where note = '01/15/2025'" in result["message"] and "read as" not in result["message"]


def test_the_date_functions_read_iso_dates_and_nothing_else() -> None:
    month, quarter = date_part("month"), date_part("quarter")
    assert [month("2025-03-17"), quarter("2025-03-17"), quarter("2025-10-01"), date_part("year")("2025-03-17")] \
        == [3, 1, 4, 2025]
    assert [month(None), month(""), month("March"), month(20250317), month("2025/03/17")] == [None] * 5
