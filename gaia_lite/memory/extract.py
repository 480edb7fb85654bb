"""Turning files into page-marked text and overlapping chunks for the document index.

Every extracted document is a list of pages. PDFs have one per PDF page;
every other format is a single page. The stored text puts a ``[Page N]`` line
before each page, so summaries and exports can split on pages again.

Chunks are windows of about ``CHUNK_WORDS`` words (about 500 tokens at roughly
1.3 tokens per word) that overlap by ``OVERLAP_WORDS`` words. A chunk never
crosses a page boundary, so every hit can cite its page. The original spacing
inside a chunk is kept, so code and tables stay readable.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from gaia_lite.errors import GaiaError

__all__ = [
    "SUPPORTED_EXTENSIONS", "MAX_FILE_BYTES", "CHUNK_WORDS", "OVERLAP_WORDS", "ExtractionError", "Chunk",
    "extract_pages", "with_page_markers", "split_pages", "chunk_pages", "sha256_file", "iter_supported_files",
    "iter_files", "is_supported", "looks_binary", "BINARY_SNIFF_BYTES", "BAD_NAME", "has_utf8_name", "shown",
]

# settings files are documents too: "what time does the bedroom heating come on?" is answered by schedules.yaml, and
# the index, blind to it, answered from a note that said "6:45" (probe52)
TEXT_EXTENSIONS = frozenset({".txt", ".md", ".markdown", ".rst", ".csv", ".tsv", ".json", ".yaml", ".yml", ".toml",
                             ".ini", ".cfg", ".conf", ".properties", ".xml", ".html", ".htm",
                             ".py", ".js", ".ts", ".java", ".c", ".cpp", ".h", ".go", ".rs", ".sh"})
SUPPORTED_EXTENSIONS = TEXT_EXTENSIONS | {".pdf"}
MAX_FILE_BYTES = 100 * 1024 * 1024
BINARY_SNIFF_BYTES = 8192
CHUNK_WORDS = 380
OVERLAP_WORDS = 50
SKIP_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv",
                       ".mypy_cache", ".pytest_cache", ".tox", "dist", "build"})

BAD_NAME = "name is not valid UTF-8"  # why such a file is skipped (tools/skip.py, RagIndex.index_directory)

_MARKER = re.compile(r"^\[Page (\d+)\]$", re.MULTILINE)


class ExtractionError(GaiaError, ValueError):
    """The file cannot be read as text; the message says why."""


@dataclass(frozen=True)
class Chunk:
    idx: int
    page: int
    text: str


def has_utf8_name(path: Path | str) -> bool:
    """False for a path with bytes that are not UTF-8 (Python holds them as surrogates): SQLite stores
    paths as UTF-8 text, and JSON or a terminal cannot carry them as they are."""
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def shown(path: Path | str) -> str:
    """``path`` as text any terminal can print: bytes that are not UTF-8 escaped (``bad\\xff.txt``)."""
    return os.fsencode(str(path)).decode("utf-8", "backslashreplace")


def is_supported(path: Path) -> bool:
    return path.suffix.lower() in SUPPORTED_EXTENSIONS


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def looks_binary(head: bytes) -> bool:
    """NUL bytes in the first ``BINARY_SNIFF_BYTES``: the file is not text."""
    return b"\x00" in head[:BINARY_SNIFF_BYTES]


def _read_text(path: Path) -> str:
    data = path.read_bytes()
    if looks_binary(data):
        raise ExtractionError(f"{path.name} looks binary (NUL bytes); only text files and PDFs can be indexed")
    for encoding in ("utf-8-sig", "cp1252"):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    return data.decode("utf-8", errors="replace")


def _read_pdf(path: Path) -> list[str]:
    # kept lazy: pypdf loads only for PDFs
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(str(path))
        if reader.is_encrypted and not reader.decrypt(""):
            raise ExtractionError(f"{path.name} is password-protected; save an unlocked copy and index that")
        return [(page.extract_text() or "").strip() for page in reader.pages]
    except (PdfReadError, OSError, ValueError, KeyError) as exc:
        if isinstance(exc, ExtractionError):
            raise
        raise ExtractionError(f"{path.name} is not a readable PDF ({exc})") from exc


def extract_pages(path: Path) -> list[str]:
    """The text of ``path`` as pages (one page for non-PDF formats)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED_EXTENSIONS:
        raise ExtractionError(f"{path.name}: unsupported type {suffix or '(none)'}; supported: "
                              + " ".join(sorted(SUPPORTED_EXTENSIONS)))
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise ExtractionError(f"{path.name} is {size // 2**20} MB; the limit is {MAX_FILE_BYTES // 2**20} MB")
    if suffix == ".pdf":
        return _read_pdf(path)
    return [_read_text(path)]


def with_page_markers(pages: list[str]) -> str:
    """``[Page 1]`` … ``[Page N]`` lines before each page's text."""
    return "\n\n".join(f"[Page {i}]\n{text}" for i, text in enumerate(pages, start=1))


def split_pages(text: str) -> list[tuple[int, str]]:
    """Undo ``with_page_markers``: (page number, text) pairs; unmarked text is page 1."""
    marks = list(_MARKER.finditer(text))
    if not marks:
        return [(1, text.strip())]
    out = []
    for m, nxt in zip(marks, marks[1:] + [None]):
        end = nxt.start() if nxt else len(text)
        out.append((int(m.group(1)), text[m.end():end].strip()))
    return out


def chunk_pages(pages: list[tuple[int, str]], words: int = CHUNK_WORDS,
                overlap: int = OVERLAP_WORDS) -> list[Chunk]:
    """Overlapping word windows per page, keeping the original spacing."""
    step = max(1, words - max(0, min(overlap, words - 1)))
    chunks: list[Chunk] = []
    for page, text in pages:
        spans = [m.span() for m in re.finditer(r"\S+", text)]
        for start in range(0, len(spans), step):
            window = spans[start:start + words]
            chunks.append(Chunk(len(chunks), page, text[window[0][0]:window[-1][1]]))
            if start + words >= len(spans):
                break
    return chunks


def iter_supported_files(directory: Path, recursive: bool = False) -> Iterator[Path]:
    """Supported, non-hidden files under ``directory`` in a stable order."""
    return (path for path in iter_files(directory, recursive) if is_supported(path))


def iter_files(directory: Path, recursive: bool = False) -> Iterator[Path]:
    """Every non-hidden file under ``directory`` in a stable order; recursion skips ``SKIP_DIRS``."""
    directory = Path(directory)
    try:
        entries = sorted(directory.iterdir(), key=lambda p: p.name)
    except OSError:
        return
    for entry in entries:
        if entry.name.startswith("."):
            continue
        if entry.is_dir() and not entry.is_symlink():
            if recursive and entry.name not in SKIP_DIRS:
                yield from iter_files(entry, True)
        elif entry.is_file():
            yield entry
