"""Walking the allowed folders: which files and folders a search may see.

Searches start only at the sandbox roots (or a checked folder below them)
and never follow symlinks, so a link cannot lead a search outside them.
Version-control, dependency and cache folders are skipped: they hold
thousands of files nobody asks about and would crowd out real matches.
"""

from __future__ import annotations

import fnmatch
import mimetypes
import os
import re
from datetime import datetime
from pathlib import Path
from typing import Callable, Iterator, Optional, Sequence

from gaia_lite.registry.context import ToolContext

from .patterns import compile_user_regex

__all__ = ["iso_time", "minute_time", "name_date", "name_when", "newest_version", "kind_asked", "kind_exts", "KNOWN_EXTS", "type_words",
           "ASKED_KINDS", "sandbox_roots", "walk_folders", "iter_files", "ext_filter", "not_types", "name_matcher",
           "glob_alternatives", "file_entry", "is_pattern", "visible_files", "type_key"]

_SKIP_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox",
                        ".mypy_cache", ".pytest_cache", ".ruff_cache", ".cache", ".idea", ".vscode",
                        "site-packages", "dist", "build", ".eggs", "target"})


def iso_time(ts: float) -> str:
    return datetime.fromtimestamp(ts).isoformat(timespec="seconds")


def minute_time(ts: float) -> str:
    """"2026-12-06 16:33": a time as a sentence for a person says it (iso_time is the field's)."""
    return datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M")


_NAME_DATE = re.compile(r"(?<!\d)(?P<y>(?:19|20)\d\d)(?P<sep>[-_.]?)(?P<m>0[1-9]|1[0-2])(?:(?P=sep)(?P<d>0[1-9]|[12]\d|3[01]))?(?!\d)")


def name_date(name: str) -> str | None:
    """The date a file's name carries, as "2026-06-08" ("2026-06" for a month alone), or None: "2026-06-08.md",
    "scan_20250114.pdf", "invoice-2024_03.txt". A journal's or a log's dated names say its order when the files'
    times do not: files copied or unpacked at once carry one time."""
    m = _NAME_DATE.search(name)
    if m is None or (not m.group("sep") and m.group("d") is None):   # "202506" alone is as often a number
        return None
    return f"{m.group('y')}-{m.group('m')}" + (f"-{m.group('d')}" if m.group("d") else "")


_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")


def name_when(name: str) -> str:
    """The date a file's name carries (name_date), else a year it holds alone ("report-2025.txt": "2025"), else ""."""
    if (date := name_date(name)) is not None:
        return date
    m = _YEAR.search(name)
    return m.group(0) if m else ""


def newest_version(paths: Sequence[Path]) -> Path | None:
    """The current one of files that are versions of one file: in one folder, named alike but for the dates in
    their names. An undated name among dated ones is the current one ("starter-log.txt" beside
    "starter-log-2025.txt"); else the latest date ("boiler-service-2026-11.txt" before "boiler-service-2025-10.txt").
    None for fewer than two, files that are no such versions, or no one current one."""
    def kept_name(p: Path) -> tuple[Path, str]:
        return p.parent, "".join(c for c in p.stem.lower() if c.isalpha()) + p.suffix.lower()

    if len(paths) < 2 or len({kept_name(p) for p in paths}) != 1:
        return None
    dated = sorted(((name_when(p.name), p) for p in paths), key=lambda d: d[0], reverse=True)
    undated = [p for when, p in dated if not when]
    if undated:
        return undated[0] if len(undated) == 1 else None
    return dated[0][1] if dated[0][0] != dated[1][0] else None


def sandbox_roots(ctx: ToolContext) -> list[Path]:
    return list(getattr(ctx.sandbox, "roots", None) or [ctx.workdir])


def walk_folders(root: Path, max_depth: int, ctx: ToolContext) -> Iterator[tuple[Path, list[str], list[str]]]:
    """(folder, subfolder names, file names) from ``root`` down, like os.walk: no symlinks, no hidden
    or build/cache folders, ``max_depth`` levels. One ``scandir`` per folder and no stat per entry (the
    kind and the symlink bit come with the listing), so a deep search costs what the tree holds."""
    stack = [(root, 0)]
    while stack:
        if ctx.cancel.is_set():
            return
        here, level = stack.pop()
        dirs, files = [], []
        try:
            with os.scandir(here) as listing:
                for entry in listing:
                    if entry.is_symlink():
                        continue
                    if entry.is_dir(follow_symlinks=False):
                        if entry.name not in _SKIP_DIRS and not entry.name.startswith("."):
                            dirs.append(entry.name)
                    else:
                        files.append(entry.name)
        except OSError:  # unreadable or vanished: what is around it is still searched
            continue
        dirs = sorted(dirs) if level < max_depth else []  # the last level's files are seen, not its folders
        yield here, dirs, sorted(files)
        stack.extend((here / d, level + 1) for d in reversed(dirs))  # ``dirs`` may be pruned, as with os.walk


def visible_files(folder: Path) -> list[Path]:
    """The files directly in ``folder``, by name, hidden ones left out ([] for a folder that cannot be read)."""
    try:
        return sorted(c for c in folder.iterdir() if c.is_file() and not c.name.startswith("."))
    except OSError:
        return []


