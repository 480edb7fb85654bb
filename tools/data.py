"""analyze_data_file: exact aggregates over CSV, TSV and Excel tables.

Aggregate questions ("total Q1 revenue", "top salesperson") must be answered
from every row, not from retrieved chunks, so this tool reads the whole
table, types each column (dates, numbers such as ``$1,234.50``, text), filters
by a period and sums with ``Decimal`` so totals are exact.
"""


from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal, Optional

from gaia_lite.registry.context import ToolContext, TurnRequest
from gaia_lite.registry.spec import tool
from gaia_lite.registry.failure import ToolFailure, error_payload

from .data_shape import asked_periods, fmt, period_asked_line, shaped
from .table_periods import asks_period
from .file_text import TEXT_EXTS
from .find import asks_summary, locate, shown, singular
from .rag import locate_or_named
from .passages import answer_first, question_parts, ranked, units
from .passages import shown as shown_unit
from .sandbox import SandboxError, SecretPathError, resolve_user_path, resolved_or_none
from .file_count import top_only
from .file_sizes import asks_size
from .tree_asked import scope_of, tree_lead
from .table_read import (MAX_PERIOD_CHARS, TABLE_SUFFIXES, _Frame, _frame, _named_period, _plan,
                         _read_rows, _tabular, parse_period, table_question, to_date, to_number)
from .table_facts import facts_block, json_records
from .table_sql import MAX_QUERY_CHARS, QueryMistake, query_result, run_query, said_in, schema_fields, words_of


__all__ = ["TOOLS", "analyze_data_file", "parse_period", "to_number", "to_date"]


ANALYSIS_TYPES = ("summary", "spending", "trends", "full")


def _indexed_namesake(ctx: ToolContext, file_path: str) -> Path | None:
    """The one indexed document with this basename, if any (sandbox-checked).

    Users say "sales.csv" after indexing data/sales.csv; the model passes the
    bare name. Two namesakes are ambiguous, so then the usual error stands.
    """
    if ctx.rag is None:
        return None
    name = Path(file_path.strip()).name.lower()
    matches = [d for d in ctx.rag.list_documents() if d.name.lower() == name and Path(d.path).is_file()]
    if len(matches) != 1:
        return None
    return ctx.sandbox.check(Path(matches[0].path))


def _as_text(ctx: ToolContext, path: Path, notes: list[str]) -> dict[str, Any]:
    """A text file that is not a table, read as ``read_file`` reads it, with a note naming the tools that
    fit. When the user's message asks something of it, the sentences that answer come first and the
    sections they stand in replace the whole text. Small models send a Markdown report here for "what
    was Q3 revenue?": an error then became the answer, a table summary of prose misleads, and the whole
    text was copied from its top."""
    from .files import read_file  # files imports nothing from here; kept local to keep this module light

    result = read_file(ctx, str(path))
    if result.get("status") != "success":
        return result
    message = ctx.request.message.strip()
    best = ranked(question_parts(message), units(str(result.get("content", "")), path.name),
                  embedder=ctx.embedder, title=path.stem) if message and not asks_summary(message) else []
    said = f"{path.name} is not a table, so this is its text (read_file or query_specific_file fit a document)"
    out: dict[str, Any] = {"status": "success"}
    if best:
        out["message"] = f"From {path.name}:\n" + "\n".join(f"- {shown_unit(u, [message])}" for u in best)
        out["text"] = answer_first(str(result["content"]), best)
        said = f"{path.name} is not a table, so this is its text, the sections that answer first (read_file " \
               "or query_specific_file fit a document)"
    out.update((k, v) for k, v in result.items() if k not in ("status", "note", "analysis")
               and not (best and k == "content"))
    # the note goes last: the 0.5B model answered with whatever line came first
    return {**out, "note": "; ".join([*notes, *([result["note"]] if result.get("note") else []), said])}


