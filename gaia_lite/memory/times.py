"""The one stored time format: UTC ISO 8601 with microseconds.

Fixed width and one zone mean SQLite can compare and sort times as plain
strings, so time filters stay simple ``>=``/``<=`` clauses.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

from .records import MemoryInputError

__all__ = ["now_iso", "parse_time"]


def now_iso() -> str:
    """UTC now, fixed-width ISO 8601 (so string order is time order)."""
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


def parse_time(value: str | datetime, *, field: str = "time", end_of_day: bool = False) -> str:
    """Normalise an ISO date/datetime (naive = local time) to the stored UTC form.

    A bare date means its start, or its end with ``end_of_day`` (an inclusive ``time_to``).
    """
    if isinstance(value, datetime):
        dt = value
    else:
        text = str(value).strip()
        if text.lower() == "now":
            return now_iso()
        try:
            dt = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
        except ValueError:
            raise MemoryInputError(f"{field} {text!r} is not an ISO date; use e.g. 2026-05-01 "
                                   "or 2026-05-01T14:30") from None
        if end_of_day and re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
            dt = dt + timedelta(days=1, microseconds=-1)
    if dt.tzinfo is None:
        dt = dt.astimezone()
    return dt.astimezone(timezone.utc).isoformat(timespec="microseconds")
