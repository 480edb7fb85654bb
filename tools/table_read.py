"""Reading a table for the data tools: its rows from CSV, TSV, Excel or JSON records, each column typed
(dates, numbers such as ``$1,234.50``, text), the periods people name, and the plan of what to show.

Kept apart from analyze_data_file (data.py) so that every tool that reads a table (``read_file``, the
document tools, through table_facts.py) uses the same code without importing the tools that use it.
"""

from __future__ import annotations

import calendar
import csv
import io
import re
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, Callable, Iterable

from gaia_lite.registry.failure import ToolFailure

from .data_shape import (Plan, asks_columns, asks_extreme, asks_lowest, asks_mean, asks_price, match, named_in,
                         split_names)
from .find import PATH_MENTION, ratio, singular
from .table_periods import asks_period
from .table_compare import stated_comparison

__all__ = ["MAX_BYTES", "TABLE_SUFFIXES", "parse_period", "to_date", "to_number"]

MAX_BYTES = 50 * 1024 * 1024
TABLE_SUFFIXES = (".csv", ".tsv", ".txt", ".xlsx", ".xlsm")
_VALUE_NAMES = ("revenue", "sales", "amount", "total", "spend", "spent", "cost", "value", "profit")
# Per-unit or ratio columns: averaged in statistics, never summed unless asked for.
# "rate" as a word of its own: "nitrate_mg_l" is a concentration, read as a rate it had no mean by site (probe51)
_NOT_ADDITIVE = re.compile(r"price|(?<![a-z])rate|percent|pct|ratio|avg|average|mean|score", re.IGNORECASE)
_CATEGORY_NAMES = ("category", "type", "merchant", "vendor", "payee", "department", "product", "description")
# Numbers that name rows, not amounts: ids, codes, years ("Order ID", "invoice_no" and plurals too): never summed
_ID_LIKE = re.compile(r"(^|[_\s-])(id|year|month|day|zip|phone|code|no|number|(?:id|year|zip|phone|code|number)s)$",
                      re.IGNORECASE)
_MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
_MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
_DATE_SHAPE = re.compile(r"\d[-/. ,]|[-/. ,]\d")
_DATE_FORMATS = ("%Y-%m-%d", "%Y/%m/%d", "%m/%d/%Y", "%m/%d/%y", "%d.%m.%Y", "%Y-%m-%d %H:%M:%S",
                 "%Y-%m-%dT%H:%M:%S", "%b %d, %Y", "%B %d, %Y", "%d %b %Y", "%d %B %Y", "%b %d %Y", "%B %d %Y")



# ---------------------------------------------------------------- values