@tool
def analyze_data_file(ctx: ToolContext, file_path: str,
                      analysis_type: Literal["summary", "spending", "trends", "full"] = "summary",
                      columns: Optional[str] = None, group_by: Optional[str] = None,
                      date_range: Optional[str] = None, query: Optional[str] = None) -> dict:
    """Compute exact totals, averages and rankings from a CSV, TSV or Excel file.

    Use it for "total revenue in Q1" or "top salesperson": it reads every row. For a question with a
    condition, pass query.

    Args:
        file_path: The .csv, .tsv or .xlsx file.
        analysis_type: One of summary, spending, trends, full.
        columns: Comma-separated number columns to total, e.g. "revenue".
        group_by: Column to group and rank by, e.g. "salesperson".
        date_range: Period such as 2025-Q1, January 2025, 2025-01-01..2025-03-31.
        query: One SQL SELECT over table data, e.g. SELECT SUM(amount) FROM data WHERE category = 'food'.
    """
    _refuse_oversized(file_path=file_path, columns=columns, group_by=group_by, date_range=date_range, query=query)
    notes = []
    kind = (analysis_type or "summary").strip().lower()
    if kind not in ANALYSIS_TYPES:
        notes.append(f"analysis_type {analysis_type!r} is not one of {', '.join(ANALYSIS_TYPES)}; this is a summary")
        kind = "summary"
    if (folder := _folder_asked_of(ctx, file_path)) is not None:
        return folder
    try:
        path, found_note = _locate(ctx, file_path)
    except ToolFailure as failure:
        from .files import compared_files   # kept local, as in _as_text

        if (each := compared_files(ctx, file_path, failure)) is not None:
            return each
        raise
    notes += [found_note] if found_note else []
    if (beside := _table_beside(ctx, path)) is not None:
        notes.append(f"{path.name} is no table; {shown(beside, ctx.workdir)} beside it holds the columns the request "
                     "names, so it is read")
        path = beside
    rows = _table_rows(ctx, path, notes, query)
    if isinstance(rows, dict):   # not a table: its text
        return rows
    frame = _frame(rows)
    asked = bool(query and query.strip())
    if asked:
        try:
            result = _queried(frame, query or "", date_range, bool(columns or group_by), notes, ctx.request)
        except QueryMistake as mistake:
            # after a query's error the models answered without a second query (6 dev turns of 6), "q2 total?"
            # after WHERE q2 = ? among them: the table's figures for the question come beside the error
            figures = facts_block(path, table_question(ctx.request.message, ctx.request.asked_before))
            if figures is None:
                raise
            return error_payload(str(mistake), file=shown(path, ctx.workdir), figures=figures)
    else:
        result = _summary(ctx, frame, path.name, kind, columns, group_by, date_range, notes)
    result["file"] = shown(path, ctx.workdir)
    if not asked:  # what a query over this table can name: its columns, types, first rows
        result.update(schema_fields(frame))
    # notes last: the 0.5B model answered with whatever line came first
    return {**result, "note": "; ".join(n.rstrip(".") for n in notes) + "."} if notes else result


# The longest each string argument may be: a path (PATH_MAX), a list of column names, one column's name,
# a period, a query. A longer one is refused in one line, never read: a 1 MB ``columns`` was answered
# as if nothing were wrong.
ARG_LIMITS = {"file_path": 4096, "columns": 2000, "group_by": 256, "date_range": MAX_PERIOD_CHARS,
              "query": MAX_QUERY_CHARS}


def _refuse_oversized(**args: Optional[str]) -> None:
    for name, value in args.items():
        if not isinstance(value, str):
            continue
        size = len(value.strip()) if name == "date_range" else len(value)
        if size > ARG_LIMITS[name]:
            example = "; a period is e.g. 2025-Q1 or 2025-01-01..2025-03-31" if name == "date_range" else ""
            raise ToolFailure(f"{name} is {size:,} characters; the limit is {ARG_LIMITS[name]:,}{example}")


BESIDE_BYTES = 2 * 1024 * 1024   # a table beside a text file is read whole to see its cells: small ones only


def _table_beside(ctx: ToolContext, path: Path) -> Path | None:
    """For a text file that is no table, the one table in its folder (CSV or TSV, up to BESIDE_BYTES) whose header
    holds two columns the request names, or one and a cell it says ("how many kids in 9B got more than 80 in maths":
    scores.tsv's maths and 9B beside the teacher's comments.txt the 0.5B gave; probe54), else None."""
    if path.suffix.lower() not in TEXT_EXTS or path.suffix.lower() in (".csv", ".tsv", ".json") \
            or _tabular(_read_rows(path)):
        return None
    from .data_shape import named_in

    said = set(re.findall(r"[\w.-]+", ctx.request.message.casefold()))
    fits = []
    for other in sorted(path.parent.glob("*")):
        if not (other.is_file() and other.suffix.lower() in (".csv", ".tsv")) or other.stat().st_size > BESIDE_BYTES:
            continue
        try:
            rows = _read_rows(other)
        except (OSError, ValueError):
            continue
        named = named_in([str(c) for c in rows[0]], ctx.request.message) if rows else []
        cells = {str(c).casefold() for row in rows[1:] for c in row if isinstance(c, str)} & said
        if len(named) >= 2 or (named and cells):   # its columns, or a column and a cell ("maths", "9B")
            fits.append(other)
    return fits[0] if len(fits) == 1 else None


