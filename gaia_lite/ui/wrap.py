"""Text primitives for the panel: single lines cut to a width, and word-wrapped name lists.

A token is ``(text, style)`` and is never split across lines, so a tool name
always stays whole; a list can be capped at N lines ending in ``+K more``.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from rich.cells import cell_len
from rich.text import Text

__all__ = ["Tok", "LABEL_WIDTH", "SUB_LABEL_WIDTH", "fmt_score", "fmt_secs", "fmt_count", "plural", "one_line",
           "wrap_tokens", "assemble", "sub_list", "by_score"]

Tok = tuple[str, str]  # (text, style): one unbreakable word of a wrapped list
LABEL_WIDTH = 12
SUB_LABEL_WIDTH = 10


def fmt_score(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}"


def fmt_secs(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}s"


def fmt_count(value: int | None) -> str:
    return "—" if value is None else f"{value:,}"


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def one_line(text: str = "", style: str = "", width: int = 0) -> Text:
    t = Text(text, style=style, no_wrap=True, overflow="ellipsis")
    if width:
        t.truncate(width, overflow="ellipsis")
    return t


def wrap_tokens(label: str, tokens: Sequence[Tok], width: int, *, label_style: str = "bold",
                label_width: int = LABEL_WIDTH, max_lines: int = 0) -> list[Text]:
    """``label`` then ``(text, style)`` tokens packed into lines of ``width`` cells; a token is
    never split. With ``max_lines``, what does not fit is replaced by a ``+N more`` token."""
    pad = label_width + 1 if label_width else 0
    avail = max(8, width - pad)
    rows: list[list[Tok]] = [[]]
    used = 0
    for tok in tokens:
        need = cell_len(tok[0]) + (1 if used else 0)
        if used and used + need > avail:
            rows.append([])
            used, need = 0, cell_len(tok[0])
        rows[-1].append(tok)
        used += need
    if max_lines and len(rows) > max_lines:
        rows = rows[:max_lines]
        shown = sum(len(r) for r in rows)
        while True:
            more = (f"+{len(tokens) - shown} more", "dim")
            last = rows[-1]
            if not last or sum(cell_len(t[0]) + 1 for t in last) + len(more[0]) <= avail:
                last.append(more)
                break
            last.pop()
            shown -= 1
    lines = []
    for i, row in enumerate(rows):
        head = ((label.ljust(label_width)[:label_width] + " ")[:pad], label_style) if i == 0 else (" " * pad, "")
        parts: list[Tok] = [head]
        for j, tok in enumerate(row):
            if j:
                parts.append((" ", ""))
            parts.append(tok)
        lines.append(assemble(parts, width))
    return lines


def assemble(parts: Sequence[Tok], width: int) -> Text:
    line = Text.assemble(*parts, no_wrap=True, overflow="ellipsis")
    if line.cell_len > width:
        line.truncate(width, overflow="ellipsis")
    return line


def sub_list(label: str, tokens: Sequence[Tok], width: int, max_lines: int, empty: str = "none") -> list[Text]:
    return wrap_tokens(label, list(tokens) or [(empty, "dim")], width, label_style="",
                       label_width=SUB_LABEL_WIDTH, max_lines=max_lines)


def by_score(names: Sequence[str], scores: Mapping[str, float]) -> list[str]:
    return sorted(names, key=lambda n: (-scores.get(n, float("-inf")), n))
