"""analyze_data_file: exact aggregates over CSV, TSV and Excel tables.

Aggregate questions ("total Q1 revenue", "top salesperson") must be answered
from every row, not from retrieved chunks, so this tool reads the whole
table, types each column (dates, numbers such as ``$1,234.50``, text), filters
by a period and sums with ``Decimal`` so totals are exact.
"""

from __future__ import annotations

import calendar
import csv
import io
import re
from collections import defaultdict
from datetime import date, datetime, timedelta
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, Callable, Literal, Optional

from gaia_lite.registry.context import ToolContext
from gaia_lite.registry.spec import tool
from gaia_lite.registry.failure import ToolFailure, error_payload

from .file_text import TEXT_EXTS
from .sandbox import SandboxError, resolve_user_path

__all__ = ["TOOLS", "analyze_data_file", "parse_period", "to_number", "to_date"]

MAX_BYTES = 50 * 1024 * 1024
TABLE_SUFFIXES = (".csv", ".tsv", ".txt", ".xlsx", ".xlsm")
ANALYSIS_TYPES = ("summary", "spending", "trends", "full")
_VALUE_NAMES = ("revenue", "sales", "amount", "total", "spend", "spent", "cost", "value", "profit")
# Per-unit or ratio columns: averaged in statistics, never summed unless asked for.
_NOT_ADDITIVE = re.compile(r"price|rate|percent|pct|ratio|avg|average|mean|score", re.IGNORECASE)
_CATEGORY_NAMES = ("category", "type", "merchant", "vendor", "payee", "department", "product", "description")
_ID_LIKE = re.compile(r"(^|_)(id|year|month|day|zip|phone|code)$", re.IGNORECASE)
_MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
_MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
# A table this small goes back whole: "and what was its q1?" after "which region had the highest q2?"
# needs the rows, not only totals.
SMALL_TABLE_ROWS = 12
_DATE_FORMATS = ("%Y-%m-%d", "%Y/%m/%d", "%m/%d/%Y", "%m/%d/%y", "%d.%m.%Y", "%Y-%m-%d %H:%M:%S",
                 "%Y-%m-%dT%H:%M:%S", "%b %d, %Y", "%B %d, %Y", "%d %b %Y", "%d %B %Y")


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


def _plain(number: Decimal | None) -> int | float | None:
    """A Decimal as a JSON number: an int when whole, else rounded to 4 places."""
    if number is None:
        return None
    return int(number) if number == number.to_integral_value() else float(round(number, 4))


def _fmt(number: Decimal) -> str:
    return f"{int(number):,}" if number == number.to_integral_value() else f"{number:,.2f}"


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


def parse_period(text: str) -> tuple[str, Callable[[date], bool]]:
    """Turn "2025-Q1", "Q1 2025", "2025-01", "January 2025", "2025", "Q1" or
    "2025-01-01..2025-03-31" into (label, predicate). Raises ValueError."""
    t = text.strip()
    if len(t) > MAX_PERIOD_CHARS:  # the splitting regex is quadratic on long runs of spaces
        raise ValueError(f"date_range is {len(t)} characters; a period is at most {MAX_PERIOD_CHARS}, "
                         "e.g. 2025-Q1 or 2025-01-01..2025-03-31")
    if m := re.fullmatch(r"q([1-4])", t.lower()):
        months = range(3 * int(m.group(1)) - 2, 3 * int(m.group(1)) + 1)
        return f"Q{m.group(1)} (any year)", lambda d: d.month in months
    parts = re.split(r"\s*\.\.\s*|\s+to\s+|\s+-\s+", t, maxsplit=1, flags=re.IGNORECASE)
    if len(parts) == 2:
        start, end = _period_bounds(parts[0]), _period_bounds(parts[1])
        if start and end:
            lo, hi = start[0], end[1]
            return f"{lo.isoformat()}..{hi.isoformat()}", lambda d: lo <= d <= hi
    elif (bounds := _period_bounds(t)) is not None:
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
        elif sum(to_date(v) is not None for v in values) >= 0.9 * len(values):
            types[name] = "date"
        elif sum(to_number(v) is not None for v in values) >= 0.9 * len(values):
            types[name] = "number"
        else:
            types[name] = "text"
    return types


def _find_column(names: list[str], wanted: str) -> str | None:
    def key(s: str) -> str:
        return re.sub(r"[\s_\-]+", "", s.lower())
    return next((n for n in names if key(n) == key(wanted)), None)


# ---------------------------------------------------------------- analysis