def to_number(value: Any) -> Decimal | None:
    """Parse 12, 1234.5, "$1,234.50", "(200)", "-3.5%" into a Decimal; None if not a number."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return Decimal(str(value))
    if not isinstance(value, str):
        return None
    s = value.strip()
    negative = s.startswith("(") and s.endswith(")")
    if negative:
        s = s[1:-1]
    s = s.replace(",", "").replace(" ", "").removesuffix("%")
    for marker in ("-", "$€£¥", "-"):      # "-$5", "$-5" and "$5" all work
        if s[:1] and s[:1] in marker:
            negative, s = negative ^ (marker == "-"), s[1:]
    if not re.fullmatch(r"\d+(\.\d+)?|\.\d+", s):
        return None
    try:
        number = Decimal(s)
    except InvalidOperation:
        return None
    return -number if negative else number


def to_date(value: Any) -> date | None:
    """Parse a date cell (datetime, ISO text, US and a few written formats)."""
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if not isinstance(value, str) or not value.strip():
        return None
    s = value.strip()
    if not _DATE_SHAPE.search(s):   # every format has digits and a separator: "37" is no date, and fast
        return None
    if re.match(r"\d{4}-\d{2}-\d{2}", s):
        try:
            return date.fromisoformat(s[:10])
        except ValueError:
            return None
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(s, fmt).date()
        except ValueError:
            continue
    return None


# ---------------------------------------------------------------- periods

MAX_PERIOD_CHARS = 64

def _month_end(year: int, month: int) -> date:
    return date(year, month, calendar.monthrange(year, month)[1])


def _period_bounds(text: str) -> tuple[date, date] | None:
    t = text.strip().lower().replace(",", " ")
    if m := (re.fullmatch(r"(\d{4})\s*[-/ ]?\s*q([1-4])", t) or re.fullmatch(r"q([1-4])\s*[-/ ]?\s*(\d{4})", t)):
        year, q = (int(m.group(1)), int(m.group(2))) if len(m.group(1)) == 4 else (int(m.group(2)), int(m.group(1)))
        return date(year, 3 * q - 2, 1), _month_end(year, 3 * q)
    if m := re.fullmatch(r"(\d{4})[-/](\d{1,2})", t):
        year, month = int(m.group(1)), int(m.group(2))
        return (date(year, month, 1), _month_end(year, month)) if 1 <= month <= 12 else None
    if m := re.fullmatch(r"([a-z]+)\.?\s+(\d{4})", t):
        month = _MONTHS.get(m.group(1))
        return (date(int(m.group(2)), month, 1), _month_end(int(m.group(2)), month)) if month else None
    if re.fullmatch(r"\d{4}", t):
        return date(int(t), 1, 1), date(int(t), 12, 31)
    day = to_date(text.strip())
    return (day, day) if day else None


def _bounds_in(text: str, year: int | None) -> tuple[date, date] | None:
    """``_period_bounds`` of ``text``, or of ``text`` in ``year`` when it names no year of its own."""
    found = _period_bounds(text)
    if found is None and year is not None and not re.search(r"\d{4}", text):
        found = _period_bounds(f"{text.strip()} {year}")
    return found


def parse_period(text: str, year: int | None = None) -> tuple[str, Callable[[date], bool]]:
    """Turn "2025-Q1", "Q1 2025", "2025-01", "January 2025", "2025", "Q1" or
    "2025-01-01..2025-03-31" into (label, predicate). Raises ValueError. ``year``: the one year of the file's
    dates, for a day written without one ("March 5 to March 20" was left out, and every row totalled)."""
    t = text.strip()
    if len(t) > MAX_PERIOD_CHARS:  # the splitting regex is quadratic on long runs of spaces
        raise ValueError(f"date_range is {len(t)} characters; a period is at most {MAX_PERIOD_CHARS}, "
                         "e.g. 2025-Q1 or 2025-01-01..2025-03-31")
    if m := re.fullmatch(r"q([1-4])", t.lower()):
        months = range(3 * int(m.group(1)) - 2, 3 * int(m.group(1)) + 1)
        return f"Q{m.group(1)} (any year)", lambda d: d.month in months
    t = re.sub(r"(?<=\d)(?:st|nd|rd|th)\b", "", t)
    # an ISO interval with times: "2024-06-01T00:00:00.000Z/2024-06-07T23:59:59.999Z" was read as no period (probe54)
    t = re.sub(r"(\d{4}-\d{2}-\d{2})[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?", r"\1", t)
    t = re.sub(r"^(\d{4}-\d{2}-\d{2})\s*/\s*(\d{4}-\d{2}-\d{2})$", r"\1..\2", t)
    t = re.sub(r"^([a-z]+\.?\s+\d{1,2})\s*-\s*(?=\d)", r"\1 to ", t, flags=re.IGNORECASE)   # "June 1-7, 2024"
    parts = re.split(r"\s*\.\.\s*|\s+to\s+|\s+-\s+", t, maxsplit=1, flags=re.IGNORECASE)
    if len(parts) == 2 and (m := re.match(r"[a-z]+\.?\s", parts[0], re.IGNORECASE)) and parts[1][:1].isdigit() \
            and not re.match(r"\d{4}\b", parts[1]):
        parts[1] = m.group(0) + parts[1]   # "June 1 - 7, 2024": the end's month is the start's
    if len(parts) == 2:
        start, end = _period_bounds(parts[0]), _period_bounds(parts[1])
        if start is None and end is not None:   # "1 March to 15 March 2025": the start's year is the end's
            start = _bounds_in(parts[0], end[1].year)
        elif end is None and start is not None:
            end = _bounds_in(parts[1], start[0].year)
        else:
            start, end = start or _bounds_in(parts[0], year), end or _bounds_in(parts[1], year)
        if start and end:
            lo, hi = start[0], end[1]
            return f"{lo.isoformat()}..{hi.isoformat()}", lambda d: lo <= d <= hi
    elif (bounds := _bounds_in(t, year)) is not None:
        lo, hi = bounds
        return f"{lo.isoformat()}..{hi.isoformat()}", lambda d: lo <= d <= hi
    raise ValueError(f"date_range {text!r} is not understood; use e.g. 2025-Q1, Q1 2025, 2025-01, "
                     "January 2025, 2025 or 2025-01-01..2025-03-31")


# ---------------------------------------------------------------- loading

def _load_rows(path: Path) -> list[list[Any]]:
    ext = path.suffix.lower()
    if ext in (".xlsx", ".xlsm"):
        # kept lazy: openpyxl loads only for .xlsx files
        import openpyxl
        wb = openpyxl.load_workbook(path, read_only=True, data_only=True)
        try:
            return [list(r) for r in wb.active.iter_rows(values_only=True)]
        finally:
            wb.close()
    text = path.read_text(encoding="utf-8-sig", errors="replace")
    if ext == ".tsv":
        delimiter = "\t"
    else:
        try:
            delimiter = csv.Sniffer().sniff(text[:4096], delimiters=",;\t|").delimiter
        except csv.Error:
            delimiter = ","
    return [row for row in csv.reader(io.StringIO(text), delimiter=delimiter)]


def _table(rows: list[list[Any]]) -> tuple[list[str], list[list[Any]]]:
    def blank(cell: Any) -> bool:
        return cell is None or (isinstance(cell, str) and not cell.strip())
    rows = [r for r in rows if not all(blank(c) for c in r)]
    if not rows:
        return [], []
    header, names = rows[0], []
    for i, cell in enumerate(header):
        name = str(cell).strip() if not blank(cell) else f"column_{i + 1}"
        names.append(name if name not in names else f"{name}_{i + 1}")
    width = len(names)
    body = [(list(r) + [None] * width)[:width] for r in rows[1:]]
    return names, body


def _column_types(names: list[str], body: list[list[Any]]) -> dict[str, str]:
    types = {}
    for i, name in enumerate(names):
        values = [r[i] for r in body if r[i] is not None and str(r[i]).strip()][:2000]
        if not values:
            types[name] = "empty"
        elif _mostly(values, to_date):
            types[name] = "date"
        elif _mostly(values, to_number):
            types[name] = "number"
        else:
            types[name] = "text"
    return types


def _mostly(values: list[Any], parse: Callable[[Any], Any]) -> bool:
    """Whether ``parse`` reads at least 90 % of ``values``; it stops at the miss that rules that out (a
    number column tried as dates cost seconds: every cell was tried in each date format)."""
    allowed, missed = len(values) - 0.9 * len(values), 0
    for v in values:
        if parse(v) is None:
            missed += 1
            if missed > allowed:
                return False
    return True


def _key(name: str) -> str:
    return re.sub(r"[\s_\-]+", "", name.lower())


def _find_column(names: list[str], wanted: str) -> str | None:
    """The column named exactly ``wanted``, up to case and separators."""
    return next((n for n in names if _key(n) == _key(wanted)), None)


# ---------------------------------------------------------------- analysis

class _Frame:
    """Typed rows: ``numbers[col][i]`` is a Decimal or None, ``text[col][i]`` a str."""

    def __init__(self, names: list[str], body: list[list[Any]], types: dict[str, str]) -> None:
        self.names, self.types, self.rows = names, types, len(body)
        self.kept: list[bool] | None = None   # for a selection: which of its parent's rows it kept
        idx = {n: i for i, n in enumerate(names)}
        self.numbers = {n: [to_number(r[idx[n]]) for r in body] for n in names if types[n] == "number"}
        self.dates = {n: [to_date(r[idx[n]]) for r in body] for n in names if types[n] == "date"}
        self.text = {n: ["" if r[idx[n]] is None else str(r[idx[n]]).strip() for r in body] for n in names}

    def select(self, keep: list[bool]) -> "_Frame":
        out = object.__new__(_Frame)
        out.names, out.types, out.rows, out.kept = self.names, self.types, sum(keep), list(keep)
        for attr in ("numbers", "dates", "text"):
            setattr(out, attr, {k: [v for v, ok in zip(vs, keep) if ok] for k, vs in getattr(self, attr).items()})
        return out


# ---------------------------------------------------------------- what to show

_QUARTER_SAID = r"\bq[1-4](?:\s*[-/ ]?\s*\d{4})?\b|\b\d{4}\s*[-/ ]?\s*q[1-4]\b"
_MONTH_SAID = (r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|january|february|march|april|june|july|"
               r"august|september|october|november|december)\.?\s+\d{4}\b|\b\d{4}-\d{2}\b")
_MONTH_WORD = (r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|january|february|march|april|june|july|"
               r"august|september|october|november|december)\.?")
# "1 March to 15 March 2025", "2025-03-01 to 2025-03-15": a range of days, before the month it ends in
_DAYS_SAID = (rf"\b\d{{1,2}}\s+{_MONTH_WORD}(?:\s+\d{{4}})?\s+(?:to|until|through|-)\s+\d{{1,2}}\s+{_MONTH_WORD}\s+\d{{4}}\b"
              r"|\b\d{4}-\d{2}-\d{2}\s*(?:\.\.|to|until|through|-)\s*\d{4}-\d{2}-\d{2}\b"
              # "June 1 to June 7, 2024", "june 1-7 2024": the month first, as US dates are said (probe54)
              rf"|\b{_MONTH_WORD}\s+\d{{1,2}}(?:st|nd|rd|th)?\s*(?:to|until|through|-)\s*(?:{_MONTH_WORD}\s+)?"
              r"\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4}\b")
_PERIOD_SAID = re.compile(f"{_DAYS_SAID}|{_QUARTER_SAID}|{_MONTH_SAID}", re.IGNORECASE)


def _plan(message: str, frame: _Frame, kind: str, columns: str | None, group_by: str | None) -> Plan:
    """The value and grouping columns to show, read forgivingly: a name that fits no column, a text
    column among the numbers or a date column is left out with a note, never an error. Columns the
    user's message names come first."""
    numeric = [n for n in frame.names if frame.types[n] == "number"]
    said = named_in(frame.names, message)
    notes: list[str] = []
    asked, by, read_as = [], None, []
    for raw in split_names(columns):
        col = match(frame.names, raw)
        if col is None:
            notes.append(f"no column is named like {raw!r}")
        elif frame.types[col] == "number":
            asked.append(col)
        elif frame.types[col] == "text" and not group_by and by is None:
            by = col
            notes.append(f"{col} holds text, so the rows are grouped by it")
        else:
            notes.append(f"{col} holds {frame.types[col]}s, not numbers, so it is not totalled")
        if col is not None and _key(col) != _key(raw):
            read_as.append(f"{raw.strip()!r} as {col}")
    if group_by and group_by.strip():
        by = match(frame.names, group_by)
        if by is None:
            notes.append(f"no column to group by is named like {group_by.strip()!r}")
        elif _key(by) != _key(group_by):
            read_as.append(f"{group_by.strip()!r} as {by}")
    if read_as:
        notes.append("read " + ", ".join(read_as))
    if notes and any("no column" in n for n in notes):
        notes.append("the columns are " + ", ".join(frame.names))
    additive = [n for n in numeric if not _ID_LIKE.search(n) and not _NOT_ADDITIVE.search(n)]
    preferred = [n for name in _VALUE_NAMES for n in additive if name in n.lower()]
    values = list(dict.fromkeys(asked or [*[n for n in said if n in additive], *preferred, *additive]))
    stats = list(dict.fromkeys([*values, *[n for n in said if n in numeric],
                                *[n for n in numeric if not _ID_LIKE.search(n)]]))
    groupable = [n for n in frame.names if frame.types[n] == "text" and 1 < len(set(frame.text[n])) <= 50
                 and len(set(frame.text[n])) < frame.rows]
    # spending: the merchant or category column first; else the table's own order (who, then where, then what)
    named = [n for want in _CATEGORY_NAMES for n in groupable if want in n.lower()] if kind == "spending" else []
    categories = list(dict.fromkeys([*([by] if by else []), *[n for n in said if n in groupable], *named, *groupable]))
    # per-group figures of one value column, or of two when two are asked for: each costs tokens per group
    focus = asked or [n for n in said if n in numeric]
    return Plan(values, stats, categories, group_by=by, rows_before=frame.rows, notes=notes,
                named_values=_named_values(message, frame),
                group_values=max(1, min(2, len(focus))), columns_asked=asks_columns(message),
                low_first=asks_lowest(message), mean_first=asks_mean(message), total_asked=asks_total(message),
                extreme_first=asks_extreme(message), price_asked=asks_price(message),
                comparison=stated_comparison(message, frame, said),
                grouping_named=bool(by) or any(n in groupable for n in said), period_asked=asks_period(message))


