"""Other SQL dialects' ways, read as SQLite's, so a query a small model writes from memory runs.

Qwen2.5-Coder writes the SQL it saw most: ``SELECT TOP 1 ...`` (SQL Server), ``MONTH(date) = 1`` and
``YEAR(date)`` (MySQL), ``EXTRACT(MONTH FROM date)`` and ``ILIKE`` (PostgreSQL), and a date as the file
writes it (``'01/31/2025'``) where the table holds ISO dates. SQLite refuses the first four, and the last
matches no row, so "how much did I spend in January?" came back as an error or as "none". Each is read as
the SQLite that means the same, with a note (the answer then shows the query as it ran); YEAR(), MONTH(),
DAY() and QUARTER() run as they are written, as functions the table's database has (``date_part``).

Only shapes are read here (SQL keywords and date formats), never the user's words.
"""

from __future__ import annotations

from typing import Callable, Sequence

from .sql_text import Token

__all__ = ["in_sqlite", "date_part", "PARTS"]

# a part of a date as MySQL names its function and EXTRACT its argument: run as SQLite functions of the same
# name over the ISO dates the table holds (``date_part``), so the query and its answer read as written
PARTS = ("year", "month", "day", "quarter")
_COMPARISONS = frozenset({"=", "==", "<", ">", "<=", ">=", "!=", "<>", "between", "and", "in", "(", ","})
_LOOK_BACK = 5  # tokens between a date column and a date it is compared with: d BETWEEN 'a' AND 'b', d IN ('a', 'b')


def in_sqlite(toks: Sequence[Token], date_columns: Sequence[str],
              iso: Callable[[str], str | None]) -> tuple[str, list[str]]:
    """The query with other dialects' ways written as SQLite's, and a note per kind changed.

    ``date_columns``: the table's date columns (held as ISO text); ``iso(text)``: that text as an ISO date
    when it is a date written another way, else None."""
    out = [t.text for t in toks]
    notes: list[str] = []
    plain = [i for i, t in enumerate(toks) if t.kind not in ("space", "comment")]
    _top_as_limit(toks, plain, out, notes)
    _extract_as_part(toks, plain, out, notes)
    for i in plain:
        if toks[i].kind == "word" and toks[i].lower == "ilike":
            out[i] = "LIKE"   # SQLite's LIKE already ignores the case of letters
            _note(notes, "ILIKE read as LIKE")
    _dates_as_iso(toks, plain, out, notes, {c.lower() for c in date_columns}, iso)
    return "".join(out), notes


def _note(notes: list[str], note: str) -> None:
    if note not in notes:
        notes.append(note)


def _top_as_limit(toks: Sequence[Token], plain: list[int], out: list[str], notes: list[str]) -> None:
    """``SELECT [DISTINCT] TOP n ...`` as ``SELECT ... LIMIT n`` (a query that has a LIMIT keeps it)."""
    for k, i in enumerate(plain[:-2]):
        if toks[i].lower != "select":
            continue
        at = k + 1 + (toks[plain[k + 1]].lower in ("distinct", "all"))
        if at + 1 >= len(plain) or toks[plain[at]].lower != "top" or toks[plain[at + 1]].kind != "number":
            continue
        n = toks[plain[at + 1]].text
        out[plain[at]] = out[plain[at + 1]] = ""
        depth = toks[i].depth
        limited = any(toks[j].lower == "limit" and toks[j].depth == depth for j in plain[at + 2:])
        if not limited:
            end = next((j for j in plain[at + 2:] if toks[j].text == ")" and toks[j].depth < depth), len(toks))
            last = max(j for j in plain if j < end)   # the SELECT's last token: its LIMIT comes after it
            out[last] = f"{out[last]} LIMIT {n}"
        _note(notes, f"TOP {n} read as LIMIT {n}")


def _extract_as_part(toks: Sequence[Token], plain: list[int], out: list[str], notes: list[str]) -> None:
    """``EXTRACT(MONTH FROM x)`` as ``MONTH(x)``."""
    for k, i in enumerate(plain[:-3]):
        if toks[i].lower == "extract" and toks[plain[k + 1]].text == "(" and toks[plain[k + 2]].lower in PARTS \
                and toks[plain[k + 3]].lower == "from":
            part = toks[plain[k + 2]].text.upper()
            last = plain[k + 3] + (plain[k + 3] + 1 < len(toks) and toks[plain[k + 3] + 1].kind == "space")
            out[i] = f"{part}("
            for j in range(plain[k + 1], last + 1):
                out[j] = ""
            _note(notes, f"EXTRACT({part} FROM ...) read as {part}(...)")


def date_part(part: str) -> Callable[[object], int | None]:
    """The SQLite function ``part`` (one of PARTS) of an ISO date text: 2025-03-17 is year 2025, month 3, day 17,
    quarter 1; anything else is NULL."""
    def of(value: object) -> int | None:
        text = value if isinstance(value, str) else ""
        try:
            y, m, d = int(text[0:4]), int(text[5:7]), int(text[8:10])
        except ValueError:
            return None
        if text[4:5] != "-" or text[7:8] != "-":
            return None
        return {"year": y, "month": m, "day": d, "quarter": (m + 2) // 3}[part]
    return of


def _dates_as_iso(toks: Sequence[Token], plain: list[int], out: list[str], notes: list[str], columns: set[str],
                  iso: Callable[[str], str | None]) -> None:
    """A date written another way ('01/31/2025') that a date column is compared with, as the ISO date it holds."""
    if not columns:
        return
    held = False
    for k, i in enumerate(plain):
        if toks[i].kind != "text" or out[i] != toks[i].text:
            continue
        written = toks[i].inner
        as_iso = iso(written)
        if as_iso is None or as_iso == written:
            continue
        before = [toks[j] for j in plain[max(0, k - _LOOK_BACK):k]]
        near = next((t for t in reversed(before) if t.kind in ("word", "name")
                     and t.lower not in _COMPARISONS), None)
        if near is None or near.inner.lower() not in columns \
                or not all(t.lower in _COMPARISONS or t.kind == "text" for t in before[before.index(near) + 1:]):
            continue
        out[i] = f"'{as_iso}'"
        _note(notes, f"'{written}' read as '{as_iso}'")
        held = True
    if held:
        _note(notes, "the table holds dates as YYYY-MM-DD")
