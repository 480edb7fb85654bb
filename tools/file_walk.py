"""Walking the allowed folders: which files and folders a search may see.

Searches start only at the sandbox roots (or a checked folder below them)
and never follow symlinks, so a link cannot lead a search outside them.
Version-control, dependency and cache folders are skipped: they hold
thousands of files nobody asks about and would crowd out real matches.
"""

from __future__ import annotations

import fnmatch
import os
import re
from datetime import datetime
from pathlib import Path
from typing import Callable, Iterator, Optional

from gaia_lite.registry.context import ToolContext

from .patterns import compile_user_regex

__all__ = ["iso_time", "sandbox_roots", "walk_folders", "iter_files", "ext_filter", "name_matcher", "file_entry"]

_SKIP_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox",
                        ".mypy_cache", ".pytest_cache", ".ruff_cache", ".cache", ".idea", ".vscode",
                        "site-packages", "dist", "build", ".eggs", "target"})


def iso_time(ts: float) -> str:
    return datetime.fromtimestamp(ts).isoformat(timespec="seconds")


def sandbox_roots(ctx: ToolContext) -> list[Path]:
    return list(getattr(ctx.sandbox, "roots", None) or [ctx.workdir])


def walk_folders(root: Path, max_depth: int, ctx: ToolContext) -> Iterator[tuple[Path, list[str], list[str]]]:
    """os.walk without symlinks, skipping hidden and build/cache folders, depth-limited."""
    base_depth = len(root.parts)
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        if ctx.cancel.is_set():
            return
        here = Path(dirpath)
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS and not d.startswith(".")
                             and not (here / d).is_symlink())
        if len(here.parts) - base_depth >= max_depth:
            dirnames[:] = []
        yield here, dirnames, sorted(f for f in filenames if not (here / f).is_symlink())


def iter_files(roots: list[Path], max_depth: int, ctx: ToolContext, limit: int = 200_000) -> Iterator[Path]:
    seen = 0
    for root in roots:
        for here, _, files in walk_folders(root, max_depth, ctx):
            for name in files:
                seen += 1
                if seen > limit:
                    return
                yield here / name


# Kinds a model writes for file_types instead of extensions ("text" made the 0.5B model's search for
# invoice_0193.txt find nothing)
_KINDS = {
    "text": ".txt .md .markdown .rst .log .csv .tsv .json .yaml .yml .ini .toml .cfg .conf .xml .html",
    "document": ".pdf .docx .doc .odt .rtf .txt .md", "doc": ".pdf .docx .doc .odt .rtf .txt .md",
    "image": ".png .jpg .jpeg .gif .bmp .webp .tiff .svg", "picture": ".png .jpg .jpeg .gif .bmp .webp",
    "photo": ".png .jpg .jpeg .heic .webp", "spreadsheet": ".csv .tsv .xlsx .xls .ods",
    "table": ".csv .tsv .xlsx .xls .ods", "data": ".csv .tsv .xlsx .xls .json",
    "code": ".py .js .ts .java .c .cpp .h .go .rs .rb .sh",
}


def ext_filter(file_types: Optional[str]) -> Callable[[Path], bool]:
    if not file_types:
        return lambda p: True
    exts: set[str] = set()
    for e in re.split(r"[,\s;]+", file_types.lower()):
        e = e.strip().lstrip("*.")
        if e:
            exts.update(_KINDS.get(e.rstrip("s"), "").split() or ["." + e])
    return lambda p: p.suffix.lower() in exts


def _squash(text: str) -> str:
    return re.sub(r"[\s_\-.]+", "", text.lower())


def name_matcher(pattern: str) -> Callable[[str], bool]:
    """Regex if it has regex-only characters, glob if it has * ? [, else words/substring."""
    p = pattern.strip()
    low = p.lower()
    if any(c in "^$+(){}|\\" for c in p):
        rx = compile_user_regex(p, ignore_case=True)  # linear time: the pattern is the model's
        if rx is not None:
            return lambda name: rx.search(name) is not None
    if any(c in "*?[" for c in p):
        return lambda name: fnmatch.fnmatch(name.lower(), low)
    words = low.split()
    return lambda name: (all(w in name.lower() for w in words) or _squash(low) in _squash(name))


def file_entry(path: Path, st: os.stat_result | None = None) -> dict:
    st = st or path.stat()
    return {"path": str(path), "name": path.name, "size_bytes": st.st_size, "modified": iso_time(st.st_mtime)}
