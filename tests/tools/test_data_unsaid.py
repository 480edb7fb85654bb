"""A query's condition on a text value nobody named is left out, where the query keeps one that was named.

The 1.5B answered the follow-up "and beans?" with ``WHERE crop = 'bean' AND month = 'july'`` ("july" came from the
table's first rows) and "how much has Kim spent altogether?" with ``customer = 'Kim' AND status = 'shipped'``
(probe_followup.json). What the conversation said is the tool's ``TurnRequest``: the message and, before it, the
user's messages and the answers. Real CSV files, real SQLite, the tool through a real executor.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gaia_lite.tools.data import analyze_data_file
from gaia_lite.tools.sql_text import tokens, without_unsaid
from gaia_lite.tools.table_sql import said_in

from tests.tools.called import as_called

analyze = as_called(analyze_data_file)
HARVEST = "crop,month,kg\ntomato,july,12.5\ntomato,august,20\nbean,july,4\nbean,august,6.5\nsquash,august,9\n"


@pytest.fixture
def harvest(tool_ctx, tmp_path: Path) -> str:
    (tmp_path / "harvest.csv").write_text(HARVEST)
    return "harvest.csv"


def test_a_follow_ups_unnamed_condition_is_left_out_and_said(tool_ctx, harvest: str) -> None:
    tool_ctx.request.earlier = "harvest.csv - how many kg of tomatoes did we pick?\nWe picked 32.5 kg of tomatoes."
    tool_ctx.request.message = "and beans?"
    result = analyze(tool_ctx, harvest, query="SELECT SUM(kg) FROM data WHERE crop = 'bean' AND month = 'july'")
    assert result["rows"] == [[10.5]], result
    assert result["message"] == ("SUM(kg) over the rows where crop = 'bean': 10.50. (Left out month = 'july': the "
                                 "question does not name that value.)")
    assert result["query"] == "SELECT SUM(kg) FROM data WHERE crop = 'bean'"


@pytest.mark.parametrize("message, query", [
    ("beans in july?", "SELECT SUM(kg) FROM data WHERE crop = 'bean' AND month = 'july'"),      # both named
    ("how much food did we grow?", "SELECT SUM(kg) FROM data WHERE crop = 'tomato'"),          # one, maybe a synonym
    ("beans or july?", "SELECT SUM(kg) FROM data WHERE crop = 'bean' OR month = 'july'"),      # not one AND
    ("beans over 5 kg", "SELECT SUM(kg) FROM data WHERE crop = 'bean' AND kg > 5"),            # a number, not text
])
def test_a_query_whose_conditions_were_named_or_cannot_be_told_apart_runs_as_written(
        tool_ctx, harvest: str, message: str, query: str) -> None:
    tool_ctx.request.message = message
    result = analyze(tool_ctx, harvest, query=query)
    assert result["status"] == "success" and "Left out" not in result["message"] and "query" not in result, result


def test_with_no_message_a_query_runs_as_written(tool_ctx, harvest: str) -> None:
    result = analyze(tool_ctx, harvest, query="SELECT SUM(kg) FROM data WHERE crop = 'bean' AND month = 'july'")
    assert result["rows"] == [[4]]


@pytest.mark.parametrize("query, left", [
    ("SELECT SUM(total) FROM data WHERE customer = 'Kim' AND status = 'shipped' GROUP BY customer",
     "SELECT SUM(total) FROM data WHERE customer = 'Kim' GROUP BY customer"),
    ("SELECT SUM(amount) FROM data WHERE utility = 'power' AND month IN ('jan', 'feb') ORDER BY 1",
     "SELECT SUM(amount) FROM data WHERE utility = 'power' ORDER BY 1"),
    ("SELECT * FROM data WHERE customer LIKE '%kim%' AND status = 'shipped'", "SELECT * FROM data WHERE customer LIKE '%kim%'"),
])
def test_the_terms_read_are_equality_like_and_in_on_text(query: str, left: str) -> None:
    assert without_unsaid(tokens(query), said_in("how much did Kim pay for power?"))[0] == left


def test_a_value_is_named_by_a_word_of_it_or_by_the_start_of_a_longer_word() -> None:
    said = said_in("and the beans at harbor?")
    assert said("bean") and said("Harbor Cafe") and not said("july") and not said("be")


def test_a_short_value_is_named_by_its_plural() -> None:
    said = said_in("How many pens and boxes, in which categories?")
    assert said("pen") and said("box") and said("category") and not said("ink")


def test_a_condition_on_a_short_value_said_in_its_plural_is_kept(tool_ctx, tmp_path: Path) -> None:
    (tmp_path / "sales.csv").write_text("month,region,product,units\nJan,north,pen,10\nJan,south,pen,5\n"
                                        "Feb,north,pen,7\nFeb,north,ink,4\nMar,north,pen,3\n")
    tool_ctx.request.message = "How many pens did the north region sell in total (sales.csv)?"
    result = analyze(tool_ctx, "sales.csv",
                     query="SELECT SUM(units) FROM data WHERE region = 'north' AND product = 'pen'")
    assert result["rows"] == [[20]] and "Left out" not in result["message"], result


def test_a_date_value_is_named_by_its_month_in_words() -> None:
    said = said_in("what did I spend on takeaway in March?")
    assert said("2026-03%") and not said("2026-04%") and not said("2026-03-14")   # no day said
    assert said_in("takeaway on 14 March?")("2026-03-14") and said_in("on march 14th?")("2026-03-14")
    assert said_in("takeaway in mar 2026?")("2026-03%") and not said_in("takeaway in March 2025?")("2026-03%")
    assert not said_in("what did I spend on takeaway?")("2026-03%")


SPENDING = ("date,category,amount\n2026-02-27,takeaway,18.50\n2026-03-02,takeaway,22.00\n2026-03-05,groceries,64.10\n"
            "2026-03-14,takeaway,15.50\n2026-03-28,takeaway,12.00\n2026-04-01,takeaway,9.99\n")


def test_a_month_said_in_words_keeps_its_date_condition_and_the_amounts_are_summed(tool_ctx, tmp_path: Path) -> None:
    # the 1.5B's query for "what did I spend on takeaway in March?": the date condition was left out, and of the
    # amounts it gave the first (probe47)
    (tmp_path / "spending.csv").write_text(SPENDING)
    tool_ctx.request.message = "what did I spend on takeaway in March? it's in spending.csv"
    result = analyze(tool_ctx, "spending.csv",
                     query="SELECT amount FROM data WHERE category = 'takeaway' AND date LIKE '2026-03%'")
    assert result["message"] == ("3 rows where category = 'takeaway' AND date LIKE '2026-03%', amount sums to 49.50 "
                                 "(22, 15.50, 12)"), result["message"]


def test_numbers_that_name_things_are_not_summed(tool_ctx, tmp_path: Path) -> None:
    (tmp_path / "orders.csv").write_text("order_id,year,total\n101,2024,30\n102,2025,45\n103,2025,12\n")
    tool_ctx.request.message = "which orders in orders.csv were over 20?"
    for column in ("order_id", "year"):
        result = analyze(tool_ctx, "orders.csv", query=f"SELECT {column} FROM data WHERE total > 20")
        assert "sums" not in result["message"] and result["message"].startswith(f"2 rows where total > 20, {column}: ")


def test_a_column_the_tables_statistics_never_sum_is_not_summed_in_a_result_either(tool_ctx, tmp_path: Path) -> None:
    (tmp_path / "shop.csv").write_text("Order ID,price,qty\n101,2.50,3\n102,4.00,1\n103,1.25,6\n")
    tool_ctx.request.message = "which orders in shop.csv sold more than 2?"
    for column in ('"Order ID"', "price"):
        result = analyze(tool_ctx, "shop.csv", query=f"SELECT {column} FROM data WHERE qty > 2")
        assert "sums" not in result["message"], result["message"]
    assert "qty sums to 9" in analyze(tool_ctx, "shop.csv", query="SELECT qty FROM data WHERE qty > 2")["message"]
