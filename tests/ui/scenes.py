"""Scripted scenes for the UI tests: the real bundle layout, event streams of
typical turns, and a capture console (fixed size, no colour, terminal codes on)."""

from __future__ import annotations

import io
from typing import Any

from rich.console import Console

from gaia_lite.events import (ModelCallFinished, TextDelta, ToolCallFinished, ToolCallStarted, ToolsLoaded,
                              ToolsSelected, TurnFinished, TurnStarted)
from gaia_lite.loader.bundles import load_bundles
from gaia_lite.logline import LoadToolsRecord, SelectionRecord
from gaia_lite.ui.view import BundleLayout, ChatView

CFG = load_bundles()
LAYOUT = BundleLayout(CFG.core, tuple((b.name, b.members) for b in CFG.bundles))
REGISTRY = sorted(CFG.members | {"load_tools"})
CORE = sorted(CFG.core)
BROWSE = ("browse_directory", "get_file_info", "list_recent_files")


def capture_console(width: int = 120, height: int = 40, *, terminal: bool = True) -> Console:
    return Console(file=io.StringIO(), width=width, height=height, color_system=None, force_terminal=terminal,
                   legacy_windows=False, _environ={}, highlight=False, emoji=False)


def output(console: Console) -> str:
    return console.file.getvalue()  # type: ignore[attr-defined]


def selection_record(turn: int, *, admitted: list[str], loaded: list[str], matched: list[str],
                     evicted: list[str] | None = None, skipped: list[str] | None = None,
                     scores: dict[str, float] | None = None) -> SelectionRecord:
    all_scores = {n: 0.05 for n in REGISTRY}
    all_scores.update(scores or {})
    return SelectionRecord(turn=turn, query_sha="0123456789ab", threshold=0.2, max_tools=14, scores=all_scores,
                           matched=tuple(sorted(matched)), bundle_pulled=(), admitted=tuple(sorted(admitted)),
                           evicted=tuple(sorted(evicted or [])), skipped_at_cap=tuple(sorted(skipped or [])),
                           loaded=tuple(sorted(loaded)), skill=(), tools_hash=f"hash{turn}", selection_ms=1.25)


def browse_turn(turn: int = 1) -> list[Any]:
    """A typical first turn: browse_directory matched, its two bundle-mates pulled in, one call, an answer."""
    loaded = sorted(CORE + list(BROWSE))
    reasons = {n: "core" for n in CORE}
    reasons.update(browse_directory="semantic", get_file_info="bundle:file_browse",
                   list_recent_files="bundle:file_browse")
    rec = selection_record(turn, admitted=loaded, loaded=loaded, matched=["browse_directory"],
                           skipped=["search_directory"],
                           scores={"browse_directory": 0.61, "search_directory": 0.33})
    return [
        TurnStarted(turn, "list the files in this folder"),
        ToolsSelected(turn, tuple(loaded), reasons, None, "", f"hash{turn}", False, 900, rec),
        ToolCallStarted("c1", "browse_directory", {"path": "."}, "native"),
        ToolCallFinished("c1", "browse_directory", {"path": "."}, "success",
                         {"status": "success", "entries": ["notes.md", "sales.csv"]}, 0.0123),
        ModelCallFinished(1, 0.41, 0.9, 1234, 0, 12, 1),
        TextDelta("There are two files: "),
        TextDelta("notes.md and sales.csv."),
        ModelCallFinished(2, 0.12, 0.5, 1302, 1200, 9, 0),
        TurnFinished(turn, "There are two files: notes.md and sales.csv.", ("browse_directory",), 2, 0.41, 1234, 0,
                     tuple(loaded)),
    ]


def clipboard_loaded(turn: int = 1) -> ToolsLoaded:
    """``/load clipboard`` after ``browse_turn``: at the cap of 14, the two unused mates are evicted."""
    loaded = sorted(CORE + ["browse_directory", "read_clipboard", "write_clipboard"])
    rec = LoadToolsRecord(turn=turn, bundle="clipboard", admitted=("read_clipboard", "write_clipboard"),
                          evicted=("get_file_info", "list_recent_files"), skipped_at_cap=(), loaded=tuple(loaded),
                          tools_hash="hashL", selection_ms=0.4)
    return ToolsLoaded("clipboard", ("read_clipboard", "write_clipboard"), tuple(loaded), "hashL", rec)


def new_view(active: bool = True, off_state: str | None = None, off_reason: str = "") -> ChatView:
    view = ChatView()
    view.start_session(layout=LAYOUT, registry_names=REGISTRY, active=active, off_state=off_state,
                       off_reason=off_reason, max_tools=14)
    return view
