"""analyze_data_file's ``query``: one read-only SQL SELECT over a table file, as the table ``data``.

Fixed summaries cannot answer a question with a condition: asked for the total of one category of a
small expenses CSV, the 0.5B gave the total of every row; asked which rows meet a condition, a summary
of all of them. A query says the condition itself ("SELECT SUM(amount) FROM data WHERE category =
'groceries'") and the answer comes back with it.

Each call gets a fresh in-memory SQLite database (stdlib; DuckDB was measured and not needed, see
scripts/bench_data_query.py) loaded from the rows as table_read typed them: numbers such as
``$1,234.50`` are REAL or INTEGER, dates ISO text, text compared without case. What a query may do:

* one SELECT (or WITH ... SELECT), at most MAX_QUERY_CHARS characters (sql_text.checked);
* an authorizer allows reading table ``data`` and the query's own WITH tables, and calling the
  functions in _FUNCTIONS; everything else (ATTACH, PRAGMA, writes, load_extension) is denied before
  the statement runs, so no file or network is reached;
* a progress handler stops it after SECONDS; a value over MAX_VALUE_BYTES is an error;
* at most MAX_ROWS rows come back, with how many there were in all.
"""

from __future__ import annotations

import functools
import re
import sqlite3
import time
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any, Callable, Sequence

from gaia_lite.registry.failure import ToolFailure

from .data_shape import match
from .find import singular
from .sql_dialect import PARTS, date_part, in_sqlite
from .table_read import _ID_LIKE, _MONTHS, _NOT_ADDITIVE, _VALUE_NAMES, slip_of, to_date
from .sql_text import (TABLE, Shape, Token, checked, extreme_row, grouped, one_table, quoted, repaired, respelled, shape_of,
                       share_of_all, tokens, unknown_quoted, whole_row, without_unsaid)

__all__ = ["MAX_QUERY_CHARS", "SECONDS", "MAX_ROWS", "SHOWN_ROWS", "Answer", "run_query", "query_result", "said_in", "words_of",
           "schema_fields", "schema_lines", "QueryMistake"]

MAX_QUERY_CHARS = 2000
SECONDS = 2.0
MAX_ROWS = 50          # rows a result carries
SHOWN_ROWS = 20        # rows its message shows: the result goes back to the model whole, in lines
MAX_VALUE_BYTES = 1_000_000
_STEPS = 1000          # SQLite instructions between two looks at the clock (about 0.1 ms)
_FUNCTIONS = frozenset("""
    avg count group_concat max min sum total string_agg
    abs round ceil ceiling floor trunc sign sqrt power pow exp ln log log10 log2 mod pi
    lower upper length substr substring trim ltrim rtrim replace instr printf format char unicode
    like glob coalesce ifnull nullif iif typeof concat concat_ws octet_length
    date time datetime julianday strftime unixepoch timediff year month day quarter
    row_number rank dense_rank percent_rank cume_dist ntile lag lead first_value last_value nth_value
""".split())
_OK, _DENY = sqlite3.SQLITE_OK, sqlite3.SQLITE_DENY
_ALWAYS = frozenset({sqlite3.SQLITE_SELECT, getattr(sqlite3, "SQLITE_RECURSIVE", 33)})
_ACTIONS = {getattr(sqlite3, name): name.removeprefix("SQLITE_").replace("_", " ")
            for name in dir(sqlite3) if name.startswith("SQLITE_") and name.split("_", 1)[1] in
            ("ATTACH", "DETACH", "PRAGMA", "INSERT", "UPDATE", "DELETE", "DROP_TABLE", "CREATE_TABLE",
             "CREATE_TEMP_TABLE", "CREATE_VIEW", "CREATE_INDEX", "ALTER_TABLE", "TRANSACTION", "SAVEPOINT",
             "ANALYZE", "REINDEX", "CREATE_VTABLE", "DROP_VIEW", "CREATE_TRIGGER")}


@dataclass(frozen=True)
class Answer:
    """A query's result: its column labels, the first MAX_ROWS rows (values tidied) and how many in all."""

    columns: list[str]
    rows: list[list[Any]]
    row_count: int
    places: int = 2        # decimals a float is shown with
    sql: str = ""          # the query as it ran (column names written another way put right)
    read_as: str = ""      # what the query had wrong (a table, column or value) and how it was read

    @property
    def truncated(self) -> bool:
        return self.row_count > len(self.rows)


