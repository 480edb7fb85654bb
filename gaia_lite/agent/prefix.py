"""What the model sees each step, laid out so the server's KV-cache prefix survives.

llama-server (and every OpenAI-compatible server with a prefix cache) reuses
the work of the longest prefix a request shares with the previous one. The tool
block sits *before* the conversation (in the system prompt on the text path,
in the chat template's system message on the native path), so rewriting it
makes the server prefill the whole history again. With the loader on, that
happened on every turn that admitted a tool: later turns were several times
slower than with the loader off (docs/benchmarks.md).

A ``PromptLayout`` keeps one conversation's prompts. ``StableLayout`` (our
default):

* the system prompt is composed once per conversation and then left alone;
* tools admitted later are described in a block at the start of the user
  message of the turn that admitted them, before the question (or after the
  ``load_tools`` result mid-turn), so they join the conversation instead of
  rewriting its start;
* native path: the ``tools`` array is fixed when the prompt is composed: the
  tools loaded then, plus the ``call_tool(name, arguments)`` bridge
  (registry/bridge.py), through which the model calls the tools disclosed
  later. Chat templates render the array inside the system message, so even
  appending to it would make the server prefill the whole history again.
* a disclosure, on either path, is one compact line per tool: its argument
  names (types other than string) and the first words of its summary
  (``- index_document(file_path): Add a file (PDF, text, Markdown, code,
  CSV,…``), because that turn prefills every token of it: the full lines
  made later turns prefill ~1.5x what the loader-off arm does on the native
  path, ~1.4x on the text path. Names alone were cheaper still, but the
  0.5B model then called a disclosed tool that did not fit the question
  (get_system_info with a file_path); a call with wrong arguments gets the
  executor's message with the full signature, and a constrained reply's
  schema holds every argument to its real type;
* text path: the composed tool list leaves out ``: string`` (most arguments
  are strings; other types are shown), 82 fewer tokens on a 14-tool first
  turn. The loader-off prompt keeps the legacy lines;
* recalled procedures travel with the user message of their turn, not in
  the system prompt;
* an eviction (the cap was reached) is the one case that recomposes, because
  the model must stop seeing the evicted tool;
* the shared prefix (issue 29): a composed prompt lists the CORE tools first,
  in a fixed order, and names the working directory in the user message of
  the turn that composed it, not in the system prompt; so the system prompt
  plus CORE tools are the same bytes for every conversation of a model and
  settings, in every folder, and their KV cache can be saved once and
  restored when a server starts (runtime/prefix_cache.py).

``append`` is the stable layout without the bridge: on the native path a tool
admitted later is appended to the ``tools`` array (kept to measure the bridge
against). ``RewriteLayout`` is GAIA's: the system prompt and tools array are
recomposed from the loaded set (in the loader's order) every time it changes,
and recalled procedures sit in the system prompt. With no filter (every
off-state), all layouts send the legacy prompt byte for byte.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from gaia_lite.registry.bridge import BRIDGE, bridge_schema
from gaia_lite.registry.registry import ToolRegistry
from gaia_lite.registry.render import render_compact, render_native

from .opening import tools_named
from .prompt import WORKDIR_LINE, PromptParts, compose_system_prompt
from .selection import LOAD_TOOLS, SelectionState

__all__ = ["PromptLayout", "StableLayout", "RewriteLayout", "make_layout", "LAYOUTS", "MORE_TOOLS_HEADER"]

LAYOUTS = ("stable", "rewrite", "append")
MORE_TOOLS_HEADER = "==== MORE TOOLS, IF A QUESTION NEEDS THEM ===="
BRIDGE_NOTE = f"More tools, call them with {BRIDGE}(name, arguments):"  # native: the header of a disclosure


class PromptLayout(Protocol):
    """One conversation's prompts. Call ``begin_turn`` once per user turn, then ``system``/``tools``
    for every model step, and ``after_load`` after a mid-turn ``load_tools``."""

    def begin_turn(self, state: SelectionState, query: str, extra_blocks: tuple[str, ...] = ()) -> str:
        """The user message content to put in the history for this turn."""

    def after_load(self, state: SelectionState) -> str:
        """Text to append to the ``load_tools`` result ("" for none)."""

    def system(self, state: SelectionState) -> str: ...

    def tools(self, state: SelectionState) -> list[dict[str, Any]] | None: ...

    def reset(self) -> None:
        """A new conversation (or one whose start was dropped): compose afresh."""


def make_layout(layout: str, registry: ToolRegistry, workdir: Path, *, native: bool) -> PromptLayout:
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {LAYOUTS}, got {layout!r}")
    if layout == "rewrite":
        return RewriteLayout(registry, workdir, native=native)
    return StableLayout(registry, workdir, native=native, bridge=layout == "stable")


class RewriteLayout:
    """GAIA's layout: the prompt follows the sorted loaded set; procedures sit in the system prompt."""

    def __init__(self, registry: ToolRegistry, workdir: Path, *, native: bool) -> None:
        self.registry = registry
        self.workdir = workdir
        self.native = native
        self._extra: tuple[str, ...] = ()  # this turn's procedures
        self._cache: tuple[Any, str] | None = None

    def reset(self) -> None:
        self._extra = ()
        self._cache = None

    def begin_turn(self, state: SelectionState, query: str, extra_blocks: tuple[str, ...] = ()) -> str:
        self._extra = tuple(b for b in extra_blocks if b)
        return query

    def after_load(self, state: SelectionState) -> str:
        return ""

    def system(self, state: SelectionState) -> str:
        key = (state.filter, state.menu, state.hidden, self._extra)
        if self._cache is None or self._cache[0] != key:
            parts = PromptParts(self.workdir, not self.native, state.menu, self._extra)
            self._cache = (key, compose_system_prompt(parts, self.registry, state.filter, exclude=state.hidden))
        return self._cache[1]

    def tools(self, state: SelectionState) -> list[dict[str, Any]] | None:
        if not self.native:
            return None
        return render_native(self.registry, state.visible_names(self.registry)) or None


