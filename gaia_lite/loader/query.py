"""The text the loader scores each turn, built from clean user messages.

GAIA embeds "previous user message + \\n + current input" where the current
input carries the memory header and a timestamp, so every query differs and
the time is embedded. Here both halves are what the user typed.
"""

from __future__ import annotations

import re
from typing import Sequence

__all__ = ["SelectionQuery", "selection_query", "split_clauses", "SELECTION_QUERY_CHARS"]

SELECTION_QUERY_CHARS = 4000


class SelectionQuery(str):
    """The selection query text plus the current message on its own.

    It *is* the joined text (so it can be logged, hashed and embedded like a
    plain string); ``current`` lets a preset score the newest message alone.
    """

    current: str

    def __new__(cls, text: str, current: str) -> "SelectionQuery":
        obj = super().__new__(cls, text)
        obj.current = current
        return obj


def selection_query(history_user_msgs: Sequence[str], current: str) -> SelectionQuery:
    """Previous clean user message + ``"\\n"`` + current one, last 4,000 chars.

    Pass *clean* messages (what the user typed), never the memory-augmented
    input: GAIA embeds its per-turn timestamp header, which makes every query
    differ and adds noise to the match.
    """
    previous = next((m for m in reversed(history_user_msgs) if m.strip()), None)
    text = f"{previous}\n{current}" if previous is not None else current
    return SelectionQuery(text[-SELECTION_QUERY_CHARS:], current)


_CLAUSE_BREAK = re.compile(
    r"\s*(?:[,;:!?]|\.(?:\s|$)|\s-\s|\b(?:and then|then|and also|also|and|plus|but)\b)\s*", re.IGNORECASE)
_MIN_CLAUSE_WORDS = 3  # shorter fragments ("the agenda") match noise, not an intent
_MAX_CLAUSES = 4  # each clause costs an embedding and may add a tool; longer texts are merged


def split_clauses(text: str) -> list[str]:
    """The parts of a multi-part request; ``[]`` when it is a single clause.

    At most four parts: anything after the third is merged into the fourth.
    """
    parts = [p.strip() for p in _CLAUSE_BREAK.split(text) if p and p.strip()]
    parts = [p for p in parts if len(p.split()) >= _MIN_CLAUSE_WORDS]
    if len(parts) > _MAX_CLAUSES:
        parts = [*parts[:_MAX_CLAUSES - 1], " ".join(parts[_MAX_CLAUSES - 1:])]
    return parts if len(parts) > 1 else []