def _table_rows(ctx: ToolContext, path: Path, notes: list[str], query: Optional[str]) -> list[list[Any]] | dict:
    """The rows of the table at ``path``, or the result for a file that is no table (its text)."""
    # a JSON array of records is a table too: readings_may_2024.json came back as text, and the 1.5B gave the
    # hilltop station's mean for its highest (probe52)
    rows = json_records(path) if path.suffix.lower() == ".json" else None
    if rows is None and path.suffix.lower() not in TABLE_SUFFIXES:
        if path.suffix.lower() in TEXT_EXTS:  # a report, notes: its text holds the figures asked for
            return _as_text(ctx, path, notes + _unrun(query, path))
        raise ToolFailure(f"{path.name} is not a table file; supported: .csv, .tsv, .xlsx (save .xls as .xlsx)")
    rows = rows if rows is not None else _read_rows(path)
    return rows if _tabular(rows) else _as_text(ctx, path, notes + _unrun(query, path))


def _folder_asked_of(ctx: ToolContext, file_path: str) -> dict | None:
    """What the request asks of the files under a folder given as the table (tree_asked.tree_lead), or None. Asked
    "how many empty files are there in myapp?", the 0.5B passed the folder to this tool (probe48)."""
    given = Path(file_path.strip())
    given = given if given.is_absolute() else Path(ctx.workdir) / given
    if asks_size(ctx.request.message) and not given.exists() and (parent := resolved_or_none(ctx, str(given.parent))) \
            is not None and parent.is_dir():
        # a made-up table in a folder, asked which file is the biggest: "lab/data/summary.csv" for "which CSV file
        # directly in lab/data is the biggest in size?" read summary.json's text (probe52)
        lead = tree_lead(ctx, scope_of(ctx, parent), top=top_only(ctx))
        return {"status": "success", "message": f"{shown(given, ctx.workdir)} does not exist; of the files in "
                f"{shown(parent, ctx.workdir)}: {lead}"} if lead else None
    folder = resolved_or_none(ctx, file_path)
    if folder is None or not folder.is_dir():
        return None
    lead = tree_lead(ctx, scope_of(ctx, folder))
    return {"status": "success", "message": f"{shown(folder, ctx.workdir)} is a folder, not a table. {lead}"} \
        if lead else None


def _unrun(query: Optional[str], path: Path) -> list[str]:
    return [f"the query was not run: {path.name} is not a table"] if query and query.strip() else []


def _queried(frame: _Frame, query: str, date_range: Optional[str], ignored: bool,
             notes: list[str], request: TurnRequest) -> dict[str, Any]:
    """The answer to ``query``, over the rows of ``date_range`` when one is given; a condition on a text value the
    conversation never named is left out where another one was named (table_sql.query_result)."""
    if date_range and date_range.strip():
        frame, scope, said = _in_period(frame, date_range)
        notes.append(said or f"the query ran over the {frame.rows} rows in {scope} (date_range)")
    if ignored:
        notes.append("columns and group_by are left out: the query says what to compute")
    said = said_in(f"{request.earlier}\n{request.message}") if request.message.strip() else None
    query, moved = _dates_named(query, frame, request.message)
    query, kept = _this_turns_values(query, request)
    # the user's words alone: an answer that echoed the model's guess ("Priya Ramanathan's phone ...") says nothing
    query, named = _value_named(query, frame, f"{request.asked_before}\n{request.message}")
    query, placed = _value_on_its_column(query, frame)
    result = query_result(frame, query, said)
    said_how = "; ".join(n for n in (moved, kept, named, placed) if n)
    result = {**result, "message": f"{result['message']} ({said_how})"} if said_how else result
    return _by_period_asked(frame, query, request, result)


_PERIOD_IN_QUERY = re.compile(r"strftime|substr|\bmonth\b|\byear\b|\bweek|quarter", re.IGNORECASE)