_TOTAL = re.compile(r"\b(?:total|sum|altogether|in all|combined)\b", re.IGNORECASE)
_BACK = re.compile(r"\b(?:those|these|them|that (?:class|team|month|site|group|category|one))\b", re.IGNORECASE)


def asks_total(message: str) -> bool:
    return _TOTAL.search(message) is not None


def table_question(message: str, asked_before: str) -> str:
    """The question a table is asked: the message, and the user's message before it when it points back to it ("whats
    the total km for those" after "how many runs longer than 10km did i do in june": the 1.5B's follow-up got the
    whole file's total, its conditions gone with the turn; probe51)."""
    before = [m for m in asked_before.splitlines() if m.strip()]
    return f"{before[-1]}\n{message}" if before and _BACK.search(message) else message


MAX_NAMED_VALUES = 3  # rows of at most this many named values are shown first; more is a listing, not a condition


def _named_values(message: str, frame: _Frame) -> list[tuple[str, str, _Frame]]:
    """The cells of a text column the user's message names ("how much went on groceries?" in a table
    with a category column), each with its rows: (column, value as the table writes it, rows). Their
    figures are shown first, beside the whole file's. A value matches as whole words in any case; a value
    that is a column's name, a number, shorter than 3 letters or in every row is no condition."""
    said = PATH_MENTION.sub(" ", message).casefold()
    # "how many sourdough loaves" names the cell "sourdough loaf" (probe56): its words in the singular too
    said = said + " | " + re.sub(r"[a-z]+", lambda m: singular(m.group(0)), said)
    found: list[tuple[str, str, _Frame]] = []
    for col in frame.names:
        if frame.types[col] != "text":
            continue
        # one entry per value whatever its case, spelled as its first row spells it
        for key, value in {v.casefold(): v for v in reversed(frame.text[col])}.items():
            if key not in said or (len(key) < 3 and not _after_its_column(said, col, key) and not _code_said(said, key)) or \
                    not any(c.isalpha() for c in key):
                continue  # the substring test first: a table may hold 100k distinct cells
            # "runs" names the activity "run" (probe51)
            if not _find_column(frame.names, value) and re.search(rf"(?<!\w){re.escape(key)}(?:e?s)?(?!\w)", said):
                rows = frame.select([v.casefold() == key for v in frame.text[col]])
                if rows.rows < frame.rows:
                    found.append((col, value, rows))
        if not any(c == col for c, _, _ in found) and (near := _misspelt(said, frame.text[col])) is not None:
            found.append((col, near, frame.select([v.casefold() == near.casefold() for v in frame.text[col]])))
    found += [f for f in _yes_no_named(said, frame) if not any(c == f[0] for c, _, _ in found)]
    # "for nordlicht in april? not nordlicht events": a value the message rules out is no condition (probe54)
    ruled = {f[1].casefold() for f in found
             if re.search(rf"\b{_RULED_OUT}\s+(?:the\s+|any\s+)?{re.escape(f[1].casefold())}(?!\w)", said)}
    ruled = {r for r in ruled if not any(r in other and r != other for other in ruled)}   # the longest said
    found = [f for f in found if f[1].casefold() not in ruled]
    # a longer value that holds a shorter one ("Sarah Chen" and "Chen") stands for it
    keys = [value.casefold() for _, value, _ in found]
    found = [f for f, k in zip(found, keys) if not any(k in other and k != other for other in keys)]
    return found if len(found) <= MAX_NAMED_VALUES else []