class _Frame:
    """Typed rows: ``numbers[col][i]`` is a Decimal or None, ``text[col][i]`` a str."""

    def __init__(self, names: list[str], body: list[list[Any]], types: dict[str, str]) -> None:
        self.names, self.types, self.rows = names, types, len(body)
        idx = {n: i for i, n in enumerate(names)}
        self.numbers = {n: [to_number(r[idx[n]]) for r in body] for n in names if types[n] == "number"}
        self.dates = {n: [to_date(r[idx[n]]) for r in body] for n in names if types[n] == "date"}
        self.text = {n: ["" if r[idx[n]] is None else str(r[idx[n]]).strip() for r in body] for n in names}

    def select(self, keep: list[bool]) -> "_Frame":
        out = object.__new__(_Frame)
        out.names, out.types, out.rows = self.names, self.types, sum(keep)
        for attr in ("numbers", "dates", "text"):
            setattr(out, attr, {k: [v for v, ok in zip(vs, keep) if ok] for k, vs in getattr(self, attr).items()})
        return out


def _stats(values: list[Decimal | None]) -> dict:
    nums = [v for v in values if v is not None]
    if not nums:
        return {"count": 0}
    total = sum(nums, Decimal(0))
    return {"sum": _plain(total), "mean": _plain(total / len(nums)), "min": _plain(min(nums)),
            "max": _plain(max(nums)), "count": len(nums)}


def _grouped(frame: _Frame, by: str, value_cols: list[str], limit: int = 25) -> dict:
    sums: dict[str, dict[str, Decimal]] = defaultdict(lambda: defaultdict(Decimal))
    counts: dict[str, int] = defaultdict(int)
    for i, key in enumerate(frame.text[by]):
        key = key or "(blank)"
        counts[key] += 1
        for col in value_cols:
            if frame.numbers[col][i] is not None:
                sums[key][col] += frame.numbers[col][i]
    rank = value_cols[0] if value_cols else None
    order = sorted(counts, key=lambda k: (sums[k][rank] if rank else counts[k], counts[k]), reverse=True)
    groups = [{by: k, **{c: _plain(sums[k][c]) for c in value_cols}, "rows": counts[k]} for k in order]
    out = {"group_by": by, "ranked_by": rank or "rows", "group_count": len(groups), "groups": groups[:limit]}
    if groups:
        out["top_1"] = groups[0]
    return out


def _trends(frame: _Frame, date_col: str, value_col: str | None) -> dict:
    months: dict[str, Decimal] = defaultdict(Decimal)
    counts: dict[str, int] = defaultdict(int)
    for i, d in enumerate(frame.dates[date_col]):
        if d is None:
            continue
        key = f"{d.year}-{d.month:02d}"
        counts[key] += 1
        if value_col and frame.numbers[value_col][i] is not None:
            months[key] += frame.numbers[value_col][i]
    series, previous = [], None
    for key in sorted(counts):
        point = {"month": key, "rows": counts[key]}
        if value_col:
            point[value_col] = _plain(months[key])
            if previous:
                point["change_pct"] = _plain(round((months[key] - previous) / previous * 100, 1))
            previous = months[key]
        series.append(point)
    quarters: dict[str, Decimal] = defaultdict(Decimal)
    for key, total in months.items():
        year, month = key.split("-")
        quarters[f"{year}-Q{(int(month) - 1) // 3 + 1}"] += total
    return {"date_column": date_col, "value_column": value_col, "monthly": series[-36:],
            "quarterly": {k: _plain(v) for k, v in sorted(quarters.items())} if value_col else {}}


def _value_columns(frame: _Frame, requested: list[str]) -> list[str]:
    numeric = [n for n in frame.names if frame.types[n] == "number"]
    if requested:
        return [c for c in requested if c in numeric]
    additive = [n for n in numeric if not _ID_LIKE.search(n) and not _NOT_ADDITIVE.search(n)]
    preferred = [n for name in _VALUE_NAMES for n in additive if name in n.lower()]
    return list(dict.fromkeys(preferred + additive))


def _category_column(frame: _Frame) -> str | None:
    texts = [n for n in frame.names if frame.types[n] == "text" and 1 < len(set(frame.text[n])) <= 50]
    named = [n for want in _CATEGORY_NAMES for n in texts if want in n.lower()]
    return (named or texts or [None])[0]