class _Guard:
    """The authorizer: reading ``data`` and the query's WITH tables, allowed functions, nothing else.
    It keeps the first thing it denied, so the error can name it."""

    def __init__(self, tables: set[str]) -> None:
        self.tables = tables | {TABLE}
        self.denied = ""

    def __call__(self, action: int, arg1: str | None, arg2: str | None, _db: str | None, _by: str | None) -> int:
        if action in _ALWAYS:
            return _OK
        if action == sqlite3.SQLITE_READ and (arg1 or "").lower() in self.tables:
            return _OK
        if action == sqlite3.SQLITE_FUNCTION and (arg2 or "").lower() in _FUNCTIONS:
            return _OK
        self.denied = self.denied or _described(action, arg1 or "", arg2 or "")
        return _DENY


def _described(action: int, arg1: str, arg2: str) -> str:
    """What a denied action is, in words, for the error."""
    if action == sqlite3.SQLITE_FUNCTION:
        return f"the function {arg2}()"
    if action == sqlite3.SQLITE_READ:
        return f"reading {arg1}"
    if action == sqlite3.SQLITE_UPDATE and arg1.startswith("sqlite_"):
        return "a table-valued function"   # pragma_table_info(...) and json_each(...) first write the schema
    said = _ACTIONS.get(action, "that statement")
    return f"{said} {arg1}" if action == sqlite3.SQLITE_PRAGMA else said


def _with_tables(toks: Sequence[Token]) -> set[str]:
    """The names a query gives its WITH tables: a name followed by AS ( or by (columns) AS (."""
    words = [t for t in toks if t.kind not in ("space", "comment")]
    names = set()
    for i, tok in enumerate(words[:-2]):
        if tok.kind not in ("word", "name"):
            continue
        j = i + 1
        if words[j].text == "(":
            j = next((k for k in range(j, len(words)) if words[k].text == ")" and words[k].depth == tok.depth),
                     len(words) - 1) + 1
        if j + 1 < len(words) and words[j].lower == "as" and words[j + 1].text == "(":
            names.add(tok.inner.lower())
    return names


# ---------------------------------------------------------------- loading

def _number(value: Decimal | None) -> int | float | None:
    if value is None:
        return None
    return int(value) if value == value.to_integral_value() else float(value)


def _places(frame: Any) -> int:
    """Decimals to show a float with: the most a number cell of the file has (its first 2,000 rows), 2 to 6."""
    most = 2
    for column in frame.numbers.values():
        for v in column[:2000]:
            exponent = v.as_tuple().exponent if v is not None else 0
            if isinstance(exponent, int) and -exponent > most:
                most = -exponent
    return min(most, 6)


def _column(frame: Any, name: str) -> tuple[str, list[Any]]:
    """A column's declaration in CREATE TABLE and its values: numbers as INTEGER (every value whole) or
    REAL, dates as ISO text, text compared without case ('Groceries' finds groceries), blanks as NULL."""
    declared = '"' + name.replace('"', '""') + '"'
    kind = frame.types[name]
    if kind == "number":
        values = [_number(v) for v in frame.numbers[name]]
        return f"{declared} {'REAL' if any(isinstance(v, float) for v in values) else 'INTEGER'}", values
    if kind == "date":
        return f"{declared} TEXT", [d.isoformat() if d is not None else None for d in frame.dates[name]]
    return f"{declared} TEXT COLLATE NOCASE", [t or None for t in frame.text[name]]


def _database(frame: Any) -> sqlite3.Connection:
    """A fresh in-memory database holding the frame as table ``data``; nothing else is in it."""
    conn = sqlite3.connect(":memory:")
    columns = [_column(frame, name) for name in frame.names]
    conn.execute(f"CREATE TABLE {TABLE} ({', '.join(declared for declared, _ in columns)})")
    conn.executemany(f"INSERT INTO {TABLE} VALUES ({', '.join('?' * len(columns))})",
                     zip(*(values for _, values in columns)))
    conn.commit()
    for part in PARTS:   # MySQL's YEAR(date), MONTH(date) ...: what a small model writes from memory
        conn.create_function(part, 1, date_part(part), deterministic=True)
    if hasattr(conn, "setlimit"):   # Python 3.11+: a value (printf('%.*c', ...)) cannot fill the memory
        conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)
        conn.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
    return conn


