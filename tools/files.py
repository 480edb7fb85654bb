"""File tools: find, read, grep, write, edit, browse and inspect files.

Every path a model gives goes through the sandbox (``resolve_user_path``);
searches walk only the sandbox roots (or a checked folder below them), skip
version-control, dependency and cache folders, and never follow symlinks.
"""

from __future__ import annotations

import difflib
import fnmatch
import mimetypes
import re
import time
from pathlib import Path
from typing import Callable, Literal, Optional

from gaia_lite.registry.context import ToolContext
from gaia_lite.registry.spec import tool
from gaia_lite.registry.failure import error_payload

from .backup import backup_file
from .file_text import MAX_FILE_BYTES, TEXT_EXTS, grep_files, markdown_outline, not_text_hint, python_outline
from .file_walk import ext_filter, file_entry, iso_time, iter_files, name_matcher, sandbox_roots, walk_folders
from .patterns import MAX_PATTERN_CHARS, compile_user_regex
from .sandbox import SandboxError, resolve_user_path

__all__ = ["TOOLS", "search_file", "search_directory", "read_file", "search_file_content", "write_file",
           "edit_file", "browse_directory", "get_file_info", "list_recent_files", "MAX_FILE_BYTES"]

READ_CHAR_CAP = 50_000


@tool
def search_file(ctx: ToolContext, file_pattern: str, deep_search: bool = False,
                file_types: Optional[str] = None) -> dict:
    """Find files by name in the allowed folders (words, glob like *.csv, or regex).

    Args:
        file_pattern: Name, words, glob or regex, e.g. "sales 2025" or "*.csv".
        deep_search: Look in every subfolder level, not just six.
        file_types: Comma-separated extensions to keep, e.g. "csv,xlsx".
    """
    if not isinstance(file_pattern, str) or not file_pattern.strip():
        return error_payload("file_pattern is empty: give part of the file name, e.g. 'report'")
    depth = 64 if deep_search else 6
    found = _files_named(ctx, file_pattern, depth, ext_filter(file_types))
    exact = file_pattern.strip().lower()
    stem = _guessed_stem(file_pattern)
    other_ext = not found and stem is not None
    if other_ext:  # "employee_handbook.txt" (types "txt") when the file is employee_handbook.md
        found = _files_named(ctx, stem, depth, ext_filter(None))
        exact = next((e["name"].lower() for e in found if Path(e["name"]).stem.lower() == stem.lower()), exact)
    found.sort(key=lambda e: e["modified"], reverse=True)
    found.sort(key=lambda e: e["name"].lower() != exact)   # stable: exact names first, then newest
    result = {"status": "success", "pattern": file_pattern, "count": len(found), "files": found[:20],
              "truncated": len(found) > 20, "searched": [str(r) for r in sandbox_roots(ctx)]}
    if other_ext and found:
        result["message"] = (f"No file is named {file_pattern.strip()!r}; "
                             f"these are named {stem!r} with another extension.")
    if 0 < len(found) <= 3:  # found is half the job: the 1.5B model answered "who is the customer?" unread
        result["hint"] = "read_file gives a file's text"
    named = [e for e in found if e["name"].lower() == exact]
    one = found[0] if len(found) == 1 else named[0] if len(named) == 1 else None
    preview = _first_lines(ctx, Path(one["path"])) if one else ""
    if preview:  # one file by its name: the user will want what is in it
        result["first_lines"] = preview
    if not found:
        mentioned = _mentioned_in(ctx, file_pattern)
        if mentioned:  # "which file mentions a blue heron?" asked of the name search
            result["mentioned_in"] = mentioned
            result["message"] = f"No file is named like that, but the text {file_pattern.strip()!r} appears in: " \
                                + ", ".join(mentioned)
        else:
            result["message"] = ("No file matched. Try fewer words, a glob such as *sales*, "
                                 "deep_search=true, or ask for --allowed-paths to widen the search.")
    return result


def _files_named(ctx: ToolContext, pattern: str, depth: int, keep: Callable[[Path], bool]) -> list[dict]:
    """Entries for the files whose name ``pattern`` matches and ``keep`` accepts, up to ``depth`` levels."""
    matches, found = name_matcher(pattern), []
    for path in iter_files(sandbox_roots(ctx), depth, ctx):
        if matches(path.name) and keep(path):
            try:
                found.append(file_entry(path))
            except OSError:
                continue
    return found


