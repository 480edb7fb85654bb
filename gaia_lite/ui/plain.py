"""The screen when stdout is not a terminal: plain text, no escape codes.

Text streams as it comes; each tool call is one line when it finishes; a
turn ends with the one-line status (the collapsed panel). Same interface as
``Screen`` so the chat loop does not care which one it drives.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator, TextIO

from rich.console import Console, RenderableType

from gaia_lite.events import (Event, Notice, TextDelta, ToolCallFinished, ToolsLoaded, TurnFailed,
                              TurnFinished)

from .conversation import error_line, tool_line
from .panel import render_status_bar
from .screen import Outcome, drive
from .view import ChatView

__all__ = ["PlainScreen"]


class PlainScreen:
    mode = "plain"

    def __init__(self, out: TextIO, view: ChatView, *, status: bool = True, width: int = 100) -> None:
        self.out = out
        self.view = view
        self.status = status
        self.console = Console(file=out, color_system=None, force_terminal=False, no_color=True, width=width,
                               highlight=False, emoji=False, soft_wrap=True)
        self.first_token_latency_s: float | None = None
        self._mid_line = False

    def toggle_panel(self) -> None:
        self.status = not self.status

    def hold_interrupt(self) -> bool:
        return False

    @contextmanager
    def paused(self) -> Iterator[None]:
        self._newline()
        yield

    def _newline(self) -> None:
        if self._mid_line:
            self.out.write("\n")
            self._mid_line = False

    def _write_line(self, text: str) -> None:
        self._newline()
        self.out.write(text + "\n")
        self.out.flush()

    def run_turn(self, events: Iterator[Event]) -> Outcome | None:
        return drive(events, self.handle, lambda: self.view.turn)

    def handle(self, ev: Event) -> None:
        streamed = any(e.kind == "assistant" for e in self.view.current_turn_entries())
        self.view.apply(ev)
        if isinstance(ev, TextDelta):
            self.out.write(ev.text)
            self.out.flush()
            self._mid_line = not ev.text.endswith("\n")
        elif isinstance(ev, ToolCallFinished):
            call = next((e.call for e in reversed(self.view.entries) if e.call is not None
                         and e.call.call_id == ev.call_id), None)
            if call is not None:
                self._write_line(tool_line(call).plain)
                err = error_line(call, 200)
                if err is not None:
                    self._write_line(err.plain)
        elif isinstance(ev, ToolsLoaded):
            self._write_line(f"  [load_tools] {ev.bundle}: +{', '.join(ev.admitted) or 'nothing new'}")
        elif isinstance(ev, Notice):
            self._write_line(f"! {ev.message}")
        elif isinstance(ev, TurnFailed):
            self._write_line(f"✗ {self.view.entries[-1].text}")
        elif isinstance(ev, TurnFinished):
            if ev.answer and not streamed:
                self.out.write(ev.answer)
                self._mid_line = True
            self._newline()
            if self.status:
                self._write_line(render_status_bar(self.view.panel, 10_000, hint="").plain)

    def progress(self, label: str, done: int, total: int) -> None:
        if total and done >= total:
            self._write_line(f"{label} ({total})")

    def stop_progress(self) -> None:
        return None

    def print_frame(self) -> None:
        if self.status:
            self._write_line(render_status_bar(self.view.panel, 10_000, hint="").plain)

    def print(self, renderable: RenderableType) -> None:
        self._newline()
        self.console.print(renderable)
        self.out.flush()
