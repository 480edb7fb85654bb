"""The composition root: the one place that builds concrete objects.

Order: Settings -> ChatClient (starting the embedded server if needed) ->
Embedder -> MemoryStore / RagIndex -> ToolRegistry -> ToolLoader -> Agent.
Every other module receives what it needs; nothing is created at import time.
"""

from __future__ import annotations

import logging
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from gaia_lite.config import Settings
from gaia_lite.errors import ConfigError, GaiaError, ServerUnreachable

__all__ = ["Services", "connect", "build_services", "build_registry", "Approver"]

log = logging.getLogger("gaia_lite")

Approver = Callable[[Any, dict[str, Any]], Any]


@dataclass
class Services:
    settings: Settings
    client: Any
    registry: Any
    ctx: Any
    executor: Any
    selector: Any
    agent: Any
    embedder: Any = None
    memory: Any = None
    rag: Any = None
    loader: Any = None
    server: Any = None  # the embedded LocalServer this process started, if any
    skills: Any = None
    notes: list[str] = field(default_factory=list)

    def close(self) -> None:
        """Log the loader session summary, close stores (the document index stops its folder
        watchers), stop the embedded server."""
        try:
            self.agent.close()
        finally:
            for thing in (self.rag, self.memory):
                close = getattr(thing, "close", None)
                if close:
                    try:
                        close()
                    except Exception:  # closing must never hide the real outcome
                        pass
            if self.server is not None:
                self.server.stop()


def connect(settings: Settings, *, announce: Callable[[str], None],
            progress: Callable[[str, int, int], None] | None = None) -> tuple[Any, Any]:
    """(ChatClient, started LocalServer or None). Raises ServerUnreachable with the fix."""
    from gaia_lite.llm.client import ChatClient

    sampling = {"repeat_penalty": 1.1}
    client = ChatClient(settings.base_url, api_key=settings.api_key, model=settings.model, sampling=sampling,
                        vision_model=settings.vision_model)
    if client.health():
        return client, None
    if not settings.auto_start_server:
        raise ServerUnreachable(settings.base_url)
    from gaia_lite import runtime

    status = runtime.runtime_status()
    if not status.ready and status.server is None:
        raise ServerUnreachable(settings.base_url, "and the embedded runtime is not installed: run scripts/setup.sh")
    try:
        ctx = {"ctx_size": settings.context_tokens} if settings.context_tokens else {}
        server = runtime.ensure_local_server(None, progress=progress, **ctx)
    except runtime.LocalRuntimeError as exc:
        raise ServerUnreachable(settings.base_url, str(exc)) from None
    assert server is not None
    announce(f"No server at {settings.base_url}; started the embedded llama-server at {server.base_url} "
             f"(model {server.alias}, ready in {server.cold_start_s:.1f}s). Use --no-local-server to turn this off.")
    client = ChatClient(server.base_url, api_key="", model=settings.model or server.alias, sampling=sampling,
                        vision_model=settings.vision_model)
    return client, server


def build_registry(settings: Settings, *, with_loader: bool) -> Any:
    """The doc-profile registry; ``load_tools`` is added by the selector when a loader exists."""
    from gaia_lite.registry.registry import ToolRegistry
    from gaia_lite.tools.catalog import doc_tool_specs

    return ToolRegistry(doc_tool_specs(memory_enabled=not settings.memory_disabled))


def _insert_after(registry: Any, after: str, spec: Any) -> Any:
    """A new registry with ``spec`` registered right after ``after`` (spec §1.2 order)."""
    from gaia_lite.registry.registry import ToolRegistry

    out = ToolRegistry()
    for s in registry:
        out.add(s)
        if s.name == after:
            out.add(spec)
    if spec.name not in out:
        out.add(spec)
    return out


def build_embedder(settings: Settings, base_url: str) -> Any:
    from gaia_lite.embed import make_embedder

    return make_embedder(settings.embedder, model=settings.embed_model or None, dim=settings.embed_dim,
                         query_prefix=settings.embed_query_prefix,
                         document_prefix=settings.embed_document_prefix,
                         base_url=settings.embed_base_url or base_url, api_key=settings.api_key)


