"""Moving memory between homes: JSON Lines export and import of ``memory.db``.

The file starts with a header line, then one object per row, each with a
``type``: ``fact`` (every category: facts, preferences, reminders…), ``turn``
(past conversations), ``tool_call`` (tool history) and ``procedure`` (learned
skills, when that table exists). Columns keep the database's types and
order, rows keep insertion order, so exporting, importing into an empty home
and exporting again gives the same bytes.

Vectors are not exported: they belong to one embedder, and the store
re-embeds rows that lack one when it next loads them. Facts keep their ids
(the handle users see); turns and tool calls get new row ids.

Import is all or nothing: every line is checked first (one-line error with
the line number), then all rows go in one transaction. The checks bound what
a hostile file can do: a line is at most ``MAX_LINE_CHARS`` and nested at most
``MAX_DEPTH`` deep (records are flat), text fields have the caps the store
itself keeps (a fact is at most ``MAX_FACT_CHARS``, as ``remember`` keeps it),
numbers must be finite and in their column's range, and ``NaN``/``Infinity``
are refused. A row that is already
there (same fact id or procedure name, same turn or tool call) is skipped,
so importing a file twice adds nothing. A fact that looks like a secret is
skipped too, as the store would refuse to remember it.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import IO, Any, Iterable, Iterator

from .credentials import looks_like_credential
from .records import CATEGORIES, MemoryInputError
from .store import MAX_FACT_CHARS, MAX_TURN_CHARS, MemoryStore

__all__ = ["FORMAT", "VERSION", "TABLES", "TableSpec", "ImportReport", "export_lines", "parse_export",
           "import_rows", "bounded_lines", "MAX_LINE_CHARS", "MAX_DEPTH", "MAX_TEXT_CHARS"]

MAX_LINE_CHARS = 1 << 20  # one record; the longest real one is a 4,000-character turn, escaped
MAX_DEPTH = 4             # records are flat objects; deeper nesting is refused before it is parsed
MAX_TEXT_CHARS = 20_000   # any text field without a cap of its own (procedure bodies are cut at 8,000)
MAX_COUNT = 2**31 - 1
# text caps the store keeps on its own writes; an import may not bring in more
_TEXT_CAPS = {("fact", "content"): MAX_FACT_CHARS, ("turn", "content"): MAX_TURN_CHARS}
# (low, high) for every number column; None where any finite value in the column's type will do
_RANGES: dict[str, tuple[float, float]] = {
    "sensitive": (0, 1), "enabled": (0, 1), "confidence": (0.0, 1.0), "use_count": (0, MAX_COUNT),
    "success_count": (0, MAX_COUNT), "attempt_count": (0, MAX_COUNT), "duration_ms": (0.0, 1e12),
}
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')

FORMAT = "gaia-lite-memory"
VERSION = 1

# column type codes: s text, s? text or null, i integer, f number, f? number or null
_CHECKS = {
    "s": lambda v: isinstance(v, str),
    "s?": lambda v: v is None or isinstance(v, str),
    "i": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "f": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "f?": lambda v: v is None or (isinstance(v, (int, float)) and not isinstance(v, bool)),
}
_TYPE_NAMES = {"s": "text", "s?": "text or null", "i": "a whole number", "f": "a number", "f?": "a number or null"}


@dataclass(frozen=True)
class TableSpec:
    """One exported table: record type, columns with type codes, and the columns that identify a row."""

    kind: str
    table: str
    columns: tuple[tuple[str, str], ...]
    key: tuple[str, ...]
    order: str

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.columns)


TABLES: tuple[TableSpec, ...] = (
    TableSpec("fact", "knowledge", (
        ("id", "s"), ("category", "s"), ("content", "s"), ("domain", "s"), ("context", "s"), ("entity", "s"),
        ("sensitive", "i"), ("due_at", "s?"), ("reminded_at", "s?"), ("confidence", "f"), ("source", "s"),
        ("created_at", "s"), ("updated_at", "s"), ("use_count", "i")), ("id",), "row_id"),
    TableSpec("turn", "conversations", (
        ("session_id", "s"), ("role", "s"), ("content", "s"), ("ts", "s")),
        ("session_id", "role", "ts", "content"), "id"),
    TableSpec("tool_call", "tool_history", (
        ("session_id", "s"), ("tool", "s"), ("args", "s"), ("status", "s"), ("error", "s"),
        ("duration_ms", "f?"), ("ts", "s")), ("session_id", "tool", "ts", "args"), "id"),
    TableSpec("procedure", "procedures", (
        ("name", "s"), ("when_to_use", "s"), ("body", "s"), ("tools_required", "s"), ("tool_sequence", "s"),
        ("success_count", "i"), ("attempt_count", "i"), ("enabled", "i"), ("provenance", "s"),
        ("created_at", "s"), ("last_used_at", "s?")), ("name",), "id"),
)
_BY_KIND = {spec.kind: spec for spec in TABLES}


@dataclass
class ImportReport:
    added: dict[str, int] = field(default_factory=dict)
    already_there: dict[str, int] = field(default_factory=dict)
    secrets_skipped: list[str] = field(default_factory=list)  # fact ids

    def to_dict(self) -> dict[str, Any]:
        return {"added": self.added, "already_there": self.already_there, "secrets_skipped": self.secrets_skipped}


def _has_table(conn: Any, table: str) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", (table,)).fetchone() is not None


def export_lines(store: MemoryStore | None) -> Iterator[str]:
    """The export file's lines (no trailing newlines), header first; only the header without a store."""
    yield json.dumps({"type": FORMAT, "version": VERSION})
    if store is None:
        return
    with store.reading() as conn:
        for spec in TABLES:
            if not _has_table(conn, spec.table):
                continue
            rows = conn.execute(f"SELECT {', '.join(spec.names)} FROM {spec.table} ORDER BY {spec.order}").fetchall()
            for row in rows:
                yield json.dumps({"type": spec.kind, **dict(zip(spec.names, row))}, ensure_ascii=False)


