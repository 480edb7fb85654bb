"""Word-level text handling shared by memory recall and the document index.

FTS5 treats a raw user sentence as query syntax (quotes, ``OR``, ``-`` and
``*`` mean something), so queries are rebuilt from plain words instead.
"""

from __future__ import annotations

import re

__all__ = ["STOPWORDS", "words", "fts_query", "word_overlap", "shares_phrase"]

STOPWORDS = frozenset(
    "a an and are as at be been but by can did do does for from had has have how i i'm in is it its "
    "me my of on or our so than that the their them then there these they this to was we were what "
    "when where which who whom why will with you your about into any all should would could".split())


def words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def fts_query(text: str) -> str | None:
    """An FTS5 MATCH expression: the query's words (stop words dropped), OR-ed and quoted."""
    found = words(text)
    keep = [w for w in found if w not in STOPWORDS] or found
    uniq = list(dict.fromkeys(keep))[:32]
    return " OR ".join(f'"{w}"' for w in uniq) if uniq else None


def word_overlap(a: str, b: str) -> float:
    """Shared distinct words over the larger word set (1.0 = same words)."""
    wa, wb = set(words(a)), set(words(b))
    return len(wa & wb) / max(len(wa), len(wb)) if wa and wb else 0.0


def shares_phrase(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` say the same two words in a row, stop words aside ("my parking spot at work is B12" and
    "they moved me, my parking spot is now C7"): they speak of the same thing."""
    def pairs(text: str) -> set[tuple[str, str]]:
        kept = [w for w in words(text) if w not in STOPWORDS]
        return set(zip(kept, kept[1:]))
    return bool(pairs(a) & pairs(b))
