"""A question about a table the message names: the first reply writes analyze_data_file's query over it, the next
answers from the rows it found.

Left to pick a tool for "which invoices haven't been paid yet?", both Qwen2.5-Coder models read the file or asked
the document index, then had to count and add up rows themselves, and mostly could not (probe_data2: 1.5B 2 of 8,
0.5B 1 of 8). Shown the table as a query reads it and asked for one SELECT, they write the query a small model
cannot do in its head (1.5B 6 of 8, 0.5B 3 of 8). Where the reply mode can hold a reply to a call (a grammar on a
llama.cpp server), the first reply is that call, written up to ``"query": "SELECT``; elsewhere the table is shown
beside the message and the model picks its own first call.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Iterable

from .facts import asked_to_keep
from .lexicon import ASKS_CHANGE, QUESTION

if TYPE_CHECKING:
    from gaia_lite.registry.context import ToolContext
    from gaia_lite.registry.execute import ToolResult

__all__ = ["TableTurn", "table_turn", "QUERY_TOOL", "QUERY_REQUEST", "QUERY_ANSWER"]

QUERY_TOOL = "analyze_data_file"
# Asked for off the record, in the words text-to-SQL prompts use: in the agent's own prompt alone, the 1.5B put the
# file's path in FROM and a column's type into its query
QUERY_REQUEST = "{brief}\nQuestion: {question}\nWrite one SQLite SELECT over data that answers the question."
# After its own query, the 0.5B answered with more SQL ("SELECT item FROM data WHERE qty < 5"), asked or not
QUERY_ANSWER = "Answer my question in plain sentences, from the rows the query found (not with SQL): {question}"


@dataclass(frozen=True)
class TableTurn:
    table: str  # the file's path as the user reads it (relative to the working folder)
    brief: str  # the table as a query reads it (tools/table_brief.py)

    def query_request(self, message: str) -> str:
        """What the first reply is asked, with the table shown: the question names "the table", not its file."""
        from gaia_lite.tools.table_brief import asked_of_table

        return QUERY_REQUEST.format(brief=self.brief, question=asked_of_table(message, self.table))

    @staticmethod
    def answer_request(message: str, done: ToolResult | None) -> str:
        """What the reply after the query is asked, when the query ran; "" otherwise (the model may try again)."""
        ran = done is not None and done.ok and done.name == QUERY_TOOL
        return QUERY_ANSWER.format(question=message) if ran else ""


def table_turn(message: str, ctx: ToolContext, tool_names: Iterable[str]) -> TableTurn | None:
    """The one table file ``message`` names, shown as a query reads it, or None: it names none (or two), it is no
    table, the data tool is not there, or the message asks for a change to it ("add a row for west") rather than
    asking something of it ("when was the last oil change?" asks)."""
    if QUERY_TOOL not in tool_names or asked_to_keep(message) or (ASKS_CHANGE.search(message) and not _asks(message)):
        return None
    from gaia_lite.tools.find import shown
    from gaia_lite.tools.table_brief import named_table, table_brief

    path = named_table(ctx, message)
    brief = table_brief(path, ctx.workdir) if path is not None else None
    return TableTurn(shown(path, Path(ctx.workdir).resolve()), brief) if path is not None and brief else None


def _asks(message: str) -> bool:
    return message.rstrip().endswith("?") or QUESTION.search(message) is not None