_YES = frozenset({"yes", "y", "true", "t", "1", "x"})
_NO = frozenset({"no", "n", "false", "f", "0", ""})


def _yes_no_named(said: str, frame: _Frame) -> list[tuple[str, str, _Frame]]:
    """A yes/no column the message names as a condition: "how many of those were billable?" is billable = yes, "not
    billable" or "non-billable" billable = no. The 1.5B and the 0.5B answered with every hour (probe52)."""
    out = []
    for col in frame.names:
        values = {v.casefold().strip() for v in frame.text[col]}
        if frame.types[col] not in ("text", "number") or not values <= _YES | _NO or not values & _YES \
                or not values - _YES:
            continue
        m = re.search(rf"(?<!\w)(?P<neg>(?:not|non|un|isn't|wasn't|weren't|aren't)[\s-]*)?{re.escape(col.casefold())}"
                      rf"(?!\w)", said)
        if m is None:
            continue
        want = _NO if m.group("neg") else _YES
        keep = [v.casefold().strip() in want for v in frame.text[col]]
        value = next(v for v, k in zip(frame.text[col], keep) if k) if any(keep) else ""
        if value and 0 < sum(keep) < frame.rows:
            out.append((col, value, frame.select(keep)))
    return out


_RULED_OUT = r"(?:not|excluding|except|without|but\s+not|other\s+than)"


