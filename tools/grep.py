"""Content search: which lines of which files hold a text, as ``path:line: text``.

One engine for ``search_file_content`` and for ``query_documents`` when the index cannot answer. Small
models asked "which file mentions X" or "find the TODO comments" need the count, the files and the
lines back, in the one shape grep made familiar, with paths relative to the working folder.

What is searched: every file below the folder the walk sees (``file_walk``: no symlinks, no hidden,
version-control, dependency or cache folders), except

* binary files: a binary extension (images, archives, office documents, executables, ...) or a NUL
  byte in the first 8 KB (git's rule);
* credential files and folders (``.env``, ``*.pem``, ``id_rsa*``, ``.ssh/``, ...): the sandbox refuses
  them (``sandbox.is_secret_path``), here as everywhere;
* files over 10 MB.
"""

from __future__ import annotations

import csv
import fnmatch
import math
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Sequence

from gaia_lite.registry.context import ToolContext

from .file_text import MAX_FILE_BYTES, SNIFF_BYTES, is_binary, open_regular
from .file_walk import glob_alternatives, iter_files
from .patterns import compile_user_regex, singular
from .sandbox import SandboxError
from .setting_paths import keys_above

__all__ = ["Hit", "Grep", "text_files", "grep", "grep_words", "where", "hit_lines", "per_file", "counted",
           "LINE_CHARS", "SHOWN_LINES", "searchable", "LogLevel", "LEVEL_WORD", "log_files", "import_regex",
           "whole_word_regex", "denies"]

LINE_CHARS = 160       # of a hit's text: enough for a line of code or a sentence, not a minified file
MAX_HITS = 5_000       # matching lines counted; past it the count says "at least"
SHOWN_LINES = 30       # hit lines a message shows (a result goes back in about 4,000 characters)
SHOWN_FILES = 10       # files a message names with their counts
SCAN_FILES = 50_000    # files one search reads, at most
DEPTH = 32

_BINARY_EXTS = frozenset(
    ".png .jpg .jpeg .gif .bmp .webp .tif .tiff .ico .icns .heic .psd .raw .pdf .doc .docx .xls .xlsx .xlsm "
    ".ods .odt .odp .ppt .pptx .epub .zip .gz .tgz .bz2 .xz .zst .7z .rar .tar .jar .war .whl .egg .exe .dll "
    ".so .dylib .o .a .lib .class .pyc .pyo .bin .dat .db .sqlite .sqlite3 .mp3 .wav .flac .ogg .m4a .aac "
    ".mp4 .mov .avi .mkv .webm .ttf .otf .woff .woff2 .eot .iso .dmg .img .npy .npz .pkl .pickle .pt .pth "
    ".onnx .gguf .safetensors .parquet .feather .arrow .h5 .hdf5".split())


@dataclass(frozen=True)
class Hit:
    """One matching line: its file, number (from 1) and text, with the lines around it when asked."""

    path: Path
    line: int
    text: str
    before: tuple[tuple[int, str], ...] = ()
    after: tuple[tuple[int, str], ...] = ()
    keys: str = ""   # in a settings file, the keys the line is nested under ("sensors > outdoor")


@dataclass(frozen=True)
class Grep:
    """What one search found: the hits (at most MAX_HITS) and whether it stopped before the end."""

    hits: tuple[Hit, ...] = ()
    stopped: bool = False

    @property
    def count(self) -> int:
        return len(self.hits)


def searchable(path: Path) -> bool:
    """Whether a content search reads ``path``: its extension is no binary one."""
    return path.suffix.lower() not in _BINARY_EXTS


def text_files(ctx: ToolContext, target: Path, file_pattern: Optional[str] = None, limit: int = SCAN_FILES) -> list[Path]:
    """The files a search of ``target`` (a folder, every subfolder included, or one file) reads: those
    whose names match the glob ``file_pattern`` (default every file), binary extensions left out; of the
    first ``limit`` files the walk sees."""
    if target.is_file():
        return [target]
    given = (file_pattern or "").lower()
    globs = [_glob(g) for g in glob_alternatives(given) or re.split(r"[,;]", given) if g.strip()]   # "*.py, *.md"
    keep = (lambda p: any(fnmatch.fnmatch(p.name.lower(), g) for g in globs)) if globs else searchable
    return sorted(p for p in iter_files([target], DEPTH, ctx, limit=limit) if keep(p) and searchable(p))