def build_loader(settings: Settings, embedder: Any) -> Any:
    from gaia_lite.loader.loader import build_doc_loader

    return build_doc_loader(embedder, preset=settings.loader_preset, threshold=settings.tau,
                            max_tools=settings.max_tools, cache_dir=str(settings.paths.cache_dir / "tool-vectors"))


def build_services(settings: Settings, client: Any, *, server: Any = None,
                   approve: Approver | None = None,
                   ask_user: Callable[..., str | None] | None = None,
                   confirm_path: Callable[[str], bool] | None = None,
                   progress: Callable[[str, int, int], None] | None = None,
                   workdir: Path | None = None) -> Services:
    from gaia_lite.agent.loop import Agent, AgentOptions
    from gaia_lite.agent.selection import ToolSelector
    from gaia_lite.llm.capabilities import is_native_tool_model
    from gaia_lite.registry.context import ToolContext
    from gaia_lite.registry.execute import ToolExecutor
    from gaia_lite.tools.catalog import LOAD_TOOLS_AFTER
    from gaia_lite.tools.sandbox import Sandbox

    workdir = (workdir or Path.cwd()).resolve()
    data_dir = settings.paths.data_dir
    data_dir.mkdir(parents=True, exist_ok=True)
    embedder = build_embedder(settings, client.base_url)

    memory = rag = None
    notes: list[str] = []
    if not settings.memory_disabled:
        from gaia_lite.memory.store import MemoryStore

        memory = MemoryStore(settings.paths.memory_db, embedder)
    from gaia_lite.memory.rag import RagIndex

    # ~190 words stay under MiniLM's 256-token window, so every word of a chunk is embedded.
    rag = RagIndex(settings.paths.rag_db, embedder, chunk_words=190)

    loader = None
    off_state = None
    if settings.dynamic_tools:
        if settings.memory_disabled:
            off_state = "memory_disabled"
        else:
            loader = build_loader(settings, embedder)
    registry = build_registry(settings, with_loader=loader is not None)
    selector = ToolSelector(registry, loader, off_state=off_state)
    if loader is not None:
        registry = _insert_after(registry, LOAD_TOOLS_AFTER, selector.load_tools_spec())
        selector.registry = registry
        selector.state = selector._full_state()
        selector.warm()

    roots = [workdir, *(Path(p).expanduser() for p in settings.allowed_paths)]
    sandbox = Sandbox(roots, confirm=confirm_path)
    ctx = ToolContext(workdir=workdir, sandbox=sandbox, data_dir=data_dir, memory=memory, rag=rag,
                      llm=client, embedder=embedder, progress=progress)
    if ask_user is not None:
        ctx.ask_user = ask_user
    executor = ToolExecutor(registry, ctx, approve=approve, on_invoke=selector.record_tool_use,
                            default_timeout=settings.tool_timeout)
    model = client.resolve_model()
    native = settings.native_tools if settings.native_tools is not None else is_native_tool_model(model)
    # The bundle menu is for native tool-callers (spec §3.3): text-path models recover unlisted tools
    # for free through the full registry, and theirs is the TTFT-sensitive path (the menu is ~270 tokens).
    selector.menu_enabled = native
    options = AgentOptions(native_tools=native, max_steps=settings.max_steps, max_tokens=settings.max_tokens,
                           temperature=settings.temperature, workdir=workdir,
                           prompt_layout=settings.layout,
                           context_tokens=settings.context_tokens or client.context_size())
    skills = None
    if memory is not None:
        try:
            from gaia_lite.skills.recall import SkillService

            skills = SkillService(memory, embedder, registry, tau=settings.skill_tau)
        except ImportError:
            skills = None
    agent = Agent(client, registry, executor, selector, options, memory=memory, skills=skills)
    return Services(settings, client, registry, ctx, executor, selector, agent, embedder, memory, rag,
                    loader, server, skills, notes)


def stdin_is_tty() -> bool:
    try:
        return sys.stdin.isatty() and os.environ.get("CI") != "true"
    except (AttributeError, ValueError):
        return False