def _code_said(said: str, key: str) -> bool:
    """Whether a two-character cell of a letter and a digit ("9b", "a4") stands as a word of the message: "how many
    kids in 9B got more than 80 in maths" counted every class's (probe54)."""
    return bool(re.fullmatch(r"\d[a-z]|[a-z]\d", key)) and re.search(rf"(?<!\w){key}(?!\w)", said) is not None


def _after_its_column(said: str, col: str, key: str) -> bool:
    """Whether the message says a short cell right after its column's name: "class B" for class = B. Asked "What's
    the average maths score for class B?", the 1.5B got the classes' averages over every subject (probe51)."""
    return re.search(rf"(?<!\w){re.escape(col.casefold())}\s+{re.escape(key)}(?!\w)", said) is not None


TYPO_RATIO = 0.85   # "groceires" is 0.89 of "groceries"; "transport" and "transfer" 0.71
TYPO_VALUES = 50    # a column of more distinct values is a listing (names, notes), not categories


def slip_of(word: str, values: Iterable[str]) -> str | None:
    """The one of ``values`` that ``word`` misspells or inflects ("groceires", "grocery" for "groceries"): alike
    to TYPO_RATIO or more (find.ratio), up to case, as written or in the singular. None when none is, when two
    are, or for a word under 4 letters ("rent" is not a slip of "tent")."""
    said = word.casefold()
    if len(said) < 4:
        return None
    near = {v for v in values if max(ratio(said, v.casefold()), ratio(singular(said), singular(v.casefold())))
            >= TYPO_RATIO}
    return near.pop() if len(near) == 1 else None