# ---------------------------------------------------------------- running

class QueryMistake(ToolFailure):
    """A query the table cannot answer as written (its syntax, a name, a ``?`` with no value), as against one that is
    refused (a write, a file, too slow): the caller may answer from the table's figures beside the error."""


def run_query(frame: Any, query: str, *, seconds: float = SECONDS,
              clock: Callable[[], float] = time.monotonic) -> tuple[Answer, Shape]:
    """The result of ``query`` over ``frame`` as table data, and what the query asks; a one-line
    ToolFailure when it is refused, wrong or too slow."""
    if len(query) > MAX_QUERY_CHARS:
        raise ToolFailure(f"query is {len(query):,} characters; the limit is {MAX_QUERY_CHARS:,}")
    sql, notes = in_sqlite(checked(query), [n for n in frame.names if frame.types[n] == "date"], _iso)
    toks = tokens(sql)
    sql, table = one_table(tokens(repaired(toks, frame.names, lambda text: _is_value(frame, text)).strip()),
                           _with_tables(toks))
    slip = functools.partial(_slip, frame)
    sql, respelt = respelled(tokens(sql), slip)
    notes += respelt
    sql, group = grouped(tokens(sql))
    notes += [group] if group else []
    if table:
        notes.insert(0, f"table {table!r} read as {TABLE}, the file's rows")
    ran = tokens(sql)
    if (unknown := unknown_quoted(ran, frame.names)) is not None:   # SQLite would read "amt" as the text 'amt'
        raise QueryMistake(_no_column(unknown, frame))
    try:
        answer, shape = _run(frame, sql, ran, seconds, clock)
        return (replace(answer, read_as="; ".join(notes)) if notes else answer), shape
    except ToolFailure as failure:
        missing = getattr(failure, "missing_column", None)
        if missing is None:
            raise
        near = match(frame.names, missing)
        sole = [n for n in frame.names if frame.types[n] == "number"]
        if near is not None and near.lower() != missing.lower():
            # a name one column clearly fits ("started_at" for start_date): told "did you mean start_date?",
            # the 1.5B read the whole file instead of asking again, and summed up every row
            column, why = near, "the closest column"
        elif len(sole) == 1 and _aggregated(ran, missing):
            # a small model copies the column of an example ("amount" for this table's "cost"): with one
            # number column to mean, the query is read with it
            column, why = sole[0], "the only number column"
        else:
            raise
        fixed, more = respelled(tokens(_renamed(ran, missing, column)), slip)
        answer, shape = _run(frame, fixed, tokens(fixed), seconds, clock)
        return replace(answer, read_as="; ".join([*notes, f"{missing!r} read as {column}, {why}", *more])), shape


def _iso(text: str) -> str | None:
    """``text`` as the ISO date a date column holds, when it is a date (written any way table_read reads)."""
    day = to_date(text)
    return None if day is None else day.isoformat()


def _renamed(toks: Sequence[Token], wrong: str, column: str) -> str:
    """The query with each bare use of the name ``wrong`` replaced by ``column``, quoted."""
    return "".join(quoted(column) if t.kind in ("word", "name") and t.inner.lower() == wrong.lower() else t.text
                   for t in toks)


_AGGREGATES = frozenset({"sum", "avg", "min", "max", "total"})


def _aggregated(toks: Sequence[Token], name: str) -> bool:
    """Whether ``name`` stands in the query only as what SUM, AVG, MIN, MAX or TOTAL add up: a number
    column (a name in a condition could mean anything)."""
    plain = [t for t in toks if t.kind not in ("space", "comment")]
    places = [i for i, t in enumerate(plain) if t.kind in ("word", "name") and t.inner.lower() == name.lower()]
    return bool(places) and all(i >= 2 and plain[i - 1].text == "(" and plain[i - 2].lower in _AGGREGATES
                                for i in places)