@dataclass
class _Shown:
    """What the model has been shown in this conversation, in the order it was shown."""

    key: tuple[Any, ...]  # (no filter, menu, hidden) of the composed system prompt
    system: str
    names: list[str] = field(default_factory=list)  # every tool shown: declared, then disclosed
    declared: tuple[str, ...] = ()  # native: the tools array as composed (fixed until recomposed)


def by_relevance(names: list[str], state: SelectionState, message: str = "") -> list[str]:
    """``names`` with the tools the user named (in ``message``, or through the REQUESTED tier) or a
    recalled procedure needs first, then by the loader's score, ``load_tools`` last.

    Small models pick tools near the top of a list: in alphabetical order the 0.5B model answered
    "remember that my plate is KX-4821" with ``analyze_image``, the first tool listed. The order is
    chosen when the prompt is composed and then kept (later tools join at the end), so the cached
    prefix is not affected. Text path only: native tool-callers read a ``tools`` array, which keeps
    the loader's order."""
    rec = state.record
    if rec is None:
        return names
    first = set(rec.requested) | set(rec.skill) | tools_named(message, names)
    pos = {n: i for i, n in enumerate(names)}
    return sorted(names, key=lambda n: (n == LOAD_TOOLS, n not in first, -rec.scores.get(n, 0.0), pos[n]))