def _label_column(frame: _Frame) -> str | None:
    """The text column that names each row (every value different), e.g. ``region`` in a table with one
    row per region; None when no column does."""
    if not 1 < frame.rows <= 50:
        return None
    return next((n for n in frame.names if frame.types[n] == "text"
                 and all(frame.text[n]) and len(set(frame.text[n])) == frame.rows), None)


def _extremes(frame: _Frame, key: str, column: str) -> list[str]:
    values = [(v, frame.text[key][i]) for i, v in enumerate(frame.numbers[column]) if v is not None]
    if len(values) < 2:
        return []
    (high, at_high), (low, at_low) = max(values, key=lambda p: p[0]), min(values, key=lambda p: p[0])
    return [f"Highest {column}: {at_high} ({_fmt(high)}); lowest {column}: {at_low} ({_fmt(low)})"]


def _all_dates(frame: _Frame) -> str:
    """" over every date (2025-01-03..2025-09-28)" for an unfiltered table with dates, so a total of the
    whole file is not read as the total of the period a question named."""
    days = [d for d in next(iter(frame.dates.values()), []) if d is not None]
    return f" over every date ({min(days)}..{max(days)})" if days else ""


def _analyze(frame: _Frame, analysis_type: str, value_cols: list[str], group_by: str | None,
             period_label: str | None) -> dict:
    value = value_cols[0] if value_cols else None
    scope = f" for {period_label}" if period_label else _all_dates(frame)
    totals = {c: sum((v for v in frame.numbers[c] if v is not None), Decimal(0)) for c in value_cols}
    out: dict[str, Any] = {"totals": {c: _plain(t) for c, t in totals.items()}}
    highlights = [f"Total {value}{scope}: {_fmt(totals[value])} ({frame.rows} rows)"] \
        if value else [f"{frame.rows} rows{scope}"]
    if analysis_type in ("summary", "full"):
        described = value_cols + [n for n in frame.numbers if n not in value_cols and not _ID_LIKE.search(n)]
        out["statistics"] = {c: _stats(frame.numbers[c]) for c in described}
        out["text_columns"] = {n: {"unique": len(set(frame.text[n]))} for n in frame.names
                               if frame.types[n] == "text"}
        key = _label_column(frame)
        if key:  # "which region had the highest q2?" is answered by naming the row
            for c in described[:4]:
                highlights.extend(_extremes(frame, key, c))
        if frame.rows <= SMALL_TABLE_ROWS:
            out["all_rows"] = [{n: frame.text[n][i] for n in frame.names} for i in range(frame.rows)]
    by = group_by or (_category_column(frame) if analysis_type == "spending" else None)
    if by:
        out.update(_grouped(frame, by, value_cols))
        if out.get("top_1") and value:
            top = out["top_1"]
            highlights.append(f"Top {by} by {value}{scope}: {top[by]} with {_fmt(Decimal(str(top[value])))}")
    if analysis_type == "spending" and value:
        idx = sorted(range(frame.rows), key=lambda i: frame.numbers[value][i] or Decimal(0), reverse=True)[:5]
        out["largest_rows"] = [{n: frame.text[n][i] for n in frame.names} for i in idx]
    date_col = next(iter(frame.dates), None)
    if analysis_type in ("trends", "full") and date_col:
        out["trends"] = _trends(frame, date_col, value)
    elif date_col and value and not period_label:  # "Q1 revenue" asked without a date_range still has its figure
        quarters = _trends(frame, date_col, value)["quarterly"]
        if len(quarters) > 1:
            # first: the 0.5B model answered "Q1 revenue" with the first total it read
            out = {"quarterly": quarters, **out}
            highlights.insert(0, f"{value} by quarter: " + ", ".join(
                f"{q} {_fmt(Decimal(str(v)))}" for q, v in quarters.items()))
    if analysis_type == "full":
        out["breakdowns"] = {n: _grouped(frame, n, value_cols, limit=10) for n in frame.names
                             if frame.types[n] == "text" and n != by and 1 < len(set(frame.text[n])) <= 50}
    out["highlights"] = highlights
    return out


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


def _as_text(ctx: ToolContext, path: Path) -> dict[str, Any]:
    """A text file that is not a table, read as ``read_file`` reads it, with a note saying so. Small
    models send a Markdown report here for "what was Q3 revenue?", and an error then became the
    answer; the text has the figure."""
    from .files import read_file  # files imports nothing from here; kept local to keep this module light

    result = read_file(ctx, str(path))
    if result.get("status") != "success":
        return result
    # the note goes last: the 0.5B model answered with whatever line came first
    return {**result, "note": f"{path.name} is not a table, so this is its text"}