def _guessed_stem(pattern: str) -> str | None:
    """The name part of a plain file name with an extension ("employee_handbook.txt" -> "employee_handbook"),
    for a second look when the extension was guessed; None for globs, regexes and bare words."""
    p = pattern.strip()
    m = re.fullmatch(r"([\w][\w .-]*?)\.[A-Za-z0-9]{1,5}", p)
    if m is None or any(c in p for c in "*?[]^$+(){}|\\"):
        return None
    return m.group(1) if len(m.group(1)) >= 3 else None


PREVIEW_LINES, PREVIEW_CHARS = 6, 400


def _first_lines(ctx: ToolContext, path: Path) -> str:
    """The start of a small text file ("" for anything else), for the one file a name search found."""
    if path.suffix.lower() not in TEXT_EXTS:
        return ""
    try:
        ctx.sandbox.check(path)
        if path.stat().st_size > MAX_FILE_BYTES:
            return ""
        with open(path, encoding="utf-8", errors="replace") as fh:
            head = fh.read(PREVIEW_CHARS * 2)
    except (SandboxError, OSError):
        return ""
    if "\x00" in head:
        return ""
    text = "\n".join(head.splitlines()[:PREVIEW_LINES])[:PREVIEW_CHARS]
    return text.rstrip()


def _mentioned_in(ctx: ToolContext, words: str, limit: int = 10) -> list[str]:
    """Text files in the working folder whose text holds ``words`` (plain words only, not a glob), as
    paths relative to it: small models send "which file mentions X?" to the name search."""
    inner = re.sub(r"^\^?(?:\.\*|\*)|(?:\.\*|\*)\$?$", "", words.strip())
    if " " in inner.strip():  # ".*blue heron.*": a phrase in wildcards (a glob of one word stays a name search)
        words = inner.strip()
    if any(c in words for c in "*?[]\\^$|(){}") or len(words) > MAX_PATTERN_CHARS:
        return []
    phrase = re.sub(r"\.[A-Za-z0-9]{1,5}$", "", words.strip())  # "blue heron.csv": a file name made up
    words = phrase if len(phrase.split()) > 1 else words.strip()
    rx = compile_user_regex(words, ignore_case=True, literal=True)
    if rx is None:
        return []
    files = [p for p in iter_files([ctx.workdir], 6, ctx, limit=2_000) if p.suffix.lower() in TEXT_EXTS]
    hits = dict.fromkeys(h["file"] for h in grep_files(ctx, files, rx, 0))
    return [_relative(Path(f), ctx.workdir) for f in list(hits)[:limit]]


def _relative(path: Path, base: Path) -> str:
    try:
        return str(path.relative_to(base))
    except ValueError:
        return str(path)


@tool
def search_directory(ctx: ToolContext, directory_name: str, search_root: Optional[str] = None,
                     max_depth: int = 4) -> dict:
    """Find folders by name (case-insensitive substring) in the allowed folders.

    Args:
        directory_name: Part of the folder name, e.g. "invoices".
        search_root: Folder to search under; defaults to the allowed folders.
        max_depth: How many levels deep to look (1-10).
    """
    if not isinstance(directory_name, str) or not directory_name.strip():
        return error_payload("directory_name is empty: give part of the folder name")
    try:
        roots = [resolve_user_path(ctx, search_root)] if search_root else sandbox_roots(ctx)
        depth = max(1, min(10, int(max_depth)))
    except SandboxError as exc:
        return error_payload(str(exc))
    except (TypeError, ValueError):
        return error_payload(f"max_depth must be a whole number, got {max_depth!r}")
    needle = directory_name.strip().lower()
    found = []
    for root in roots:
        if not root.is_dir():
            return error_payload(f"search_root {root} is not an existing folder")
        for here, dirnames, _ in walk_folders(root, depth, ctx):
            found += [str(here / d) for d in dirnames if needle in d.lower()]
    return {"status": "success", "directory_name": directory_name, "count": len(found),
            "directories": found[:20], "truncated": len(found) > 20}


def _checked_file(ctx: ToolContext, file_path: str, *, write: bool = False, repair: bool | None = None) -> Path | dict:
    """Resolve and sandbox-check; an error dict when refused."""
    try:
        return resolve_user_path(ctx, file_path, write=write, repair=repair)
    except SandboxError as exc:
        return error_payload(str(exc))


def _load_text(path: Path) -> str | dict:
    """The file as text, or an error dict (missing, folder, too big, binary)."""
    if not path.exists():
        return error_payload(f"{path} does not exist; check the name with search_file")
    if path.is_dir():
        return error_payload(f"{path} is a folder; use browse_directory to list it")
    hint = not_text_hint(path)
    if hint:
        return error_payload(hint)
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        return error_payload(f"{path} is {size / 1e6:.1f} MB; the limit is 10 MB. Use search_file_content to grep it")
    data = path.read_bytes()
    if b"\x00" in data[:8192]:
        return error_payload(f"{path} is a binary file, not text")
    return data.decode("utf-8", errors="replace")


