"""A search tool handed SQL runs it as analyze_data_file does, over the table the conversation is about.

The 0.5B asked query_documents "SELECT category FROM data ORDER BY SUM(amount) DESC LIMIT 1" as the follow-up
to a question on expenses.csv (built-in test split) and answered with a line of the CSV's text. Real files in
a temp folder, the tools called through a real ToolExecutor (the redirect is the executor's).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gaia_lite.registry.context import ToolContext
from gaia_lite.registry.execute import Decision, ToolExecutor, ToolResult
from gaia_lite.registry.registry import ToolRegistry
from gaia_lite.registry.spec import spec_of
from gaia_lite.tools.data import analyze_data_file
from gaia_lite.tools.memory import search_past_conversations
from gaia_lite.tools.query_meant import is_sql, table_meant
from gaia_lite.tools.rag import query_documents

EXPENSES = "date,category,amount\n2025-01-02,rent,900\n2025-01-05,food,40\n2025-01-09,food,35\n2025-02-02,rent,900\n"
RANKING = "SELECT category, SUM(amount) FROM data GROUP BY category ORDER BY SUM(amount) DESC LIMIT 1"


def _call(ctx: ToolContext, name: str, **arguments: object) -> ToolResult:
    tools = [query_documents, search_past_conversations, analyze_data_file]
    executor = ToolExecutor(ToolRegistry([spec_of(f) for f in tools]), ctx, approve=lambda s, a: Decision.ALLOW)
    return executor.execute(name, arguments)


@pytest.fixture
def money(tool_ctx: ToolContext, tmp_path: Path) -> ToolContext:
    (tmp_path / "money").mkdir()
    (tmp_path / "money" / "expenses.csv").write_text(EXPENSES)
    (tmp_path / "notes.md").write_text("# Notes\n\nrent is due on the 2nd\n")
    return tool_ctx


@pytest.mark.parametrize("tool", ["query_documents", "search_past_conversations"])
def test_sql_sent_to_a_search_runs_over_the_only_table_here(money: ToolContext, tool: str) -> None:
    result = _call(money, tool, query=RANKING)
    assert result.ok and result.name == "analyze_data_file" and result.requested == tool, result
    assert result.payload["rows"] == [["rent", 1800]], result.payload
    assert result.payload["note"] == "The query is SQL, so analyze_data_file ran it over money/expenses.csv."


def test_the_table_the_conversation_named_is_the_one_meant(money: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "budget.csv").write_text("category,amount\nrent,1000\nfood,300\n")
    assert table_meant(money) is None   # two tables, none named: no guess
    money.request.earlier = "money/expenses.csv: what columns does it have?\nIts columns are date, category, amount."
    money.request.message = "Now go ahead and find which category has the highest total."
    assert table_meant(money) == tmp_path / "money" / "expenses.csv"
    money.request.message = "and in budget.csv?"   # the message's own table comes first
    assert table_meant(money) == tmp_path / "budget.csv"


def test_a_failed_query_stands_with_its_error_and_the_figures(money: ToolContext) -> None:
    money.request.message = "which category has the highest total?"
    result = _call(money, "query_documents", query="SELECT category FROM data WHERE amt > 5")
    assert result.name == "analyze_data_file" and not result.ok, result
    assert result.payload["error"].startswith("no column 'amt' in data"), result.payload
    assert "rent 1,800" in result.payload["figures"], result.payload["figures"]


def test_words_are_searched_as_words(money: ToolContext) -> None:
    # no index and no memory here: the search tool itself answers, with its own error
    for query in ("select the rent rows from my expenses", "which category costs the most?"):
        assert not is_sql(query)
        assert _call(money, "query_documents", query=query).name == "query_documents"
    assert is_sql("  with t as (select 1) select * from t") and is_sql("SELECT\n  SUM(x)\nFROM data")
    assert not is_sql("SELECT " + "(" * 1_000_000)   # over analyze_data_file's limit: words, decided at once