def _run(frame: Any, sql: str, ran: Sequence[Token], seconds: float,
         clock: Callable[[], float]) -> tuple[Answer, Shape]:
    guard = _Guard(_with_tables(ran))
    conn = _database(frame)
    try:
        conn.set_authorizer(guard)
        deadline = clock() + seconds
        conn.set_progress_handler(lambda: clock() > deadline, _STEPS)
        cursor = conn.execute(sql)
        columns = [d[0] for d in cursor.description or []]
        rows = cursor.fetchmany(MAX_ROWS)
        count = len(rows)
        while more := len(cursor.fetchmany(1000)):
            count += more
    except (sqlite3.Error, sqlite3.Warning) as exc:
        failure = _failure(exc, guard, frame, seconds)
        if str(exc).startswith("no such column: "):
            failure.missing_column = str(exc).removeprefix("no such column: ").split(".")[-1]  # type: ignore[attr-defined]
        raise failure from None
    finally:
        conn.close()
    # the file's decimals are looked up only for a result that has a float (a scan of every number)
    places = _places(frame) if any(isinstance(v, float) for r in rows for v in r) else 2
    return Answer(columns, [[_tidy(v, places) for v in r] for r in rows], count, places, sql), shape_of(ran)


def _slip(frame: Any, column: str, said: str) -> str | None:
    """The value of the text column ``column`` (any case) that ``said`` misspells; None when ``said`` is one of its
    values, when no text column is called that, or when no value or two are that close (table_read.slip_of)."""
    real = next((n for n in frame.names if n.lower() == column.lower() and frame.types[n] == "text"), None)
    if real is None or _is_value(frame, said):
        return None
    return slip_of(said, {v for v in frame.text[real] if v})


def _is_value(frame: Any, text: str) -> bool:
    """Whether ``text`` is a value of one of the frame's text columns (up to case)."""
    said = text.lower()
    return any(v.lower() == said for n in frame.names if frame.types[n] == "text" for v in frame.text[n])


def _failure(exc: Exception, guard: _Guard, frame: Any, seconds: float) -> ToolFailure:
    text = str(exc)
    columns = ", ".join(frame.names)
    if guard.denied or "not authorized" in text:
        return ToolFailure(f"{guard.denied or 'that'} is not allowed: a query only reads table data with one SELECT")
    if "interrupted" in text:
        return ToolFailure(f"the query ran over {seconds:g} s and was stopped; ask for less (a WHERE, a LIMIT, "
                           "no unbounded join or recursion)")
    if text.startswith("no such column: "):
        return QueryMistake(_no_column(text.removeprefix("no such column: ").split(".")[-1], frame))
    if text.startswith("no such table: "):
        return QueryMistake(f"no table {text.removeprefix('no such table: ')!r}: the table is called data "
                           f"(FROM data); its columns are: {columns}")
    if text.startswith("no such function: "):
        return QueryMistake(f"no function {text.removeprefix('no such function: ')}(); use SQLite's, such as "
                           "SUM, AVG, COUNT, MIN, MAX, ROUND, LOWER, strftime")
    if "too big" in text:
        return ToolFailure(f"a value of the result is over {MAX_VALUE_BYTES:,} bytes; ask for less")
    if "bindings" in text:   # "WHERE q2 = ?" (0.5B): nothing is ever bound to a placeholder
        return QueryMistake(f"the query has a ? (or :name) where a value belongs; write the value itself, e.g. "
                            f"{_example(frame)}")
    if "syntax error" in text or "incomplete input" in text or "unrecognized token" in text:
        return QueryMistake(f"the query is not valid SQL ({text}); e.g. {_example(frame)}")
    return QueryMistake(f"the query failed: {' '.join(text.split())}")


def _no_column(wrong: str, frame: Any) -> str:
    near = match(frame.names, wrong)
    hint = f" (did you mean {quoted(near)}?)" if near else ""
    return f"no column {wrong!r} in data{hint}; columns are: {', '.join(frame.names)}"


