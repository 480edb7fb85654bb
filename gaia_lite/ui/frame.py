"""Whole-screen renderables: the side-by-side frame, the turn tail with a status bar.

``layout_mode(width, pref)`` decides the shape:

* ``side``    conversation tail on the left, the panel on the right (>= 100 columns);
* ``stacked`` narrow terminal with the panel asked for: the panel prints under the turn;
* ``bar``     the panel collapsed to a one-line status bar.

Both renderables read the view when rich renders them (rich's pull model), so
a ``Live`` can hold one object for a whole turn. Rendered lines are cached:
the panel by ``panel_version`` and size, a conversation entry by its sequence
number, revision and width. A streamed token therefore re-renders
only the entry that grew, never the panel. For the first token of a turn the
screen goes further and accepts the panel as last drawn (``stale_panel_ok``),
so the first token never waits for a panel render; the next frame catches up.
"""

from __future__ import annotations

from typing import Iterable, Literal

from rich.console import Console, ConsoleOptions, RenderResult
from rich.segment import Segment
from rich.text import Text

from .conversation import render_entry
from .panel import render_panel, render_status_bar
from .view import ChatView, Entry

__all__ = ["Frame", "TurnTail", "LineCache", "layout_mode", "panel_width", "SIDE_MIN_WIDTH", "PanelPref"]

SIDE_MIN_WIDTH = 100
PanelPref = Literal["auto", "on", "off"]
Lines = list[list[Segment]]


def layout_mode(width: int, pref: PanelPref) -> Literal["side", "stacked", "bar"]:
    if pref == "off":
        return "bar"
    if width >= SIDE_MIN_WIDTH:
        return "side"
    return "stacked" if pref == "on" else "bar"


def panel_width(total: int) -> int:
    return max(40, min(52, total * 44 // 100))


class LineCache:
    """Rendered lines by key; cleared wholesale when it grows past ``size`` keys."""

    def __init__(self, size: int = 2048) -> None:
        self.size = size
        self._lines: dict[tuple, Lines] = {}
        self.latest: dict[tuple, Lines] = {}  # the last lines drawn per region and size

    def get(self, key: tuple, make) -> Lines:
        lines = self._lines.get(key)
        if lines is None:
            if len(self._lines) >= self.size:
                self._lines.clear()
            lines = self._lines[key] = make()
        return lines


def _entry_key(entry: Entry, details: bool, width: int) -> tuple:
    return ("entry", entry.seq, entry.rev, details, width)


def _entry_lines(console: Console, options: ConsoleOptions, entry: Entry, details: bool, width: int,
                 cache: LineCache) -> Lines:
    def make() -> Lines:
        return console.render_lines(render_entry(entry, details), options.update(width=width, height=None),
                                    pad=True)

    return cache.get(_entry_key(entry, details, width), make)


def _blank(width: int) -> list[Segment]:
    return [Segment(" " * width)]


def tail_lines(console: Console, options: ConsoleOptions, entries: list[Entry], width: int, height: int,
               details: bool, cache: LineCache, *, fill: bool = True) -> Lines:
    """The last ``height`` lines of ``entries`` at ``width``; a blank line goes before each user entry."""
    out: Lines = []
    cropped = False
    for i in range(len(entries) - 1, -1, -1):
        e = entries[i]
        block = _entry_lines(console, options, e, details, width, cache)
        if e.kind == "user" and i > 0:
            block = [_blank(width), *block]
        out[:0] = block
        if len(out) >= height:
            cropped = len(out) > height or i > 0
            break
    if len(out) > height or cropped:
        out = out[len(out) - height:]
        marker = Text("↑ earlier lines are above (scroll back; /last prints the last answer)", style="dim",
                      no_wrap=True, overflow="ellipsis")
        out[0] = console.render_lines(marker, options.update(width=width, height=None), pad=True)[0]
    if fill:
        out += [_blank(width) for _ in range(height - len(out))]
    return out


class Frame:
    """The side-by-side screen: conversation tail | panel, ``height`` lines tall.

    ``height=None`` takes the console height minus ``reserve`` lines (room for the prompt).
    """

    def __init__(self, view: ChatView, *, height: int | None = None, reserve: int = 2,
                 cache: LineCache | None = None) -> None:
        self.view = view
        self.height = height
        self.reserve = reserve
        self.cache = cache if cache is not None else LineCache()
        self.stale_panel_ok = False  # draw the last panel drawn at this size, even if the view moved on

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        height = self.height or max(8, options.size.height - self.reserve)
        pw = panel_width(width)
        mw = width - pw - 1
        view = self.view
        main = tail_lines(console, options, view.entries, mw, height, view.details, self.cache)
        panel_key = ("panel", id(view.panel), view.panel_version, pw, height)
        stale = self.cache.latest.get(("panel", pw, height)) if self.stale_panel_ok else None
        panel = stale or self.cache.get(panel_key, lambda: console.render_lines(
            render_panel(view.panel, pw, height), options.update(width=pw, height=height), pad=True))
        self.cache.latest[("panel", pw, height)] = panel
        gap = Segment(" ")
        new_line = Segment.line()
        for left, right in zip(main, panel):
            yield from left
            yield gap
            yield from right
            yield new_line


class TurnTail:
    """Narrow screens and ``--no-panel``: the entries from ``start`` on, tail-cropped
    to the console height, then the one-line status bar."""

    def __init__(self, view: ChatView, start: int, *, skip_user: bool = True, reserve: int = 1,
                 cache: LineCache | None = None, status: bool = True) -> None:
        self.view = view
        self.start = start
        self.skip_user = skip_user
        self.reserve = reserve
        self.status = status
        self.cache = cache if cache is not None else LineCache()

    def entries(self) -> list[Entry]:
        return [e for e in self.view.entries[self.start:] if not (self.skip_user and e.kind == "user")]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        height = max(3, options.size.height - self.reserve - (1 if self.status else 0))
        lines = tail_lines(console, options, self.entries(), width, height, self.view.details, self.cache,
                           fill=False)
        new_line = Segment.line()
        for line in lines:
            yield from line
            yield new_line
        if self.status:
            yield from console.render(render_status_bar(self.view.panel, width), options.update(width=width))


def strip_styles(lines: Iterable[list[Segment]]) -> str:
    """Plain text of rendered lines (tests and the plain-text writer)."""
    return "\n".join("".join(s.text for s in line).rstrip() for line in lines)
