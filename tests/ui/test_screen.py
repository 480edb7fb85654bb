"""Driving a turn: the event loop, Ctrl-C, the live screen and the plain-text screen."""

from __future__ import annotations

import io
from typing import Iterator

from gaia_lite.events import Event, TextDelta, TurnFailed, TurnFinished, TurnStarted
from gaia_lite.ui.plain import PlainScreen
from gaia_lite.ui.screen import Screen, drive

from .scenes import browse_turn, capture_console, new_view, output


def agent_like(events: list[Event]) -> Iterator[Event]:
    """Mimics Agent.run: a KeyboardInterrupt thrown in ends the turn as TurnFailed(cancelled)."""
    try:
        yield from events
    except KeyboardInterrupt:
        yield TurnFailed(1, "cancelled", recoverable=True, exit_code=130)


def test_drive_returns_the_outcome():
    seen: list[Event] = []
    outcome = drive(iter(browse_turn()), seen.append, lambda: 1)
    assert isinstance(outcome, TurnFinished) and len(seen) == len(browse_turn())


def test_ctrl_c_while_drawing_is_thrown_into_the_generator():
    seen: list[Event] = []

    def handle(ev: Event) -> None:
        seen.append(ev)
        if isinstance(ev, TextDelta):
            raise KeyboardInterrupt  # lands in UI code, outside the agent's guard

    outcome = drive(agent_like([TurnStarted(1, "q"), TextDelta("a"), TextDelta("b")]), handle, lambda: 1)
    assert isinstance(outcome, TurnFailed) and outcome.error == "cancelled"
    assert [type(e).__name__ for e in seen] == ["TurnStarted", "TextDelta", "TurnFailed"]


def test_ctrl_c_that_the_stream_does_not_handle_still_ends_the_turn():
    def stubborn() -> Iterator[Event]:
        yield TurnStarted(3, "q")
        raise KeyboardInterrupt

    seen: list[Event] = []
    outcome = drive(stubborn(), seen.append, lambda: 3)
    assert isinstance(outcome, TurnFailed) and outcome.turn == 3 and outcome.exit_code == 130
    assert isinstance(seen[-1], TurnFailed)


def test_side_screen_runs_a_turn_and_leaves_the_final_frame(view):
    console = capture_console(120, 40)
    screen = Screen(console, view)
    outcome = screen.run_turn(iter(browse_turn()))
    assert isinstance(outcome, TurnFinished)
    text = output(console)
    assert "There are two files: notes.md and sales.csv." in text
    assert "file_browse  + browse_directory 0.61" in text and "▾ turn 1 · selection" in text
    assert screen.first_token_latency_s is not None and screen.first_token_latency_s < 0.5


def test_bar_screen_prints_the_whole_turn_then_the_status_bar(view):
    console = capture_console(80, 24)
    screen = Screen(console, view)
    assert screen.mode == "bar"
    screen.run_turn(iter(browse_turn()))
    final = output(console).rsplit("\x1b[2K", 1)[-1]  # the last frame drawn
    assert "There are two files: notes.md and sales.csv." in final
    assert "tools 14/14 │ +browse_directory 0.61" in final
    assert "› list the files" not in final  # the prompt line already shows what was typed


def test_pausing_for_a_question_restarts_the_live_region_below(view):
    console = capture_console(80, 24)
    screen = Screen(console, view)
    asked: list[str] = []

    def with_question() -> Iterator[Event]:
        events = browse_turn()
        yield from events[:3]
        with screen.paused():
            console.print("Allow run_shell_command(command='ls')? [y/N/a(lways)]")
            asked.append("y")
        yield from events[3:]

    screen.run_turn(with_question())
    text = output(console)
    assert asked == ["y"]
    assert text.index("Allow run_shell_command") < text.rindex("There are two files")


def test_toggle_panel_switches_between_side_and_bar(view):
    screen = Screen(capture_console(120, 40), view)
    assert screen.mode == "side"
    screen.toggle_panel()
    assert screen.mode == "bar"
    screen.toggle_panel()
    assert screen.mode == "side"
    narrow = Screen(capture_console(80, 24), view)
    narrow.toggle_panel()
    assert narrow.mode == "stacked"


def test_plain_screen_writes_text_without_escape_codes(view):
    out = io.StringIO()
    screen = PlainScreen(out, view)
    screen.run_turn(iter(browse_turn()))
    text = out.getvalue()
    assert "\x1b" not in text
    assert text.splitlines() == [
        "  → browse_directory(path='.')  ✓ 0.01s",
        "There are two files: notes.md and sales.csv.",
        "tools 14/14 │ +browse_directory 0.61 +get_file_info ~0.61 +list_recent_files ~0.61 │ skipped 1 │ "
        "t1 TTFT 0.41s · prompt 1,234 (0 cached) │ hashΔ 0 · esc 0",
    ]


def test_plain_screen_without_status_and_with_a_failure():
    view = new_view()
    out = io.StringIO()
    screen = PlainScreen(out, view, status=False)
    screen.run_turn(agent_like([TurnStarted(1, "q"), TextDelta("partial")]))
    screen.handle(TurnFailed(1, "the server went away", recoverable=True))
    assert out.getvalue() == "partial\n✗ the server went away\n"



def test_a_stale_panel_may_be_drawn_so_the_first_token_never_waits(view):
    from gaia_lite.ui.frame import Frame

    from .scenes import clipboard_loaded

    for ev in browse_turn():
        view.apply(ev)
    frame = Frame(view)
    before = capture_console(120, 40)
    before.print(frame)
    view.add_loaded(clipboard_loaded())
    frame.stale_panel_ok = True
    stale = capture_console(120, 40)
    stale.print(frame)
    frame.stale_panel_ok = False
    fresh = capture_console(120, 40)
    fresh.print(frame)
    assert output(stale) == output(before)
    assert "clipboard    L read_clipboard" in output(fresh) and "clipboard    L" not in output(stale)


def test_ctrl_c_during_a_frame_write_waits_for_the_frame(view):
    import os
    import signal

    from gaia_lite.ui.screen import interrupt_handler

    console = capture_console(120, 40)
    screen = Screen(console, view)
    cancelled: list[bool] = []
    real_refresh = None

    def stream() -> Iterator[Event]:
        nonlocal real_refresh
        events = browse_turn()
        yield from events[:5]
        live = screen._live
        real_refresh = live.refresh

        def refresh_with_signal() -> None:
            if not cancelled:
                os.kill(os.getpid(), signal.SIGINT)  # arrives while the frame is being written
            real_refresh()

        live.refresh = refresh_with_signal
        try:
            yield from events[5:]
        except KeyboardInterrupt:
            yield TurnFailed(1, "cancelled", recoverable=True, exit_code=130)

    with interrupt_handler(lambda: cancelled.append(True), hold=screen.hold_interrupt):
        outcome = screen.run_turn(stream())
    assert cancelled == [True]
    assert isinstance(outcome, TurnFailed) and outcome.error == "cancelled"
    assert "cancelled (Ctrl-C); the conversation is kept" in output(console)