class StableLayout:
    """The system prompt is written once; later tools join the conversation (see the module docstring)."""

    def __init__(self, registry: ToolRegistry, workdir: Path, *, native: bool, bridge: bool = True) -> None:
        self.registry = registry
        self.workdir = workdir
        self.native = native
        self.bridge = bridge  # native path: declare call_tool and keep the tools array fixed
        self._shown: _Shown | None = None
        self.recomposed = 0  # times the system prompt was (re)written (each one costs the cache)

    def reset(self) -> None:
        self._shown = None

    def snapshot(self) -> dict[str, Any] | None:
        """What the model has been shown, as JSON, so another process can continue the conversation
        with the same bytes (``gaia-lite ask -c``): the server's cached prefix then still fits."""
        s = self._shown
        if s is None:
            return None
        return {"key": [s.key[0], s.key[1], sorted(s.key[2])], "system": s.system, "names": list(s.names),
                "declared": list(s.declared)}

    def adopt(self, data: dict[str, Any]) -> None:
        """Continue from a ``snapshot()``."""
        key = data["key"]
        self._shown = _Shown((bool(key[0]), key[1], frozenset(key[2])), str(data["system"]), list(data["names"]),
                             tuple(data["declared"]))

    def begin_turn(self, state: SelectionState, query: str, extra_blocks: tuple[str, ...] = ()) -> str:
        blocks = tuple(b for b in extra_blocks if b)
        disclosed = self._sync(state, query)
        # the new tools go before the question, not after it: placed last, the tool just listed was what
        # both Qwen2.5-Coder models called next (get_system_info for "who was the top salesperson in
        # that file?", a data tool for "how many minutes in two hours?")
        return "\n\n".join([*([disclosed] if disclosed else []), query, *blocks])

    def after_load(self, state: SelectionState) -> str:
        return self._sync(state)

    def system(self, state: SelectionState) -> str:
        return self._current(state).system

    def tools(self, state: SelectionState) -> list[dict[str, Any]] | None:
        if not self.native:
            return None
        if state.filter is None:
            return render_native(self.registry, state.visible_names(self.registry)) or None
        shown = self._current(state)
        if not self.bridge:
            return render_native(self.registry, shown.names) or None
        return [*render_native(self.registry, shown.declared), bridge_schema()]

    def _current(self, state: SelectionState) -> _Shown:
        if self._shown is None:
            self._sync(state)
        assert self._shown is not None
        return self._shown

    def _sync(self, state: SelectionState, message: str = "") -> str:
        """Bring the shown set up to ``state``; returns the disclosure block ("" if none)."""
        loaded = state.visible_names(self.registry)
        key = (state.filter is None, state.menu, state.hidden)
        shown = self._shown
        still_loaded = set(loaded)
        if shown is None or shown.key != key or any(n not in still_loaded for n in shown.names):
            kept = [n for n in (shown.names if shown is not None and shown.key == key else []) if n in loaded]
            new = [n for n in loaded if n not in kept]
            order = kept + (new if self.native else by_relevance(new, state, message))
            if not kept:  # CORE first, in the loader's (fixed) order: every conversation starts with the same bytes
                # (the text path keeps load_tools at the end of its list, as by_relevance puts it)
                core = [n for n in loaded if state.reasons.get(n) == "core" and (self.native or n != LOAD_TOOLS)]
                order = core + [n for n in order if n not in core]
            self._compose(state, key, order)
            # without a filter the legacy prompt names the folder itself
            return "" if state.filter is None else WORKDIR_LINE.format(workdir=self.workdir)
        new = [n for n in loaded if n not in shown.names]
        if not new:
            return ""
        shown.names.extend(new)
        if self.native and not self.bridge:
            return ""  # the tools array grows at its end (see tools())
        return f"{BRIDGE_NOTE if self.native else MORE_TOOLS_HEADER}\n{render_compact(self.registry, new)}"

    def _compose(self, state: SelectionState, key: tuple[Any, ...], order: list[str]) -> None:
        parts = PromptParts(self.workdir, not self.native, state.menu, listed=True,
                            workdir_line=state.filter is None)
        filter_to = None if state.filter is None else tuple(order)
        system = compose_system_prompt(parts, self.registry, filter_to, exclude=state.hidden)
        self._shown = _Shown(key, system, list(order), tuple(order))
        self.recomposed += 1