def _tidy(value: Any, places: int) -> Any:
    """A result value as a person reads it: 182.40000000000001 is 182.4, 1200.0 is 1200."""
    if isinstance(value, float):
        rounded = round(value, places)
        if rounded == 0 and value != 0:
            rounded = float(f"{value:.3g}")
        return int(rounded) if rounded.is_integer() and abs(rounded) < 1e15 else rounded
    if isinstance(value, bytes):
        return f"<{len(value)} bytes>"
    return value


# ---------------------------------------------------------------- the result, in words

def query_result(frame: Any, query: str, said: Callable[..., bool] | None = None) -> dict[str, Any]:
    """analyze_data_file's result for ``query``: ``message`` says the answer (one figure with the
    condition it answers, or the rows as a small table), then the rows, their count and the query run.
    ``said``: whether the conversation names a text value; a condition on one nobody named is left out, where
    the query keeps one that was (sql_text.without_unsaid)."""
    ran, left = without_unsaid(checked(query), said) if said and len(query) <= MAX_QUERY_CHARS else (query, [])
    answer, shape = run_query(frame, ran)
    answer, shape = _whole_rows_if_fixed(frame, answer, shape)
    if said is not None and _none_met(answer, shape):
        answer, shape = _on_the_named_column(frame, answer, shape, said)
    answer, shape = _share_of_all(frame, answer, shape)
    message = _said(answer, shape, frame)
    if left:
        message += f" (Left out {' and '.join(left)}: the question does not name that value.)"
    out = {"status": "success", "message": message, "columns": answer.columns,
           "rows": answer.rows, "row_count": answer.row_count, "truncated": answer.truncated}
    if " ".join(answer.sql.split()) != " ".join(query.strip().rstrip(";").split()):
        out["query"] = answer.sql  # as it ran, when not as written: the 0.5B answered with its own query, copied
    row = _the_row(frame, answer) if answer.row_count == 1 else None
    return {**out, "message": f"{out['message']} The row: {row}."} if row else out


def _whole_rows_if_fixed(frame: Any, answer: Answer, shape: Shape) -> tuple[Answer, Shape]:
    """The rows whole when the columns a query shows hold one value each, the one its condition fixed: asked which
    flights leave from PDX, the 1.5B wrote SELECT origin ... WHERE origin = 'PDX', got "PDX, PDX, PDX", and made up
    the flight numbers (probe53)."""
    if answer.row_count < 2 or any(len({row[i] for row in answer.rows}) > 1 for i in range(len(answer.columns))):
        return answer, shape
    star = whole_row(tokens(answer.sql), ranked=False)
    if star is None:
        return answer, shape
    try:
        return run_query(frame, star)
    except ToolFailure:
        return answer, shape


def _none_met(answer: Answer, shape: Shape) -> bool:
    """Whether the query's condition met no row: no rows back, or one total of nothing."""
    if not shape.where:
        return False
    return answer.row_count == 0 or (shape.totals and answer.row_count == 1 and len(answer.columns) == 1
                                     and answer.rows[0][0] is None)


def _on_the_named_column(frame: Any, answer: Answer, shape: Shape,
                         said: Callable[..., bool]) -> tuple[Answer, Shape]:
    """The query with its condition on the number column the question names, when the condition met no row on a
    number column the question does not name, and only one such swap fits: for "total kwh on the days that used
    between 9 and 14 kwh" the 0.5B wrote WHERE day BETWEEN 9 AND 14 (probe_data3). As it ran, otherwise."""
    toks = tokens(answer.sql)
    at = next((i for i, t in enumerate(toks) if t.depth == 0 and t.lower == "where"), None)
    numbers = [n for n in frame.names if frame.types[n] == "number"]
    used = {t.inner.lower() for t in toks[at or 0:] if t.kind in ("word", "name")} if at is not None else set()
    wrong = [n for n in numbers if n.lower() in used and not said(n, plurals=False)]   # "days" does not name day
    meant = [n for n in numbers if n.lower() not in used and said(n, plurals=False)]
    if at is None or len(wrong) != 1 or len(meant) != 1:
        return answer, shape
    moved = "".join(t.text for t in toks[:at]) + _renamed(toks[at:], wrong[0], meant[0])
    try:
        again, reshaped = run_query(frame, moved)
    except ToolFailure:
        return answer, shape
    if _none_met(again, reshaped):
        return answer, shape
    note = (f"no row has that on {wrong[0]}, so the condition was read on {meant[0]}, the column the question names"
            + (f"; {again.read_as}" if again.read_as else ""))
    return replace(again, read_as=note), reshaped


