"""The composition root: the one place that builds the agent's concrete objects.

Order: Settings -> ChatClient (starting the embedded server if needed) ->
Embedder -> MemoryStore / RagIndex -> ToolLoader -> ToolRegistry + ToolSelector
(``wiring``) -> ToolContext -> ToolExecutor -> Agent. Each object is built once,
complete, through its constructor; nothing is created at import time. Only the
``ask`` and ``chat`` commands import this module, so ``--help`` never pays for it.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from gaia_lite import runtime
from gaia_lite.agent.constrained import choose_replies
from gaia_lite.agent.loop import Agent, AgentOptions
from gaia_lite.agent.selection import ToolSelector
from gaia_lite.config import Settings
from gaia_lite.embed import Embedder
from gaia_lite.agent.judge import unknown_guards
from gaia_lite.errors import ConfigError, ServerUnreachable
from gaia_lite.llm.capabilities import is_native_tool_model
from gaia_lite.llm.client import ChatClient
from gaia_lite.llm.structured import Capabilities, CapabilityCache, server_capabilities
from gaia_lite.loader.loader import ToolLoader
from gaia_lite.loader.presets import layout_for
from gaia_lite.memory.rag import RagIndex
from gaia_lite.memory.store import MemoryStore
from gaia_lite.registry.context import AskUser, ToolContext, no_user
from gaia_lite.registry.execute import Approver, ToolExecutor
from gaia_lite.registry.ports import ProgressFn
from gaia_lite.registry.registry import ToolRegistry
from gaia_lite.skills.recall import SkillService
from gaia_lite.tools.sandbox import Sandbox

from gaia_lite.mcp.manager import McpManager

from .wiring import (build_document_index, build_embedder, build_loader, build_mcp, build_tool_set, loader_off_state,
                     read_learning)

__all__ = ["Services", "connect", "build_services", "stdin_is_tty", "structured_replies"]

SAMPLING = {"repeat_penalty": 1.1}


@dataclass(frozen=True)
class Services:
    settings: Settings
    client: ChatClient
    registry: ToolRegistry
    ctx: ToolContext
    executor: ToolExecutor
    selector: ToolSelector
    agent: Agent
    embedder: Embedder
    memory: MemoryStore | None
    rag: RagIndex
    loader: ToolLoader | None
    server: runtime.EmbeddedServer | None  # the embedded server this process holds, if any
    skills: SkillService | None
    mcp: McpManager | None = None  # the MCP servers this agent started


    def close(self) -> None:
        """Log the loader session summary, close stores (the document index stops its folder
        watchers), let go of the embedded server (a kept one stays up for its keep-alive)."""
        try:
            self.agent.close()
        finally:
            for store in (self.rag, self.memory, self.mcp):
                try:
                    if store is not None:
                        store.close()
                except Exception:  # closing must never hide the real outcome
                    pass
            if self.server is not None:
                self.server.stop()


def connect(settings: Settings, *, announce: Callable[[str], None],
            progress: ProgressFn | None = None) -> tuple[ChatClient, runtime.EmbeddedServer | None]:
    """(ChatClient, the embedded server held, or None). Raises ServerUnreachable with the fix."""
    client = ChatClient(settings.base_url, api_key=settings.api_key, model=settings.model, sampling=SAMPLING,
                        vision_model=settings.vision_model, first_byte_timeout=settings.first_byte_timeout)
    if client.health():
        return client, None
    if not settings.local_server:
        raise ServerUnreachable(settings.base_url)
    status = runtime.runtime_status()
    if not status.ready and status.server is None:
        raise ServerUnreachable(settings.base_url, "and the embedded runtime is not installed: run scripts/setup.sh")
    model, named = embedded_model(settings)
    try:
        server = runtime.start_embedded(model, keep_alive=settings.keep_alive, progress=progress,
                                        ctx_size=settings.context_tokens or 8192)
    except runtime.LocalRuntimeError as exc:
        raise ServerUnreachable(settings.base_url, str(exc)) from None
    announce(server_line(settings.base_url, server))
    if getattr(server, "keep_alive", 0):  # the server stays up: so does a warm worker for the next ask (warm/)
        from gaia_lite.warm.worker import start as start_warm_worker  # kept lazy: only a kept server needs it

        start_warm_worker(server.keep_alive)
    client = ChatClient(server.base_url, api_key=server.api_key, model=server.alias if named else settings.model
                        or server.alias, sampling=SAMPLING, vision_model=settings.vision_model,
                        first_byte_timeout=settings.first_byte_timeout)
    return client, server


def embedded_model(settings: Settings) -> tuple[str, bool]:
    """The model the embedded server runs, and whether ``settings.model`` named it: a bundled model's
    name or a .gguf path does; any other name is the server's business, so the default model runs."""
    chosen = settings.model.strip()
    if chosen in runtime.MODELS or chosen.endswith(".gguf"):
        return chosen, True
    return runtime.DEFAULT_MODEL, False