def _check_value(spec: TableSpec, name: str, code: str, value: Any, lineno: int) -> None:
    """The value's type, its column's range (numbers) or cap (text); MemoryInputError naming the line."""
    where = f"line {lineno}: {spec.kind} {name}"
    if not _CHECKS[code](value):
        shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
        raise MemoryInputError(f"{where} must be {_TYPE_NAMES[code]}, not {shown}")
    if isinstance(value, str):
        cap = _TEXT_CAPS.get((spec.kind, name), MAX_TEXT_CHARS)
        if len(value) > cap:
            raise MemoryInputError(f"{where} is {len(value):,} characters; the limit is {cap:,} "
                                   "(what gaia-lite itself keeps); shorten it")
    elif value is not None:
        if isinstance(value, float) and not math.isfinite(value):
            raise MemoryInputError(f"{where} must be a finite number, not {value!r}")
        low, high = _RANGES.get(name, (-MAX_COUNT, MAX_COUNT))
        if not low <= value <= high:
            shown = f"{value:.3g}" if isinstance(value, float) or abs(value) > 10**12 else str(value)
            raise MemoryInputError(f"{where} = {shown} is out of range; expected {low:,} to {high:,}")


def _check_row(obj: dict[str, Any], lineno: int) -> tuple[TableSpec, dict[str, Any]]:
    spec = _BY_KIND.get(obj.get("type"))  # type: ignore[arg-type]
    if spec is None:
        raise MemoryInputError(f"line {lineno}: unknown record type {str(obj.get('type'))[:40]!r}; "
                               f"expected one of {', '.join(_BY_KIND)}")
    extra = sorted(set(obj) - set(spec.names) - {"type"})
    if extra:
        raise MemoryInputError(f"line {lineno}: unknown field(s) {', '.join(extra)[:200]} in a {spec.kind} record")
    for name, code, check, cap, (low, high) in _PLANS[spec.kind]:
        if name not in obj:
            raise MemoryInputError(f"line {lineno}: {spec.kind} record without {name!r}")
        v = obj[name]
        # the normal path in one test; anything odd goes to _check_value, which says what is wrong
        if not check(v) or (len(v) > cap if v.__class__ is str else v is not None and not low <= v <= high):
            _check_value(spec, name, code, v, lineno)
    if spec.kind == "fact":
        if obj["category"] not in CATEGORIES:
            raise MemoryInputError(f"line {lineno}: unknown fact category {obj['category'][:40]!r}")
        if not obj["id"].strip() or not obj["content"].strip():
            raise MemoryInputError(f"line {lineno}: a fact needs a non-empty id and content")
    return spec, {name: obj[name] for name in spec.names}


_PLANS = {spec.kind: tuple((name, code, _CHECKS[code], _TEXT_CAPS.get((spec.kind, name), MAX_TEXT_CHARS),
                            _RANGES.get(name, (-MAX_COUNT, MAX_COUNT))) for name, code in spec.columns)
          for spec in TABLES}