def _share_of_all(frame: Any, answer: Answer, shape: Shape) -> tuple[Answer, Shape]:
    """A share of 100 % (``COUNT(...) * 100 / COUNT(*)`` over the rows of a WHERE) asked again over every row, the
    condition moved into the counted part (sql_text.share_of_all); as it ran, otherwise."""
    whole = answer.row_count == 1 and len(answer.columns) == 1 and answer.rows[0][0] in (100, 1)
    moved = share_of_all(tokens(answer.sql)) if whole and shape.where else None
    if moved is None:
        return answer, shape
    try:
        again, reshaped = run_query(frame, moved)
    except ToolFailure:
        return answer, shape
    note = f"the share of the rows where {shape.where} among themselves is all of them; this is their share of every row"
    return replace(again, read_as="; ".join(n for n in (answer.read_as, note, again.read_as) if n)), reshaped


def said_in(text: str) -> Callable[..., bool]:
    """Whether ``text`` (the conversation: the user's messages and the answers) names a value: the value, or one
    of its words, as a word of the text, in its plural ("pens" names "pen", "categories" "category") or, from
    ``STEM`` letters, the start of a longer one ("bean" in "beans")."""
    words = words_of(text)
    # "How many pens did north sell?": pen has 3 letters, under STEM. A column's name is not read so: "the days
    # that used between 9 and 14 kwh" is about kwh, not the day column (``plurals=False``, _on_the_named_column)
    plural_words = words | {singular(w) for w in words}

    def said(value: str, plurals: bool = True) -> bool:
        parts = words_of(value)
        heard = plural_words if plurals else words
        return not parts or any(p in heard or (len(p) >= STEM and any(w.startswith(p) for w in words)) for p in parts) \
            or _month_said(value, words)
    return said


_ISO_MONTH = re.compile(r"(?<!\d)(\d{4})-(\d{1,2})(?!\d)(?:-(\d{1,2})(?!\d))?")


def _month_said(value: str, words: set[str]) -> bool:
    """Whether ``value`` is a date or a month of one ("2026-03%", "2026-03-14") whose month ``words`` name ("march",
    "mar"), in its year when they name a year. Asked "what did I spend on takeaway in March?", the 1.5B's
    ``date LIKE '2026-03%'`` was left out as a value nobody said, and all five takeaway rows were summed (probe47)."""
    m = _ISO_MONTH.search(value)
    if m is None or not 1 <= int(m.group(2)) <= 12:
        return False
    years = {w for w in words if len(w) == 4 and w.isdigit() and w.startswith(("19", "20"))}
    day = m.group(3)   # a whole date is said with its day: "in March" says no "2026-03-05"
    return any(_MONTHS.get(w) == int(m.group(2)) for w in words) and (not years or m.group(1) in years) and \
        (day is None or str(int(day)) in {w.lstrip("0") for w in words} | {w[:-2] for w in words if w[:-2].isdigit()})


def words_of(text: str) -> set[str]:
    """The lower-case words of ``text`` (letters and digits; "_" parts a word)."""
    return set(_WORD.findall(text.lower()))


_WORD = re.compile(r"[^\W_]+")
STEM = 4  # a value's word this long is named by a longer word it starts


def _the_row(frame: Any, answer: Answer) -> str | None:
    """"name Watering can, price 12.75, ..." for a query that picked one row, or the highest or lowest of a column,
    and showed part of it: asked for the cheapest garden item, the 1.5B wrote SELECT price ... ORDER BY price LIMIT 1
    (and, another time, SELECT MIN(price) ...) and answered "12.75", the item's name never in the result."""
    star = whole_row(tokens(answer.sql)) or extreme_row(tokens(answer.sql))
    if star is None:
        return None
    try:
        full, _ = run_query(frame, star)
    except ToolFailure:
        return None
    if full.row_count != 1:
        return None
    return ", ".join(f"{c} {_shown(v, full.places)}" for c, v in zip(full.columns, full.rows[0]) if v is not None)