def _glob(text: str) -> str:
    """One glob as the model wrote it, as a name glob: ".*ini" (a regex in a glob's place) means "*ini";
    "**/*.py" and "src/*.py" mean "*.py" (the folder is the search's ``directory``)."""
    glob = text.strip().rsplit("/", 1)[-1]
    return "*" + glob[2:] if glob.startswith(".*") else glob


def _lines_of(ctx: ToolContext, path: Path) -> list[str] | None:
    """The text of a file as lines; None for a credential, unreadable, too big or binary file."""
    try:
        ctx.sandbox.check(path)   # a credential file inside the roots is never read
        if path.stat().st_size > MAX_FILE_BYTES:
            return None
        with open_regular(path) as fh:
            head = fh.read(SNIFF_BYTES)
            if is_binary(head):
                return None
            data = head + fh.read()
    except (SandboxError, OSError):
        return None
    return data.decode("utf-8", errors="replace").splitlines()


def _trim(text: str) -> str:
    text = text.strip()
    return text if len(text) <= LINE_CHARS else text[:LINE_CHARS - 3].rstrip() + "..."


def grep(ctx: ToolContext, files: Sequence[Path], rx: Any, context: int = 0, limit: int = MAX_HITS) -> Grep:
    """The lines of ``files`` that ``rx`` (anything with ``.search``: an RE2 pattern) finds, in file order."""
    hits: list[Hit] = []
    for path in files:
        if ctx.cancel.is_set():
            return Grep(tuple(hits), stopped=True)
        lines = _lines_of(ctx, path) or []
        for i, line in enumerate(lines):
            if not rx.search(line):
                continue
            if len(hits) >= limit:
                return Grep(tuple(hits), stopped=True)
            before = tuple((n + 1, _trim(lines[n])) for n in range(max(0, i - context), i))
            after = tuple((n + 1, _trim(lines[n])) for n in range(i + 1, min(len(lines), i + 1 + context)))
            hits.append(Hit(path, i + 1, _trim(_row_said(path, lines, i) or line), before, after,
                            keys_above(path.name, lines, i)))
    return Grep(tuple(hits))


_MD_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")


def _row_said(path: Path, lines: list[str], at: int) -> str | None:
    """A table row found by a search, each cell after its column's name ("Song: Harbor Lights, Key: F# minor"), for
    a row of a Markdown table or of a CSV/TSV file under its header; None for any other line. Found as
    "| 3 | Harbor Lights | F# minor | 96 |", the key asked went unsaid (probe54)."""
    line = lines[at]
    if line.lstrip().startswith("|"):
        top = at
        while top > 0 and lines[top - 1].lstrip().startswith("|"):
            top -= 1
        if at < top + 2 or not _MD_RULE.match(lines[top + 1]):
            return None
        names, cells = _md_cells(lines[top]), _md_cells(line)
    elif path.suffix.lower() in (".csv", ".tsv") and at > 0:
        sep = "\t" if path.suffix.lower() == ".tsv" else ","
        names, cells = next(csv.reader([lines[0]], delimiter=sep)), next(csv.reader([line], delimiter=sep))
    else:
        return None
    if len(names) != len(cells) or len(names) < 2:
        return None
    return ", ".join(f"{n.strip()}: {c.strip()}" for n, c in zip(names, cells) if c.strip())


def _md_cells(row: str) -> list[str]:
    return [c.strip() for c in row.strip().strip("|").split("|")]


def _stem(word: str) -> str:
    """A request word as a grep finds it in its other forms: "policy" -> "polic" (policies)."""
    return word[:-1] if word.endswith("y") and len(word) > 4 else word


