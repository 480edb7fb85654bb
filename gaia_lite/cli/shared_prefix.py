"""The prompt prefix every conversation shares, as the server renders it, and its KV cache restored
before the first request of a server this process started (runtime/prefix_cache.py).

The stable layout composes a conversation's system prompt with the CORE tools first, in a fixed
order, and without the working directory (agent/prefix.py), so on both render paths every first
request starts with the same bytes: the system prompt's rules, bundle menu and reply format, then
the CORE tools (text path: their lines in the system prompt; native path: their schemas in the
``tools`` array, which the chat template renders after the system message). Where those bytes end
depends on the chat template, so it is measured, not assumed: two first prompts that differ only
in the one tool after CORE are rendered by the server (``/apply-template``) and the shared prefix is
their common start, up to its last whole line.
"""

from __future__ import annotations

import json
import logging
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Callable

from gaia_lite import runtime
from gaia_lite.agent.prefix import make_layout
from gaia_lite.agent.prompt import RESPONSE_FORMAT
from gaia_lite.agent.selection import LOAD_TOOLS, SelectionState
from gaia_lite.runtime.kept import build_id
from gaia_lite.runtime.prefix_cache import PrefixOutcome, prepare

__all__ = ["shared_prefix_messages", "shared_prefix_text", "prepare_prefix", "common_lines", "render_with"]

log = logging.getLogger("gaia_lite.runtime.prefix")
_PROBE = "x"  # the user message of the two rendered variants (after the shared bytes, so any text does)


def shared_prefix_messages(agent: Any, extra_tool: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]] | None]:
    """(messages, tools) of a first request whose loaded set is CORE plus ``extra_tool``, composed
    by a fresh layout of the agent's kind, as the agent would send it."""
    selector, registry = agent.selector, agent.registry
    loader = selector.loader
    # CORE in the order the loader admits it (agent/prefix.py keeps that order first)
    core = [n for n in registry.names() if n in loader.core]
    if loader.settings.order != "admission":
        core.sort()
    menu = loader.format_bundle_menu() if selector.menu_enabled and selector.active else None
    reasons = {**{n: "core" for n in core}, extra_tool: "semantic"}
    if agent.options.native_tools:
        loaded = [*core, extra_tool]
    else:  # the text path lists load_tools last, after the turn's own tools (agent/prefix.py by_relevance)
        loaded = [*(n for n in core if n != LOAD_TOOLS), extra_tool, *(n for n in core if n == LOAD_TOOLS)]
    state = SelectionState(tuple(loaded), menu, frozenset(), None, reasons)
    layout = make_layout(agent.options.prompt_layout, registry, agent.options.workdir,
                         native=agent.options.native_tools)
    layout.begin_turn(state, _PROBE)
    system = layout.system(state)
    fmt = agent.replies.response_format_text  # what Agent.system_prompt puts in
    if fmt:
        system = system.replace(RESPONSE_FORMAT, fmt)
    return [{"role": "system", "content": system}, {"role": "user", "content": _PROBE}], layout.tools(state)


def common_lines(a: str, b: str) -> str:
    """The longest common start of ``a`` and ``b`` that ends with a newline ("" if none)."""
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    cut = a.rfind("\n", 0, n)
    return a[:cut + 1] if cut >= 0 else ""


def shared_prefix_text(agent: Any, render: Callable[[list[dict[str, Any]], list[dict[str, Any]] | None], str]) -> str:
    """The rendered prompt bytes every first request of this agent's kind starts with ("" when the
    layout does not keep them: the loader off, or GAIA's rewrite layout)."""
    selector = agent.selector
    if selector.loader is None or not selector.active or agent.options.prompt_layout == "rewrite":
        return ""
    others = [n for n in agent.registry.names() if n not in selector.loader.core]
    if len(others) < 2:
        return ""
    a = render(*shared_prefix_messages(agent, others[0]))
    b = render(*shared_prefix_messages(agent, others[1]))
    return common_lines(a, b)


def render_with(url: str, api_key: str) -> Callable[[list[dict[str, Any]], list[dict[str, Any]] | None], str]:
    """``render(messages, tools)``: the prompt the server's chat template makes of a request."""

    def render(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> str:
        body: dict[str, Any] = {"messages": messages, **({"tools": tools} if tools else {})}
        req = urllib.request.Request(f"{url}/api/apply-template", data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json",
                                              **({"Authorization": f"Bearer {api_key}"} if api_key else {})})
        with urllib.request.urlopen(req, timeout=30) as resp:
            return str(json.loads(resp.read())["prompt"])

    return render


def prepare_prefix(services: Any, say: Callable[[str], None] | None = None) -> PrefixOutcome | None:
    """Restore (or build and save) the shared prefix's KV cache in the embedded server this process
    just started, before its first conversation request. A reused server is left alone: its slot
    holds the last conversation, which a follow-up needs. Never fails the turn."""
    server = services.server
    if server is None or server.reused:
        return None
    try:
        prefix = shared_prefix_text(services.agent, render_with(server.url, server.api_key))
    except (urllib.error.URLError, OSError, ValueError, KeyError) as exc:
        log.info("PREFIX_CACHE the shared prefix could not be rendered: %s", exc)
        return None
    if not prefix:
        return None
    binary = getattr(server, "binary", None) or runtime.find_llama_server()
    model = Path(server.model)
    try:
        model_id = f"{model.name}:{model.stat().st_size}"
    except OSError:
        model_id = model.name
    outcome = prepare(server.url, server.api_key, runtime.prefix_dir(), model_id=model_id,
                      build=build_id(binary) if binary else "unknown", prefix=prefix)
    log.info("PREFIX_CACHE %s", json.dumps({"action": outcome.action, "tokens": outcome.tokens,
                                            "seconds": round(outcome.seconds, 3), "key": outcome.key}))
    if say is not None:
        say(f"shared prompt prefix: {outcome.action} ({outcome.tokens} tokens, {outcome.seconds:.2f}s)")
    return outcome