def _shown(value: Any, places: int) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and round(value, places) != 0:
        return f"{value:.{places}f}"
    return str(value)


def _said(answer: Answer, shape: Shape, frame: Any) -> str:
    said = _said_plainly(answer, shape, frame)
    return f"{said} ({answer.read_as})" if answer.read_as else said


def _said_plainly(answer: Answer, shape: Shape, frame: Any) -> str:
    where = f" where {shape.where}" if shape.where else ""
    if answer.row_count == 1 and len(answer.columns) == 1:
        label, value = answer.columns[0], answer.rows[0][0]
        if shape.totals:
            scope = f" over the rows{where}" if where else f" over all {frame.rows} rows" if shape.whole_table else ""
            empty = value is None or value == 0
            said = "none (no row matches)" if value is None and where else _shown(value, answer.places) or "none"
            return f"{label}{scope}: {said}." + (_values_hint(shape, frame) if empty and where else "")
        return f"{label}{where}: {_shown(value, answer.places) or '(blank)'}."
    if answer.row_count == 0:
        return f"No rows{where}." + _values_hint(shape, frame)
    count = f"{answer.row_count} row{'s' if answer.row_count != 1 else ''}{where}"
    if len(answer.columns) == 1 and answer.row_count <= SHOWN_ROWS:
        # one column's values on the line that counts them: given "2 rows where watering = 'daily':" over a table of
        # them, the 0.5B answered "which ones need watering every day?" with the count alone (probe47)
        values = ", ".join(_shown(row[0], answer.places) for row in answer.rows)
        total = _summed(answer)
        # numbers' sum first: after "amount: 22, 15.50, 12 (sum 49.50)" the 1.5B still answered with 22 (probe47)
        return f"{count}, {answer.columns[0]} sums to {total} ({values})" if total else \
            f"{count}, {answer.columns[0]}: {values}"
    head = f"{count}; the first {SHOWN_ROWS}:" if answer.row_count > SHOWN_ROWS else f"{count}:"
    table = [" | ".join(answer.columns)]
    table += [" | ".join(_shown(v, answer.places) for v in row) for row in answer.rows[:SHOWN_ROWS]]
    return "\n".join([head, *table])


def _summed(answer: Answer) -> str:
    """"49.50", the sum of one column of numbers, all of them shown ("" otherwise): asked "what did I spend on
    takeaway in March?", the 1.5B selected the amounts and gave the first one (probe47)."""
    values = [row[0] for row in answer.rows]
    if len(answer.columns) != 1 or answer.truncated or len(values) < 2 or len(values) > SHOWN_ROWS or \
            not all(isinstance(v, (int, float, Decimal)) and not isinstance(v, bool) for v in values):
        return ""
    # the rule the table's statistics follow: no sum of numbers that name rows (ids, codes, years) or of rates
    name = answer.columns[0]
    if _ID_LIKE.search(name) or _NOT_ADDITIVE.search(name) or all(1900 <= v <= 2100 for v in values):
        return ""
    return _shown(sum(values), answer.places)


def _values_hint(shape: Shape, frame: Any, most: int = 8) -> str:
    """For a condition no row meets: the values of the text columns it names ("category holds: ..."), the range of
    its number columns ("stock runs from 0 to 45"): asked how many plants were out of stock, the 1.5B wrote stock < 0,
    was told no row met it, and answered none (probe52)."""
    in_where = {t.inner.lower() for t in tokens(shape.where) if t.kind in ("word", "name")} if shape.where else set()
    named = [n for n in frame.names if frame.types[n] == "text" and n.lower() in in_where]
    said = [f"{n} runs from {_shown(min(vs), 0)} to {_shown(max(vs), 0)}; {sum(v == min(vs) for v in vs)} rows hold "
            f"{_shown(min(vs), 0)}." for n in frame.names if frame.types[n] == "number" and n.lower() in in_where
            and (vs := [v for v in frame.numbers[n] if v is not None])][:2]
    for name in named[:2]:
        counts: dict[str, int] = {}
        for v in frame.text[name]:
            if v:
                counts[v] = counts.get(v, 0) + 1
        common = sorted(counts, key=lambda v: -counts[v])
        more = f" (+{len(common) - most} more)" if len(common) > most else ""
        said.append(f"{name} holds: {', '.join(common[:most])}{more}.")
    return "".join(f" {s}" for s in said)


