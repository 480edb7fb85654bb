"""What ``gaia-lite index`` indexes, what it skips and why, and the indexing run itself.

``plan_index`` walks the given files and folders and sorts every file into
"to index" or "skipped" with a reason, checked in this order so nothing is
read that should not be:

1. ``secret``: a credential file or folder (the sandbox never reads those);
2. ``outside the allowed folders``: e.g. a symlink out of an allowed folder;
3. ``unsupported type``: not text, code, CSV, JSON or PDF;
4. ``too big``: over the extractor's size limit;
5. ``binary``: NUL bytes at the start of a text-type file.

Hidden files and tool folders (``.git``, ``node_modules`` …) are not walked,
as in the agent's ``index_directory``. ``run_index`` then indexes the plan
file by file (each file is one transaction of the index, so an interrupted
run keeps what it finished) and reports progress after each file.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from gaia_lite.embed.base import EmbedderError
from gaia_lite.memory.extract import (BINARY_SNIFF_BYTES, MAX_FILE_BYTES, ExtractionError, is_supported, iter_files,
                                      looks_binary)
from gaia_lite.memory.rag import RagIndex
from gaia_lite.tools.sandbox import Sandbox, SandboxError, is_secret_path

__all__ = ["Skipped", "IndexPlan", "IndexProgress", "IndexSummary", "plan_index", "run_index", "skip_reason",
           "SECRET", "OUTSIDE", "UNSUPPORTED", "TOO_BIG", "BINARY"]

SECRET, OUTSIDE, UNSUPPORTED, TOO_BIG, BINARY = ("secret", "outside the allowed folders", "unsupported type",
                                                 "too big", "binary")


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


def skip_reason(path: Path, sandbox: Sandbox) -> str | None:
    """Why ``path`` is skipped, or None to index it (see the module doc for the order)."""
    if is_secret_path(path):
        return SECRET
    try:
        sandbox.check(path)
    except SandboxError:
        return OUTSIDE
    if not is_supported(path):
        return UNSUPPORTED
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            return TOO_BIG
        if path.suffix.lower() != ".pdf":
            with open(path, "rb") as fh:
                if looks_binary(fh.read(BINARY_SNIFF_BYTES)):
                    return BINARY
    except OSError as exc:
        return f"unreadable ({exc.strerror or exc})"
    return None


def plan_index(paths: Iterable[Path], sandbox: Sandbox, *, recursive: bool = True) -> IndexPlan:
    """Sort the files under ``paths`` (already checked by the caller) into to-index and skipped."""
    plan = IndexPlan()
    seen: set[Path] = set()
    for root in paths:
        candidates = iter_files(root, recursive) if root.is_dir() else iter((root,))
        for candidate in candidates:
            path = candidate.resolve()
            if path in seen:
                continue
            seen.add(path)
            reason = skip_reason(path, sandbox)
            if reason is None:
                plan.files.append(path)
            else:
                plan.skipped.append(Skipped(str(path), reason))
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
                summary.failed.append(Skipped(str(path), str(exc)))
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
