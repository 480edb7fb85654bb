"""The text the loader scores each turn, built from clean user messages.

GAIA embeds "previous user message + \\n + current input" where the current
input carries the memory header and a timestamp, so every query differs and
the time is embedded. Here both halves are what the user typed.
"""

from __future__ import annotations

import re
from typing import Sequence

__all__ = ["SelectionQuery", "selection_query", "split_clauses", "without_answer_form", "SELECTION_QUERY_CHARS"]

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
# A clause made only of these words says how to answer ("in one sentence", "say it briefly", "in two
# lines please"), not what to do. Scored as an intent, "in one sentence" pulled in text_to_speech (its
# examples "say it out loud", "narrate this") as that clause's best tool, and the 0.5B and 1.5B models
# both called it on a no-tool question.
_FORM_WORDS = frozenset("in a an one two three four five few couple of sentence sentences word words line lines "
                        "paragraph paragraphs short shortly brief briefly quick quickly simple simply plain "
                        "english terms say it tell me us please just only answer reply explain summary max "
                        "maximum at most less than under or so".split())


def split_clauses(text: str) -> list[str]:
    """The parts of a multi-part request; ``[]`` when it is a single clause.

    At most four parts: anything after the third is merged into the fourth.
    """
    parts = [p.strip() for p in _CLAUSE_BREAK.split(text) if p and p.strip()]
    parts = [p for p in parts if len(p.split()) >= _MIN_CLAUSE_WORDS and not _answer_form(p)]
    if len(parts) > _MAX_CLAUSES:
        parts = [*parts[:_MAX_CLAUSES - 1], " ".join(parts[_MAX_CLAUSES - 1:])]
    return parts if len(parts) > 1 else []


# A run of form words is an instruction about the answer when it counts a unit ("in one sentence", "in
# 3 words") or says brief; "tell me" alone is not, nor "show me its first lines".
_UNITS = frozenset("sentence sentences word words line lines paragraph paragraphs".split())
_COUNTS = frozenset("a an one two three four five few couple".split())
_BRIEF = frozenset("brief briefly short shortly".split())
_WORD = re.compile(r"[A-Za-z0-9']+")


def without_answer_form(text: str) -> str:
    """Each line of ``text`` without a leading or trailing instruction about the answer's form: "in one
    sentence - why do leaves turn red?" is scored as "why do leaves turn red?". The phrase is not an
    intent; scored with the request, "say in one sentence" put text_to_speech over tau."""
    return "\n".join(_strip_form(line) for line in text.split("\n"))


def _strip_form(line: str) -> str:
    words = list(_WORD.finditer(line))
    start, end = 0, len(words)
    while start < end and _form_word(words[start].group(0)):
        start += 1
    while end > start and _form_word(words[end - 1].group(0)):
        end -= 1
    if start == end:  # all of it is form words: nothing else to score
        return line
    head = [w.group(0).lower() for w in words[:start]]
    tail = [w.group(0).lower() for w in words[end:]]
    cut_from = words[start].start() if _says_form(head) else 0
    if not _says_form(tail):
        return line[cut_from:].strip()
    # keep the question mark of "why is the sky blue, in one sentence?"
    return line[cut_from:words[end - 1].end()].strip() + ("?" if line.rstrip().endswith("?") else "")


def _says_form(run: list[str]) -> bool:
    counted = any(w in _UNITS for w in run) and any(w in _COUNTS or w.isdigit() for w in run)
    return counted or any(w in _BRIEF for w in run)


def _form_word(word: str) -> bool:
    return word.lower() in _FORM_WORDS or word.isdigit()


def _answer_form(clause: str) -> bool:
    """Does ``clause`` only say the form of the answer ("in one sentence", "in two short lines")?"""
    return all(w in _FORM_WORDS or w.isdigit() for w in re.findall(r"[a-z0-9']+", clause.lower()))