def grep_words(ctx: ToolContext, files: Sequence[Path], terms: Sequence[str], limit: int = SHOWN_LINES) -> Grep:
    """The lines of ``files`` that hold the words ``terms`` (a request's words, ``find.request_words``), best
    first: a line's score is the sum of its words' weights, a word fewer lines hold weighing more, and lines
    far below the best are left out (a line with every word beats one with the commonest word alone)."""
    patterns = {s: compile_user_regex(s, ignore_case=True, literal=True)
                for s in dict.fromkeys(_stem(t.strip()) for t in terms if t.strip())}
    held: list[tuple[Hit, frozenset[str]]] = []
    for path in files:
        if ctx.cancel.is_set() or len(held) >= MAX_HITS:
            break
        for i, line in enumerate(_lines_of(ctx, path) or ()):
            got = frozenset(s for s, rx in patterns.items() if rx is not None and rx.search(line))
            if got:
                held.append((Hit(path, i + 1, _trim(line)), got))
    if not held:
        return Grep()
    lines_with = Counter(s for _, got in held for s in got)
    weight = {s: math.log(1 + len(held) / n) for s, n in lines_with.items()}
    scored = [(sum(weight[s] for s in got), h) for h, got in held]
    best = max(v for v, _ in scored)
    kept = sorted(((v, h) for v, h in scored if v >= 0.6 * best), key=lambda vh: (-vh[0], str(vh[1].path), vh[1].line))
    return Grep(tuple(h for _, h in kept[:limit]), stopped=len(kept) > limit)


def where(path: Path, base: Path) -> str:
    """``path`` relative to ``base`` with forward slashes (what a person reads), else as is."""
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return path.as_posix()


def per_file(found: Grep, base: Path) -> list[str]:
    """"notes/todo.md (3)" for each file with hits, in the order they were found."""
    counts: dict[Path, int] = {}
    for h in found.hits:
        counts[h.path] = counts.get(h.path, 0) + 1
    return [f"{where(p, base)} ({n})" for p, n in counts.items()]


def hit_lines(found: Grep, base: Path, shown: int = SHOWN_LINES) -> list[str]:
    """The first ``shown`` hits as ``path:line: text``, grep-style: a line around a hit as ``path-line- text``,
    each line once, ``--`` between groups that do not touch."""
    hits = found.hits[:shown]
    matched = {(h.path, h.line) for h in hits}
    out: list[str] = []
    printed: dict[Path, int] = {}   # the last line of each file already shown
    for h in hits:
        done = printed.get(h.path, 0)
        rows = [n_t for n_t in (*h.before, (h.line, h.text), *h.after) if n_t[0] > done]
        if not rows:
            continue
        if (h.before or h.after) and out and rows[0][0] > done + 1:
            out.append("--")
        name = where(h.path, base)
        # a blank line around a hit says nothing: "src/parser.py-2-" rows were copied into an answer (0.5B, probe57)
        out += [f"{name}{sep}{n}{sep} {t}".rstrip() + (f" (under {h.keys})" if n == h.line and h.keys else "")
                for n, t in rows for sep in [":" if (h.path, n) in matched else "-"] if sep == ":" or t.strip()]
        printed[h.path] = rows[-1][0]
    return out


def counted(found: Grep, base: Path) -> str:
    """"4 matching lines in 2 files: notes/todo.md (3), src/app.py (1)": what a search found, in one line."""
    files = per_file(found, base)
    more = f" (+{len(files) - SHOWN_FILES} more files)" if len(files) > SHOWN_FILES else ""
    n = f"at least {found.count}" if found.stopped else str(found.count)
    lines = "line" if found.count == 1 else "lines"
    return f"{n} matching {lines} in {len(files)} file{'' if len(files) == 1 else 's'}: " \
           + ", ".join(files[:SHOWN_FILES]) + more


_LEVELS = {"error": "error", "errors": "error", "err": "error", "warn": "warn", "warning": "warn", "warnings": "warn",
           "info": "info", "debug": "debug", "fatal": "fatal", "critical": "critical", "crit": "critical",
           "trace": "trace"}
LEVEL_WORD = re.compile(r"\b(?:level=)?(error|err|warning|warn|info|debug|fatal|critical|crit|trace)\b", re.IGNORECASE)
_LOG_NAME = re.compile(r"\.log(?:\.\d+)?$|\.log\.", re.IGNORECASE)


