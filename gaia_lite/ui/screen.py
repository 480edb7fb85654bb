"""Drawing a turn: rich ``Live`` while the agent works, static frames in between.

No Live runs while prompt-toolkit reads input. During a turn the screen
redraws on each event, at most ``fps`` times a second for streamed text, and
at once for the first token and for tool, selection and end-of-turn events.
Inline questions (tool approval, ``request_user_input``) pause the Live,
ask, and start a fresh one below.

``drive()`` is the one event loop, shared with the plain-text screen. A
Ctrl-C that lands outside the agent's own guard (while the UI is drawing) is
thrown into the event generator, so the agent still ends the turn with
``TurnFailed(cancelled)`` and keeps the conversation consistent.
"""

from __future__ import annotations

import signal
import sys
import time
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from gaia_lite.events import Event, TextDelta, TurnFailed, TurnFinished

from .conversation import render_entries
from .frame import Frame, LineCache, PanelPref, TurnTail, layout_mode
from .panel import render_panel, render_status_bar
from .view import ChatView

__all__ = ["Screen", "drive", "interrupt_handler", "quiet_keys"]

Outcome = TurnFinished | TurnFailed


def drive(events: Iterator[Event], handle: Callable[[Event], None], turn: Callable[[], int]) -> Outcome | None:
    """Feed ``events`` to ``handle`` until the stream ends; return the turn's last outcome event."""
    outcome: Outcome | None = None
    throw = False
    while True:
        try:
            if throw:
                throw = False
                thrower = getattr(events, "throw", None)
                if thrower is None:
                    raise KeyboardInterrupt
                ev = thrower(KeyboardInterrupt())
            else:
                ev = next(events)
        except StopIteration:
            return outcome
        except KeyboardInterrupt:  # the generator did not handle it: it is finished
            ev = TurnFailed(turn(), "cancelled", recoverable=True, exit_code=130)
            handle(ev)
            return ev
        try:
            handle(ev)
        except KeyboardInterrupt:
            throw = True
        if isinstance(ev, (TurnFinished, TurnFailed)):
            outcome = ev


@contextmanager
def interrupt_handler(on_interrupt: Callable[[], None], *,
                      hold: Callable[[], bool] | None = None) -> Iterator[None]:
    """While a turn runs, Ctrl-C first calls ``on_interrupt`` (set the cancel flag), then
    raises KeyboardInterrupt as usual, unless ``hold()`` takes it to raise later (the
    screen does that while it is writing a frame). Outside the main thread this does nothing."""

    def handler(signum: int, frame: Any) -> None:
        on_interrupt()
        if hold is not None and hold():
            return
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGINT, handler)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@contextmanager
def quiet_keys(stream: Any = None) -> Iterator[None]:
    """Keys typed while a frame is live are not echoed (an echoed ``^C`` at the end of a
    full-width line scrolls the terminal and shifts the frame). They stay queued, so
    type-ahead reaches the next prompt. Ctrl-C still raises SIGINT."""
    try:
        # kept lazy: POSIX only
        import termios
    except ImportError:  # Windows
        yield
        return
    try:
        fd = (stream or sys.stdin).fileno()
        old = termios.tcgetattr(fd)
        new = list(old)
        new[3] &= ~(termios.ECHO | getattr(termios, "ECHOCTL", 0))
        termios.tcsetattr(fd, termios.TCSANOW, new)
    except (AttributeError, OSError, ValueError, termios.error):  # not a terminal
        yield
        return
    try:
        yield
    finally:
        try:
            termios.tcsetattr(fd, termios.TCSANOW, old)
        except termios.error:
            pass