def _misspelt(said: str, cells: list[str]) -> str | None:
    """The one value of a category column (a single word of 5 letters or more, not in every row) that a
    word of the message misspells or inflects ("groceires", "gardens"), or None. Asked "how much did i
    spend on groceires?", the 1.5B got the whole file's figures: the exact match found no category."""
    values = {v.casefold(): v for v in reversed(cells) if v}
    if len(values) > TYPO_VALUES or len(values) < 2:
        return None
    words = [k for k in values if k.isalpha() and len(k) >= 5]
    near = {slip_of(w, words) for w in re.findall(r"[^\W\d_]{5,}", said) if w not in values}
    near.discard(None)
    return values[near.pop()] if len(near) == 1 else None


def _named_period(message: str, frame: _Frame) -> tuple[str, _Frame] | None:
    """The period the user's message names ("total revenue in Q1 2025"), with its rows, when the call
    gave no date_range: its figures are shown beside the whole file's, never instead of them. A word
    that is a column's name ("the total of q1") is no period; nor is a period that keeps every row."""
    if not frame.dates:
        return None
    message = PATH_MENTION.sub(" ", message)
    for m in _PERIOD_SAID.finditer(message):
        said = m.group(0)
        if _find_column(frame.names, said):
            continue
        try:
            label, inside = parse_period(said)
        except ValueError:
            continue
        rows = frame.select([d is not None and inside(d) for d in next(iter(frame.dates.values()))])
        if rows.rows != frame.rows:   # "Q1 2025 (2025-01-01..2025-03-31)"; "Q1 (any year)" says itself
            return (label if label.lower().startswith(said.lower()) else f"{said} ({label})"), rows
    return _month_alone(message, frame) or _year_alone(message, frame)


