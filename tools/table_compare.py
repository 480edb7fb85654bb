"""A comparison the user's message states about a table ("fewer than 5 in stock", "started in 2023 or
later"), and the rows that meet it.

Small models do not pass such a condition as a query: on ``probe_data.json`` both read the file or asked
the document index, then picked rows by eye ("stapler and label maker" for "fewer than 5 in stock"). The
table's figures now lead with the rows that meet the stated comparison, so the answer is read off, not
worked out.

The comparison words are English, kept in one table (``COMPARISONS``). Which column a bound is about is
read from the data, not from the words: a year goes to the date column, another number to the one number
column it splits (some rows meet it and some do not), or to the one the message names. Anything unclear
gives no comparison, never a guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from datetime import date
from typing import Callable, Protocol


class _Frame(Protocol):
    """What is read here of a typed table (table_read's frame)."""

    rows: int
    numbers: dict[str, list[Decimal | None]]
    dates: dict[str, list[date | None]]


__all__ = ["Comparison", "stated_comparison", "without_comparisons", "COMPARISONS"]

_N = r"\$?(?P<n>\d[\d,]*(?:\.\d+)?)"
# (pattern with a number group "n", operator): the bound before or after the words that say how it compares.
# Written for the probe_data.json phrasings ("fewer than 5 in stock", "in 2023 or later") and their kin.
COMPARISONS: tuple[tuple[str, str], ...] = (
    (rf"\b(?:fewer|less|lower|smaller|cheaper|shorter) than\s+{_N}", "<"),
    (rf"\b(?:under|below)\s+{_N}", "<"),
    (rf"\b(?:more|greater|higher|bigger|larger|longer|costlier|dearer) than\s+{_N}", ">"),
    (rf"\b(?:over|above|exceeding)\s+{_N}", ">"),
    (rf"\b(?:at least|no less than|not less than|no fewer than|from)\s+{_N}\s+(?:on|onwards|upwards|up)\b", ">="),
    (rf"\b(?:at least|no less than|not less than|no fewer than|minimum of)\s+{_N}", ">="),
    (rf"\b(?:at most|no more than|not more than|up to|maximum of)\s+{_N}", "<="),
    (rf"{_N}\s+or\s+(?:more|higher|above|over|later|after|newer|greater|up)\b", ">="),
    (rf"{_N}\s+or\s+(?:less|fewer|lower|below|under|earlier|before|older)\b", "<="),
    (rf"\bsince\s+{_N}", ">="),
    (rf"\bafter\s+{_N}", ">"),
    (rf"\bbefore\s+{_N}", "<"),
    (rf"(?P<op><=|>=|<|>)\s*{_N}", ""),   # the operator as written
)
_COMPILED = tuple((re.compile(p, re.IGNORECASE), op) for p, op in COMPARISONS)
_OPS: dict[str, Callable[[Decimal, Decimal], bool]] = {
    "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}
_SAID = {"<": "is under {}", "<=": "is at most {}", ">": "is over {}", ">=": "is at least {}"}
_SAID_YEAR = {"<": "is before {}", "<=": "is in {} or earlier", ">": "is after {}", ">=": "is in {} or later"}
_ID_LIKE = re.compile(r"(^|_|\b)(id|no|nr|number|code|zip|year)$", re.IGNORECASE)


@dataclass(frozen=True)
class Comparison:
    """``column`` compared with ``bound`` by ``op`` (a date column by its year), and which rows meet it."""

    column: str
    op: str
    bound: Decimal
    by_year: bool
    keep: tuple[bool, ...]
    unit: str = ""   # a time's unit as said ("min"), for a column of "24:59" times

    @property
    def said(self) -> str:
        """The condition in words: "qty is under 5", "start_date is in 2023 or later"."""
        if self.by_year:
            return f"{self.column} {_SAID_YEAR[self.op].format(int(self.bound))}"
        unit = f" {self.unit}" if self.unit else ""
        bound = self.bound.quantize(Decimal(1)) if self.bound == self.bound.to_integral() else self.bound.normalize()
        return f"{self.column} {_SAID[self.op].format(format(bound, ','))}{unit}"


def stated_comparison(message: str, frame: _Frame, named: list[str]) -> Comparison | None:
    """The one comparison ``message`` states that one column of ``frame`` can be held to, or None.
    ``named``: the columns the message names, which decide between number columns that would all fit."""
    found = [(m, op or m.group("op")) for pattern, op in _COMPILED for m in pattern.finditer(message)]
    bounds = {(m.group("n"), op) for m, op in found}
    if len(bounds) != 1:  # none, or two ("between 5 and 10", "over 5 and under 9"): not read here
        return None
    raw, op = bounds.pop()
    try:
        bound = Decimal(raw.replace(",", ""))
    except InvalidOperation:
        return None
    unit = next((_unit_seconds(message[m.end():]) for m, _ in found), None)
    if unit is not None and (timed := _by_duration(frame, op, bound, unit)) is not None:
        return timed
    number = _by_number(frame, op, bound, named)
    if bound == bound.to_integral() and 1900 <= bound <= 2100 and frame.dates:  # a year, unless a named
        year = _by_year(frame, op, bound, named)                              # number column says otherwise
        return number if number is not None and number.column in named else year or number
    return number


_UNIT_WORD = r"(?P<unit>h(?:ours?|rs?)?|min(?:ute)?s?|s(?:ec(?:ond)?s?)?)"   # said after a bound, or ending a column
_UNIT = re.compile(rf"\s*{_UNIT_WORD}\b", re.IGNORECASE)
_DURATION = re.compile(r"(?:(?P<a>\d{1,2}):)?(?P<b>\d{1,2}):(?P<c>\d{2})(?:\.\d+)?")
_SECONDS_IN = {"h": 3600, "m": 60, "s": 1}
# number columns whose name says their unit: finish_seconds, time_min, duration_h
_COLUMN_UNIT = re.compile(rf"(?:^|_|\b){_UNIT_WORD}$", re.IGNORECASE)


def _unit_seconds(after: str) -> int | None:
    """The seconds in the unit of time said right after a bound ("25 min", "2 hours"), or None."""
    m = _UNIT.match(after)
    return _SECONDS_IN[m.group("unit")[0].lower()] if m else None


def _seconds(cell: str) -> int | None:
    """A race or lap time's seconds: "24:59" (minutes and seconds), "1:02:10" (hours too); None for any other."""
    m = _DURATION.fullmatch(cell.strip())
    return None if m is None else int(m.group("a") or 0) * 3600 + int(m.group("b")) * 60 + int(m.group("c"))


def _by_duration(frame: _Frame, op: str, bound: Decimal, unit: int) -> Comparison | None:
    """A bound said in a unit of time ("ran under 25 min") held to the column of times: one whose name says its
    unit (finish_seconds), else one of "24:59" times. The count of runners under 25 minutes went unanswered, the
    times being seconds and "mm:ss" text (probe54)."""
    limit = bound * unit
    for column, values in frame.numbers.items():
        if (m := _COLUMN_UNIT.search(column)) is not None:
            per = _SECONDS_IN[m.group("unit")[0].lower()]
            keep = tuple(v is not None and _OPS[op](v * per, limit) for v in values)
            if 0 < sum(keep) < frame.rows:
                return Comparison(column, op, limit / per, False, keep)
    for column, cells in frame.text.items():
        times = [_seconds(c) for c in cells]
        if frame.types.get(column) == "text" and sum(t is not None for t in times) > frame.rows / 2:
            keep = tuple(t is not None and _OPS[op](Decimal(t), limit) for t in times)
            if 0 < sum(keep) < frame.rows:
                return Comparison(column, op, bound, False, keep, _UNIT_SAID[unit])
    return None


_UNIT_SAID = {3600: "h", 60: "min", 1: "s"}


def _by_year(frame: _Frame, op: str, year: Decimal, named: list[str]) -> Comparison | None:
    dated = [c for c in frame.dates if any(d is not None for d in frame.dates[c])]
    column = next((c for c in named if c in dated), dated[0] if len(dated) == 1 else None)
    if column is None:
        return None
    keep = tuple(d is not None and _OPS[op](Decimal(d.year), year) for d in frame.dates[column])
    return Comparison(column, op, year, True, keep) if 0 < sum(keep) < frame.rows else None


def _by_number(frame: _Frame, op: str, bound: Decimal, named: list[str]) -> Comparison | None:
    splits = {}
    for column, values in frame.numbers.items():
        keep = tuple(v is not None and _OPS[op](v, bound) for v in values)
        if 0 < sum(keep) < frame.rows and not _ID_LIKE.search(column):
            splits[column] = keep
    chosen = [c for c in named if c in splits] or list(splits)
    if len(chosen) != 1:  # no column it splits, or several and the message names none of them
        return None
    return Comparison(chosen[0], op, bound, False, splits[chosen[0]])


def without_comparisons(text: str) -> str:
    """``text`` with each stated comparison blanked out: "at least 9 in stock" sets a bound and asks for no
    lowest, "more than 5" for no highest."""
    for pattern, _op in _COMPILED:
        text = re.sub(f"{pattern.pattern}(?:{_UNIT.pattern})?", " ", text, flags=re.IGNORECASE)  # "under 25 min": no min
    return text