@tool
def read_file(ctx: ToolContext, file_path: str) -> dict:
    """Read a text or code file (shows Python symbols and Markdown headings too).

    Args:
        file_path: Path of the file, e.g. "notes/plan.md".
    """
    path = _checked_file(ctx, file_path)
    if isinstance(path, dict):
        return path
    text = _load_text(path)
    if isinstance(text, dict):
        return text
    ext = path.suffix.lower()
    result = {"status": "success", "file_path": str(path), "size_bytes": path.stat().st_size,
              "lines": text.count("\n") + (1 if text and not text.endswith("\n") else 0),
              "content": text[:READ_CHAR_CAP], "truncated": len(text) > READ_CHAR_CAP}
    if ext == ".py":
        result["analysis"] = python_outline(text)
    elif ext in (".md", ".markdown"):
        result["analysis"] = markdown_outline(text)
    elif ext in (".csv", ".tsv"):
        result["analysis"] = {"data_rows": max(0, result["lines"] - 1),
                              "hint": "for totals, averages or rankings use analyze_data_file"}
    if result["truncated"]:
        result["hint"] = f"only the first {READ_CHAR_CAP} characters are shown; grep with search_file_content"
    return result


@tool
def search_file_content(ctx: ToolContext, pattern: str, directory: str = ".", file_pattern: Optional[str] = None,
                        case_sensitive: bool = False, context_lines: int = 0) -> dict:
    """Search inside files on disk for text or a regex (like grep), with line numbers.

    Args:
        pattern: Text or regular expression to find.
        directory: Folder to search; defaults to the working directory.
        file_pattern: Glob of files to search, e.g. "*.py"; default text files.
        case_sensitive: Match upper/lower case exactly.
        context_lines: Lines to show before and after each hit (0-5).
    """
    if not isinstance(pattern, str) or not pattern:
        return error_payload("pattern is empty: give the text to search for")
    target = _checked_file(ctx, directory or ".")
    if isinstance(target, dict):
        return target
    if not target.exists():
        return error_payload(f"{target} does not exist")
    if len(pattern) > MAX_PATTERN_CHARS:
        return error_payload(f"pattern is {len(pattern)} characters; the limit is {MAX_PATTERN_CHARS}")
    regexes = [rx for rx in (compile_user_regex(pattern, ignore_case=not case_sensitive),
                             compile_user_regex(pattern, ignore_case=not case_sensitive, literal=True)) if rx]
    context = max(0, min(5, int(context_lines or 0)))
    if file_pattern and file_pattern.startswith(".*"):  # a regex written for a glob: ".*ini" means "*ini"
        file_pattern = "*" + file_pattern[2:]
    wanted = (lambda p: fnmatch.fnmatch(p.name, file_pattern)) if file_pattern else \
        (lambda p: p.suffix.lower() in TEXT_EXTS or p.name in ("Makefile", "Dockerfile", "README"))
    candidates = [target] if target.is_file() else \
        [p for p in iter_files([target], 32, ctx, limit=50_000) if wanted(p)]
    for rx in regexes:
        hits = grep_files(ctx, candidates, rx, context)
        if hits:
            break
    result = {"status": "success", "pattern": pattern, "directory": str(target), "count": len(hits),
              "matches": hits[:50], "truncated": len(hits) > 50,
              **({} if hits else {"message": "No matches. Try a shorter pattern or another folder."})}
    named = [] if hits or target.is_file() else [p for p in candidates if p.name.lower() == pattern.strip().lower()]
    preview = _first_lines(ctx, named[0]) if len(named) == 1 else ""
    if preview:  # "config.ini" searched for inside files: the model wanted that file
        result["message"] = f"No file's text holds {pattern.strip()!r}, but a file has that name: {named[0]}"
        result["first_lines"] = preview
    return result


