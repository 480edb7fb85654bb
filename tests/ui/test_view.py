"""ChatView folds the event stream into entries and panel state."""

from __future__ import annotations

from gaia_lite.events import (Notice, TextDelta, ToolCallFinished, ToolCallStarted, ToolsSelected, TurnFailed,
                              TurnStarted)

from .scenes import CORE, REGISTRY, browse_turn, clipboard_loaded, new_view


def test_new_session_shows_core_until_the_first_selection(view):
    p = view.panel
    assert p.loaded == tuple(CORE)
    assert p.pending_core and p.active and p.off_state is None
    assert p.max_tools == 14


def test_a_turn_folds_into_entries_and_panel(view):
    for ev in browse_turn():
        view.apply(ev)
    kinds = [e.kind for e in view.entries]
    assert kinds == ["user", "tool", "assistant"]
    assert view.entries[2].text == "There are two files: notes.md and sales.csv."
    call = view.entries[1].call
    assert (call.name, call.status, call.duration_s) == ("browse_directory", "success", 0.0123)
    p = view.panel
    assert not p.pending_core
    assert p.new_this_turn == ("browse_directory", "get_file_info", "list_recent_files")
    assert p.skipped == ("search_directory",)
    assert [(e.kind, e.turn) for e in p.entries] == [("selection", 1)]
    stats = p.stats[-1]
    # the turn's TTFT and prompt size are the first model call's; cached from that call too
    assert (stats.turn, stats.ttft_s, stats.prompt_tokens, stats.cached_tokens, stats.steps, stats.status) == \
        (1, 0.41, 1234, 0, 2, "done")
    assert not view.busy


def test_streamed_text_grows_one_entry_and_bumps_its_revision(view):
    view.apply(TurnStarted(1, "hi"))
    view.apply(TextDelta("Hel"))
    entry = view.entries[-1]
    rev = entry.rev
    view.apply(TextDelta("lo"))
    assert view.entries[-1] is entry and entry.text == "Hello" and entry.rev == rev + 1


def test_load_marks_tools_and_records_an_entry(view):
    for ev in browse_turn():
        view.apply(ev)
    view.add_loaded(clipboard_loaded())
    p = view.panel
    assert p.reasons["read_clipboard"] == "load_tools:clipboard"
    assert "read_clipboard" in p.loaded and "get_file_info" not in p.loaded
    assert p.evicted == ("get_file_info", "list_recent_files")
    assert p.entries[-1].kind == "load_tools" and p.entries[-1].record.bundle == "clipboard"
    assert p.hash_changes == 1 and p.load_tools_count == 1


def test_hash_changes_and_escape_hatches_are_counted(view):
    for ev in browse_turn(1):
        view.apply(ev)
    second = browse_turn(2)
    sel = second[1]
    second[1] = ToolsSelected(2, sel.loaded, sel.reasons, None, "", "other", True, 900, sel.record)
    second[3] = ToolCallFinished("c1", "write_file", {"path": "x"}, "success", {"status": "success"}, 0.1,
                                 escape_hatch=True)
    for ev in second:
        view.apply(ev)
    assert view.panel.hash_changes == 1
    assert view.panel.escape_hatches == 1
    assert view.panel.entries[-1].kind == "escape_hatch"


def test_off_state_replaces_the_list_with_the_reason():
    view = new_view(active=False, off_state="loader_off", off_reason="dynamic tools are off")
    p = view.panel
    assert p.off_state == "loader_off" and p.off_reason == "dynamic tools are off"
    assert p.loaded == tuple(REGISTRY) and not p.entries
    # an embedder failure mid-session switches the panel to the off-state
    view = new_view()
    view.apply(TurnStarted(1, "q"))
    view.apply(ToolsSelected(1, tuple(REGISTRY), {n: "all" for n in REGISTRY}, "embedder_failed", "it broke",
                             "h", False, 5000, None))
    assert (view.panel.off_state, view.panel.off_reason, view.panel.active) == ("embedder_failed", "it broke", False)


def test_cancel_marks_running_calls_and_keeps_the_conversation(view):
    view.apply(TurnStarted(1, "q"))
    view.apply(ToolCallStarted("c9", "run_shell_command", {"command": "sleep 9"}, "native"))
    view.apply(TurnFailed(1, "cancelled", recoverable=True, exit_code=130))
    assert view.entries[1].call.status == "cancelled"
    assert view.entries[-1].kind == "error" and "conversation is kept" in view.entries[-1].text
    assert view.panel.stats[-1].status == "failed"


def test_reset_clears_entries_and_keeps_the_session_summary(view):
    for ev in browse_turn():
        view.apply(ev)
    view.reset(registry_names=REGISTRY, active=True, off_state=None, off_reason="",
               summary={"turns": 1, "escape_hatch_count": 0, "load_tools_count": 0, "escape_hatch_rate": 0.0})
    assert view.entries == [] and view.turn == 0
    assert view.panel.loaded == tuple(CORE) and view.panel.pending_core
    assert [e.kind for e in view.panel.entries] == ["session"]
    assert view.panel.max_tools == 14


def test_notices_and_progress_become_entries(view):
    view.apply(Notice("warning", "careful"))
    view.set_progress("indexing a.pdf", 1, 3)
    view.set_progress("indexing b.pdf", 2, 3)
    assert [(e.kind, e.text) for e in view.entries] == [("notice", "careful"), ("info", "indexing b.pdf 2/3")]


def test_answer_without_stream_is_added_once(view):
    from gaia_lite.events import TurnFinished

    view.apply(TurnStarted(1, "q"))
    view.apply(TurnFinished(1, "done", (), 1, None, None, None, ()))
    assert [e.text for e in view.entries if e.kind == "assistant"] == ["done"]


def test_text_of_each_model_call_is_its_own_entry(view):
    from gaia_lite.events import ModelCallFinished

    view.apply(TurnStarted(1, "q"))
    view.apply(TextDelta("first call"))
    view.apply(ModelCallFinished(1, 0.1, 0.2, 10, 0, 2, 0))
    view.apply(TextDelta("second call"))
    assert [e.text for e in view.entries if e.kind == "assistant"] == ["first call", "second call"]
