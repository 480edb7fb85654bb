"""The agent's view of tool selection: which tools the prompt shows this turn.

``ToolSelector`` wraps the ToolLoader (or its absence) and turns the loader's
``Selection`` into a SelectionState: the filter the prompt layouts read, the
bundle menu, and why the full registry is shown when the loader is off. The
loader keeps the books (loaded set, reasons, record, hash, change); the
selector only adds what the prompt needs. The three off-states all expose
every tool exactly as a build without the loader would (no menu, no
``load_tools``):

* ``loader_off``      GAIA_DYNAMIC_TOOLS is not set (the default);
* ``memory_disabled`` GAIA_MEMORY_DISABLED=1 (the loader needs the embedder memory uses);
* ``embedder_failed`` the embedder raised; the loader stays off for the session.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, replace
from typing import Sequence

from gaia_lite.events import Notice, ToolsLoaded, ToolsSelected
from gaia_lite.loader.joins import JoinSource
from gaia_lite.loader.loader import ToolLoader, registry_tools_hash, selection_query
from gaia_lite.loader.worked import WorkedPick
from gaia_lite.logline import SelectionRecord
from gaia_lite.registry.execute import resolve_name
from gaia_lite.registry.registry import ToolRegistry
from gaia_lite.registry.render import native_json, render_native

__all__ = ["SelectionState", "ToolSelector", "LOAD_TOOLS", "OFF_REASONS"]

LOAD_TOOLS = "load_tools"

OFF_REASONS = {
    "loader_off": "dynamic tools are off (set GAIA_DYNAMIC_TOOLS=1 or pass --dynamic-tools); all tools are shown",
    "memory_disabled": "GAIA_MEMORY_DISABLED=1 turns the loader off with memory; all tools are shown",
    "embedder_failed": "the embedder failed; the loader is off for this session and all tools are shown",
}
NOT_ACTIVE = "the loader is not active, so every tool is already available"


@dataclass(frozen=True)
class SelectionState:
    filter: tuple[str, ...] | None  # the loaded set in the loader's order; None = every tool (legacy path)
    menu: str | None = None
    hidden: frozenset[str] = frozenset()  # left out of the unfiltered render
    off_state: str | None = None
    reasons: dict[str, str] = field(default_factory=dict)
    record: SelectionRecord | None = None  # this turn's TOOL_LOADER record (None: nothing was logged)
    tools_hash: str = ""
    changed: bool = False
    notices: tuple[Notice, ...] = ()
    examples: tuple[WorkedPick, ...] = ()  # worked examples for this turn's message (loader/worked.py)
    sure: WorkedPick | None = None  # the example whose call serves the message as it stands (Selection.sure)

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
    """Owns the per-session selection; the Agent asks it what to show. It is also the loader port
    ``load_tools`` reaches through ``ToolContext.loader``."""

    def __init__(self, registry: ToolRegistry, loader: ToolLoader | None = None, *,
                 off_state: str | None = None, menu_enabled: bool = True,
                 joins: JoinSource | None = None) -> None:
        self.registry = registry
        self.loader = loader
        self._joins = joins
        self.menu_enabled = menu_enabled
        self._off_state = None if loader is not None else (off_state or "loader_off")
        self._validated = False
        self._warned = False
        self._warm_thread: threading.Thread | None = None
        hidden = frozenset({LOAD_TOOLS}) if LOAD_TOOLS in registry else frozenset()
        self._full = SelectionState(None, None, hidden, None, {n: "all" for n in registry.names() if n not in hidden})
        self.state = replace(self._full, off_state=self.off_state)

    # ------------------------------------------------------------------ states
    @property
    def active(self) -> bool:
        return self.loader is not None and not self.loader.session_disabled

    @property
    def off_state(self) -> str | None:
        if self.loader is not None and self.loader.session_disabled:
            return "embedder_failed"
        return self._off_state

    def _full_state(self, notices: tuple[Notice, ...] = ()) -> SelectionState:
        """Every tool, as a build without the loader shows them; ``changed`` when the loader's set was shown."""
        digest = registry_tools_hash(self.registry, self._full.visible_names(self.registry))
        return replace(self._full, off_state=self.off_state, tools_hash=digest, notices=notices,
                       changed=bool(self.state.tools_hash) and digest != self.state.tools_hash)

    def _menu(self) -> str | None:
        return self.loader.format_bundle_menu() if (self.menu_enabled and self.active) else None

    # ------------------------------------------------------------------ per turn
    def warm(self) -> None:
        """Load the embedder and embed the tool documents in the background, so the
        first turn's selection does not pay for it (the user is still typing)."""
        if not self.active or self._warm_thread is not None:
            return
        loader = self.loader

        def run() -> None:
            try:
                loader.score("", self.registry)
            except Exception:  # the first select() meets the same failure and handles it
                pass

        self._warm_thread = threading.Thread(target=run, name="loader-warm", daemon=True)
        self._warm_thread.start()

    def absorb_joins(self) -> tuple[Notice, ...]:
        """Add the tools that joined since the last turn to the registry (and their bundle to the
        loader); their notices. Runs on the agent's thread, between turns, never mid-turn."""
        if self._joins is None:
            return ()
        notices: list[Notice] = []
        for join in self._joins():
            removed = [n for n in join.removed if n in self.registry]
            for name in removed:
                self.registry.remove(name)
            added = [s for s in join.specs if s.name not in self.registry]
            for spec in join.specs:
                if spec.name in self.registry:
                    self.registry.replace(spec)
                else:
                    self.registry.add(spec)
            if self.loader is not None and join.bundle is not None and (join.specs or removed):
                self.loader.add_bundle(join.bundle)
                self.loader.forget(removed)
            if added or removed:
                reasons = {**self._full.reasons, **{s.name: "all" for s in added}}
                self._full = replace(self._full, reasons={n: r for n, r in reasons.items() if n not in removed})
            notices.append(join.notice)
        return tuple(notices)

    def select(self, earlier_user_messages: Sequence[str], query: str, *,
               skill_tools: Sequence[str] | None = None) -> SelectionState:
        if self._warm_thread is not None:
            self._warm_thread.join()
        joined = self.absorb_joins()
        notices: tuple[Notice, ...] = ()
        if self.loader is not None and self.active:
            if not self._validated:
                self.loader.validate_registry(self.registry)
                self._validated = True
            q = selection_query(list(earlier_user_messages), query)
            sel = self.loader.select(q, self.registry, skill_tools=skill_tools)
            if sel is not None:
                self.state = SelectionState(sel.loaded, self._menu(), frozenset(), None, dict(sel.reasons),
                                            sel.record, sel.tools_hash, sel.changed, joined, sel.examples,
                                            sel.sure)
                return self.state
            if not self._warned:
                self._warned = True
                notices = (Notice("warning", OFF_REASONS["embedder_failed"]),)
        self.state = self._full_state(joined + notices)
        return self.state

    def best_match(self, message: str) -> float | None:
        """The best score any tool (``load_tools`` aside) gets for ``message`` on its own; None when the
        loader is not active or cannot score."""
        if self.loader is None or not self.active:
            return None
        try:
            scores = self.loader.score(message, self.registry)
        except Exception:  # the turn's own select() reports an embedder failure
            return None
        return max((s for n, s in scores.items() if n != LOAD_TOOLS), default=None)

    # ------------------------------------------------------------------ mid-turn
    def is_escape(self, name: str) -> bool:
        """Would running ``name`` be a free recovery (not shown in the prompt)?"""
        if not self.active or self.state.filter is None:
            return False
        resolved, _ = resolve_name(name, self.registry)
        return resolved is not None and resolved not in self.state.filter

    def record_tool_use(self, name: str) -> None:
        if self.loader is not None and self.active and name != LOAD_TOOLS:
            self.loader.record_tool_use(name)

    def load_bundle(self, bundle: str) -> ToolsLoaded | str:
        """Add a bundle (or a tool's bundle). Returns the event, or an error line."""
        if self.loader is None or not self.active:
            return f"{NOT_ACTIVE} ({OFF_REASONS.get(self.off_state or '', '')})"
        try:
            sel = self.loader.load_bundle(bundle, self.registry)
        except KeyError:
            return f"Unknown bundle '{bundle}'. Choose one of: {', '.join(self.loader.bundle_names())}"
        if sel is None:  # the embedder failed meanwhile
            return NOT_ACTIVE
        self.state = SelectionState(sel.loaded, self._menu(), frozenset(), None, dict(sel.reasons), None,
                                    sel.tools_hash, sel.changed)
        rec = sel.record
        return ToolsLoaded(rec.bundle, rec.admitted, rec.loaded, rec.tools_hash, rec)

    def loader_turn(self) -> int:
        return self.loader.turn if self.loader is not None else 0

    def reset(self) -> None:
        if self.loader is not None:
            self.loader.reset_session()
        self._warned = False
        self.state = replace(self._full, off_state=self.off_state)

    def close(self) -> None:
        # The warm-up may still be inside the embedder's native code: closing under it, or leaving it
        # running into interpreter exit, aborted `serve --warm` ("terminate called without an active
        # exception", exit code 134) after its work was done.
        if self._warm_thread is not None:
            self._warm_thread.join()
        if self.loader is not None:
            self.loader.close()