@dataclass(frozen=True)
class LogLevel:
    """Matches the lines of a log whose level is ``level``: the first level word of the line ("ERROR",
    "level=error"), not the word anywhere ("INFO Retrying after error" is an info line). Asked "how many error
    lines are there across the logs?", both models searched "error" and counted every line with the word (probe49)."""

    level: str

    @classmethod
    def of(cls, pattern: str) -> "LogLevel | None":
        level = _LEVELS.get(pattern.strip().lower())
        return cls(level) if level else None

    def search(self, line: str) -> bool:
        m = LEVEL_WORD.search(line)
        return m is not None and _LEVELS[m.group(1).lower()] == self.level


def log_files(files: Sequence[Path]) -> list[Path]:
    """The logs among ``files``: named *.log, or rotated (app.log.1, app.log.2024-06-01)."""
    return [p for p in files if _LOG_NAME.search(p.name)]


_IMPORT = re.compile(r"^\s*(?:import|from)\s+(?P<module>[A-Za-z_][\w.]*)\s*$")


def import_regex(pattern: str) -> str | None:
    """A regular expression for every way a Python or JavaScript file imports the module of ``pattern`` ("import
    requests"): "import requests", "import requests as r", "from requests import Session", "from requests.adapters
    import ...", "require('requests')"; not "import requests_cache", and not a commented-out line. Asked which
    files import requests, both models searched "import requests" and named a commented-out line and
    requests_cache, and missed "from requests import Session" (probe49). None for another pattern."""
    m = _IMPORT.match(pattern)
    if m is None:
        return None
    mod = re.escape(m.group("module"))
    return (rf"^\s*(?:import\s+(?:[\w.]+\s*,\s*)*{mod}(?:$|[\s,.;])|from\s+{mod}(?:\.[\w.]+)?\s+import\b)|"
            rf"^[^#/]*\brequire\(\s*['\"]{mod}['\"]\s*\)|^\s*import\b[^#/]*\bfrom\s+['\"]{mod}['\"]")


def whole_word_regex(pattern: str) -> str | None:
    """``pattern`` as whole words (a plural and a singular too): "TODO" finds "# TODO:" but not "todoSchema" or
    "todo_items";
    None for under 3 characters or when it does not begin and end with a letter or digit (it is searched as
    written)."""
    text = pattern.strip()
    if len(text) < 3 or not (text[0].isalnum() and text[-1].isalnum()):   # "b" is searched as a letter
        return None
    # a plural finds its singular too: "peanuts" found the allergy form alone, not the menu's and the roster's
    # "peanut" (probe53)
    one = singular(text) if text.isalpha() and text.islower() else text
    forms = [re.escape(text) + "(?:s|es)?"] + ([re.escape(one) + "(?:s|es)?"] if one != text else [])
    if one.endswith("y") and one.isalpha():   # "policy" finds "policies"
        forms.append(re.escape(one[:-1]) + "ies")
    return rf"\b{forms[0]}\b" if len(forms) == 1 else rf"\b(?:{'|'.join(forms)})\b"


# "no tahini needed", "without a hack", "never the west gate"; and after it "- none found", "not needed"
_DENIED_BEFORE = re.compile(r"\b(?:no|not|without|never|none|nothing|non|free\s+of)\W+(?:\w+\W+){0,2}$", re.IGNORECASE)
_DENIED_AFTER = re.compile(r"^\W*(?:\w+\W+){0,2}?(?:not\s+(?:needed|required|used|found|present|included)|"
                           r"none\s+(?:found|seen|needed))\b", re.IGNORECASE)


def denies(text: str, term: str) -> bool:
    """Whether every place ``text`` says ``term`` says it is not there: "Sauce: garlic yogurt (no tahini needed)",
    "checked the tray for chalkbrood mummies - none found". Asked which recipe calls for tahini, the falafel's "no
    tahini needed" came first and was the 1.5B's answer (probe56)."""
    low, term = text.lower(), term.lower().strip()
    places = [m.start() for m in re.finditer(re.escape(term), low)] if term else []
    return bool(places) and all(_DENIED_BEFORE.search(low[:i]) or _DENIED_AFTER.search(low[i + len(term):])
                                for i in places)