def server_line(base_url: str, server: runtime.EmbeddedServer) -> str:
    """The one stderr line about the embedded server: started or reused, and how long it stays."""
    if server.reused:
        what = f"reusing the embedded llama-server at {server.base_url} (model {server.alias}, kept alive"
    else:
        what = (f"started the embedded llama-server at {server.base_url} (model {server.alias}, ready in "
                f"{server.cold_start_s:.1f}s")
    stays = (f"; it stays up {server.keep_alive:g} s after use, `gaia-lite serve --stop` ends it)"
             if server.keep_alive else ")")
    return f"No server at {base_url}; {what}{stays}. Use --no-local-server to turn this off."


def build_services(settings: Settings, client: ChatClient, *, server: runtime.EmbeddedServer | None = None,
                   approve: Approver | None = None, ask_user: AskUser | None = None,
                   confirm_path: Callable[[str], bool] | None = None, progress: ProgressFn | None = None,
                   workdir: Path | None = None) -> Services:
    workdir = (workdir or Path.cwd()).resolve()
    settings.paths.data_dir.mkdir(parents=True, exist_ok=True)
    embedder = build_embedder(settings, client.base_url)
    memory = None if settings.memory_disabled else MemoryStore(settings.paths.memory_db, embedder)
    rag = build_document_index(settings, embedder)
    loader = build_loader(settings, embedder, read_learning(memory)) if loader_off_state(settings) is None else None
    mcp = build_mcp(settings, loader)  # servers start now, in the background
    native = settings.native_tools if settings.native_tools is not None else is_native_tool_model(
        client.resolve_model())
    tools = build_tool_set(settings, loader, native=native, joins=mcp.joins if mcp is not None else None)
    tools.selector.warm()
    roots = [workdir, *(Path(p).expanduser() for p in settings.allowed_paths)]
    ctx = ToolContext(workdir=workdir, sandbox=Sandbox(roots, confirm=confirm_path), data_dir=settings.paths.data_dir,
                      memory=memory, rag=rag, llm=client, embedder=embedder,
                      loader=tools.selector if loader is not None else None, ask_user=ask_user or no_user,
                      progress=progress)
    executor = ToolExecutor(tools.registry, ctx, approve=approve, on_invoke=tools.selector.record_tool_use,
                            default_timeout=settings.tool_timeout)
    options = AgentOptions(native_tools=native, max_steps=settings.max_steps, max_tokens=settings.max_tokens,
                           temperature=settings.temperature, seed=settings.seed, workdir=workdir,
                           prompt_layout=layout_for(settings.prompt_layout, settings.preset),
                           context_tokens=settings.context_tokens or (server.ctx_size if server is not None
                                                                      else client.context_size()),
                           judge_skip=judge_skip(settings), held_calls=settings.held_calls)
    skills = None if memory is None else SkillService(memory, embedder, tools.registry, tau=settings.skill_tau)
    replies, notice = choose_replies(settings.tool_calls, native=native, registry=tools.registry,
                                     capable=lambda: structured_replies(settings, client, server))
    agent = Agent(client, tools.registry, executor, tools.selector, options, memory=memory, skills=skills,
                  replies=replies, notices=(notice,) if notice else ())
    return Services(settings, client, tools.registry, ctx, executor, tools.selector, agent, embedder, memory, rag,
                    loader, server, skills, mcp)


def judge_skip(settings: Settings) -> frozenset[str]:
    """The guards GAIA_JUDGE_SKIP turns off; a name no guard has is an error, not a silent no-op."""
    wrong = unknown_guards(settings.judge_skip)
    if wrong:
        raise ConfigError(f"GAIA_JUDGE_SKIP names no guard called {', '.join(wrong)}; the guards are listed in "
                          "docs/architecture.md (the judge's table)")
    return frozenset(settings.judge_skip)


def structured_replies(settings: Settings, client: ChatClient,
                       server: runtime.EmbeddedServer | None) -> Capabilities:
    """Can this server and model hold replies to a JSON schema, and to a GBNF grammar? Probed once, cached
    in the state dir (the embedded server is one server whatever port it gets)."""
    model = client.resolve_model()
    key = f"embedded|{model}" if server is not None else f"{client.base_url}|{model}"
    cache = CapabilityCache(settings.paths.state_dir / "capabilities.json")
    return server_capabilities(client, cache, key)


def stdin_is_tty() -> bool:
    try:
        return sys.stdin.isatty() and os.environ.get("CI") != "true"
    except (AttributeError, ValueError):
        return False
