"""Telling text files from the rest, outlining them, and grepping them.

Documents, spreadsheets and images are not refused with a bare "not text":
the hint names the tool that can read them, so the model's next call goes
to the right tool.
"""

from __future__ import annotations

import ast
import errno
import json
import os
import re
import stat
from pathlib import Path
from typing import BinaryIO

from gaia_lite.registry.context import ToolContext

from .sandbox import SandboxError

__all__ = ["MAX_FILE_BYTES", "TEXT_EXTS", "not_text_hint", "text_head", "text_start", "is_binary", "python_outline",
           "markdown_outline", "open_regular", "content_format", "format_note"]

MAX_FILE_BYTES = 10 * 1024 * 1024
SNIFF_BYTES = 8192  # a NUL byte in the first 8 KB marks a binary file (git's rule)
_INDEX_FIRST = {".pdf", ".docx", ".doc", ".pptx", ".ppt", ".odt", ".epub", ".rtf"}
_DATA_FILES = {".xlsx", ".xlsm", ".xls", ".ods"}
_IMAGES = {".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".tiff"}
TEXT_EXTS = {".txt", ".md", ".rst", ".py", ".js", ".ts", ".tsx", ".jsx", ".java", ".c", ".h", ".cpp", ".hpp",
             ".cs", ".go", ".rs", ".rb", ".php", ".sh", ".bash", ".ps1", ".bat", ".html", ".htm", ".css",
             ".scss", ".json", ".yaml", ".yml", ".toml", ".ini", ".cfg", ".conf", ".xml", ".csv", ".tsv",
             ".sql", ".log", ".tex", ".swift", ".kt", ".scala", ".lua", ".r", ".m", ".pl", ".vue", ".svelte",
             # plain text under other names: "whats max players set to on my minecraft server? server.properties"
             # was no text file, so no file the question named was read first (probe57)
             ".properties", ".markdown", ".text", ".org", ".adoc", ".srt", ".vtt", ".ics", ".vcf", ".gradle",
             ".tf", ".service", ".desktop"}


def python_outline(text: str) -> dict:
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        return {"syntax_ok": False, "syntax_error": f"line {exc.lineno}: {exc.msg}"}
    classes, functions, imports = [], [], []
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            methods = [m.name for m in node.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]
            classes.append({"name": node.name, "line": node.lineno, "methods": methods[:30]})
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions.append({"name": node.name, "line": node.lineno})
        elif isinstance(node, ast.Import):
            imports += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            imports.append(node.module or ".")
    return {"syntax_ok": True, "classes": classes[:50], "functions": functions[:80], "imports": imports[:50]}


def markdown_outline(text: str) -> dict:
    headers, in_code, fences = [], False, 0
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            in_code, fences = not in_code, fences + 1
        elif not in_code and (m := re.match(r"(#{1,6})\s+(.+)", line)):
            headers.append({"level": len(m.group(1)), "title": m.group(2).strip(), "line": number})
    links = len(re.findall(r"\[[^\]]*\]\([^)]+\)", text))
    return {"headers": headers[:60], "code_blocks": fences // 2, "links": links}


def not_text_hint(path: Path) -> str | None:
    ext = path.suffix.lower()
    if ext in _INDEX_FIRST:
        return f"{path.name} is a {ext} document, not plain text: index it with index_document, then ask query_specific_file"
    if ext in _DATA_FILES:
        return f"{path.name} is a spreadsheet: use analyze_data_file for its contents and totals"
    if ext in _IMAGES:
        return f"{path.name} is an image: use analyze_image or answer_question_about_image"
    return None


def open_regular(path: Path) -> BinaryIO:
    """``open(path, "rb")`` for a regular file; OSError for a FIFO, a device or a socket. Opened without
    blocking and checked on the open descriptor: open() of a FIFO waits for a writer for ever (a named pipe
    in the folder hung read_file and every content search past the tool's timeout), and a check of the
    path before the open could be raced."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(errno.EINVAL, f"{path.name} is not a regular file (a FIFO, device or socket)")
    return os.fdopen(fd, "rb")


def is_binary(data: bytes) -> bool:
    return b"\x00" in data[:SNIFF_BYTES]


def text_head(ctx: ToolContext, path: Path, *, lines: int = 6, chars: int = 400, line_chars: int = 300) -> str:
    """The first ``lines`` lines of a text file, at most ``chars`` characters; "" for anything else.

    The one rule for what counts as text, the one ``read_file`` reads by: not a document, spreadsheet
    or image type (``not_text_hint``), within the size limit, and no NUL byte at its start. A file
    without an extension (README, Makefile) is text by that rule too."""
    if not_text_hint(path) is not None:
        return ""
    try:
        ctx.sandbox.check(path)   # a credential file inside the roots is never previewed
        if not path.is_file() or path.stat().st_size > MAX_FILE_BYTES:
            return ""
        with open(path, "rb") as fh:
            head = fh.read(max(SNIFF_BYTES, chars * 4))
    except (SandboxError, OSError):
        return ""
    if is_binary(head):
        return ""
    text = head.decode("utf-8", errors="replace").splitlines()[:lines]
    return "\n".join(ln[:line_chars] for ln in text)[:chars].rstrip()


def text_start(ctx: ToolContext, path: Path, limit: int = 65536) -> str:
    """The first ``limit`` bytes of a text file, decoded; "" for a refused, unreadable or binary file."""
    try:
        ctx.sandbox.check(path)   # skips credential files inside the roots
        with open_regular(path) as fh:
            data = fh.read(limit)
    except (SandboxError, OSError):
        return ""
    return "" if is_binary(data) else data.decode("utf-8", errors="replace")


_EXT_FORMAT = {".json": "JSON", ".csv": "CSV", ".tsv": "TSV", ".xml": "XML", ".html": "HTML", ".htm": "HTML",
               ".yaml": "YAML", ".yml": "YAML", ".ini": "INI", ".cfg": "INI", ".conf": "INI", ".env": "key=value"}
_KEY_VALUE = re.compile(r"^\s*[\w.-]+\s*=")
_YAML_KEY = re.compile(r"^\s*(?:- )?[\w. -]+:(?:\s|$)")


def content_format(text: str) -> str:
    """What a text is written in, read from the text itself: "JSON", "XML", "HTML", "INI", "CSV", "TSV", "YAML",
    "key=value" or "plain text". A file's extension can say nothing of it: settings.dat held JSON, and asked what
    format it was, the 1.5B answered "a text file with 183 bytes" (probe50)."""
    t = text.strip()
    if t[:1] in "{[":
        try:
            json.loads(t)
            return "JSON"
        except ValueError:
            pass
    if t.startswith("<"):
        return "HTML" if re.match(r"<(?:!doctype html|html)\b", t, re.IGNORECASE) else "XML"
    lines = [ln for ln in t.splitlines() if ln.strip() and not ln.lstrip().startswith(("#", ";"))][:20]
    if not lines:
        return "plain text"
    if re.fullmatch(r"\[[^\]]+\]", lines[0].strip()) and any(_KEY_VALUE.match(ln) for ln in lines):
        return "INI"
    for sep, name in ((",", "CSV"), ("\t", "TSV")):
        counts = {ln.count(sep) for ln in lines[:8]}
        if len(lines) >= 2 and len(counts) == 1 and counts != {0}:
            return name
    if all(_KEY_VALUE.match(ln) for ln in lines):
        return "key=value"
    if all(_YAML_KEY.match(ln) or ln.lstrip().startswith("- ") for ln in lines):
        return "YAML"
    return "plain text"


def format_note(path: Path, text: str) -> str | None:
    """"JSON (from its content; the .dat extension does not say so)" when the text is written in a format its
    extension does not name; None when the extension says it, or the text is plain."""
    found = content_format(text)
    ext = path.suffix.lower()
    prose = ext in {".txt", ".log", ".text", ".md"}   # "Name: Bob" lines in notes.txt are notes, not YAML
    if found == "plain text" or _EXT_FORMAT.get(ext) == found or (ext in TEXT_EXTS and ext not in _EXT_FORMAT
                                                                   and not prose) \
            or (prose and found in ("YAML", "key=value")):
        return None
    said = f"the {ext} extension does not say so" if ext else "its name has no extension"
    return f"{found} (from its content; {said})"