def _by_period_asked(frame: _Frame, query: str, request: TurnRequest, result: dict[str, Any]) -> dict[str, Any]:
    """The result led by the rows grouped by the period the question asks for, when the query groups by none:
    asked "and which month was best for honey?", the 1.5B grouped by day and answered with the best day's month
    (probe54)."""
    question = table_question(request.message, request.asked_before)
    if asks_period(question) is None or _PERIOD_IN_QUERY.search(query):
        return result
    kept = _rows_kept(frame, query)
    plan = _plan(question, kept, "summary", None, None)
    line = period_asked_line(kept, plan)
    if not line:
        return result
    asked = asked_periods(kept, plan)
    by_day = asked is not None and re.search(rf"(?i)\bGROUP\s+BY\s+[\"`\[]?{re.escape(asked.column)}\b", query)
    if not by_day or len(asked.figures) < 2 or result.get("row_count", 0) <= len(asked.figures):
        return {**result, "message": f"{line}\n{result['message']}"}
    # the query's rows by day, re-grouped by the period asked: with the months leading them, the 1.5B still answered
    # "how many sourdough loaves ... in each month?" with each month's first day (probe56)
    return {**result, "message": f"{line}\n(the query grouped by {asked.column}; these are its "
            f"{result['row_count']} rows by {asked.period}, as the question asks)",
            "columns": [asked.period, asked.measure], "rows": [[k, fmt(v)] for k, v in asked.figures],
            "row_count": len(asked.figures), "truncated": False}


_WHERE = re.compile(r"\bWHERE\b(?P<cond>.+?)(?=\bGROUP\s+BY\b|\bORDER\s+BY\b|\bHAVING\b|\bLIMIT\b|;|$)",
                    re.IGNORECASE | re.DOTALL)


def _rows_kept(frame: _Frame, query: str) -> _Frame:
    """The rows of ``frame`` that the one ``WHERE`` of ``query`` keeps (all of them for a query with none, or with
    more than one SELECT). Asked sourdough loaves per month, the 1.5B queried ``WHERE product = 'sourdough loaf'
    GROUP BY date``, and the months led with every product's total (probe56)."""
    m = _WHERE.search(query)
    if m is None or len(re.findall(r"\bSELECT\b", query, re.IGNORECASE)) != 1:
        return frame
    try:
        answer, _ = run_query(frame, f"SELECT group_concat(rowid) FROM data WHERE {m.group('cond')}")
    except ToolFailure:
        return frame
    kept = {int(n) for n in str(answer.rows[0][0] or "").split(",") if n.strip().isdigit()} if answer.rows else set()
    return frame.select([i + 1 in kept for i in range(frame.rows)])


_IN_LIST = re.compile(r"(?i)\bIN\s*\((?P<items>\s*'[^']*'(?:\s*,\s*'[^']*')+\s*)\)")


def _this_turns_values(query: str, request: TurnRequest) -> tuple[str, str]:
    """(the query, a note) with an ``IN`` list cut to the values this message names, when it names some of them and
    the others were named only earlier: asked "how much did the north region sell?" and then "ok and south?", the
    1.5B queried ``Region IN ('South', 'North')`` (probe49). As given, with no note, otherwise."""
    if not request.earlier.strip():
        return query, ""
    now = said_in(request.message)
    for m in _IN_LIST.finditer(query):
        values = re.findall(r"'([^']*)'", m.group("items"))
        kept = [v for v in values if now(v)]
        if kept and len(kept) < len(values):
            cut = ", ".join(f"'{v}'" for v in kept)
            dropped = ", ".join(v for v in values if v not in kept)
            return (query[:m.start()] + (f"= {cut}" if len(kept) == 1 else f"IN ({cut})") + query[m.end():],
                    f"{dropped} left out: named before, not in this question")
    return query, ""


_EQUALS_TEXT = re.compile(r"""(?P<col>"[^"]+"|`[^`]+`|\[[^\]]+\]|\b\w+\b)\s*=\s*'(?P<val>[^']*)'""")


def _words_said(value: str, heard: set[str]) -> bool:
    parts = words_of(value)
    return bool(parts) and all(p in heard or singular(p) in heard for p in parts)


