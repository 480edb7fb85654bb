"""Rows added to a CSV or TSV file without losing the rows it holds.

"log my race in races_2025.csv: 2025-09-14, River Run, 5 km, 24:55" is a row more. Asked for a file's complete
new text, a small model writes that one row, and the header and every earlier row are gone; asked for the text to
replace, it replaces the last row with the new one. When the message asks to add and says the new row's values,
and each row written has as many fields as the header, the rows go at the end of the table in the file's own
style and the rows it held stay.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

from .list_entry import ADD_WORDS

__all__ = ["rows_added", "rows_to_add", "row_to_follow", "row_misfit", "TABLE_SUFFIXES"]

TABLE_SUFFIXES = {".csv": ",", ".tsv": "\t"}
MAX_ROWS_ADDED = 12  # rows one request adds at once; more is a new table, written as asked
# a row is logged, recorded or entered as often as it is added
_ROW_WORDS = ADD_WORDS | {"log", "record", "enter", "track", "note"}
# words that ask for a table in place of the one there
_REPLACE_WORDS = frozenset("replace overwrite only just clear reset wipe instead".split())
_WORD = re.compile(r"[^\W_]+")
_UNIT_AFTER = re.compile(r"^(?P<number>[-+]?\d+(?:[.,]\d+)?)\s*[^\W\d_]{1,12}\.?$")


def rows_to_add(message: str, text: str, new: str, name: str) -> list[list[str]] | None:
    """The rows of ``new`` to add at the end of the table ``text`` (file ``name``), in the file's own form; None
    unless the message asks to add them and says most of their words, each has the header's number of fields, the
    file has a header and a row, and ``new`` is not the table again with rows of its own (a complete rewrite)."""
    sep = TABLE_SUFFIXES.get(Path(name).suffix.lower())
    said = {w.casefold() for w in _WORD.findall(message)}
    if sep is None or not _ROW_WORDS & said or _REPLACE_WORDS & said:
        return None
    table = _rows(text, sep)
    if len(table) < 2:
        return None
    header, held = table[0], {_key(r) for r in table[1:]}
    rows = [r for r in _rows(new, _separator_of(new, sep)) if _key(r) != _key(header)]
    if not 1 <= len(rows) <= MAX_ROWS_ADDED or any(len(r) != len(header) or _key(r) in held for r in rows):
        return None
    words = [w.casefold() for r in rows for f in r for w in _WORD.findall(f)]
    if not words or sum(w in said for w in words) * 2 < len(words):
        return None
    return [_fitted(r, table[1:]) for r in rows]


def rows_added(message: str, text: str, old: str, new: str, name: str) -> tuple[str, str] | None:
    """(``text`` with the rows of ``new`` after its last row, a note) when an edit that replaces ``old`` (a line of
    the table, or nothing) with ``new`` adds rows (``rows_to_add``) and ``new`` does not keep ``old``; else None."""
    sep = TABLE_SUFFIXES.get(Path(name).suffix.lower())
    if sep is None or (old.strip() and (old.strip() not in text or old.strip() in new)):
        return None
    rows = rows_to_add(message, text, new, name)
    if rows is None:
        return None
    out = io.StringIO()
    csv.writer(out, delimiter=sep, lineterminator="\n").writerows(rows)
    body = text if text.endswith("\n") or not text else text + "\n"
    shown = ", ".join(repr(sep.join(r)) for r in rows)
    return body + out.getvalue(), f"the request adds {'a row' if len(rows) == 1 else 'rows'}: {shown} went after " \
                                  f"the last row and the {len(_rows(text, sep)) - 1} rows there were kept"


def row_to_follow(message: str, name: str, text: str) -> str | None:
    """The last row of the table ``text`` (file ``name``), which rows the message adds go after; None unless the
    file is a CSV or TSV with a header and a row and the message asks to add (log, record) without asking for a
    table in its place. A held edit starts from it: held to a SQL query instead, the 1.5B looked for the race it
    was asked to log and found none (probe55)."""
    said = {w.casefold() for w in _WORD.findall(message)}
    sep = TABLE_SUFFIXES.get(Path(name).suffix.lower())
    if sep is None or not _ROW_WORDS & said or _REPLACE_WORDS & said or len(_rows(text, sep)) < 2:
        return None
    return next(row for row in reversed(text.splitlines()) if row.strip()).strip()


def row_misfit(message: str, text: str, old: str, new: str, name: str) -> str | None:
    """Why an edit that would put ``new`` in place of the table's row ``old`` is no row added, when the message asks
    to add one and a line of ``new`` has another number of fields than the header: "2025-05-18,10 km,48:12" over
    the last race of date,race,distance_km,time replaced that race (1.5B, probe55). None otherwise."""
    sep = TABLE_SUFFIXES.get(Path(name).suffix.lower())
    if sep is None or row_to_follow(message, name, text) is None or not old.strip() or old.strip() in new:
        return None
    table = _rows(text, sep)
    if [f.strip() for f in old.strip().split(sep)] not in table[1:]:
        return None
    header, example, said = table[0], sep.join(table[-1]), {w.casefold() for w in _WORD.findall(message)}
    how = (f"Write the new row with a value for each of {', '.join(header)}, in that order, like the last row "
           f"{example!r}; it is added after the rows there")
    for row in _rows(new, _separator_of(new, sep)):
        if len(row) != len(header):
            return f"not written: {sep.join(row)!r} has {len(row)} fields and the rows of {Path(name).name} have " \
                   f"{len(header)}. {how}"
        words = [w.casefold() for f in row for w in _WORD.findall(f)]
        if sum(w in said for w in words) * 2 < len(words) and not _said_row(old, said):
            # "23:48" made "23:49": no row the request logs (0.5B); a change of the row it names is a change
            return f"not written: {sep.join(row)!r} is not the row the request adds (its values are not in it). {how}"
    return None


def _said_row(row: str, said: set[str]) -> bool:
    """Whether the message names ``row`` (most of its words that are no number): a change of it, not a row more."""
    own = [w.casefold() for w in _WORD.findall(row) if not w.isdigit()]
    return bool(own) and sum(w in said for w in own) * 2 > len(own)


def _rows(text: str, sep: str) -> list[list[str]]:
    return [[f.strip() for f in r] for r in csv.reader(io.StringIO(text), delimiter=sep) if any(f.strip() for f in r)]


def _separator_of(new: str, sep: str) -> str:
    """The file's separator, or a comma for a TSV row the model wrote with commas."""
    return sep if sep in new or "," not in new else ","


def _key(row: list[str]) -> tuple[str, ...]:
    return tuple(f.casefold() for f in row)


def _fitted(row: list[str], held: list[list[str]]) -> list[str]:
    """``row`` with a unit dropped from a number where its column holds bare numbers ("5 km" under distance_km)."""
    out = []
    for i, value in enumerate(row):
        column = [r[i] for r in held if i < len(r) and r[i]]
        m = _UNIT_AFTER.match(value)
        out.append(m.group("number") if m and column and all(_is_number(v) for v in column) else value)
    return out


def _is_number(value: str) -> bool:
    try:
        float(value)
    except ValueError:
        return False
    return True