# ---------------------------------------------------------------- the schema, for writing a query

SCHEMA_CHARS = 600
SAMPLE_ROWS = 3
SAMPLE_CHARS = 200
CELL_CHARS = 40
_KINDS = {"number": "number", "date": "date", "text": "text", "empty": "text"}


def _cell(frame: Any, name: str, i: int) -> Any:
    """Row ``i``'s value of column ``name`` as the query sees it: a number, an ISO date, text."""
    if frame.types[name] == "number":
        return _number(frame.numbers[name][i])
    if frame.types[name] == "date":
        day = frame.dates[name][i]
        return day.isoformat() if day is not None else None
    text = frame.text[name][i]
    return text if len(text) <= CELL_CHARS else text[:CELL_CHARS - 1] + "…"


def schema_fields(frame: Any) -> dict[str, str]:
    """The table as a query sees it: ``schema`` (``data(date date, amount number, ...)``), ``sample``
    (its first rows, one a line). No example query: the 0.5B model answered with the one it was shown."""
    places = _places(frame)
    columns = ", ".join(f"{quoted(n)} {_KINDS.get(frame.types[n], 'text')}" for n in frame.names)
    if len(columns) > SCHEMA_CHARS:
        columns = columns[:SCHEMA_CHARS].rsplit(", ", 1)[0] + f", … {len(frame.names)} columns in all"
    rows = []
    for i in range(min(SAMPLE_ROWS, frame.rows)):
        row = " | ".join(_shown(_cell(frame, n, i), places) for n in frame.names)
        rows.append(row if len(row) <= SAMPLE_CHARS else row[:SAMPLE_CHARS - 1] + "…")
    return {"schema": f"{TABLE}({columns})", "sample": "\n".join(rows)}


def schema_lines(frame: Any) -> list[str]:
    """``schema_fields`` as lines: ``schema: ...`` and a ``sample: ...`` line per row."""
    said = schema_fields(frame)
    return [f"schema: {said['schema']}", *(f"sample: {row}" for row in said["sample"].splitlines())]


def _example(frame: Any) -> str:
    """A query over this table that a question with a condition would need: the total of a number
    column over the rows with one value of a text column, with a real value of it."""
    numbers = [n for n in frame.names if frame.types[n] == "number"]
    additive = [n for n in numbers if not _ID_LIKE.search(n) and not _NOT_ADDITIVE.search(n)]
    valued = [n for n in additive if any(word in n.lower() for word in _VALUE_NAMES)]
    number = next(iter(valued + additive + numbers), None)   # revenue before units, units before unit_price
    text, value = _grouping(frame)
    dated = next((n for n in frame.names if frame.types[n] == "date"), None)
    if number and text:
        value_sql = "'" + value.replace("'", "''") + "'"
        return f"SELECT SUM({quoted(number)}) FROM {TABLE} WHERE {quoted(text)} = {value_sql}"
    if number and dated:
        return (f"SELECT strftime('%Y-%m', {quoted(dated)}) AS month, SUM({quoted(number)}) FROM {TABLE} "
                "GROUP BY month")
    if number:
        return f"SELECT SUM({quoted(number)}), AVG({quoted(number)}) FROM {TABLE}"
    if text:
        return f"SELECT {quoted(text)}, COUNT(*) FROM {TABLE} GROUP BY {quoted(text)}"
    return f"SELECT * FROM {TABLE} LIMIT 5"


def _grouping(frame: Any) -> tuple[str | None, str]:
    """A text column with a few repeated values, and its most common value; else (None, "")."""
    for name in frame.names:
        if frame.types[name] != "text":
            continue
        counts: dict[str, int] = {}
        for v in frame.text[name]:
            if v and len(v) <= CELL_CHARS:
                counts[v] = counts.get(v, 0) + 1
        if 1 < len(counts) <= 50 and len(counts) < frame.rows:
            return name, max(counts, key=lambda v: counts[v])
    return None, ""