def _value_named(query: str, frame: _Frame, said_text: str) -> tuple[str, str]:
    """(the query, a note) with a ``column = 'value'`` condition whose value the conversation does not say in full
    set to the one value of the table it does say in full and that shares a word with it, on that value's column:
    "whats priya ramans email?" got ``name = 'Priya Ramanathan'`` from the 1.5B and ``role = 'Priya Ramanathan'``
    from the 0.5B, beside a row for Priya Raman (probe50). As given, with no note, otherwise."""
    heard = {w.removesuffix("s") for w in words_of(said_text)} | words_of(said_text)
    heard |= {singular(w) for w in heard}
    by_name = {n.lower(): n for n in frame.names}
    for m in _EQUALS_TEXT.finditer(query):
        value = m.group("val")
        if _words_said(value, heard) or by_name.get(m.group("col").strip('"`[]').lower()) is None:
            continue
        shared = words_of(value)
        meant = {(n, v) for n in frame.names if frame.types[n] == "text" for v in set(frame.text[n])
                 if v and v.lower() != value.lower() and _words_said(v, heard) and shared & words_of(v)
                 and not words_of(v) <= shared}   # "Coffee" said of "Coffee Beans 1kg" is the short of it, kept
        if len(meant) == 1:
            (column, found), = meant
            swapped = f"\"{column}\" = '{found}'"
            return (query[:m.start()] + swapped + query[m.end():],
                    f"read as {column} = '{found}', the value the question names, not '{value}'")
    return query, ""


def _value_on_its_column(query: str, frame: _Frame) -> tuple[str, str]:
    """(the query, a note) with a ``column = 'value'`` condition whose value that column never holds moved to the one
    other column that holds it, or left out when the query already asks that column for it: "how many km total did
    i do on the gravel bike?" was queried ``WHERE route = 'gravel' AND bike = 'gravel'`` and no row met it (0.5B,
    probe57). As given, with no note, otherwise."""
    by_name = {n.lower(): n for n in frame.names}
    for m in _EQUALS_TEXT.finditer(query):
        column, value = by_name.get(m.group("col").strip('"`[]').lower()), m.group("val").lower()
        if column is None or frame.types[column] != "text" or value in {v.lower() for v in frame.text[column]}:
            continue
        holders = [n for n in frame.names if n != column and frame.types[n] == "text"
                   and value in {v.lower() for v in frame.text[n]}]
        if len(holders) != 1:
            continue
        other = holders[0]
        asked = re.search(rf"""(?i)["`\[]?\b{re.escape(other)}\b["`\]]?\s*=\s*'{re.escape(m.group('val'))}'""", query)
        if asked is None:
            return (query[:m.start()] + f"\"{other}\" = '{m.group('val')}'" + query[m.end():],
                    f"read as {other} = '{m.group('val')}': {column} never holds it")
        before = re.search(r"(?i)\s+AND\s+$", query[:m.start()])
        after = re.match(r"(?i)\s+AND\s+", query[m.end():])
        if before is None and after is None:
            continue
        cut = query[:before.start()] + query[m.end():] if before else query[:m.start()] + query[m.end() + after.end():]
        return cut, f"{column} = '{m.group('val')}' left out: {column} never holds it, {other} does"
    return query, ""


_BETWEEN_DATES = re.compile(r"(?i)\bBETWEEN\s+'(\d{4}-\d{2}-\d{2})'\s+AND\s+'(\d{4}-\d{2}-\d{2})'")
_ISO_RANGE = re.compile(r"(\d{4}-\d{2}-\d{2})\.\.(\d{4}-\d{2}-\d{2})")


def _dates_named(query: str, frame: _Frame, message: str) -> tuple[str, str]:
    """The query with its one ``BETWEEN 'date' AND 'date'`` set to the days of the period the message names, when
    they differ, and a note saying so; else as written and "". For "the total of all orders placed from 1 March to
    15 March 2025" the 0.5B wrote BETWEEN '2025-03-01' AND '2025-05-31' (probe42)."""
    found = _BETWEEN_DATES.findall(query)
    if not found:
        return _one_day_widened(query, frame, message)
    period = _named_period(message, frame) if len(found) == 1 else None
    days = _ISO_RANGE.search(period[0]) if period else None
    if days is None or found[0] == days.groups():
        return query, ""
    start, end = days.groups()
    fixed = _BETWEEN_DATES.sub(f"BETWEEN '{start}' AND '{end}'", query)
    return fixed, f"dates {found[0][0]} to {found[0][1]} read as {start} to {end}, the days the question names"