class Screen:
    """The terminal screen (stdout is a TTY). See the module docstring."""

    def __init__(self, console: Console, view: ChatView, *, pref: PanelPref = "auto", fps: float = 8.0,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self.console = console
        self.view = view
        self.pref: PanelPref = pref
        self.interval = 1.0 / fps
        self.clock = clock
        self.cache = LineCache()
        self.first_token_latency_s: float | None = None  # first TextDelta received -> written
        self._live: Live | None = None
        self._start = 0
        self._last_refresh = 0.0
        self._first_token = True
        self._bar: tuple[Progress, Any] | None = None
        self._frame: Frame | None = None
        self._drawing = False
        self._held_interrupt = False

    @property
    def mode(self) -> str:
        return layout_mode(self.console.width, self.pref)

    def toggle_panel(self) -> None:
        shown = self.mode in ("side", "stacked")
        self.pref = "off" if shown else "on"

    # ------------------------------------------------------------------ renderables
    def _live_renderable(self) -> RenderableType:
        if self.mode == "side":
            self._frame = Frame(self.view, cache=self.cache)
            return self._frame
        self._frame = None
        return TurnTail(self.view, self._start, cache=self.cache)

    def _final_renderable(self, end_of_turn: bool) -> RenderableType:
        mode = self.mode
        if mode == "side":
            return Frame(self.view, cache=self.cache)
        entries = [e for e in self.view.entries[self._start:] if e.kind != "user"]
        parts: list[RenderableType] = [render_entries(entries, self.view.details)]
        if end_of_turn:
            width = self.console.width
            parts.append(render_panel(self.view.panel, width) if mode == "stacked"
                         else render_status_bar(self.view.panel, width))
        return Group(*parts)

    # ------------------------------------------------------------------ live lifecycle
    def _begin(self) -> None:
        self._live = Live(self._live_renderable(), console=self.console, auto_refresh=False, transient=False)
        self._live.start(refresh=True)
        self._last_refresh = self.clock()

    def _end(self, end_of_turn: bool) -> None:
        live, self._live = self._live, None
        if live is not None:
            live.update(self._final_renderable(end_of_turn), refresh=False)
            live.stop()

    def refresh(self, force: bool = False) -> None:
        if self._live is None:
            return
        now = self.clock()
        if force or now - self._last_refresh >= self.interval:
            self._drawing = True
            try:
                self._live.refresh()
            finally:
                self._drawing = False
            self._last_refresh = now
            if self._held_interrupt:
                self._held_interrupt = False
                raise KeyboardInterrupt

    def hold_interrupt(self) -> bool:
        """For ``interrupt_handler``: a Ctrl-C during a frame write waits until the frame is whole."""
        if self._drawing:
            self._held_interrupt = True
        return self._drawing

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Stop drawing so a question can be asked inline; resume below it."""
        running = self._live is not None
        if running:
            self._end(end_of_turn=False)
        try:
            yield
        finally:
            if running:
                self._start = len(self.view.entries)
                self._begin()

    # ------------------------------------------------------------------ a turn
    def run_turn(self, events: Iterator[Event]) -> Outcome | None:
        self._start = len(self.view.entries)
        self._first_token = True
        self.first_token_latency_s = None
        with quiet_keys():
            self._begin()
            try:
                return drive(events, self.handle, lambda: self.view.turn)
            finally:
                self._end(end_of_turn=True)

    def handle(self, ev: Event) -> None:
        if isinstance(ev, TextDelta):
            if self._first_token:
                started = self.clock()
                self.view.apply(ev)
                frame = self._frame
                if frame is not None:
                    frame.stale_panel_ok = True  # the panel catches up on the next frame
                try:
                    self.refresh(force=True)
                finally:
                    if frame is not None:
                        frame.stale_panel_ok = False
                self.first_token_latency_s = self.clock() - started
                self._first_token = False
                return
            self.view.apply(ev)
            self.refresh()
            return
        self.view.apply(ev)
        self.refresh(force=True)

    def progress(self, label: str, done: int, total: int) -> None:
        """Progress of long tool work: a line in the turn while live, else a bar."""
        if self._live is not None:
            self.view.set_progress(label, done, total)
            self.refresh(force=done >= total)
            return
        if self._bar is None:
            bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                           TimeElapsedColumn(), console=self.console, transient=True)
            bar.start()
            self._bar = (bar, bar.add_task(label, total=total or None))
        bar, task = self._bar
        bar.update(task, description=label, completed=done, total=total or None)
        if total and done >= total:
            bar.stop()
            self._bar = None

    def stop_progress(self) -> None:
        if self._bar is not None:
            self._bar[0].stop()
            self._bar = None

    # ------------------------------------------------------------------ between turns
    def print_frame(self) -> None:
        """The current state as a static frame (after a command changed it)."""
        mode = self.mode
        width = self.console.width
        if mode == "side":
            self.console.print(Frame(self.view, cache=self.cache))
        elif mode == "stacked":
            self.console.print(render_panel(self.view.panel, width))
        else:
            self.console.print(render_status_bar(self.view.panel, width))

    def print(self, renderable: RenderableType) -> None:
        self.console.print(renderable)
