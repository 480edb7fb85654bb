"""The agent's view of tool selection: which tools the prompt shows this turn.

``ToolSelector`` wraps the ToolLoader (or its absence) and turns each turn's
selection into a SelectionState: the filter the two render paths read, the
bundle menu, and why the full registry is shown when the loader is off.
The three off-states all expose every tool exactly as a build without the
loader would (no menu, no ``load_tools``):

* ``loader_off``      GAIA_DYNAMIC_TOOLS is not set (the default);
* ``memory_disabled`` GAIA_MEMORY_DISABLED=1 (the loader needs the embedder memory uses);
* ``embedder_failed`` the embedder raised; the loader stays off for the session.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field, replace
from typing import Any, Sequence

from gaia_lite.events import Notice, ToolsLoaded, ToolsSelected
from gaia_lite.registry.registry import ToolRegistry
from gaia_lite.registry.render import native_json, render_native, render_text, tools_hash

__all__ = ["SelectionState", "ToolSelector", "LOAD_TOOLS", "OFF_REASONS"]

LOAD_TOOLS = "load_tools"

OFF_REASONS = {
    "loader_off": "dynamic tools are off (set GAIA_DYNAMIC_TOOLS=1 or pass --dynamic-tools); all tools are shown",
    "memory_disabled": "GAIA_MEMORY_DISABLED=1 turns the loader off with memory; all tools are shown",
    "embedder_failed": "the embedder failed; the loader is off for this session and all tools are shown",
}

@dataclass(frozen=True)
class SelectionState:
    filter: tuple[str, ...] | None  # sorted loaded set, None = every tool (legacy path)
    menu: str | None = None
    hidden: frozenset[str] = frozenset()  # left out of the unfiltered render
    off_state: str | None = None
    reasons: dict[str, str] = field(default_factory=dict)
    record: dict[str, Any] | None = None
    tools_hash: str = ""
    changed: bool = False
    notices: tuple[Notice, ...] = ()

    def visible_names(self, registry: ToolRegistry) -> list[str]:
        if self.filter is not None:
            return [n for n in self.filter if n in registry]
        return [n for n in registry.names() if n not in self.hidden]

    def event(self, turn: int, registry: ToolRegistry) -> ToolsSelected:
        names = tuple(self.visible_names(registry))
        estimate = len(native_json(render_native(registry, names))) // 4
        return ToolsSelected(turn, names, dict(self.reasons), self.off_state,
                             OFF_REASONS.get(self.off_state or "", ""), self.tools_hash, self.changed,
                             estimate, self.record)


class ToolSelector:
    """Owns the per-session selection; the Agent asks it what to show."""

    def __init__(self, registry: ToolRegistry, loader: Any = None, *, off_state: str | None = None,
                 menu_enabled: bool = True) -> None:
        self.registry = registry
        self.loader = loader
        self.menu_enabled = menu_enabled
        self._off_state = off_state if loader is None else None
        if loader is None and off_state is None:
            self._off_state = "loader_off"
        self._validated = False
        self._warned = False
        self.state = self._full_state()
        self._warm_thread: threading.Thread | None = None

    # ------------------------------------------------------------------ states
    @property
    def active(self) -> bool:
        return self.loader is not None and not self.loader.session_disabled

    @property
    def off_state(self) -> str | None:
        if self.loader is not None and self.loader.session_disabled:
            return "embedder_failed"
        return self._off_state

    def _full_state(self) -> SelectionState:
        hidden = frozenset({LOAD_TOOLS}) if LOAD_TOOLS in self.registry else frozenset()
        return SelectionState(None, None, hidden, self.off_state,
                              {n: "all" for n in self.registry.names() if n not in hidden})

    # ------------------------------------------------------------------ per turn
    def warm(self) -> None:
        """Load the embedder and embed the tool documents in the background, so the
        first turn's selection does not pay for it (the user is still typing)."""
        if not self.active or self._warm_thread is not None:
            return

        def run() -> None:
            try:
                self.loader.score("", self.registry)
            except Exception:  # the first select() meets the same failure and handles it
                pass

        self._warm_thread = threading.Thread(target=run, name="loader-warm", daemon=True)
        self._warm_thread.start()

    def select(self, earlier_user_messages: Sequence[str], query: str, *,
               skill_tools: Sequence[str] | None = None) -> SelectionState:
        notices: tuple[Notice, ...] = ()
        if self._warm_thread is not None:
            self._warm_thread.join()
        if self.active:
            if not self._validated:
                self.loader.validate_registry(self.registry)
                self._validated = True
            from gaia_lite.loader.loader import selection_query
            from gaia_lite.loader.logline import selection_payload

            q = selection_query(list(earlier_user_messages), query)
            sel = self.loader.select(q, self.registry, skill_tools=skill_tools)
            if sel is not None:
                record = selection_payload(
                    turn=sel.turn, query_sha=sel.query_sha, threshold=self.loader.threshold,
                    max_tools=self.loader.max_tools, scores=sel.scores, matched=sel.matched,
                    bundle_pulled=sel.bundle_pulled, admitted=sel.admitted, evicted=sel.evicted,
                    skipped_at_cap=sel.skipped_at_cap, loaded=sel.loaded, skill=sel.skill,
                    tools_hash=sel.tools_hash, selection_ms=sel.selection_ms)
                state = SelectionState(tuple(sel.loaded), self._menu(), frozenset(), None,
                                       dict(sel.reasons), record, sel.tools_hash)
                return self._commit(state)
            if not self._warned:
                self._warned = True
                notices = (Notice("warning", OFF_REASONS["embedder_failed"]),)
        return self._commit(replace(self._full_state(), notices=notices))

    def _commit(self, state: SelectionState) -> SelectionState:
        """Make ``state`` current, filling in the tools hash and whether it changed."""
        digest = state.tools_hash or tools_hash(
            render_text(self.registry, state.visible_names(self.registry)),
            render_native(self.registry, state.visible_names(self.registry)))
        state = replace(state, tools_hash=digest,
                        changed=bool(self.state.tools_hash) and digest != self.state.tools_hash)
        self.state = state
        return state

    def _menu(self) -> str | None:
        return self.loader.format_bundle_menu() if (self.menu_enabled and self.active) else None

    # ------------------------------------------------------------------ mid-turn
    def is_escape(self, name: str, registry: ToolRegistry) -> bool:
        """Would running ``name`` be a free recovery (not shown in the prompt)?"""
        if not self.active or self.state.filter is None:
            return False
        from gaia_lite.registry.execute import resolve_name

        resolved, _ = resolve_name(name, registry)
        return resolved is not None and resolved not in self.state.filter

    def record_tool_use(self, name: str) -> None:
        if self.active and name != LOAD_TOOLS:
            self.loader.record_tool_use(name)

    def load_bundle(self, bundle: str) -> ToolsLoaded | str:
        """Add a bundle (or a tool's bundle). Returns the event, or an error line."""
        if not self.active:
            return ("the loader is not active, so every tool is already available"
                    f" ({OFF_REASONS.get(self.off_state or '', '')})")
        before = set(self.state.filter or ())
        try:
            loaded = self.loader.load_bundle(bundle, self.registry)
        except KeyError:
            return f"Unknown bundle '{bundle}'. Choose one of: {', '.join(self.loader.bundle_names())}"
        if loaded is None:  # the embedder failed meanwhile
            return "the loader is not active, so every tool is already available"
        admitted = tuple(sorted(set(loaded) - before))
        evicted = tuple(sorted(before - set(loaded)))
        resolved = next((r.split(":", 1)[1] for n in admitted
                         if (r := self.loader.reason(n) or "").startswith("load_tools:")), bundle)
        reasons = {n: r for n, r in self.state.reasons.items() if n in loaded}
        reasons.update({n: f"load_tools:{resolved}" for n in admitted})
        from gaia_lite.loader.logline import load_tools_payload

        state = self._commit(SelectionState(tuple(loaded), self._menu(), frozenset(), None, reasons))
        record = load_tools_payload(turn=self.loader.turn, bundle=resolved, admitted=admitted, evicted=evicted,
                                    skipped_at_cap=(), loaded=loaded, tools_hash=state.tools_hash,
                                    selection_ms=0.0)
        self.state = replace(state, record=record)
        return ToolsLoaded(resolved, admitted, tuple(loaded), state.tools_hash, record)

    def loader_turn(self) -> int:
        return self.loader.turn if self.loader is not None else 0

    def reset(self) -> None:
        if self.loader is not None:
            self.loader.reset_session()
        self._warned = False
        self.state = self._full_state()

    def close(self) -> None:
        if self.loader is not None:
            self.loader.close()
