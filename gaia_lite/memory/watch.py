"""Keeping a watched folder indexed: a polling thread per folder.

``PollingWatcher`` is a daemon thread that compares (mtime, size) of the
supported files every few seconds and re-indexes what changed. We chose
polling over the ``watchdog`` library:

* it needs no new dependency, and behaves the same on Linux, macOS, Windows
  and network or container mounts, where inotify/FSEvents may miss events;
* a few seconds of delay does not matter for a document index, and one
  ``stat`` per file per interval costs little for the folders a person keeps;
* the content hash decides whether to re-index, so editors' save bursts and
  touch-only changes cost a hash and nothing more.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Callable, Protocol

from gaia_lite.embed.base import EmbedderError

from .extract import ExtractionError, iter_supported_files
from .records import IndexResult

__all__ = ["PollingWatcher", "WatchedIndexPort", "DEFAULT_POLL_SECONDS"]

log = logging.getLogger("gaia_lite.memory.rag")  # the name users' log filters already know

DEFAULT_POLL_SECONDS = 5.0


class WatchedIndexPort(Protocol):
    """What a watcher needs of the index it keeps current (``RagIndex`` is one); the index
    starts its watchers, so the watcher sees it only through this port."""

    def index_file(self, path: Path | str) -> IndexResult: ...

    def remove_document(self, path: Path | str) -> bool: ...


class PollingWatcher:
    """Re-indexes new or changed supported files under one folder, polling (mtime, size)."""

    def __init__(self, rag: WatchedIndexPort, directory: Path | str, *, interval: float = DEFAULT_POLL_SECONDS,
                 recursive: bool = True, allow: Callable[[Path], bool] | None = None) -> None:
        self.rag = rag
        self.allow = allow
        self.directory = Path(directory).expanduser().resolve()
        self.interval = interval
        self.recursive = recursive
        self.reindexed = 0
        self.errors: list[str] = []
        self._seen: dict[str, tuple[float, int]] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"rag-watch:{self.directory.name}", daemon=True)

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def _snapshot(self) -> dict[str, tuple[float, int]]:
        out = {}
        for f in iter_supported_files(self.directory, self.recursive):
            try:
                st = f.stat()
            except OSError:
                continue
            out[str(f.resolve())] = (st.st_mtime, st.st_size)
        return out

    def scan_once(self) -> list[IndexResult]:
        """Index what changed since the last scan (everything on the first) and drop deleted files."""
        current = self._snapshot()
        results = []
        for path, sig in current.items():
            if self._stop.is_set():
                break
            if self._seen.get(path) == sig:
                continue
            if self.allow is not None and not self.allow(Path(path)):
                self.errors = (self.errors + [f"{path}: outside the allowed folders"])[-20:]
                continue
            try:
                result = self.rag.index_file(path)
            except (ExtractionError, EmbedderError, OSError) as exc:
                self.errors = (self.errors + [f"{path}: {exc}"])[-20:]
                continue
            results.append(result)
            if result.status != "unchanged":
                self.reindexed += 1
        for path in set(self._seen) - set(current):
            self.rag.remove_document(path)
        self._seen = current
        return results

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.scan_once()
            except Exception as exc:  # a watcher thread must never die silently mid-session
                log.warning("rag watcher %s: %s", self.directory, exc)
                self.errors = (self.errors + [str(exc)])[-20:]

    def start(self) -> "PollingWatcher":
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout)
