"""The computed facts of a table, first in any result that reads one.

A small model handed a CSV's raw text cannot add a column up or pick its largest row: given sales.csv
read whole, the 0.5B answered "what is the total of q1?" with a figure it made up, and "who spent the
most?" with one order's amount. So every tool that reads a table (``read_file``, the document tools)
puts a short block of figures computed by code before anything else: the columns, the row count, each
number column's total, mean, lowest and highest row (with the row's name), and each grouping's top and
lowest. The figures are analyze_data_file's own (``data.py`` reads and types the rows, ``data_shape``
words them); this module only picks them for a reader and orders them by what the user asked.

After the figures comes the table as a query sees it (``table_sql.schema_lines``): its columns with
their types, three rows and an example query built from its own columns and values, so a question the
figures do not answer (the total of one category) can be asked of analyze_data_file's ``query``.
"""

from __future__ import annotations

import os


import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .table_read import TABLE_SUFFIXES, _frame, _named_period, _plan, _read_rows, _tabular
from .find import current_ones, singled_out
from .data_shape import all_met, asked_first, columns_said, named_lines, shaped
from .table_sql import schema_fields, schema_lines
from gaia_lite.registry.failure import ToolFailure

__all__ = ["FACTS_BYTES", "SCHEMA_LINES", "SPREADSHEETS", "facts_block", "json_records", "table_facts", "tables_result"]

FACTS_BYTES = 5 * 1024 * 1024   # a bigger table is left to analyze_data_file: typing every cell takes seconds
MAX_LINES = 14
MAX_CHARS = 1800
LINE_CHARS = 300
MAX_RECORDS_COLUMNS = 40
SCHEMA_LINES = 4     # after the figures: the schema, three sample rows (table_sql)
SPREADSHEETS = frozenset({".xlsx", ".xlsm"})   # binary: read_file has no text of them, only their figures
_TABLE_EXTS = frozenset(s for s in TABLE_SUFFIXES if s != ".txt") | {".json"}