def _too_deep(line: str, limit: int = MAX_DEPTH) -> bool:
    """Is ``line`` nested deeper than ``limit``? Counted outside strings, before any parser recurses."""
    if line.count("[") + line.count("{") <= limit:  # the normal path: a flat record
        return False
    depth = 0
    for ch in _STRING.sub("", line):
        if ch in "[{":
            depth += 1
            if depth > limit:
                return True
        elif ch in "]}":
            depth -= 1
    return False


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


_DECODER = json.JSONDecoder(parse_constant=_no_constant)  # one decoder: json.loads(**kw) builds one a call


def _load_line(line: str, lineno: int) -> Any:
    """One line as JSON, within the line and depth limits; NaN and Infinity refused."""
    if len(line.rstrip("\r\n")) > MAX_LINE_CHARS:
        raise MemoryInputError(f"line {lineno}: longer than {MAX_LINE_CHARS:,} characters; not a record of "
                               "`gaia-lite memory export`")
    if _too_deep(line):
        raise MemoryInputError(f"line {lineno}: nested more than {MAX_DEPTH} deep; export records are flat")
    try:
        return _DECODER.decode(line)
    except ValueError as exc:  # JSONDecodeError, the constants above, an integer of 4,300+ digits
        raise MemoryInputError(f"line {lineno}: not valid JSON ({getattr(exc, 'msg', None) or exc})") from None


def bounded_lines(fh: IO[str]) -> Iterator[str]:
    """The lines of ``fh``, each read at most ``MAX_LINE_CHARS`` + 1 characters at a time, so a
    gigabyte without a newline is refused by ``parse_export`` without being held in memory."""
    while True:
        line = fh.readline(MAX_LINE_CHARS + 1)
        if not line:
            return
        if len(line) > MAX_LINE_CHARS and not line.endswith("\n"):
            yield line  # too long: parse_export names it and stops reading
            return
        yield line


def parse_export(lines: Iterable[str]) -> list[tuple[TableSpec, dict[str, Any]]]:
    """Check a whole export file; raises MemoryInputError naming the first bad line."""
    rows: list[tuple[TableSpec, dict[str, Any]]] = []
    header_seen = False
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        obj = _load_line(line, lineno)
        if not isinstance(obj, dict):
            raise MemoryInputError(f"line {lineno}: expected a JSON object")
        if not header_seen:
            if obj.get("type") != FORMAT:
                raise MemoryInputError(f"line {lineno}: not a gaia-lite memory export (no {FORMAT!r} header); "
                                       "make one with `gaia-lite memory export`")
            if obj.get("version") != VERSION:
                raise MemoryInputError(f"line {lineno}: export version {obj.get('version')!r} is not supported "
                                       f"(this gaia-lite reads version {VERSION})")
            header_seen = True
            continue
        rows.append(_check_row(obj, lineno))
    if not header_seen:
        raise MemoryInputError("the file is empty; make an export with `gaia-lite memory export`")
    return rows


def _exists(conn: Any, spec: TableSpec, row: dict[str, Any]) -> bool:
    where = " AND ".join(f"{k} = ?" for k in spec.key)
    return conn.execute(f"SELECT 1 FROM {spec.table} WHERE {where} LIMIT 1",
                        [row[k] for k in spec.key]).fetchone() is not None


def import_rows(store: MemoryStore, rows: Iterable[tuple[TableSpec, dict[str, Any]]]) -> ImportReport:
    """Insert checked rows in one transaction (all or nothing); see the module doc for what is skipped."""
    report = ImportReport()
    tables: dict[str, bool] = {}
    with store.transaction() as conn:
        for spec, row in rows:
            if spec.table not in tables:
                tables[spec.table] = _has_table(conn, spec.table)
            if not tables[spec.table]:
                raise MemoryInputError(f"this memory database has no {spec.table} table for {spec.kind} records")
            if _exists(conn, spec, row):
                report.already_there[spec.kind] = report.already_there.get(spec.kind, 0) + 1
                continue
            if spec.kind == "fact" and looks_like_credential(row["content"]):
                report.secrets_skipped.append(row["id"])
                continue
            conn.execute(f"INSERT INTO {spec.table}({', '.join(spec.names)}) "
                         f"VALUES ({', '.join('?' * len(spec.names))})", [row[n] for n in spec.names])
            report.added[spec.kind] = report.added.get(spec.kind, 0) + 1
    return report

