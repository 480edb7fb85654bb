"""The period a question over a dated table asks for: "which month was best for honey?".

Rows are dated by the day; the question is about months (or quarters, years, weeks, weekdays). Given each row and
a quarter-by-quarter total, a small model names a quarter, or the day of the largest row. So the period asked
for is read from the message, and the rows are grouped by it, with the best and the lowest named in words.
"""

from __future__ import annotations

import calendar
import re
from datetime import date, timedelta
from decimal import Decimal
from typing import Any, Iterable

__all__ = ["asks_period", "period_label", "per_period", "PERIODS"]

PERIODS = ("month", "quarter", "year", "week", "weekday")
_UNIT = r"(?P<unit>month|quarter|year|week|weekday|day of the week)s?"
_RANKED = r"(?:best|worst|busiest|quietest|peak|top|biggest|highest|lowest|strongest|weakest|slowest|wettest|" \
          r"driest|hottest|coldest|warmest|cheapest|priciest|most expensive)"
_MOST = r"(?:most|least|highest|lowest|best|worst|fewest|biggest|smallest|largest)"
_ASKED = [re.compile(p, re.IGNORECASE) for p in (
    rf"\b(?:which|what)\s+(?:\w+\s+){{0,2}}?{_UNIT}\s+(?:was|is|were|had|has|did|saw|got|brought|sold|made|with|"
    r"gave|produced|came)\b",
    rf"\b{_RANKED}\s+{_UNIT}\b",
    rf"\b{_UNIT}\s+(?:with|had|has|was|saw|got)\s+(?:the\s+)?{_MOST}\b",
    rf"\b(?:by|per|each|every)\s+{_UNIT}\b",
    r"\b(?P<unit>month|quarter|year|week)ly\b")]


def asks_period(message: str) -> str | None:
    """The period the message ranks or groups by ("which month", "best quarter", "per week", "monthly"); None when
    it asks for none. "this year" or "in March" name a period to keep, not one to group by."""
    m = next((m for pattern in _ASKED if (m := pattern.search(message))), None)
    if m is None:
        return None
    unit = m.group("unit").lower()
    return "weekday" if unit.startswith("day") else unit


def period_label(d: date, period: str) -> str:
    """The period ``d`` falls in, as a person says it: "July 2025", "Q3 2025", "2025", "week of 7 Jul 2025",
    "Monday"."""
    if period == "month":
        return f"{calendar.month_name[d.month]} {d.year}"
    if period == "quarter":
        return f"Q{(d.month - 1) // 3 + 1} {d.year}"
    if period == "year":
        return str(d.year)
    if period == "week":
        monday = d - timedelta(days=d.weekday())
        return f"week of {monday.day} {calendar.month_abbr[monday.month]} {monday.year}"
    return calendar.day_name[d.weekday()]


def _order(d: date, period: str) -> tuple:
    return (d.weekday(),) if period == "weekday" else (d.year, d.month, d.day) if period == "week" \
        else (d.year, (d.month - 1) // 3) if period == "quarter" else (d.year, d.month if period == "month" else 0)


def per_period(days: Iterable[Any], values: Iterable[Decimal | None], period: str,
               mean: bool = False) -> list[tuple[str, Decimal]]:
    """Each period's total (or mean) of ``values``, in calendar order; days that are not dates and empty values
    are left out."""
    sums: dict[str, Decimal] = {}
    counts: dict[str, int] = {}
    first: dict[str, tuple] = {}
    for d, v in zip(days, values):
        if not isinstance(d, date) or v is None:
            continue
        label = period_label(d, period)
        sums[label] = sums.get(label, Decimal(0)) + v
        counts[label] = counts.get(label, 0) + 1
        first.setdefault(label, _order(d if period != "week" else d - timedelta(days=d.weekday()), period))
    out = [(k, sums[k] / counts[k] if mean else sums[k]) for k in sums]
    return sorted(out, key=lambda kv: first[kv[0]])
