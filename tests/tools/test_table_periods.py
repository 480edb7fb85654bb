"""The period a question over a dated table asks for (tools/table_periods.py), through the real analyze_data_file.

Asked "which month was best for honey?", the result led with quarters and the top hive; the month has to be the
first line, named as a person says it.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from gaia_lite.registry.context import ToolContext
from gaia_lite.tools.data import analyze_data_file
from gaia_lite.tools.table_periods import asks_period, per_period

from tests.tools.called import as_called

HIVES = ("date,hive,honey_kg\n2025-06-02,A,3.1\n2025-06-20,B,2.4\n2025-07-05,A,4.0\n2025-07-22,B,3.9\n"
         "2025-08-10,A,1.2\n")


def _first_line(ctx: ToolContext, message: str) -> str:
    (Path(ctx.workdir) / "hives.csv").write_text(HIVES)
    ctx.request.message = message
    return as_called(analyze_data_file)(ctx, "hives.csv")["message"].splitlines()[0]


def test_the_month_asked_for_leads_with_the_best_and_the_lowest(tool_ctx: ToolContext) -> None:
    assert _first_line(tool_ctx, "which month was best for honey?") == (
        "Best month by total honey_kg: July 2025 7.90; lowest: August 2025 1.20. "
        "Each month: June 2025 5.50, July 2025 7.90, August 2025 1.20.")


def test_the_lowest_leads_when_asked_for_and_within_the_cell_named(tool_ctx: ToolContext) -> None:
    assert _first_line(tool_ctx, "what was the worst month for hive A?").startswith(
        "Lowest month by total honey_kg (hive is a): August 2025 1.20; best: July 2025 4.")
    assert _first_line(tool_ctx, "which month had the lowest honey?").startswith(
        "Lowest month by total honey_kg: August 2025 1.20; best: July 2025 7.90.")


def test_an_average_asked_for_is_each_months_mean(tool_ctx: ToolContext) -> None:
    assert _first_line(tool_ctx, "average honey per month?") == \
        "Average honey_kg each month: June 2025 2.75, July 2025 3.95, August 2025 1.20."


def test_each_months_figure_asked_is_led_by_every_month_not_the_best(tool_ctx: ToolContext) -> None:
    # led by the best and lowest months, the 0.5B gave those two and left out the third (probe57)
    assert _first_line(tool_ctx, "how much honey did we get in each month?") == \
        "Total honey_kg each month: June 2025 5.50, July 2025 7.90, August 2025 1.20."


def test_a_question_without_a_period_keeps_its_usual_lead(tool_ctx: ToolContext) -> None:
    assert not _first_line(tool_ctx, "how much honey did hive B make this year?").startswith("Best")


@pytest.mark.parametrize("message,period", [
    ("which month was best for honey?", "month"), ("busiest quarter?", "quarter"),
    ("sales per week", "week"), ("what day of the week do I run most", None),
    ("which weekday had the most orders", "weekday"), ("monthly totals please", "month"),
    ("the year with the highest rainfall", "year"), ("how much did I spend this year?", None),
    ("what did I spend in March 2025?", None),
], ids=lambda v: str(v))
def test_the_period_is_read_from_the_message(message: str, period: str | None) -> None:
    assert asks_period(message) == period


def test_periods_are_in_calendar_order_and_weekdays_from_monday() -> None:
    days = [date(2025, 1, 8), date(2025, 1, 6), date(2024, 12, 31), "not a date"]
    values = [Decimal(1), Decimal(2), Decimal(4), Decimal(8)]
    assert per_period(days, values, "month") == [("December 2024", 4), ("January 2025", 3)]
    assert per_period(days, values, "weekday") == [("Monday", 2), ("Tuesday", 4), ("Wednesday", 1)]
    assert per_period(days, values, "week") == [("week of 30 Dec 2024", 4), ("week of 6 Jan 2025", 3)]


def test_a_query_that_groups_by_day_is_led_by_the_month_asked_for(tool_ctx: ToolContext) -> None:
    # "and which month was best for honey?": the 1.5B grouped by day and answered with the best day's month (probe54)
    (Path(tool_ctx.workdir) / "hives.csv").write_text(HIVES)
    tool_ctx.request.message = "and which month was best for hive B?"
    query = "SELECT date, SUM(honey_kg) FROM data WHERE hive = 'B' GROUP BY date ORDER BY 2 DESC LIMIT 1"
    message = as_called(analyze_data_file)(tool_ctx, "hives.csv", query=query)["message"]
    # over the query's rows (hive = 'B'), which the line after it says
    assert message.startswith("Best month by total honey_kg: July 2025 3.90; lowest: June 2025 2.40."), \
        message
    assert "2025-07-22 | 3.90" in message, "the query's own rows stay"
    by_month = "SELECT strftime('%m', date) AS m, SUM(honey_kg) FROM data GROUP BY m"   # it groups by month itself
    assert not as_called(analyze_data_file)(tool_ctx, "hives.csv", query=by_month)["message"].startswith("Best")


def test_the_months_led_by_a_query_are_over_the_rows_its_condition_keeps(tool_ctx: ToolContext) -> None:
    # "how many sourdough loaves did we sell in each month?": the months summed every product (probe56)
    (Path(tool_ctx.workdir) / "sales.csv").write_text(
        "date,product,qty\n2024-01-02,sourdough loaf,35\n2024-01-02,rye loaf,19\n2024-01-20,sourdough loaf,37\n"
        "2024-02-03,sourdough loaf,32\n2024-02-03,sourdough rolls (6pk),12\n2024-03-05,sourdough loaf,41\n")
    tool_ctx.request.message = "how many sourdough loaves did we sell in each month?"
    query = "SELECT date, SUM(qty) FROM data WHERE product = 'sourdough loaf' GROUP BY date"
    message = as_called(analyze_data_file)(tool_ctx, "sales.csv", query=query)["message"]
    assert message.startswith("Total qty each month: January 2024 72, February 2024 32, March 2024 41."), message
    # the query's rows by day are re-grouped by the month asked: the 1.5B answered each month's first day
    result = as_called(analyze_data_file)(tool_ctx, "sales.csv", query=query)
    assert result["rows"] == [["January 2024", "72"], ["February 2024", "32"], ["March 2024", "41"]], result
    assert result["columns"] == ["month", "total qty"] and "by month, as the question asks" in result["message"]


def test_the_longest_in_a_month_named_leads_over_the_month_total(tool_ctx: ToolContext) -> None:
    # "whats my longest ride in june?": June's total led, and the 1.5B gave May's longer ride (probe56)
    (Path(tool_ctx.workdir) / "rides.json").write_text(
        '[{"date": "2024-05-18", "route": "Hill century", "km": 102.3},'
        ' {"date": "2024-06-09", "route": "Commute loop", "km": 19.1},'
        ' {"date": "2024-06-22", "route": "Lake loop", "km": 87.5},'
        ' {"date": "2024-07-06", "route": "Coast ride", "km": 95.0}]')
    tool_ctx.request.message = "whats my longest ride in june? data is in rides.json"
    figures = as_called(analyze_data_file)(tool_ctx, "rides.json")["message"]
    assert figures.startswith("Highest km for June 2024: Lake loop (87.50)"), figures


EXPENSES = ("date,category,amount\n2024-02-27,groceries,50.00\n2024-03-01,rent,900.00\n2024-03-04,groceries,84.20\n"
            "2024-03-18,groceries,63.75\n2024-03-29,groceries,41.15\n2024-04-02,groceries,70.00\n")


def test_one_day_queried_for_a_month_asked_is_read_as_the_month(tool_ctx: ToolContext) -> None:
    # "how much did i spend on groceries in march?" queried date = '2024-03-01', and no row met it (0.5B, probe56)
    (Path(tool_ctx.workdir) / "expenses.csv").write_text(EXPENSES)
    query = "SELECT amount FROM data WHERE category = 'groceries' AND date = '2024-03-01'"
    tool_ctx.request.message = "how much did i spend on groceries in march?"
    message = as_called(analyze_data_file)(tool_ctx, "expenses.csv", query=query)["message"]
    assert "amount sums to 189.10" in message and "read as 2024-03-01 to 2024-03-29" in message, message
    tool_ctx.request.message = "how much went on groceries on the 1st of march?"   # that day is asked: as written
    message = as_called(analyze_data_file)(tool_ctx, "expenses.csv", query=query)["message"]
    assert message.startswith("No rows where category = 'groceries' AND date = '2024-03-01'"), message


def test_a_cell_is_named_by_its_plural_in_ves() -> None:
    from gaia_lite.tools.patterns import singular

    assert [singular(w) for w in ("loaves", "shelves", "knives", "olives", "drives", "leaves")] == \
        ["loaf", "shelf", "knife", "olive", "drive", "leave"]


def test_the_months_asked_are_of_the_cell_the_question_names_in_the_plural(tool_ctx: ToolContext) -> None:
    # "how many sourdough loaves ... each month?" summed every product (probe56)
    (Path(tool_ctx.workdir) / "sales.csv").write_text(
        "date,product,qty\n2024-01-02,sourdough loaf,35\n2024-01-02,rye loaf,19\n2024-02-03,sourdough loaf,32\n"
        "2024-02-03,sourdough rolls,12\n")
    tool_ctx.request.message = "how many sourdough loaves did we sell in each month?"
    message = as_called(analyze_data_file)(tool_ctx, "sales.csv")["message"]
    assert message.startswith("Total qty (product is sourdough loaf) each month: January 2024 35, February 2024 32."), \
        message


def test_a_measure_asked_of_a_named_month_shows_no_whole_file_lines(tool_ctx: ToolContext) -> None:
    # the top route over every month, a May ride, was the 1.5B's answer to "whats my longest ride in june?", below
    # lines that began "Every row, not only June 2024:", and the 0.5B gave the file's total km as the ride (probe56)
    (Path(tool_ctx.workdir) / "rides.csv").write_text("date,route,km\n2024-05-18,Hill century,102.3\n"
                                                     "2024-06-09,Commute loop,19.1\n2024-06-22,Lake loop,87.5\n")
    tool_ctx.request.message = "whats my longest ride in june?"
    result = as_called(analyze_data_file)(tool_ctx, "rides.csv")
    assert "Hill century" not in result["message"] and "208.90" not in result["message"], result["message"]
    assert "number columns" not in result and "km by route" not in result, result
    assert result["message"].startswith("Highest km for June 2024: Lake loop (87.50)"), result["message"]


def test_the_whole_files_lines_beside_a_named_month_say_they_are_of_every_row(tool_ctx: ToolContext) -> None:
    # no measure asked of the month: the whole file's lines stay, and say they are of every row
    (Path(tool_ctx.workdir) / "rides.csv").write_text("date,route,km\n2024-05-18,Hill century,102.3\n"
                                                     "2024-06-09,Commute loop,19.1\n2024-06-22,Lake loop,87.5\n")
    tool_ctx.request.message = "what rides did i do in june?"
    result = as_called(analyze_data_file)(tool_ctx, "rides.csv")
    top = [line for line in result["message"].splitlines() if "Hill century" in line]
    assert top and all(line.startswith("Every row, not only June 2024: ") for line in top), result["message"]
    assert result["number columns"].startswith("Every row, not only June 2024: km:"), result