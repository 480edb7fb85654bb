"""The stores tools reach through ``ToolContext``, as the tools use them.

``MemoryPort`` is the part of ``memory.store.MemoryStore`` the memory tools and
the agent call; ``DocumentIndexPort`` the part of ``memory.rag.RagIndex`` the
document tools call. The value types they return live with the stores; they
are imported here for type checking only, so the registry does not load them.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Protocol, Sequence

if TYPE_CHECKING:
    from gaia_lite.memory.rag import DocumentInfo, Hit, IndexResult
    from gaia_lite.memory.records import Fact, RecallResult, Remembered
    from gaia_lite.memory.watch import PollingWatcher

__all__ = ["MemoryPort", "DocumentIndexPort", "ProgressFn"]

ProgressFn = Callable[[str, int, int], None]  # (label, done, total) for long work


class MemoryPort(Protocol):
    """Facts the user asked to keep, and the searchable record of past conversations."""

    def remember(self, content: str, *, category: str = "fact", domain: str = "", context: str = "",
                 entity: str = "", sensitive: bool = False, due_at: str = "") -> Remembered: ...

    def recall(self, query: str = "", *, category: str = "", domain: str = "", context: str = "",
               entity: str = "", limit: int = 0, offset: int = 0, time_from: str = "",
               time_to: str = "") -> RecallResult: ...

    def update(self, knowledge_id: str, *, content: str | None = None, category: str | None = None,
               domain: str | None = None, context: str | None = None, entity: str | None = None,
               sensitive: bool | None = None, due_at: str | None = None) -> Fact | None: ...

    def forget(self, knowledge_id: str) -> bool: ...

    def relevant_facts(self, query: str, *, limit: int = 3, min_similarity: float = 0.5) -> list[Fact]: ...

    def add_turn(self, session_id: str, role: str, content: str) -> int: ...

    def search_turns(self, query: str = "", *, days: int = 0, time_from: str = "", time_to: str = "",
                     limit: int = 10) -> list[dict[str, Any]]: ...


class DocumentIndexPort(Protocol):
    """Indexed documents: indexing, search, per-document text, and watched folders."""

    def index_file(self, path: Path | str) -> IndexResult: ...

    def index_directory(self, directory: Path | str, *, recursive: bool = False,
                        progress: ProgressFn | None = None, cancel: threading.Event | None = None,
                        allow: Callable[[Path], bool] | None = None) -> dict[str, Any]: ...

    def list_documents(self) -> list[DocumentInfo]: ...

    def find_documents(self, name: str) -> list[DocumentInfo]: ...

    def document_text(self, path: Path | str) -> str | None: ...

    def document_pages(self, path: Path | str) -> list[tuple[int, str]]: ...

    def supports(self, path: Path | str) -> bool: ...

    def chunk_count(self) -> int: ...

    def status(self) -> dict[str, Any]: ...

    def search(self, query: str, k: int = 5, file: Path | str | None = None,
               min_score: float = 0.1, docs: Sequence[int] | None = None) -> list[Hit]: ...

    def grep(self, pattern: str, limit: int = 10, docs: Sequence[int] | None = None) -> tuple[list[Hit], int]: ...

    def watched(self) -> list[str]: ...

    def watch(self, directory: Path | str, *, interval: float = 5.0,
              allow: Callable[[Path], bool] | None = None) -> tuple[PollingWatcher, list[IndexResult]]: ...

    def watchers(self) -> list[PollingWatcher]: ...
