"""Dynamic tool loading: CORE ∪ SKILL ∪ SEMANTIC selection per user turn."""

from .bundles import BundleConfig, ToolBundle, load_bundles
from .cache import DocEmbeddingCache
from .loader import Selection, SessionStats, ToolLoader, build_doc_loader, registry_tools_hash
from .presets import PRESETS, Confidence, LoaderSettings, preset
from .query import SelectionQuery, selection_query, split_clauses

__all__ = ["ToolLoader", "Selection", "SessionStats", "SelectionQuery", "selection_query", "split_clauses",
           "build_doc_loader", "registry_tools_hash", "ToolBundle", "BundleConfig", "load_bundles",
           "DocEmbeddingCache", "LoaderSettings", "Confidence", "PRESETS", "preset"]