def json_records(path: Path) -> list[list[Any]] | None:
    """A JSON array of records (objects) as rows under a header of their keys; None for any other JSON. An object
    that holds one such array beside scalars ({"exported": ..., "bookmarks": [...]}, an export's usual shape) is
    that array: read as text, its Woodworking bookmarks were counted by the lines that say "woodworking", a title
    in another folder among them (probe54)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig", errors="replace"))
    except (ValueError, OSError):
        return None
    if isinstance(data, dict):
        arrays = [v for v in data.values() if _records(v)]
        data = arrays[0] if len(arrays) == 1 else None
    if not _records(data):
        return None
    names = list(dict.fromkeys(str(k) for r in data for k in r))[:MAX_RECORDS_COLUMNS]

    def cell(value: Any) -> Any:
        return json.dumps(value) if isinstance(value, (dict, list)) else value
    return [names] + [[cell(r.get(k)) for k in names] for r in data]


def _records(data: Any) -> bool:
    return isinstance(data, list) and len(data) >= 2 and all(isinstance(r, dict) for r in data)


def table_facts(path: Path, message: str) -> list[str] | None:
    """The computed lines for the table at ``path`` (csv, tsv, xlsx, a JSON array of records), the
    ones about what ``message`` asks first; None when the file is no table, too big or unreadable."""
    read = _facts_and_frame(path, message)
    return None if read is None else read.lines


@dataclass(frozen=True)
class _Read:
    lines: list[str]
    frame: Any
    answered: bool   # a stated comparison's rows lead: the sample rows are left out (the 0.5B answered with one)
    met: bool = False   # its lead is the rows that meet every condition the message names

    def schema(self) -> dict[str, str]:
        fields = schema_fields(self.frame)
        return {"schema": fields["schema"]} if self.answered else fields


def _facts_and_frame(path: Path, message: str) -> _Read | None:
    ext = path.suffix.lower()
    if ext not in _TABLE_EXTS or not path.is_file() or path.stat().st_size > FACTS_BYTES:
        return None
    try:
        rows = json_records(path) if ext == ".json" else _read_rows(path)
    except ToolFailure:
        return None
    if not rows or not _tabular(rows):
        return None
    frame = _frame(rows)
    plan = _plan(message, frame, "summary", None, None)
    plan.named_period = _named_period(message, frame)
    result = shaped(frame, path.name, "summary", plan)
    # figures first, what the file is last: the 0.5B answered "how many of those are left?" with a row
    # count that led the result; a question about the columns lifts their line (``asked_first``)
    said = [line for line in str(result["message"]).splitlines() if line and not line.startswith("Columns: ")]
    groups = [f"{key}: {value}" for key, value in result.items() if " by " in key or key.startswith("by ")]
    # beside a named value's figures, the whole file's per-column line ("amount: total 465.15, ... max 96.40
    # (groceries, ...)") was taken for the value's total (1.5B): the "Every row, not only ..." line says it
    per_column = [] if plan.named_values or plan.comparison else str(result.get("number columns", "")).splitlines()
    figures = [line if len(line) <= LINE_CHARS else line[:LINE_CHARS - 1] + "…"
               for line in [*said[:-1], *groups, *per_column]]
    about = [f"Columns: {columns_said(frame.names)}", *said[-1:]]
    # the lines of the values the message names stay first: ranked by the words they share with it, "the
    # cheapest in the garden category" put "Lowest category by total stock" above the garden rows' lowest
    # price, and the 1.5B answered from it
    lead = figures[:len(named_lines(frame, plan))]
    if all_met(plan, lead):
        # the rows that meet every condition answer it alone: after "Rows where groceries in march 2024: 4 of 20 ...
        # Total: amount 234.20." came "Total for groceries: amount 620.25", and the 1.5B answered 620.25 (probe52)
        return _Read(said[:1] + about, frame, True, met=True)   # whole: its total comes after the rows it names
    if plan.comparison is not None:
        # the rows the stated comparison keeps answer it: the 0.5B copied the whole block after them, the
        # whole file's "Highest qty: stapler" with them (probe_data.json, "fewer than 5 in stock")
        return _Read(lead + about, frame, True)
    kept = _bounded(lead + asked_first(figures[len(lead):], frame.names, message), MAX_LINES - len(about),
                    MAX_CHARS - sum(len(a) + 1 for a in about))
    return _Read(kept[:len(lead)] + asked_first(kept[len(lead):] + about, frame.names, message), frame, False)


def _bounded(lines: list[str], most: int, chars: int) -> list[str]:
    kept: list[str] = []
    for line in lines[:max(0, most)]:
        if sum(len(k) + 1 for k in kept) + len(line) > chars:
            break
        kept.append(line)
    return kept


def facts_block(path: Path, message: str) -> str | None:
    """``table_facts`` as one text block (at most MAX_LINES lines, about MAX_CHARS characters), then the
    table as a query sees it (``schema_lines``: its columns and types, three rows, an example query), so
    the next call can ask analyze_data_file for exactly what the question needs."""
    read = _facts_and_frame(path, message)
    return None if read is None else "\n".join([*read.lines, *schema_lines(read.frame)[:1 if read.answered else None]])


def tables_result(paths: list[str], message: str) -> dict[str, Any] | None:
    """A document tool's result for the tables among ``paths``: their figures, computed from every row,
    in place of retrieved chunks of CSV text (which a small model cannot add up); None when none is a
    table. One table's block is the message itself: a name heading it was copied as the answer. The
    tables' schemas follow the message, apart from it: the message is what the user may be shown."""
    read = _answering([(p, r) for p in dict.fromkeys(paths) if (r := _facts_and_frame(Path(p), message))], message)
    if not read:
        return None
    if len(read) == 1:
        (path, one), = read
        return {"status": "success", "message": "\n".join(one.lines), "source_file": path, **one.schema()}
    return {"status": "success", "message": "\n\n".join(f"{Path(p).name}:\n" + "\n".join(r.lines) for p, r in read),
            "source_files": [p for p, _ in read],
            "schema": "\n".join(f"{Path(p).name}: {r.schema()['schema']}" for p, r in read)}


def _answering(read: list[tuple[str, _Read]], message: str) -> list[tuple[str, _Read]]:
    """Of several tables, those whose rows meet every condition the message names, when some do; and of those, the
    current ones before an older copy (find.superseded); and of those, the one whose name or folders the message
    says, when it singles one out. Beside expenses_2024.csv's groceries in March came backup/expenses_2024_feb.csv's
    0 rows and its own totals, a block as long as the answer (probe52); "the june 15 results" got June 8's too
    (probe54)."""
    if len(read) < 2:
        return read
    read = [pr for pr in read if pr[1].met] or read
    base = Path(os.path.commonpath([p for p, _ in read])) if len(read) > 1 else Path("/")
    read = current_ones(read, base, lambda pr: Path(pr[0]))
    pick = singled_out(message, [Path(p).relative_to(base).as_posix() for p, _ in read]) if len(read) > 1 else None
    return read if pick is None else [read[pick]]
