"""Files ranked by size, in words, for a request that compares sizes ("the 3 largest files in dl", "which is the
smallest file in music?").

A listing gives each file's size on its own entry, and a folder found by name gives its names alone; a small model
then has to compare numbers, and it did not: asked for the smallest file in music, the 1.5B named the first one,
and asked for the three largest in dl, it named three files by date (probe46). The ranking is written out, in the
order the request asks for, so the answer is the first names of it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Sequence, TypeVar

from .file_walk import visible_files

__all__ = ["asks_size", "asks_small", "by_size", "in_size_order", "size_answer", "sized_files"]

T = TypeVar("T")

_BY_SIZE = re.compile(r"\b(?:biggest|largest|smallest|bigger|larger|smaller|tiniest|heaviest|lightest|"
                      r"take[sn]? up the most|most (?:space|room))\b", re.IGNORECASE)
_SMALL_FIRST = re.compile(r"\b(?:smallest|smaller|tiniest|lightest)\b", re.IGNORECASE)

SHOWN = 8  # files named in a ranking


def asks_size(message: str) -> bool:
    """Whether ``message`` compares files by size."""
    return bool(_BY_SIZE.search(message or ""))


def asks_small(message: str) -> bool:
    """Whether ``message`` asks for the small end ("the smallest file"): a ranking then starts there."""
    return bool(_SMALL_FIRST.search(message or ""))


def by_size(message: str, sized: Sequence[tuple[int, str]], shown: int = SHOWN) -> str:
    """"By size, largest first: movie.mkv (5,000 B), song.mp3 (3,000 B), ..." for two files or more when ``message``
    compares sizes (smallest first when it asks for small ones); "" otherwise. ``sized`` holds (bytes, name)."""
    if len(sized) < 2 or not asks_size(message):
        return ""
    ranked = in_size_order(message, sized)
    small = asks_small(message)
    more = f" (+{len(ranked) - shown} more)" if len(ranked) > shown else ""
    order = "smallest" if small else "largest"
    return f"By size, {order} first: " + ", ".join(f"{name} ({size:,} B)" for size, name in ranked[:shown]) + more


def size_answer(message: str, sized: Sequence[tuple[int, str]], place: str) -> str:
    """"The largest file in notes is c.txt (2,422 B)." for two files or more when ``message`` compares sizes (the
    smallest when it asks for small ones; every file of that size when several share it); "" otherwise. Given the
    ranking after the folder's names, the 0.5B named the listing's first file (probe57)."""
    if len(sized) < 2 or not asks_size(message):
        return ""
    ranked = in_size_order(message, sized)
    ends = [name for size, name in ranked if size == ranked[0][0]]
    which = "smallest" if asks_small(message) else "largest"
    if len(ends) > 1:
        return f"The {which} files in {place} are {', '.join(ends)} ({ranked[0][0]:,} B each)."
    return f"The {which} file in {place} is {ends[0]} ({ranked[0][0]:,} B)."


def in_size_order(message: str, sized: Sequence[tuple[int, T]]) -> list[tuple[int, T]]:
    """``sized`` ((bytes, item)) in the order a ranking for ``message`` gives: smallest first when it asks for small
    ones, else largest first; equal sizes by the item's name."""
    small = asks_small(message)
    return sorted(sized, key=lambda s: (s[0] if small else -s[0], str(s[1]).lower()))


def sized_files(folder: Path, limit: int = 500) -> list[tuple[int, str]]:
    """(bytes, name) of the visible files directly in ``folder`` (at most ``limit`` of them)."""
    out: list[tuple[int, str]] = []
    for child in visible_files(folder)[:limit]:
        try:
            out.append((child.stat().st_size, child.name))
        except OSError:   # gone since it was listed
            continue
    return out
