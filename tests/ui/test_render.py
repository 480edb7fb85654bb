"""Pure renderers at fixed sizes: exact text from a capture console (no colour).

Whole frames are golden files in tests/ui/golden/, compared byte for byte;
regenerate them with ``UPDATE_GOLDEN=1 pytest tests/ui`` and review the diff.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.text import Text

from gaia_lite.events import TurnStarted
from gaia_lite.ui.conversation import key_args, render_entry, tool_line
from gaia_lite.ui.frame import Frame, TurnTail, layout_mode, panel_width
from gaia_lite.ui.panel import panel_lines, render_panel, render_status_bar
from gaia_lite.ui.wrap import wrap_tokens
from gaia_lite.ui.view import Entry, ToolCallView

from tests import golden

from .scenes import browse_turn, capture_console, clipboard_loaded, new_view, output

GOLDEN = Path(__file__).parent / "golden"


def check_golden(name: str, text: str) -> None:
    golden.check_golden(GOLDEN / name, text)


def plain(lines: list[Text]) -> list[str]:
    return [ln.plain.rstrip() for ln in lines]


def played(*scenes) -> object:
    view = new_view()
    for scene in scenes:
        for ev in scene:
            view.apply(ev)
    return view


# ---------------------------------------------------------------- panel pieces
def test_panel_for_a_new_session_lists_core_grouped_by_bundle(view):
    lines = plain(panel_lines(view.panel, 44))
    assert lines[:10] == [
        "Loaded 11/14 · CORE 11 · new session",
        "core         C load_tools",
        "rag_query    C query_documents",
        "               query_specific_file",
        "file_edit    C read_file",
        "memory       C forget recall remember",
        "               search_past_conversations",
        "               update_memory",
        "loop_control C request_user_input",
        "               set_loop_state",
    ]
    assert "TOOL_LOADER" in lines and "  none yet" in lines


def test_panel_after_a_turn_marks_admissions_with_scores_and_expands_the_entry():
    view = played(browse_turn())
    lines = plain(panel_lines(view.panel, 44))
    assert "file_browse  + browse_directory 0.61" in lines
    assert "             + get_file_info ~0.61" in lines  # inherited from the bundle-mate that matched
    assert "skipped 1    search_directory" in lines
    at = lines.index("TOOL_LOADER")
    assert lines[at + 1:at + 6] == [
        "▾ turn 1 · selection · 1.2 ms",
        "  matched  browse_directory 0.61",
        "  admitted CORE×11 browse_directory",
        "           get_file_info list_recent_files",
        "  evicted  none",
    ]
    stats = lines[lines.index("Turn stats"):]
    assert stats == ["Turn stats", "turn    TTFT   prompt   cached", "   1   0.41s    1,234        0",
                     "tools_hash changes 0 · escape hatches 0"]


def test_latest_turn_is_expanded_and_older_entries_take_one_line():
    view = played(browse_turn(1), browse_turn(2))
    view.add_loaded(clipboard_loaded(2))
    lines = plain(panel_lines(view.panel, 44))
    at = lines.index("TOOL_LOADER")
    section = lines[at:lines.index("Turn stats") - 1]
    assert section[1] == "▾ turn 2 · load_tools clipboard · 0.4 ms"
    assert section[2] == "  admitted read_clipboard write_clipboard"
    assert section[3] == "  evicted  get_file_info list_recent_files"
    assert section[4] == "▾ turn 2 · selection · 1.2 ms"
    assert section[-1] == "  t1 select +3 -0 skip 1 · 14 loaded"
    assert "clipboard    L read_clipboard" in lines and "             L write_clipboard" in lines


def test_off_state_panel_names_the_state_and_reason_and_lists_no_tools():
    view = new_view(active=False, off_state="memory_disabled",
                    off_reason="GAIA_MEMORY_DISABLED=1 turns the loader off with memory; all tools are shown")
    lines = plain(panel_lines(view.panel, 44))
    assert lines[:4] == [
        "Loader OFF · memory_disabled",
        "GAIA_MEMORY_DISABLED=1 turns the loader off",
        "with memory; all tools are shown",
        "All 38 tools are in the prompt (no filter).",
    ]
    assert not any(name in " ".join(lines) for name in ("browse_directory", "load_tools", "remember"))
    assert "  no selection lines while the loader is off" in lines


def test_panel_trades_detail_for_height_but_keeps_the_loaded_set_and_stats():
    view = played(browse_turn(1), browse_turn(2), browse_turn(3))
    full = plain(panel_lines(view.panel, 44))
    short = plain(panel_lines(view.panel, 44, height=26))
    assert len(short) <= 26 < len(full)
    for needed in ("file_browse  + browse_directory 0.61", "Turn stats", "tools_hash changes 0 · escape hatches 0"):
        assert needed in short


def test_wrap_tokens_never_splits_a_name_and_counts_what_it_drops():
    toks = [(f"tool_{i:02d}", "") for i in range(12)]
    lines = plain(wrap_tokens("skipped", toks, 40, max_lines=2))
    assert lines == ["skipped      tool_00 tool_01 tool_02", "             tool_03 tool_04 +7 more"]


def test_status_bar_is_one_line_with_the_panel_essentials():
    view = played(browse_turn())
    assert render_status_bar(view.panel, 200).plain == (
        "tools 14/14 │ +browse_directory 0.61 +get_file_info ~0.61 +list_recent_files ~0.61 │ skipped 1 │ "
        "t1 TTFT 0.41s · prompt 1,234 (0 cached) │ hashΔ 0 · esc 0 │ /panel")
    bar = render_status_bar(view.panel, 80)
    assert bar.cell_len <= 80 and bar.plain.endswith("…")
    off = new_view(active=False, off_state="loader_off", off_reason="off")
    assert render_status_bar(off.panel, 120).plain == \
        "loader OFF (loader_off) · all 38 tools │ hashΔ 0 · esc 0 │ /panel"


def test_tool_line_keeps_status_and_duration_at_any_width():
    call = ToolCallView("c1", "browse_directory", {"directory_path": "/tmp/some/long/folder/name", "show_hidden": False,
                                                   "sort_by": "name"}, "success", 0.012)
    wide = tool_line(call).plain
    assert wide == "  → browse_directory(directory_path='/tmp/some/long/folder/name', show_hidden=fa…)  ✓ 0.01s"
    narrow = tool_line(call, 60).plain
    assert len(narrow) <= 60 and narrow.endswith("✓ 0.01s")
    failed = ToolCallView("c3", "analyze_data_file", {"file_path": "sales.csv", "columns": ["Sales"]}, "error", 0.0,
                          {"status": "error", "error": "analyze_data_file: argument 'columns'=['Sales'] is invalid\n"
                                                       "(expected a string). Expected: analyze_data_file(file_path)"})
    console = capture_console(70, 10, terminal=False)
    console.print(render_entry(Entry("tool", call=failed)))
    assert output(console).splitlines() == [
        "  → analyze_data_file(file_path='sales.csv', columns=[\"Sale…)  ✗ 0.00s",
        "    analyze_data_file: argument 'columns'=['Sales'] is invalid (expec…",
    ]
    running = ToolCallView("c2", "run_shell_command", {"command": "ls"})
    assert tool_line(running).plain == "  → run_shell_command(command='ls')  running…"
    assert key_args({"a": "x" * 50}, per_value=10) == "a='xxxxxxxxx…'"


# ---------------------------------------------------------------- whole frames
def test_layout_mode_and_panel_width():
    assert layout_mode(120, "auto") == "side" and layout_mode(99, "auto") == "bar"
    assert layout_mode(80, "on") == "stacked" and layout_mode(140, "off") == "bar"
    assert panel_width(120) == 52 and panel_width(100) == 44 and panel_width(80) == 40


def test_side_frame_at_120x40_golden():
    view = played(browse_turn())
    console = capture_console(120, 40)
    console.print(Frame(view))
    text = output(console)
    assert len(text.splitlines()) == 38  # the terminal height less two lines for the prompt
    assert all(len(line) == 120 for line in text.splitlines())
    check_golden("frame-120x40.txt", text)


def test_bar_turn_at_80x24_golden():
    view = played(browse_turn())
    console = capture_console(80, 24)
    console.print(TurnTail(view, 0))
    check_golden("turn-80x24.txt", output(console))


def test_stacked_panel_at_80_columns_golden():
    view = played(browse_turn())
    view.add_loaded(clipboard_loaded())
    console = capture_console(80, 24)
    console.print(render_panel(view.panel, 80))
    check_golden("panel-80.txt", output(console))


def test_frame_shows_the_tail_of_a_long_conversation():
    view = played(*(browse_turn(t) for t in range(1, 9)))
    console = capture_console(120, 20)
    console.print(Frame(view))
    lines = output(console).splitlines()
    assert lines[0].startswith("↑ earlier lines are above")
    assert "There are two files: notes.md and sales.csv." in lines[-1] or any(
        "notes.md and sales.csv." in ln for ln in lines[-3:])


def test_details_toggle_shows_arguments_and_results():
    view = played(browse_turn())
    view.toggle_details()
    console = capture_console(100, 30, terminal=False)
    console.print(TurnTail(view, 0, status=False))
    text = output(console)
    assert '      args   {"path": "."}' in text
    assert '      result {"status": "success", "entries": ["notes.md", "sales.csv"]}' in text


@pytest.mark.parametrize("width", [60, 80, 100, 120, 160])
def test_frames_never_exceed_the_width(width):
    view = played(browse_turn(1), [TurnStarted(2, "x" * 300)])
    console = capture_console(width, 30)
    console.print(Frame(view) if layout_mode(width, "auto") == "side" else TurnTail(view, 0))
    assert max(len(line) for line in output(console).splitlines()) <= width


def test_a_sticky_session_above_the_cap_says_all_were_kept(view):
    view.panel.loaded = (*view.panel.loaded, *(f"extra_{i}" for i in range(6)))
    assert len(view.panel.loaded) == 17 and view.panel.max_tools == 14
    assert plain(panel_lines(view.panel, 60))[0].startswith("Loaded 17 (cap 14, all kept) · CORE 11")
    assert "tools 17 (cap 14, all kept)" in render_status_bar(view.panel, 100).plain


def test_the_panel_marks_requested_and_companion_tools_of_this_turn() -> None:
    from gaia_lite.ui.panel import tool_marks
    from gaia_lite.ui.view import PanelState

    state = PanelState(loaded=("asked", "mate", "old"), new_this_turn=("asked", "mate"),
                       reasons={"asked": "requested", "mate": "companion:asked", "old": "companion:asked"})
    marks = tool_marks(state)
    assert (marks["asked"][0], marks["mate"][0], marks["old"][0]) == ("R", "&", "·")  # old: an earlier turn's
