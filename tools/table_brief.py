"""A table as analyze_data_file's query reads it: its columns and types, its first rows and the values of its
columns of a few repeated words. Not the span of its dates: shown it, the 0.5B added ``date BETWEEN`` the two ends
to queries that asked for no period.

The agent shows these lines with the first reply to a question about the table, so the model can write the query
then (agent/held_call.py). Shown a
table's schema and asked for one SELECT, both Qwen2.5-Coder models wrote the right query for most data
questions (1.5B 17 of 19, 0.5B 14 of 19 on the dev probes) that they answered wrongly when left to pick a tool:
they read the file, or asked the document index, and then had to count and add up rows themselves.
"""

from __future__ import annotations

from pathlib import Path

from gaia_lite.registry.failure import ToolFailure

from gaia_lite.registry.redact import redact_text

from .find import PATH_MENTION, shown
from .table_read import _frame, _Frame, _read_rows, _tabular
from .sql_text import quoted
from .table_sql import TABLE, schema_fields, words_of

__all__ = ["table_brief", "asked_of_table", "table_words", "QUERIED_SUFFIXES", "MAX_BRIEF_BYTES"]

QUERIED_SUFFIXES = (".csv", ".tsv", ".xlsx", ".xlsm")  # not .txt: a text file is read as a table only when it is one
MAX_BRIEF_BYTES = 5_000_000  # a larger table is left to the tools: reading it before every reply would stall it
MAX_VALUES = 12  # a column with more distinct values is not a list of kinds
VALUE_COLUMNS = 4
VALUE_CHARS = 40
MAX_CREATE_CHARS = 1_200  # the column list shown before the first reply


def asked_of_table(message: str, path: Path | str) -> str:
    """``message`` with its mentions of the table's file put as "the table": asked "who in hr/staff.csv started in
    2023 or later?", the 0.5B wrote ``WHERE dept = 'hr'``; the query names the table data, not the file."""
    name = Path(path).name.lower()
    return PATH_MENTION.sub(lambda m: "the table" if Path(m.group(0).rstrip(".")).name.lower() == name
                            else m.group(0), message)


def _small_table(path: Path) -> _Frame | None:
    """``path`` read as a table, or None when it is no table, or too large to read before a reply."""
    try:
        if path.stat().st_size > MAX_BRIEF_BYTES:
            return None
        rows = _read_rows(path)
    except (ToolFailure, OSError):
        return None
    return _frame(rows) if _tabular(rows) else None


def table_brief(path: Path, workdir: Path) -> str | None:
    """Lines that show ``path`` as the table a query reads, or None when it is no table, or too large."""
    frame = _small_table(path)
    if frame is None:
        return None
    brief = "\n".join([
        f"{shown(path, Path(workdir).resolve())} is a table of {frame.rows} rows; analyze_data_file's query "
        f"reads it as the SQL table {TABLE}:", _create(frame), "First rows:", schema_fields(frame)["sample"],
        *_values(frame)])
    return redact_text(brief)[0]  # shown outside a tool result, so the executor's redaction never sees it


def table_words(path: Path) -> frozenset[str]:
    """The words of ``path``'s column names and of its text columns' short values ("region", "q1", "west"),
    lower-case and not numbers: what a follow-up about the table says ("and what was its q1?", "and for the west?").
    Empty when it is no table, or too large to brief."""
    frame = _small_table(path)
    if frame is None:
        return frozenset()
    values = [v for n in frame.names if frame.types[n] == "text" for v in _short_values(frame.text[n])]
    return frozenset(w for w in words_of(" ".join([*frame.names, *values])) if not w.isdigit())


NAMED_VALUES = 50  # a text column of more distinct values (notes, descriptions) is not what a follow-up names


def _short_values(column: list[str]) -> list[str]:
    values = list(dict.fromkeys(v for v in column if v))
    return values if len(values) <= NAMED_VALUES and all(len(v) <= VALUE_CHARS for v in values) else []


def _create(frame: _Frame) -> str:
    """The table as CREATE TABLE declares it: written as ``data(kg number, ...)``, the 1.5B put the type into its
    query (``SUM(kg number)``); the statement is the form text-to-SQL prompts show a schema in."""
    kinds = {"number": "REAL", "date": "DATE", "text": "TEXT"}
    columns = ", ".join(f"{quoted(n)} {kinds.get(frame.types[n], 'TEXT')}" for n in frame.names)
    if len(columns) > MAX_CREATE_CHARS:  # a table of hundreds of columns: the first ones, and how many in all
        columns = columns[:MAX_CREATE_CHARS].rsplit(", ", 1)[0] + f", ... ({len(frame.names)} columns in all)"
    return f"CREATE TABLE {TABLE} ({columns})"


def _values(frame: _Frame) -> list[str]:
    """'status is one of: paid, overdue, sent' for the columns of a few repeated words: a condition on them
    needs the value as the file writes it ("haven't been paid" is status != 'paid')."""
    return [f"{name} is one of: {kinds}" for name in frame.names if (kinds := _kinds(frame, name))][:VALUE_COLUMNS]


def _kinds(frame: _Frame, name: str) -> str:
    """A text column's few repeated values ("paid, overdue, sent"), or "" when it holds more, or other data."""
    if frame.types[name] != "text":
        return ""
    values = list(dict.fromkeys(v for v in frame.text[name] if v))
    if 1 < len(values) <= MAX_VALUES and len(values) < frame.rows and all(len(v) <= VALUE_CHARS for v in values):
        return ", ".join(values)
    return ""
