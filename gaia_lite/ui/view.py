"""ChatView: the chat screen's state, folded from the agent's event stream.

The view never talks to the agent. ``apply(event)`` folds one
``gaia_lite.events`` value into plain data; the render modules read that data
and return rich renderables. The CLI feeds a few facts that are not events
(the bundle layout, the loader's on/off state at start, a ``/reset``)
through ``ChatView.start_session`` and ``ChatView.reset``.

The frame caches rendered lines: ``panel_version`` changes whenever anything
the side panel shows changes, and each entry carries ``(seq, rev)``, bumped
whenever that entry changes.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Mapping, Sequence, Union

from gaia_lite.events import (
    Event, ModelCallFinished, Notice, TextDelta, ToolCallFinished, ToolCallStarted, ToolsLoaded,
    ToolsSelected, TurnFailed, TurnFinished, TurnStarted,
)

if TYPE_CHECKING:  # type-only: the view reads the records the events carry
    from gaia_lite.logline import LoadToolsRecord, SelectionRecord

__all__ = ["ChatView", "Entry", "ToolCallView", "PanelState", "LoaderEntry", "TurnStats", "BundleLayout",
           "LOADER_ENTRIES"]

LOADER_ENTRIES = 6  # TOOL_LOADER entries the panel keeps (latest expanded, older one line each)
STATS_TURNS = 3  # per-turn stat rows the panel keeps

EntryKind = Literal["user", "assistant", "tool", "notice", "error", "info"]


@dataclass(frozen=True)
class BundleLayout:
    """CORE names and bundles (menu order) as plain data, so the UI never imports the loader."""

    core: frozenset[str]
    bundles: tuple[tuple[str, frozenset[str]], ...]

    def bundle_of(self, tool: str) -> str | None:
        for name, members in self.bundles:
            if tool in members:
                return name
        return None


@dataclass
class ToolCallView:
    call_id: str
    name: str
    arguments: dict[str, Any]
    status: str | None = None  # None while running
    duration_s: float | None = None
    result: dict[str, Any] | None = None
    escape_hatch: bool = False


@dataclass
class Entry:
    kind: EntryKind
    text: str = ""
    turn: int = 0
    call: ToolCallView | None = None
    level: str = "info"
    seq: int = 0  # unique per view
    rev: int = 0  # bumped on every change; (seq, rev) keys the frame's line cache


@dataclass(frozen=True)
class LoaderEntry:
    """One TOOL_LOADER record as the panel shows it (``kind`` selection | load_tools |
    escape_hatch | session): the typed record an event carried, or for an escape hatch and the
    session summary the dict the view derived."""

    kind: str
    turn: int
    record: Union[SelectionRecord, LoadToolsRecord, Mapping[str, Any]]


@dataclass(frozen=True)
class TurnStats:
    turn: int
    ttft_s: float | None = None
    prompt_tokens: int | None = None
    cached_tokens: int | None = None
    steps: int = 0
    status: str = "running"  # running | done | failed


@dataclass
class PanelState:
    layout: BundleLayout = field(default_factory=lambda: BundleLayout(frozenset(), ()))
    registry_size: int = 0
    active: bool = False  # the loader filters the prompt
    off_state: str | None = "loader_off"
    off_reason: str = ""
    pending_core: bool = False  # new session: CORE shown until the first selection
    loaded: tuple[str, ...] = ()
    reasons: dict[str, str] = field(default_factory=dict)
    scores: dict[str, float] = field(default_factory=dict)  # this turn's record scores
    matched: tuple[str, ...] = ()
    new_this_turn: tuple[str, ...] = ()
    evicted: tuple[str, ...] = ()
    skipped: tuple[str, ...] = ()
    max_tools: int | None = None
    entries: deque[LoaderEntry] = field(default_factory=lambda: deque(maxlen=LOADER_ENTRIES))
    stats: deque[TurnStats] = field(default_factory=lambda: deque(maxlen=STATS_TURNS))
    hash_changes: int = 0
    escape_hatches: int = 0
    load_tools_count: int = 0
    last_hash: str = ""


class ChatView:
    """Folds events into conversation entries and panel state (see the module docstring)."""

    def __init__(self, layout: BundleLayout | None = None) -> None:
        self.entries: list[Entry] = []
        self.panel = PanelState()
        if layout is not None:
            self.panel.layout = layout
        self.turn = 0
        self.turn_start = 0  # index of the first entry of the current turn
        self.busy = False
        self.details = False
        self.panel_version = 0
        self._calls: dict[str, ToolCallView] = {}
        self._seq = 0
        self._streaming: Entry | None = None  # the assistant entry text deltas append to

    def _append(self, entry: Entry) -> None:
        self._seq += 1
        entry.seq = self._seq
        self.entries.append(entry)

    # ------------------------------------------------------------------ session facts
    def start_session(self, *, layout: BundleLayout, registry_names: Sequence[str], active: bool,
                      off_state: str | None, off_reason: str, max_tools: int | None = None) -> None:
        """What the panel shows before the first turn: CORE while the loader is on, else the off-state."""
        p = self.panel
        p.layout = layout
        p.max_tools = max_tools
        p.registry_size = len(registry_names)
        p.active = active
        p.off_state = None if active else (off_state or "loader_off")
        p.off_reason = "" if active else off_reason
        if active:
            p.loaded = tuple(sorted(n for n in layout.core if n in set(registry_names)))
            p.reasons = {n: "core" for n in p.loaded}
            p.pending_core = True
        else:
            p.loaded, p.reasons = tuple(registry_names), {n: "all" for n in registry_names}
        self._panel_changed()

    def reset(self, *, registry_names: Sequence[str], active: bool, off_state: str | None, off_reason: str,
              summary: Mapping[str, Any] | None = None) -> None:
        """``/reset``: forget the conversation and the loader session; keep the logged summary visible."""
        self.entries.clear()
        self._calls.clear()
        self.turn = 0
        self.turn_start = 0
        layout, cap = self.panel.layout, self.panel.max_tools
        self.panel = PanelState()
        self.start_session(layout=layout, registry_names=registry_names, active=active, off_state=off_state,
                           off_reason=off_reason, max_tools=cap)
        if summary is not None:
            self.panel.entries.append(LoaderEntry("session", 0, dict(summary)))

    def toggle_details(self) -> bool:
        self.details = not self.details
        return self.details

    # ------------------------------------------------------------------ local lines
    def add(self, kind: EntryKind, text: str, *, level: str = "info") -> None:
        """A line from the UI itself (command output, notices, prompts answered)."""
        self._append(Entry(kind, text, self.turn, level=level))

    def add_loaded(self, event: ToolsLoaded) -> None:
        """``/load`` outside a turn: same fold as a mid-turn ToolsLoaded."""
        self._on_loaded(event)

    # ------------------------------------------------------------------ events
    def apply(self, event: Event) -> None:
        handler = getattr(self, f"_on_{event.kind}", None)
        if handler is not None:
            handler(event)

    def _on_turn_started(self, ev: TurnStarted) -> None:
        self.turn = ev.turn
        self.busy = True
        self.turn_start = len(self.entries)
        self._append(Entry("user", ev.query, ev.turn))
        self.panel.stats.append(TurnStats(ev.turn))
        self._panel_changed()

    def _on_tools_selected(self, ev: ToolsSelected) -> None:
        p = self.panel
        p.pending_core = False
        p.loaded = tuple(ev.loaded)
        p.reasons = dict(ev.reasons)
        if ev.changed:
            p.hash_changes += 1
        p.last_hash = ev.tools_hash or p.last_hash
        if ev.off_state is not None:
            p.active = False
            p.off_state, p.off_reason = ev.off_state, ev.off_reason
            p.scores, p.matched, p.new_this_turn, p.evicted, p.skipped = {}, (), (), (), ()
        elif ev.record is None:
            p.active, p.off_state, p.off_reason = True, None, ""
            p.scores, p.matched, p.new_this_turn, p.evicted, p.skipped = {}, (), (), (), ()
        else:
            p.active, p.off_state, p.off_reason = True, None, ""
            rec = ev.record
            p.scores = dict(rec.scores)
            p.matched = rec.matched
            p.new_this_turn = tuple(n for n in rec.admitted if ev.reasons.get(n) != "core")
            p.evicted, p.skipped, p.max_tools = rec.evicted, rec.skipped_at_cap, rec.max_tools
            p.entries.append(LoaderEntry("selection", rec.turn, rec))
        self._panel_changed()

    def _on_tools_loaded(self, ev: ToolsLoaded) -> None:
        self._on_loaded(ev)

    def _on_loaded(self, ev: ToolsLoaded) -> None:
        p = self.panel
        p.pending_core = False
        p.loaded = tuple(ev.loaded)
        for name in ev.admitted:
            p.reasons[name] = f"load_tools:{ev.bundle}"
        p.reasons = {n: p.reasons.get(n, "loaded") for n in p.loaded}
        p.new_this_turn = tuple(n for n in dict.fromkeys((*p.new_this_turn, *ev.admitted)) if n in p.loaded)
        rec = ev.record
        p.evicted = tuple(dict.fromkeys((*p.evicted, *rec.evicted)))
        p.skipped = tuple(dict.fromkeys((*p.skipped, *rec.skipped_at_cap)))
        if ev.tools_hash and p.last_hash and ev.tools_hash != p.last_hash:
            p.hash_changes += 1
        p.last_hash = ev.tools_hash or p.last_hash
        p.load_tools_count += 1
        p.entries.append(LoaderEntry("load_tools", rec.turn, rec))
        self._panel_changed()

    def _on_text_delta(self, ev: TextDelta) -> None:
        last = self.entries[-1] if self.entries else None
        if last is not None and last is self._streaming:
            last.text += ev.text
            last.rev += 1
        else:
            self._streaming = Entry("assistant", ev.text, self.turn)
            self._append(self._streaming)

    def _on_model_call_finished(self, ev: ModelCallFinished) -> None:
        self._streaming = None  # the next call's text is a new entry
        p = self.panel
        if not p.stats:
            return
        cur = p.stats[-1]
        if ev.step == 1 or cur.ttft_s is None:
            p.stats[-1] = TurnStats(cur.turn, ev.ttft_s, ev.prompt_tokens, ev.cached_tokens, ev.step, cur.status)
        else:
            p.stats[-1] = TurnStats(cur.turn, cur.ttft_s, cur.prompt_tokens, cur.cached_tokens, ev.step, cur.status)
        self._panel_changed()

    def _on_tool_call_started(self, ev: ToolCallStarted) -> None:
        call = ToolCallView(ev.call_id, ev.name, dict(ev.arguments))
        self._calls[ev.call_id] = call
        self._append(Entry("tool", "", self.turn, call=call))

    def _on_tool_call_finished(self, ev: ToolCallFinished) -> None:
        call = self._calls.pop(ev.call_id, None)
        if call is None:
            call = ToolCallView(ev.call_id, ev.name, dict(ev.arguments))
            self._append(Entry("tool", "", self.turn, call=call))
        call.name, call.arguments = ev.name, dict(ev.arguments)
        call.status, call.duration_s, call.result = ev.status, ev.duration_s, dict(ev.result)
        call.escape_hatch = ev.escape_hatch
        self._touch_call(call)
        if ev.escape_hatch:
            p = self.panel
            p.escape_hatches += 1
            p.entries.append(LoaderEntry("escape_hatch", self.turn, {"tool": ev.name, "turn": self.turn}))
            self._panel_changed()

    def _on_notice(self, ev: Notice) -> None:
        self.add("notice", ev.message, level=ev.level)

    def _on_turn_finished(self, ev: TurnFinished) -> None:
        self.busy = False
        p = self.panel
        if p.stats and p.stats[-1].turn == ev.turn:
            cur = p.stats[-1]
            p.stats[-1] = TurnStats(ev.turn, cur.ttft_s if cur.ttft_s is not None else ev.ttft_s,
                                    cur.prompt_tokens if cur.prompt_tokens is not None else ev.prompt_tokens,
                                    cur.cached_tokens if cur.cached_tokens is not None else ev.cached_tokens,
                                    ev.steps, "done")
        streamed = any(e.kind == "assistant" for e in self.entries[self.turn_start:])
        if not streamed and ev.answer:
            self._append(Entry("assistant", ev.answer, ev.turn))
        self._panel_changed()

    def _on_turn_failed(self, ev: TurnFailed) -> None:
        self.busy = False
        for call in self._calls.values():
            call.status = "cancelled" if ev.error == "cancelled" else "error"
            self._touch_call(call)
        self._calls.clear()
        p = self.panel
        if p.stats and p.stats[-1].turn == ev.turn:
            cur = p.stats[-1]
            p.stats[-1] = TurnStats(cur.turn, cur.ttft_s, cur.prompt_tokens, cur.cached_tokens, cur.steps, "failed")
        if ev.error == "cancelled":
            text = "cancelled (Ctrl-C); the conversation is kept"
        else:
            text = ev.error + ("" if ev.recoverable else " (the session cannot continue)")
        self._append(Entry("error", text, ev.turn))
        self._panel_changed()

    def set_progress(self, label: str, done: int, total: int) -> None:
        """Long tool work (indexing) reports here; one line per turn, updated in place."""
        text = f"{label} {done}/{total}" if total else label
        last = self.entries[-1] if self.entries else None
        if last is not None and last.kind == "info" and last.level == "progress":
            last.text = text
            last.rev += 1
        else:
            self._append(Entry("info", text, self.turn, level="progress"))

    # ------------------------------------------------------------------ helpers
    def _touch_call(self, call: ToolCallView) -> None:
        for e in reversed(self.entries):
            if e.call is call:
                e.rev += 1
                break

    def _panel_changed(self) -> None:
        self.panel_version += 1

    def current_turn_entries(self) -> list[Entry]:
        return self.entries[self.turn_start:]
