"""Dynamic tool loading: CORE ∪ SKILL ∪ SEMANTIC selection per user turn."""

from .bundles import BundleConfig, ToolBundle, load_bundles
from .cache import DocEmbeddingCache
from .loader import (Selection, SelectionQuery, SessionStats, ToolLoader, build_doc_loader,
                     registry_tools_hash, selection_query)
from .presets import PRESETS, LoaderSettings, preset

__all__ = ["ToolLoader", "Selection", "SessionStats", "SelectionQuery", "selection_query", "build_doc_loader",
           "registry_tools_hash", "ToolBundle", "BundleConfig", "load_bundles", "DocEmbeddingCache",
           "LoaderSettings", "PRESETS", "preset"]