@tool(gated=True)
def write_file(ctx: ToolContext, file_path: str, content: str, create_dirs: bool = True) -> dict:
    """Create a text file or overwrite one (the old version is backed up first).

    Args:
        file_path: File to write, e.g. "notes/todo.md".
        content: The complete new text of the file.
        create_dirs: Create missing parent folders.
    """
    if not isinstance(content, str):
        return error_payload("content must be text")
    if len(content.encode("utf-8")) > MAX_FILE_BYTES:
        return error_payload("content is larger than 10 MB; write a smaller file")
    path = _checked_file(ctx, file_path, write=True)
    if isinstance(path, dict):
        return path
    if path.is_dir():
        return error_payload(f"{path} is a folder; give a file name")
    if not path.parent.exists():
        if not create_dirs:
            return error_payload(f"folder {path.parent} does not exist; pass create_dirs=true to create it")
        path.parent.mkdir(parents=True, exist_ok=True)
    existed = path.exists()
    try:
        backup = backup_file(ctx, path) if existed else None
        with open(path, "w", encoding="utf-8", newline="") as fh:
            fh.write(content)
    except OSError as exc:
        return error_payload(f"could not write {path}: {exc.strerror or exc}")
    return {"status": "success", "file_path": str(path), "bytes_written": len(content.encode("utf-8")),
            "created": not existed, "backup_path": str(backup) if backup else None}


@tool(gated=True)
def edit_file(ctx: ToolContext, file_path: str, old_content: str, new_content: str) -> dict:
    """Replace the first occurrence of a snippet in a text file; shows the diff.

    Args:
        file_path: File to change.
        old_content: Exact text to replace, copied from read_file.
        new_content: Text to put in its place.
    """
    if not isinstance(old_content, str) or not old_content:
        return error_payload("old_content is empty: copy the exact text to replace from read_file")
    path = _checked_file(ctx, file_path, write=True, repair=True)  # it edits a file that exists: find it
    if isinstance(path, dict):
        return path
    text = _load_text(path)
    if isinstance(text, dict):
        return text
    count = text.count(old_content)
    loose = _spacing_free_match(text, old_content) if count == 0 else None
    if loose is not None:  # "port=8080" for "port = 8080": the same text, spaced differently, found once
        text_before, start, end = text, *loose
        return _write_edit(ctx, path, text_before, text[:start] + new_content + text[end:], 1,
                           note="old_content matched once with different spacing")
    if count == 0:
        first = old_content.strip().splitlines()[0] if old_content.strip() else old_content
        close = difflib.get_close_matches(first.strip(), [ln.strip() for ln in text.splitlines()], n=1, cutoff=0.6)
        near = f" The closest line is {close[0]!r}." if close else ""
        return error_payload(
            f"old_content was not found in {path.name}.{near} Read the file and copy the text exactly, "
            "including spaces and indentation")
    return _write_edit(ctx, path, text, text.replace(old_content, new_content, 1), count)


def _write_edit(ctx: ToolContext, path: Path, text: str, updated: str, count: int, note: str = "") -> dict:
    diff = "".join(difflib.unified_diff(text.splitlines(keepends=True), updated.splitlines(keepends=True),
                                        f"a/{path.name}", f"b/{path.name}"))
    try:
        backup = backup_file(ctx, path)
        with open(path, "w", encoding="utf-8", newline="") as fh:
            fh.write(updated)
    except OSError as exc:
        return error_payload(f"could not write {path}: {exc.strerror or exc}")
    result = {"status": "success", "file_path": str(path), "occurrences": count, "replaced": 1,
              "diff": diff[:5000], "backup_path": str(backup)}
    return {**result, "note": note} if note else result


def _spacing_free_match(text: str, old: str) -> tuple[int, int] | None:
    """Where ``old`` occurs in ``text`` if the spacing between its words and around ``=`` and ``:`` is
    ignored, when it occurs exactly once as whole words; None otherwise (no match, or more than one,
    which would be a guess)."""
    tokens = re.findall(r"[=:]|[^\s=:]+", old.strip())
    if not tokens or len(old.strip()) < 3:
        return None
    pattern = re.escape(tokens[0])
    for before, tok in zip(tokens, tokens[1:]):
        pattern += (r"\s*" if "=" in (before, tok) or ":" in (before, tok) else r"\s+") + re.escape(tok)
    if re.match(r"\w", tokens[0][0]):  # whole words: "port=80" must not match inside "port = 8080"
        pattern = r"(?<!\w)" + pattern
    if re.match(r"\w", tokens[-1][-1]):
        pattern += r"(?!\w)"
    matches = list(re.finditer(pattern, text))
    if len(matches) != 1:
        return None
    return matches[0].start(), matches[0].end()


_SORT_KEYS = {
    "name": lambda e: e["name"].lower(),
    "size": lambda e: -(e.get("size_bytes") or 0),
    "modified": lambda e: e["modified"],
    "type": lambda e: (Path(e["name"]).suffix.lower(), e["name"].lower()),
}