def type_key(name: str) -> str:
    """What a count by type counts ``name`` as: its extension, lower-case, or "(no extension)"."""
    return Path(name).suffix.lower() or "(no extension)"


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
    "pic": ".png .jpg .jpeg .gif .bmp .webp",
    "photo": ".png .jpg .jpeg .heic .webp", "spreadsheet": ".csv .tsv .xlsx .xls .ods",
    "table": ".csv .tsv .xlsx .xls .ods", "data": ".csv .tsv .xlsx .xls .json",
    "code": ".py .js .ts .java .c .cpp .h .go .rs .rb .sh",
    # names of formats where the extension belongs ("markdown" kept every .md file out of a count)
    "markdown": ".md .markdown", "python": ".py", "javascript": ".js .mjs .cjs", "typescript": ".ts .tsx",
    "excel": ".xlsx .xls", "word": ".docx .doc", "powerpoint": ".pptx .ppt", "shell": ".sh .bash",
    "audio": ".mp3 .wav .flac .m4a .ogg", "video": ".mp4 .mov .mkv .avi .webm", "archive": ".zip .tar .gz .tgz .7z",
}


# The kinds a user's own words ask a count of ("how many photos are in my holiday folder?"): the model counted
# one extension of them ("*.jpg"), and .jpeg, .png and .heic photos were left out of the answer. Words common in
# other senses ("data", "table", "text", "code", "word") do not count here.
ASKED_KINDS = ("photo", "picture", "pic", "image", "spreadsheet", "video", "markdown")   # "markdown notes": .md (probe54)

# Every extension of a kind: the ones a message may name as a word ("jpg or png")
KNOWN_EXTS = frozenset(e for exts in _KINDS.values() for e in exts.split())


def kind_asked(message: str) -> str | None:
    """The one kind of ``ASKED_KINDS`` the words of ``message`` name ("photos" -> "photo"), else None."""
    said = {w.rstrip("s") for w in re.findall(r"[a-z]+", message.lower())}
    kinds = [k for k in ASKED_KINDS if k in said]
    return kinds[0] if len(kinds) == 1 else None


def kind_exts(kind: str) -> list[str]:
    """The extensions of a kind of file ("photo": .png .jpg .jpeg .heic .webp); [] for no such kind."""
    return _KINDS.get(kind, "").split()


def type_words(file_types: str) -> list[str]:
    """The words of a ``file_types`` argument, a MIME type read as its extension ("text/csv" is csv): the 0.5B
    passed "text/csv", and its words became a name to search for."""
    out = []
    for w in re.split(r"[,\s;]+", file_types.lower()):
        if "/" in w.strip("/"):
            w = (mimetypes.guess_extension(w.strip()) or w.rsplit("/", 1)[1]).lstrip(".")
        out.append(w)
    return out


def ext_filter(file_types: Optional[str]) -> Callable[[Path], bool]:
    if not file_types:
        return lambda p: True
    exts: set[str] = set()
    for e in type_words(file_types):
        e = e.strip().lstrip("*.")
        if "." in e:  # a file name ("budget.csv") where an extension belongs: its extension is meant
            e = e.rsplit(".", 1)[1]
        if e:
            exts.update(_KINDS.get(e.rstrip("s"), "").split() or ["." + e])
    return lambda p: p.suffix.lower() in exts


def not_types(file_types: Optional[str]) -> str:
    """The words of ``file_types`` that name no file type ("blue heron" where "csv,md" belongs): what
    the model meant to search for, put in the wrong argument. "" when every word is a type."""
    if not file_types:
        return ""
    known = {e.lstrip(".") for e in mimetypes.types_map} | {e.lstrip(".") for k in _KINDS.values() for e in k.split()}
    words = [w for w in type_words(file_types) if w.strip("*.")]
    odd = [w for w in words if w.strip("*.") not in known and w.rstrip("s") not in _KINDS]
    return " ".join(odd) if odd and (len(odd) > 1 or len(words) == 1) else ""


def is_pattern(text: str, *, regex_only: bool = False) -> bool:
    """Whether ``text`` is a regex (characters only a regex has) or, unless ``regex_only``, a glob."""
    if any(c in "^$+(){}|\\" for c in text):
        return True
    return not regex_only and any(c in "*?[" for c in text)


_SEPARATORS = str.maketrans("", "", " \t_-.")


def _squash(text: str) -> str:
    return text.lower().translate(_SEPARATORS)


_GLOB_SEP = re.compile(r"\s*[|;,]\s*|\s+")
_BRACES = re.compile(r"\{([^{}]*,[^{}]*)\}")


def glob_alternatives(pattern: str) -> list[str]:
    """The globs of a pattern that lists several ("*.pdf|*.docx", "*.pdf, *.docx", "*.{pdf,docx}"), lower case;
    [] for one pattern. Asked for "a PDF or a Word document", both models wrote such lists, and no name matched
    them as one glob or one regex."""
    low = pattern.strip().lower()
    if (m := _BRACES.search(low)) is not None:
        return [low[:m.start()] + part.strip() + low[m.end():] for part in m.group(1).split(",") if part.strip()]
    parts = [part for part in _GLOB_SEP.split(low) if part]
    return parts if len(parts) > 1 and all(any(c in "*?" for c in part) for part in parts) else []


def name_matcher(pattern: str) -> Callable[[str], bool]:
    """Regex if it has regex-only characters, glob if it has * ? [, else words/substring; a list of globs
    matches a name any of them matches."""
    p = pattern.strip()
    low = p.lower()
    if globs := glob_alternatives(p):
        return lambda name: any(fnmatch.fnmatch(name.lower(), g) for g in globs)
    if is_pattern(p, regex_only=True):
        rx = compile_user_regex(p, ignore_case=True)  # linear time: the pattern is the model's
        if rx is not None:
            return lambda name: rx.search(name) is not None
    if is_pattern(p):
        return lambda name: fnmatch.fnmatch(name.lower(), low)
    words = low.split()
    return lambda name: (all(w in name.lower() for w in words) or _squash(low) in _squash(name))


def file_entry(path: Path, st: os.stat_result | None = None) -> dict:
    st = st or path.stat()
    return {"path": str(path), "name": path.name, "size_bytes": st.st_size, "modified": iso_time(st.st_mtime)}
