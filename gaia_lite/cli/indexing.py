"""What ``gaia-lite index`` indexes, what it skips and why, and the indexing run itself.

``plan_index`` walks the given files and folders and sorts every file into
"to index" or "skipped" with a reason, checked in this order so nothing is
read that should not be:

0. what is not a regular file is never opened: a FIFO, a device or a socket,
   a symlink loop or a broken link, a symlink to a folder (not followed: it
   may lead anywhere, a home folder included), and a name that is not valid
   UTF-8 (shown escaped, as ``bad\xff.txt``);
1. ``secret``: a credential file or folder (the sandbox never reads those);
2. ``outside the allowed folders``: e.g. a symlink out of an allowed folder;
3. ``unsupported type``: not text, code, CSV, JSON or PDF;
4. ``too big``: over the extractor's size limit;
5. ``binary``: NUL bytes at the start of a text-type file.

Hidden files and tool folders (``.git``, ``node_modules`` …) are not walked,
as in the agent's ``index_directory``; everything else the walk meets is
either planned or listed as skipped with its reason. ``run_index`` then indexes the plan
file by file (each file is one transaction of the index, so an interrupted
run keeps what it finished) and reports progress after each file.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from gaia_lite.embed.base import EmbedderError
from gaia_lite.memory.extract import SKIP_DIRS, ExtractionError
from gaia_lite.memory.rag import RagIndex
from gaia_lite.tools.sandbox import Sandbox
from gaia_lite.tools.skip import (BAD_NAME, BINARY, BROKEN_LINK, LINKED_FOLDER, LOOP, OUTSIDE, SECRET, TOO_BIG,
                                  UNSUPPORTED, entry_reason, shown, skip_reason)

__all__ = ["Skipped", "IndexPlan", "IndexProgress", "IndexSummary", "plan_index", "run_index", "skip_reason",
           "shown", "SECRET", "OUTSIDE", "UNSUPPORTED", "TOO_BIG", "BINARY", "LOOP", "BROKEN_LINK", "LINKED_FOLDER",
           "BAD_NAME"]


def _walk(folder: Path, recursive: bool, skipped: list[Skipped]) -> Iterator[Path]:
    """Regular files under ``folder`` in a stable order; what is not walked into for a reason is added
    to ``skipped`` (hidden names and tool folders are left out quietly, as documented above)."""
    try:
        entries = sorted(folder.iterdir(), key=lambda p: p.name)
    except OSError as exc:
        skipped.append(Skipped(shown(folder), f"unreadable ({exc.strerror or exc})"))
        return
    for entry in entries:
        if entry.name.startswith(".") or entry.name in SKIP_DIRS:
            continue
        reason = entry_reason(entry)
        if reason is not None:
            skipped.append(Skipped(shown(entry), reason))
        elif entry.is_dir():
            if recursive:
                yield from _walk(entry, True, skipped)
        else:
            yield entry


@dataclass(frozen=True)
class Skipped:
    path: str
    reason: str


@dataclass
class IndexPlan:
    files: list[Path] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)


@dataclass(frozen=True)
class IndexProgress:
    """After each file: how far the run is."""

    done: int
    total: int
    chunks: int  # chunks embedded so far (new or changed files)
    elapsed_s: float
    current: str

    @property
    def files_per_s(self) -> float:
        return self.done / self.elapsed_s if self.elapsed_s > 0 else 0.0

    @property
    def chunks_per_s(self) -> float:
        return self.chunks / self.elapsed_s if self.elapsed_s > 0 else 0.0

    @property
    def eta_s(self) -> float | None:
        rate = self.files_per_s
        return (self.total - self.done) / rate if rate > 0 else None


@dataclass
class IndexSummary:
    counts: dict[str, int] = field(default_factory=lambda: {"indexed": 0, "updated": 0, "unchanged": 0})
    chunks: int = 0
    failed: list[Skipped] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    seconds: float = 0.0
    interrupted: bool = False
    error: str | None = None  # why the run stopped early (the embedder failed)

    @property
    def files(self) -> int:
        return sum(self.counts.values())

    def to_dict(self) -> dict[str, Any]:
        secs = self.seconds or 0.0
        return {**self.counts, "files": self.files, "chunks": self.chunks, "seconds": round(secs, 3),
                "files_per_s": round(self.files / secs, 2) if secs else None,
                "chunks_per_s": round(self.chunks / secs, 2) if secs else None,
                "skipped": [{"path": s.path, "reason": s.reason} for s in self.skipped],
                "failed": [{"path": f.path, "error": f.reason} for f in self.failed],
                "interrupted": self.interrupted, "error": self.error}


def plan_index(paths: Iterable[Path], sandbox: Sandbox, *, recursive: bool = True) -> IndexPlan:
    """Sort the files under ``paths`` (already checked by the caller) into to-index and skipped."""
    plan = IndexPlan()
    seen: set[Path] = set()
    for root in paths:
        candidates = _walk(root, recursive, plan.skipped) if root.is_dir() else iter((root,))
        for candidate in candidates:
            path = candidate.resolve()
            if path in seen:
                continue
            seen.add(path)
            reason = skip_reason(path, sandbox)
            if reason is None:
                plan.files.append(path)
            else:
                plan.skipped.append(Skipped(shown(path), reason))
    return plan


def run_index(rag: RagIndex, plan: IndexPlan, progress: Callable[[IndexProgress], None] | None = None,
              clock: Callable[[], float] = time.monotonic) -> IndexSummary:
    """Index ``plan.files`` one by one. An embedder failure stops the run with ``error`` set (every
    later file would fail too); Ctrl-C stops it with ``interrupted`` set. Finished files stay indexed."""
    summary = IndexSummary(skipped=list(plan.skipped))
    started = clock()
    total = len(plan.files)
    try:
        for i, path in enumerate(plan.files, start=1):
            try:
                result = rag.index_file(path)
            except (ExtractionError, OSError) as exc:
                summary.failed.append(Skipped(shown(path), shown(exc)))
            else:
                summary.counts[result.status] += 1
                if result.status != "unchanged":
                    summary.chunks += result.chunks
            if progress is not None:
                progress(IndexProgress(i, total, summary.chunks, clock() - started, path.name))
    except EmbedderError as exc:
        summary.error = f"the embedder failed: {exc}"
    except KeyboardInterrupt:
        summary.interrupted = True
    summary.seconds = clock() - started
    return summary