@tool
def browse_directory(ctx: ToolContext, directory_path: Optional[str] = None, show_hidden: bool = False,
                     sort_by: Literal["name", "size", "modified", "type"] = "name") -> dict:
    """List the files and subfolders of a folder (folders first).

    Args:
        directory_path: Folder to list; defaults to the working directory.
        show_hidden: Include names starting with a dot.
        sort_by: One of name, size, modified, type.
    """
    key = _SORT_KEYS.get((sort_by or "name").lower())
    if key is None:
        return error_payload(f"sort_by must be one of {', '.join(_SORT_KEYS)}; got {sort_by!r}")
    folder = _checked_file(ctx, directory_path or str(ctx.workdir))
    if isinstance(folder, dict):
        return folder
    if not folder.is_dir():
        return error_payload(f"{folder} is not an existing folder")
    dirs, files = [], []
    for child in folder.iterdir():
        if child.name.startswith(".") and not show_hidden:
            continue
        try:
            st = child.stat()
        except OSError:
            continue
        entry = {"name": child.name, "type": "folder" if child.is_dir() else "file",
                 "size_bytes": None if child.is_dir() else st.st_size, "modified": iso_time(st.st_mtime)}
        (dirs if child.is_dir() else files).append(entry)
    by_date = (sort_by or "").lower() == "modified"
    dirs.sort(key=key, reverse=by_date)
    files.sort(key=key, reverse=by_date)
    entries = dirs + files
    if not by_date:  # a listing is names and sizes; every date is read and often copied into the answer
        entries = [{k: v for k, v in e.items() if k != "modified"} for e in entries]
    return {"status": "success", "path": str(folder), "folders": len(dirs), "files": len(files),
            "entries": entries[:200], "truncated": len(entries) > 200}


@tool
def get_file_info(ctx: ToolContext, file_path: str) -> dict:
    """Show a file's size, dates and type, with a short preview of text files.

    Args:
        file_path: File or folder to inspect.
    """
    path = _checked_file(ctx, file_path)
    if isinstance(path, dict):
        return path
    if not path.exists():
        return error_payload(f"{path} does not exist; check the name with search_file")
    st = path.stat()
    info = {"status": "success", "path": str(path), "name": path.name,
            "type": "folder" if path.is_dir() else "file", "size_bytes": st.st_size,
            "modified": iso_time(st.st_mtime), "created": iso_time(getattr(st, "st_birthtime", st.st_ctime)),
            "extension": path.suffix.lower(), "mime_type": mimetypes.guess_type(path.name)[0]}
    if path.is_dir():
        children = list(path.iterdir())
        info.update(items=len(children), subfolders=sum(1 for c in children if c.is_dir()))
        return info
    if not_text_hint(path) is None and st.st_size <= MAX_FILE_BYTES:
        with open(path, "rb") as fh:
            head = fh.read(65536)
        if b"\x00" not in head[:8192]:
            lines = head.decode("utf-8", errors="replace").splitlines()
            info["preview"] = "\n".join(ln[:300] for ln in lines[:20])
            if path.suffix.lower() in (".csv", ".tsv"):
                with open(path, "rb") as fh:
                    info["data_rows"] = max(0, sum(1 for _ in fh) - 1)
    return info


@tool
def list_recent_files(ctx: ToolContext, location: str = "all", file_types: Optional[str] = None,
                      max_results: int = 20, days: int = 30) -> dict:
    """List files changed recently in the allowed folders, newest first.

    Args:
        location: "all" for every allowed folder, or one folder path.
        file_types: Comma-separated extensions to keep, e.g. "pdf,docx".
        max_results: How many files to return (1-100).
        days: Only files modified in the last this many days.
    """
    try:
        limit, days = max(1, min(100, int(max_results))), max(1, min(3650, int(days)))
    except (TypeError, ValueError):
        return error_payload("max_results and days must be whole numbers")
    if not location or location.strip().lower() == "all":
        roots = sandbox_roots(ctx)
    else:
        root = _checked_file(ctx, location)
        if isinstance(root, dict):
            return root
        if not root.is_dir():
            return error_payload(f"{root} is not an existing folder; use \"all\" or a folder path")
        roots = [root]
    cutoff, keep = time.time() - days * 86400, ext_filter(file_types)
    recent = []
    for path in iter_files(roots, 12, ctx):
        try:
            st = path.stat()
        except OSError:
            continue
        if st.st_mtime >= cutoff and keep(path):
            recent.append(file_entry(path, st))
    recent.sort(key=lambda e: e["modified"], reverse=True)
    return {"status": "success", "days": days, "count": len(recent), "files": recent[:limit],
            "truncated": len(recent) > limit, "searched": [str(r) for r in roots]}


TOOLS = [search_file, search_directory, read_file, search_file_content, write_file, edit_file,
         browse_directory, get_file_info, list_recent_files]