@tool
def analyze_data_file(ctx: ToolContext, file_path: str,
                      analysis_type: Literal["summary", "spending", "trends", "full"] = "summary",
                      columns: Optional[str] = None, group_by: Optional[str] = None,
                      date_range: Optional[str] = None) -> dict:
    """Compute exact totals, averages and rankings from a CSV, TSV or Excel file.

    Use it for "total revenue in Q1" or "top salesperson": it reads every row.

    Args:
        file_path: The .csv, .tsv or .xlsx file.
        analysis_type: One of summary, spending, trends, full.
        columns: Comma-separated number columns to total, e.g. "revenue".
        group_by: Column to group and rank by, e.g. "salesperson".
        date_range: Period such as 2025-Q1, January 2025, 2025-01-01..2025-03-31.
    """
    kind = (analysis_type or "summary").strip().lower()
    if kind not in ANALYSIS_TYPES:
        return error_payload(f"analysis_type must be one of {', '.join(ANALYSIS_TYPES)}; got {analysis_type!r}")
    try:
        path = _locate(ctx, file_path)
        if path.suffix.lower() not in TABLE_SUFFIXES:
            if path.suffix.lower() in TEXT_EXTS:  # a report, notes: its text holds the figures asked for
                return _as_text(ctx, path)
            raise ToolFailure(f"{path.name} is not a table file; supported: .csv, .tsv, .xlsx (save .xls as .xlsx)")
        frame = _read_frame(path)
        result: dict[str, Any] = {"status": "success", "file": str(path), "analysis_type": kind,
                                  "rows_total": frame.rows,
                                  "columns": [{"name": n, "type": frame.types[n]} for n in frame.names]}
        requested = _number_columns(frame, columns)
        by = _group_column(frame.names, group_by)
        label = None
        if date_range and date_range.strip():
            frame, label, result["date_filter"] = _in_period(frame, date_range)
    except ToolFailure as exc:
        return exc.payload()
    result["rows_analyzed"] = frame.rows
    result.update(_analyze(frame, kind, _value_columns(frame, requested), by, label))
    return result


def _locate(ctx: ToolContext, file_path: str) -> Path:
    """The file asked for, inside the sandbox; a bare name may be a document already indexed."""
    try:
        path = resolve_user_path(ctx, file_path)
        if not path.is_file():
            path = _indexed_namesake(ctx, file_path) or path
    except SandboxError as exc:
        raise ToolFailure(str(exc)) from None
    if not path.is_file():
        raise ToolFailure(f"{path} does not exist; find it with search_file")
    return path


def _read_frame(path: Path) -> _Frame:
    if path.stat().st_size > MAX_BYTES:
        raise ToolFailure(f"{path.name} is larger than 50 MB")
    try:
        names, body = _table(_load_rows(path))
    except Exception as exc:  # noqa: BLE001 - a corrupt workbook can raise many things
        raise ToolFailure(f"could not read {path.name}: {exc}") from None
    if not names:
        raise ToolFailure(f"{path.name} has no rows")
    return _Frame(names, body, _column_types(names, body))


def _number_columns(frame: _Frame, columns: str | None) -> list[str]:
    """The comma-separated ``columns``, each matched to a number column of the table."""
    requested = []
    for raw in filter(None, (c.strip() for c in (columns or "").split(","))):
        found = _find_column(frame.names, raw)
        if found is None or frame.types[found] != "number":
            numeric = [n for n in frame.names if frame.types[n] == "number"]
            raise ToolFailure(f"column {raw!r} is not a number column; number columns: {', '.join(numeric) or 'none'}")
        requested.append(found)
    return requested


def _group_column(names: list[str], group_by: str | None) -> str | None:
    if not group_by:
        return None
    by = _find_column(names, group_by)
    if by is None:
        raise ToolFailure(f"group_by column {group_by!r} not found; columns: {', '.join(names)}")
    return by


def _in_period(frame: _Frame, date_range: str) -> tuple[_Frame, str, dict[str, str]]:
    """The rows whose first date column falls in ``date_range``, its resolved label, and the filter report."""
    if not frame.dates:
        raise ToolFailure("date_range was given but no column holds dates")
    try:
        label, inside = parse_period(date_range)
    except ValueError as exc:
        raise ToolFailure(str(exc)) from None
    date_col = next(iter(frame.dates))
    chosen = frame.select([d is not None and inside(d) for d in frame.dates[date_col]])
    return chosen, label, {"date_range": date_range, "resolved": label, "date_column": date_col}


TOOLS = [analyze_data_file]
