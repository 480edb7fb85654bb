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
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Sequence

from gaia_lite.events import Notice, ToolsLoaded, ToolsSelected
from gaia_lite.registry.registry import ToolRegistry
from gaia_lite.registry.render import native_json, render_native
from gaia_lite.registry.spec import ToolSpec, spec_from_function

__all__ = ["SelectionState", "ToolSelector", "LOAD_TOOLS", "OFF_REASONS"]

LOAD_TOOLS = "load_tools"

OFF_REASONS = {
    "loader_off": "dynamic tools are off (set GAIA_DYNAMIC_TOOLS=1 or pass --dynamic-tools); all tools are shown",
    "memory_disabled": "GAIA_MEMORY_DISABLED=1 turns the loader off with memory; all tools are shown",
    "embedder_failed": "the embedder failed; the loader is off for this session and all tools are shown",
}

HashFn = Callable[["SelectionState"], str]


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
        self.on_loaded: Callable[[ToolsLoaded], None] | None = None
        self._hash_fn: HashFn | None = None

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

    def _finish(self, state: SelectionState, hash_fn: HashFn | None) -> SelectionState:
        """Attach the tools hash; mark whether it changed since the last turn."""
        h = hash_fn(state) if hash_fn else ""
        return replace(state, tools_hash=h, changed=bool(self.state.tools_hash) and h != self.state.tools_hash)

    # ------------------------------------------------------------------ per turn
    def select(self, earlier_user_messages: Sequence[str], query: str, *,
               skill_tools: Sequence[str] | None = None, hash_fn: HashFn | None = None) -> SelectionState:
        self._hash_fn = hash_fn
        notices: tuple[Notice, ...] = ()
        if self.active:
            if not self._validated:
                self.loader.validate_registry(self.registry)
                self._validated = True
            from gaia_lite.loader.loader import selection_query

            q = selection_query(list(earlier_user_messages), query)
            sel = self.loader.select(q, self.registry, skill_tools=skill_tools,
                                     tools_hash_fn=lambda loaded: self._hash_for(loaded, hash_fn))
            if sel is not None:
                state = SelectionState(tuple(sel.loaded), self._menu(), frozenset(), None,
                                       dict(sel.reasons), sel.record)
                state = self._finish(state, hash_fn)
                self.state = state
                return state
            if not self._warned:
                self._warned = True
                notices = (Notice("warning", OFF_REASONS["embedder_failed"]),)
        state = replace(self._finish(self._full_state(), hash_fn), notices=notices)
        self.state = state
        return state

    def _menu(self) -> str | None:
        return self.loader.format_bundle_menu() if (self.menu_enabled and self.active) else None

    def _hash_for(self, loaded: Sequence[str], hash_fn: HashFn | None) -> str:
        if hash_fn is None:
            return ""
        return hash_fn(SelectionState(tuple(sorted(loaded)), self._menu()))

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
        try:
            sel = self.loader.load_bundle(bundle, self.registry,
                                          tools_hash_fn=lambda loaded: self._hash_for(loaded, self._hash_fn))
        except KeyError:
            return f"Unknown bundle '{bundle}'. Choose one of: {', '.join(self.loader.bundle_names())}"
        state = SelectionState(tuple(sel.loaded), self._menu(), frozenset(), None,
                               {**self.state.reasons, **{n: f"load_tools:{sel.bundle}" for n in sel.admitted}},
                               sel.record)
        self.state = self._finish(state, self._hash_fn)
        event = ToolsLoaded(sel.bundle, tuple(sel.admitted), tuple(sel.loaded), self.state.tools_hash, sel.record)
        if self.on_loaded is not None:
            self.on_loaded(event)
        return event

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

    # ------------------------------------------------------------------ the meta-tool
    def load_tools_spec(self) -> ToolSpec:
        """The ``load_tools`` tool, bound to this selector (registered only while a loader exists)."""

        def load_tools(bundle: str) -> dict[str, Any]:
            """Load a bundle of extra tools so you can call them on your next step.

            Args:
                bundle: A bundle name from LOADABLE TOOL BUNDLES, or the exact tool name you need.
            """
            outcome = self.load_bundle(bundle)
            if isinstance(outcome, str):
                return {"status": "error", "error": outcome}
            return {"status": "success", "bundle": outcome.bundle, "loaded_tools": sorted(outcome.loaded)}

        return spec_from_function(load_tools)
