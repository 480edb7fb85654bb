"""A search tool's query that is SQL: analyze_data_file's call over the table the conversation is about.

The 0.5B sent "SELECT category FROM data ORDER BY SUM(amount) DESC LIMIT 1" to query_documents as the follow-up
to a question on expenses.csv (the built-in test split), and got back a line of the CSV's text. A query that
opens with SELECT (or WITH) and has a FROM is code, whatever the language of the conversation, so the call is
read as the one that runs SQL: a ``redirect`` (registry/spec.py) for query_documents and
search_past_conversations.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from gaia_lite.registry.context import ToolContext
from gaia_lite.registry.spec import Redirect

from .find import PATH_MENTION, named_by_user, scan, shown
from .sandbox import SandboxError, resolve_user_path
from .table_brief import QUERIED_SUFFIXES

__all__ = ["sql_meant", "table_meant", "is_sql"]

# SELECT ... FROM data (the table's name in analyze_data_file's example), or a SELECT list with * or a function call;
# not "select the rent rows from my expenses"
_SQL = re.compile(r"\s*(?:WITH\b.*\bSELECT\b|SELECT\b(?:.*\bFROM\s+[\"'`]?data\b|[^;]*?[*(][^;]*?\bFROM\b))",
                  re.IGNORECASE | re.DOTALL)


MAX_SQL_CHARS = 2000   # analyze_data_file's own limit: a longer text is searched as words (and _SQL stays linear)


def is_sql(text: Any) -> bool:
    """Whether ``text`` is a SQL query (SELECT or WITH, then FROM), not words to search for."""
    return isinstance(text, str) and len(text) <= MAX_SQL_CHARS and _SQL.match(text) is not None


def _is_table(path: Path) -> bool:
    return path.suffix.lower() in QUERIED_SUFFIXES


def table_meant(ctx: ToolContext) -> Path | None:
    """The table a query without a file is about: the one this message names by path, else the last one the
    conversation named by path, else the only table in the working folder; None when none of these is one."""
    named = named_by_user(ctx, keep=_is_table)
    if named is not None:
        return named
    for mention in reversed(PATH_MENTION.findall(ctx.request.earlier)):
        try:
            path = resolve_user_path(ctx, mention.rstrip("."))
        except SandboxError:
            continue
        if path.is_file() and _is_table(path):
            return path
    tables = [e.path for e in scan(ctx, [Path(ctx.workdir)]) if not e.is_dir and _is_table(e.path)]
    return tables[0] if len(tables) == 1 else None


def sql_meant(ctx: ToolContext, query: str = "", **_: object) -> Redirect | None:
    """analyze_data_file's call for a search whose ``query`` is SQL, over ``table_meant``; None otherwise. Its
    error stands too: it names the wrong part of the query and holds the table's figures, where a search for
    the query's words finds lines of CSV text."""
    if not is_sql(query):
        return None
    table = table_meant(ctx)
    if table is None:
        return None
    name = shown(table, Path(ctx.workdir))
    return Redirect("analyze_data_file", {"file_path": name, "query": query},
                    f"The query is SQL, so analyze_data_file ran it over {name}.", stands=True)