_YEAR_ALONE = re.compile(r"\b(?:in|during|for|of|from|since)\s+(?:the\s+year\s+)?(?P<year>(?:19|20)\d\d)\b(?![-/.]\d)"
                         r"(?!\s+or\s+(?:later|after|newer|earlier|before|older|more|less|up|over|under|above|below))",
                         re.IGNORECASE)


def _year_alone(message: str, frame: _Frame) -> tuple[str, _Frame] | None:
    """A year said alone ("how many hikes in 2024 were longer than 10 km") over dates of more years: its rows. The
    hikes of 2023 were counted too (probe54)."""
    m = _YEAR_ALONE.search(message)
    if m is None:
        return None
    year, dates = int(m.group("year")), next(iter(frame.dates.values()))
    rows = frame.select([d is not None and d.year == year for d in dates])
    return (str(year), rows) if 0 < rows.rows < frame.rows else None


_MONTH_ALONE = re.compile(rf"\b(?:in|during|for|of|from)\s+(?P<month>{_MONTH_WORD})\b(?!\s*\d)", re.IGNORECASE)


def _month_alone(message: str, frame: _Frame) -> tuple[str, _Frame] | None:
    """A month said without its year ("how many runs did i do in june"), when the table's dates hold it in one year
    only: that month of that year. The 1.5B's runs over 10 km were counted from May to July (probe51)."""
    m = _MONTH_ALONE.search(message)
    dates = next(iter(frame.dates.values()))
    if m is None or (month := _MONTHS.get(m.group("month").lower()[:3])) is None:   # "sept", "june": "sep", "jun"
        return None
    years = {d.year for d in dates if d is not None and d.month == month}
    if len(years) != 1:
        return None
    year = years.pop()
    rows = frame.select([d is not None and d.year == year and d.month == month for d in dates])
    name = calendar.month_name[month]
    return (f"{name} {year}", rows) if rows.rows != frame.rows else None


def _tabular(rows: list[list[Any]]) -> bool:
    """Whether parsed rows are a table: two or more columns that most rows fill alike, or one column of
    numbers. Prose read as CSV is one ragged column ("# Report", "Revenue was ...")."""
    filled = [[c for c in r if c is not None and str(c).strip()] for r in rows]
    filled = [r for r in filled if r]
    if len(filled) < 2:
        return False
    width = len(rows[0])
    if width < 2 or len(filled[0]) < 2:
        return width == 1 and sum(to_number(r[0]) is not None for r in filled[1:]) >= 0.9 * (len(filled) - 1)
    alike = sum(1 for r in rows[1:] if len([c for c in r if c is not None]) in (width, len(filled[0])))
    return alike >= 0.8 * (len(rows) - 1)


def _read_rows(path: Path) -> list[list[Any]]:
    if path.stat().st_size > MAX_BYTES:
        raise ToolFailure(f"{path.name} is larger than 50 MB")
    try:
        rows = _load_rows(path)
    except Exception as exc:  # noqa: BLE001 - a corrupt workbook can raise many things
        raise ToolFailure(f"could not read {path.name}: {exc}") from None
    rows = [r for r in rows if any(c is not None and str(c).strip() for c in r)]
    if not rows:
        raise ToolFailure(f"{path.name} has no rows")
    return rows


def _frame(rows: list[list[Any]]) -> _Frame:
    names, body = _table(rows)
    return _Frame(names, body, _column_types(names, body))