_ONE_DAY = re.compile(r"(?P<col>\b\w+\b)\s*=\s*'(?P<day>\d{4}-\d{2}-\d{2})'")


def _one_day_widened(query: str, frame: _Frame, message: str) -> tuple[str, str]:
    """The query with its one ``date = 'day'`` set to the days of the wider period the message names, and a note;
    else as written and "". "how much did i spend on groceries in march?" was queried ``date = '2024-03-01'`` by the
    0.5B, and no row met it (probe56)."""
    found = [m for m in _ONE_DAY.finditer(query) if frame.types.get(m.group("col")) == "date"]
    period = _named_period(message, frame) if len(found) == 1 else None
    inside = sorted(d for d in period[1].dates.get(found[0].group("col"), ()) if d is not None) if period else []
    day = int(found[0].group("day")[8:]) if found else 0
    if len(inside) < 2 or inside[0] == inside[-1] or re.search(rf"(?<![\w.-])0?{day}(?:st|nd|rd|th)?(?![\w.-])", message):
        return query, ""   # "on the 1st of march" asks that day
    # the first and last day of the period's rows: the rows BETWEEN them are the period's
    start, end, m = inside[0].isoformat()[:10], inside[-1].isoformat()[:10], found[0]
    fixed = query[:m.start()] + f"{m.group('col')} BETWEEN '{start}' AND '{end}'" + query[m.end():]
    return fixed, f"{m.group('col')} = {m.group('day')} read as {start} to {end}, the days the question names"


def _summary(ctx: ToolContext, frame: _Frame, name: str, kind: str, columns: Optional[str],
             group_by: Optional[str], date_range: Optional[str], notes: list[str]) -> dict[str, Any]:
    """The fixed summary of ``kind``: totals, groups and extremes, over the rows of ``date_range``."""
    message = table_question(ctx.request.message, ctx.request.asked_before)
    plan = _plan(message, frame, kind, columns, group_by)
    notes += plan.notes
    if date_range and date_range.strip():
        plan.dated = _dates_of(frame)
        frame, plan.scope, said = _in_period(frame, date_range)
        notes += [said] if said else []
    if plan.scope is None:   # no date_range, or one not understood (">= 2025-03-01 AND < ...", 0.5B): the message's
        plan.named_period = _named_period(message, frame)
    return shaped(frame, name, kind, plan)


def _locate(ctx: ToolContext, file_path: str) -> tuple[Path, str]:
    """The file asked for, inside the sandbox, and a note when it is not the path as given: a guessed
    path finds the table it meant, or the table the user's message names ("q1.csv" for "the total of
    q1 in sales.csv"); a bare name may be a document already indexed."""
    try:
        path = resolve_user_path(ctx, file_path)
        if not path.is_file() and (namesake := _indexed_namesake(ctx, file_path)) is not None:
            return namesake, ""
    except SecretPathError as exc:
        raise ToolFailure(str(exc)) from None
    except SandboxError:   # outside the allowed folders: locate reads the file inside them it stands for, if any
        pass
    try:
        return locate(ctx, file_path, keep=_is_table, pointed=True)
    except ToolFailure as first:
        try:  # not a table: a report sent here for its figures is read as text (below)
            return locate_or_named(ctx, file_path, keep=lambda p: _is_table(p) or p.suffix.lower() in TEXT_EXTS)
        except ToolFailure:
            raise first from None


def _is_table(path: Path) -> bool:
    return path.suffix.lower() in TABLE_SUFFIXES


def _dates_of(frame: _Frame) -> str:
    days = [d for d in next(iter(frame.dates.values()), []) if d is not None]
    return f"{min(days)} to {max(days)}" if days else ""


def _in_period(frame: _Frame, date_range: str) -> tuple[_Frame, str | None, str]:
    """The rows whose first date column falls in ``date_range``, its resolved label, and a note; a period
    that cannot apply (no date column, not understood) is left out with a note: every row is shown."""
    if not frame.dates:
        return frame, None, f"date_range {date_range.strip()!r} is left out: no column holds dates"
    date_col = next(iter(frame.dates))
    years = {d.year for d in frame.dates[date_col] if d is not None}
    try:
        label, inside = parse_period(date_range, years.pop() if len(years) == 1 else None)
    except ValueError as exc:
        return frame, None, f"date_range is left out: {exc}"
    return frame.select([d is not None and inside(d) for d in frame.dates[date_col]]), label, ""


TOOLS = [analyze_data_file]
