"""The tool side, built once: embedder, loader, registry and selector.

The agent's composition root (``services``), ``gaia-lite tools``, the evals and
the tests all build these the same way, here. No model client is needed, so
the offline commands import this module, not ``services``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gaia_lite.agent.selection import ToolSelector
from gaia_lite.config import Settings
from gaia_lite.embed import Embedder, make_embedder
from gaia_lite.loader.bundles import load_bundles
from gaia_lite.loader.joins import JoinSource
from gaia_lite.loader.loader import ToolLoader, build_doc_loader
from gaia_lite.memory.rag import RagIndex
from gaia_lite.memory.store import MemoryStore
from gaia_lite.skills.learning import LearnedTools, LearningStore
from gaia_lite.registry.registry import ToolRegistry
from gaia_lite.tools.catalog import doc_tool_specs

if TYPE_CHECKING:
    from gaia_lite.mcp.manager import McpManager

__all__ = ["ToolSet", "DOC_CHUNK_WORDS", "build_embedder", "build_document_index", "build_loader", "build_registry",
           "build_tool_set", "loader_off_state", "read_learning", "build_mcp"]

DOC_CHUNK_WORDS = 190  # stays under MiniLM's 256-token window, so every word of a chunk is embedded


def build_embedder(settings: Settings, base_url: str) -> Embedder:
    return make_embedder(settings.embedder, model=settings.embed_model or None, dim=settings.embed_dim,
                         query_prefix=settings.embed_query_prefix,
                         document_prefix=settings.embed_document_prefix,
                         base_url=settings.embed_base_url or base_url, api_key=settings.api_key)


def build_document_index(settings: Settings, embedder: Embedder | None) -> RagIndex:
    """The document index the agent's RAG tools and ``gaia-lite index`` share (chunked alike).
    Without an embedder it can list and remove documents, not index them."""
    return RagIndex(settings.paths.rag_db, embedder, chunk_words=DOC_CHUNK_WORDS)


def loader_off_state(settings: Settings) -> str | None:
    """Why these settings configure no loader (``loader_off``, ``memory_disabled``), or None."""
    if not settings.dynamic_tools:
        return "loader_off"
    if settings.memory_disabled:  # the loader needs the embedder memory uses
        return "memory_disabled"
    return None


def read_learning(memory: MemoryStore | None) -> LearnedTools:
    """What the loader learned from use (examples, companions), from the memory database;
    empty without memory. The shipped companion edges are the prior."""
    if memory is None:
        return LearnedTools()
    return LearningStore(memory).snapshot(prior=load_bundles().companions)


def build_loader(settings: Settings, embedder: Embedder, learned: LearnedTools | None = None) -> ToolLoader:
    learned = learned or LearnedTools()
    return build_doc_loader(embedder, preset=settings.preset, threshold=settings.tau,
                            max_tools=settings.max_tools, cache_dir=str(settings.paths.cache_dir / "tool-vectors"),
                            learned_examples=learned.examples, companions=learned.companions,
                            learned_worked=learned.worked)


def build_registry(settings: Settings, *, with_loader: bool) -> ToolRegistry:
    """The doc-profile registry; ``load_tools`` is registered exactly when a loader is."""
    return ToolRegistry(doc_tool_specs(memory_enabled=not settings.memory_disabled, with_loader=with_loader))


@dataclass(frozen=True)
class ToolSet:
    registry: ToolRegistry
    selector: ToolSelector
    loader: ToolLoader | None


def build_tool_set(settings: Settings, loader: ToolLoader | None, *, native: bool,
                   joins: JoinSource | None = None) -> ToolSet:
    """The registry and the selector over it. The bundle menu is shown to native tool-callers only:
    a text-path model recovers an unlisted tool for free from the full registry, and its first
    turn is the one most sensitive to prompt length (the menu is ~270 tokens)."""
    registry = build_registry(settings, with_loader=loader is not None)
    off_state = None if loader is not None else (loader_off_state(settings) or "loader_off")
    return ToolSet(registry, ToolSelector(registry, loader, off_state=off_state, menu_enabled=native, joins=joins),
                   loader)


def build_mcp(settings: Settings, loader: ToolLoader | None, *, grace: float | None = None,
              tool_cache: bool = True) -> "McpManager | None":
    """The agent's MCP servers, started in the background (None: none configured, or GAIA_MCP=0).
    With a loader, each server's tool documents are embedded before its tools join. With
    ``tool_cache`` a server's tools join at once from the list it gave last time (same config),
    and the live list confirms or corrects them; the offline commands want the live list only."""
    if not (settings.mcp_enabled and settings.mcp_servers):
        return None
    from gaia_lite.mcp.manager import McpManager  # kept lazy: only a configured server needs it

    manager = McpManager(settings.mcp_servers, log_dir=settings.paths.state_dir,
                         cache_dir=settings.paths.cache_dir / "mcp-tools" if tool_cache else None,
                         grace=settings.mcp_wait if grace is None else grace,
                         prepare=loader.prepare if loader is not None else None)
    manager.start()
    return manager
