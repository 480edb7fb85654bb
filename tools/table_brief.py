"""The one table a user's message names, as analyze_data_file's query reads it: its columns and types, its
first rows and the values of its columns of a few repeated words. Not the span of its dates: shown it, the 0.5B
added ``date BETWEEN`` the two ends to queries that asked for no period.

The agent shows these lines beside the message, so the model can write the query in its first reply. Shown a
table's schema and asked for one SELECT, both Qwen2.5-Coder models wrote the right query for most data
questions (1.5B 17 of 19, 0.5B 14 of 19 on the dev probes) that they answered wrongly when left to pick a tool:
they read the file, or asked the document index, and then had to count and add up rows themselves.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from gaia_lite.registry.failure import ToolFailure

from .find import PATH_MENTION, find, shown
from .sandbox import SandboxError, resolve_user_path
from .table_read import _frame, _Frame, _read_rows, _tabular
from .sql_text import quoted
from .table_sql import TABLE, schema_fields

if TYPE_CHECKING:
    from gaia_lite.registry.context import ToolContext

__all__ = ["named_table", "table_brief", "asked_of_table", "QUERIED_SUFFIXES", "MAX_BRIEF_BYTES"]

QUERIED_SUFFIXES = (".csv", ".tsv", ".xlsx", ".xlsm")  # not .txt: a text file is read as a table only when it is one
MAX_BRIEF_BYTES = 5_000_000  # a larger table is left to the tools: reading it before every reply would stall it
MAX_VALUES = 12  # a column with more distinct values is not a list of kinds
VALUE_COLUMNS = 4
VALUE_CHARS = 40


def named_table(ctx: ToolContext, message: str) -> Path | None:
    """The one table file ``message`` names, by its path from the working folder or by a name only one file
    in the allowed folders has ("expenses.csv" for finance/expenses.csv); None when it names none, or two."""
    found: list[Path] = []
    for m in PATH_MENTION.finditer(message):
        raw = m.group(0).rstrip(".")
        if not raw.lower().endswith(QUERIED_SUFFIXES):
            continue
        try:
            path = resolve_user_path(ctx, raw)
        except (SandboxError, OSError):
            continue
        if not path.is_file():
            same = [f.path for f in find(ctx, Path(raw).name, "file") if f.path.name.lower() == Path(raw).name.lower()]
            path = same[0] if len(same) == 1 else path
        if path.is_file() and path not in found:
            found.append(path)
    return found[0] if len(found) == 1 else None


def asked_of_table(message: str, path: Path | str) -> str:
    """``message`` with its mentions of the table's file put as "the table": asked "who in hr/staff.csv started in
    2023 or later?", the 0.5B wrote ``WHERE dept = 'hr'``; the query names the table data, not the file."""
    name = Path(path).name.lower()
    return PATH_MENTION.sub(lambda m: "the table" if Path(m.group(0).rstrip(".")).name.lower() == name
                            else m.group(0), message)


def table_brief(path: Path, workdir: Path) -> str | None:
    """Lines that show ``path`` as the table a query reads, or None when it is no table, or too large."""
    try:
        if path.stat().st_size > MAX_BRIEF_BYTES:
            return None
        rows = _read_rows(path)
    except (ToolFailure, OSError):
        return None
    if not _tabular(rows):
        return None
    frame = _frame(rows)
    return "\n".join([
        f"{shown(path, Path(workdir).resolve())} is a table of {frame.rows} rows; analyze_data_file's query "
        f"reads it as the SQL table {TABLE}:", _create(frame), "First rows:", schema_fields(frame)["sample"],
        *_values(frame)])


def _create(frame: _Frame) -> str:
    """The table as CREATE TABLE declares it: written as ``data(kg number, ...)``, the 1.5B put the type into its
    query (``SUM(kg number)``); the statement is the form text-to-SQL prompts show a schema in."""
    kinds = {"number": "REAL", "date": "DATE", "text": "TEXT"}
    columns = ", ".join(f"{quoted(n)} {kinds.get(frame.types[n], 'TEXT')}" for n in frame.names)
    return f"CREATE TABLE {TABLE} ({columns})"


def _values(frame: _Frame) -> list[str]:
    """'status is one of: paid, overdue, sent' for the columns of a few repeated words: a condition on them
    needs the value as the file writes it ("haven't been paid" is status != 'paid')."""
    out = []
    for name in frame.names:
        if frame.types[name] != "text":
            continue
        values = list(dict.fromkeys(v for v in frame.text[name] if v))
        if 1 < len(values) <= MAX_VALUES and len(values) < frame.rows and all(len(v) <= VALUE_CHARS for v in values):
            out.append(f"{name} is one of: {', '.join(values)}")
    return out[:VALUE_COLUMNS]
