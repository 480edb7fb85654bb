"""File tools: find, read, grep, write, edit, browse and inspect files.

Every path a model gives goes through the sandbox (``resolve_user_path``);
searches walk only the sandbox roots (or a checked folder below them), skip
version-control, dependency and cache folders, and never follow symlinks.
"""

from __future__ import annotations

import difflib
import json
import mimetypes
import os
import re
import time
import tomllib
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal, Optional

from gaia_lite.registry.context import ToolContext
from gaia_lite.registry.failure import ToolFailure
from gaia_lite.registry.spec import Redirect, tool

from .backup import backup_file
from .table_facts import SPREADSHEETS, facts_block, table_facts
from .table_read import table_question
from .table_rows import row_misfit, rows_added, rows_to_add
from .file_text import (MAX_FILE_BYTES, TEXT_EXTS, format_note, is_binary, markdown_outline, not_text_hint,
                        open_regular, python_outline, text_head, text_start)
from .list_entry import MAX_ADDED, added_entries, added_entry, list_entries, repeated_lines
from .setting_paths import flat_settings
from .setting_line import (Setting, config_text, key_alone, key_set_to, lines_setting, replaced, restyled, set_line_call,
                           setting_of, under)
from .file_sizes import asks_size, by_size, in_size_order, size_answer, sized_files
from .tree_asked import asks_folders, asks_of_tree, asks_which, name_term, scope_of, size_limit, tree_lead
from .file_count import (COUNT_GLOB, WHOLE_FILE, asks_count, count_asked, count_message, folder_in_request, kind_meant,
                         lines_counted, none_of_kind, split_folder, top_count_message, top_only, tree_tally, types_said)
from .file_walk import (KNOWN_EXTS, ext_filter, file_entry, is_pattern, iso_time, iter_files, kind_exts, minute_time,
                        name_date, not_types, sandbox_roots, type_key, visible_files, walk_folders)
from .find import (DEFAULT_DEPTH, AllWords, Found, Query, clear_winner, find, locate, mentioned_in,
                   missing_file, named_in, not_ruled_out, pointed_by_request, pointed_message, rank, ratio, request_lines,
                   request_words, scan, shown, singled_out, singular, superseded, words, PATH_MENTION, SUPERSEDED_WORDS,
                   asks_old, current_ones, denied_lines)
from .grep import (SHOWN_LINES, Grep, LogLevel, counted, grep, hit_lines, import_regex, log_files, per_file, text_files,
                   whole_word_regex, where)
from .patterns import MAX_PATTERN_CHARS, compile_user_regex, regex_error
from .sandbox import SandboxError, resolve_user_path, resolved_or_none

__all__ = ["TOOLS", "search_file", "search_directory", "read_file", "search_file_content", "write_file",
           "edit_file", "browse_directory", "get_file_info", "list_recent_files", "MAX_FILE_BYTES"]

READ_CHAR_CAP = 50_000
SHOWN = 20          # files or folders a search result lists
NAMED_IN_MESSAGE = 5  # of those, named in its message


def _required(value: object, message: str) -> str:
    """``value`` stripped when it is non-empty text; else a ToolFailure with ``message``."""
    if not isinstance(value, str) or not value.strip():
        raise ToolFailure(message)
    return value.strip()


def _shown(ctx: ToolContext, path: Path | str) -> str:
    return shown(Path(path), ctx.workdir)


def _names(ctx: ToolContext, found: list[Found], *, why: bool) -> str:
    """"a, b, c (+2 more)"; with ``why``, each with the reason it matched."""
    named = [f"{_shown(ctx, f.path)}{'/' if f.is_dir else ''}" + (f" ({f.reason})" if why else "")
             for f in found[:NAMED_IN_MESSAGE]]
    more = f" (+{len(found) - NAMED_IN_MESSAGE} more)" if len(found) > NAMED_IN_MESSAGE else ""
    return ("; " if why else ", ").join(named) + more


def _holds(folder: Path, limit: int = 8, ctx: Optional[ToolContext] = None, largest: bool = False) -> str:
    """"holds a.md, notes/ (+3 more)": what one found folder has in it, for the message; given ``ctx``,
    with its tree's tally when it has subfolders; with ``largest``, its clearly largest file flagged. Asked "how many
    python files in app/ incl subfolders?", the 1.5B found the folder with search_directory and counted the one .py
    file its top level named."""
    try:
        children = sorted(folder.iterdir(), key=lambda c: (not c.is_dir(), c.name.lower()))
    except OSError:
        return ""
    visible = [c for c in children if not c.name.startswith(".")]
    if not visible:
        return "it is empty"
    # asked "which of the band's setlists is the biggest file?", a name search found the setlists folder and gave its
    # four names, no sizes
    big = _clearly_largest([(_size(c), c) for c in visible[:limit] if c.is_file()]) if largest else None
    names = [c.name + ("/" if c.is_dir() else f" ({big[0]:,} B, largest)" if big and c == big[1] else "")
             for c in visible]
    more = f" (+{len(names) - limit} more)" if len(names) > limit else ""
    # each count right before the names it counts, as a listing says it: asked "how many files in the invoices
    # folder?", the 0.5B was given the four names alone and answered with them; given "api/, core/, ui/, main.py
    # (3 folders, 1 file)", the 1.5B said "1 folder is inside src" (probe44)
    n_dirs = sum(n.endswith("/") for n in names)
    shown = names[:limit]
    parts = [_group(n_dirs, "folder", shown[:n_dirs]), _group(len(names) - n_dirs, "file", shown[n_dirs:])]
    # no "(7 in all)": the 1.5B answered "how many python files in app/?" with it, beside "5 .py files"
    tally = tree_tally(ctx, folder, total=False) if ctx is not None and n_dirs else ""
    return "it holds " + " and ".join(p for p in parts if p) + more + (f". {tally.rstrip('.')}" if tally else "")


@tool
def search_file(ctx: ToolContext, file_pattern: str, deep_search: bool = False,
                file_types: Optional[str] = None, search_root: Optional[str] = None) -> dict:
    """Find files by name in the allowed folders (words, glob like *.csv, or regex).

    A glob like *.md counts the matches in every subfolder.

    Args:
        file_pattern: Name, words, glob or regex, e.g. "sales 2025" or "*.csv".
        deep_search: Look in every subfolder level, not just sixteen.
        file_types: Comma-separated extensions to keep, e.g. "csv,xlsx".
        search_root: Folder to search under, subfolders included; default all.
    """
    folder, pattern = split_folder(_required(file_pattern, "file_pattern is empty: give part of the file name, "
                                                            "e.g. 'report'"))
    if (given := _file_given(ctx, file_pattern, search_root)) is not None:
        return given
    folder, pattern, file_types = _what_is_sought(ctx, folder, pattern, file_types)
    counting = COUNT_GLOB.fullmatch(pattern) is not None          # "*.md": how many, and where
    roots = _search_roots(ctx, search_root or folder, counting)
    if counting and asks_size(ctx.request.message) and _types_unasked(ctx, pattern, file_types):
        # "*.txt" of types "text" for "what are the 3 largest files in dl?": the 0.5B named the one .txt (probe46)
        return _largest_instead(ctx, roots, None, SHOWN)
    entries = list(scan(ctx, roots, depth=64 if deep_search or counting else DEFAULT_DEPTH))
    found = rank(pattern, entries, "file", keep=ext_filter(file_types))
    if not found and file_types:  # "employee_handbook.txt", types "txt": the types were a guess too
        found = [replace(f, strict=False, reason=f"{f.reason}, but not of type {file_types}")
                 for f in rank(pattern, entries, "file")]
    strict = [f for f in found if f.strict]
    files = _newest_first_within_ties(strict or found)
    if (pick := singled_out(ctx.request.message, [_shown(ctx, f.path) for f in files[:SHOWN]])) is not None:
        files.insert(0, files.pop(pick))   # "invoice" for "the invoice from the plumber": plumbing_invoice first
    result: dict = {"status": "success", "message": "", "files": [], "count": len(files)}
    base = Path(ctx.workdir).resolve()
    files.sort(key=lambda f: superseded(f.path, base))   # an older copy after the current
    result["files"] = [{**_entry(ctx, f.path), **({} if f.strict else {"why": f.reason})} for f in files[:SHOWN]]
    result.update(truncated=len(files) > SHOWN, searched=[str(r) for r in roots])
    if strict and counting:
        result.update(_counted_files(ctx, sorted(f.path for f in strict), roots, pattern, file_types))
    elif counting and asks_count(ctx):  # a count found nothing: no look-alikes, but what is there, by type
        # no "count: 0" beside it: asked "how many files r in the invoices folder?", the 1.5B counted
        # "invoices/*.pdf", was told the folder holds 4 files and no .pdf, and answered with the 0
        result.pop("count")
        return {**result, "files": [], "message": none_of_kind(ctx, roots, pattern, file_types)}
    elif strict:
        result["message"] = _found_files_message(ctx, pattern, strict)
    elif files:
        result.update(match="close", message=f"No file name holds {_shown(ctx, Path(pattern)).strip()!r} exactly. "
                      "Closest: "
                      + _names(ctx, files, why=True) + _head_of_winner(ctx, files))
    else:
        result.update(_nothing_named(ctx, pattern, entries))
    if not (strict and counting and asks_count(ctx)):  # a count asked for is the answer, ahead of anything
        # the folder's words are no more asked of the files than the pattern's ("report" in "which file in reports
        # is the largest?" led with the lines of q3.txt that say "Q3 report")
        result["message"] = _led_by_the_request(ctx, f"{folder} {pattern}", files, result["message"])
    if 0 < len(files) <= 3:  # found is half the job: the 1.5B model answered "who is the customer?" unread
        result["hint"] = "read_file gives a file's text"
    return result


def _what_is_sought(ctx: ToolContext, folder: str, pattern: str,
                    file_types: Optional[str]) -> tuple[str, str, Optional[str]]:
    """(folder, pattern, file_types) of a name search as the request means them."""
    # "*.csv", types "blue heron": the words are what was asked for; "*.stl", types "stl" is one type said twice
    if not_types(file_types) and COUNT_GLOB.fullmatch(pattern) and not_types(file_types) != pattern[2:].lower():
        pattern, file_types = not_types(file_types), None
    if folder and _no_folder_named(ctx, folder):  # "/pancakes/*.txt": the name sought, of that type
        folder, pattern, file_types = "", Path(folder).name, file_types or pattern.partition("*.")[2] or None
    return folder, *kind_meant(ctx.request.message, pattern, file_types)   # "*.jpg" for "how many photos"


def _entry(ctx: ToolContext, path: Path) -> dict:
    """A found file's entry; its time only when the request asks about times: asked "which file has the deadline
    for this year's seed grant, and what's the date?", the 1.5B gave the files' modified times (probe53)."""
    entry = file_entry(path)
    return entry if _RECENT.search(ctx.request.message) else {k: v for k, v in entry.items() if k != "modified"}


def _file_given(ctx: ToolContext, file_pattern: str, search_root: Optional[str]) -> dict | None:
    """The result for a search given a file itself, as its root or as its pattern; else None."""
    if search_root and (given := _file_at(ctx, search_root)) is not None:   # the file itself as the root: it is found
        return {"status": "success", "message": _one_file_message(ctx, given), "files": [file_entry(given)], "count": 1,
                "truncated": False, "note": "search_root is a file, so it is the file found"}
    if "/" in file_pattern.strip("/") and not is_pattern(file_pattern) and \
            (given := _file_at(ctx, str(Path(search_root or ctx.workdir) / file_pattern.strip()))) is not None:
        # "pets/biscuit/vet-notes.txt" is that file: its name alone matched pets/mochi/'s too (probe50)
        asked = _asked_of_paths(ctx, file_pattern, [given])
        return {"status": "success", "message": (asked + "\n" if asked else "") + _one_file_message(ctx, given),
                "files": [file_entry(given)], "count": 1,
                "truncated": False, "note": "file_pattern is the path of a file here, so it is the file found"}
    return None


def _types_unasked(ctx: ToolContext, pattern: str, file_types: Optional[str]) -> bool:
    """Whether a search was given types (a glob like "*.txt", ``file_types``) the request names none of (nor a kind
    of file they are)."""
    ext = pattern[2:] if pattern.startswith("*.") and pattern != "*.*" else ""
    given = ",".join(t for t in (ext, file_types or "") if t)
    return bool(given) and not types_said(ctx.request.message, given)


def _no_folder_named(ctx: ToolContext, folder: str) -> bool:
    """Is ``folder`` (the folder part of a glob) no folder here, nor like one, but part of a file's name?
    "/pancakes/*.txt" for "wheres my pancake recipe?" counted every .txt file of the working folder, the folder
    part dropped (test split, 0.5B). "~/Documents/*.pdf" names no file: it stays a count."""
    path = resolved_or_none(ctx, folder.strip())
    if path is not None and path.is_dir():
        return False
    name = Path(folder.strip().rstrip("/")).name
    if not name:
        return False
    entries = list(scan(ctx, None))   # one walk for both looks
    return not any(f.strict for f in rank(name, entries, "folder")) \
        and any(f.strict for f in rank(name, entries, "file"))


def _one_holds(ctx: ToolContext, folder: Path) -> str:
    """What the one folder a search found holds, its tree counted and, for a question that is no count, its clearly
    largest file flagged; what the request asks of its files at any depth (tree_lead) said after it."""
    lead = tree_lead(ctx, scope_of(ctx, folder), top=top_only(ctx))
    if lead:   # the answer first, the top level after it: a tree's tally beside it said "8 pic files" to the
        # lead's "6 .jpg files" for ".jpg pics, not .jpeg" (probe50)
        return f"{lead.rstrip('.')} ({_holds(folder)} at its top level)"
    return _holds(folder, ctx=ctx, largest=not asks_count(ctx)) + _ranked(ctx, sized_files(folder))


def _ranked(ctx: ToolContext, sized: list[tuple[int, str]]) -> str:
    """"; by size, largest first: ..." for ``sized`` ((bytes, name)) when the request compares sizes, else ""."""
    ranking = by_size(ctx.request.message, sized)
    return f"; {ranking[:1].lower()}{ranking[1:]}" if ranking else ""


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _counted_files(ctx: ToolContext, paths: list[Path], roots: list[Path], pattern: str,
                   file_types: Optional[str]) -> dict:
    """A count's message and files, the clearly largest flagged on its entry and said in the message: "which file in
    reports is the largest?" got the list alone (probe42), and the 1.5B named another file "2.8 MB" (probe44)."""
    paths, left = _left_out(ctx, paths, roots)
    top = [p for p in paths if p.parent == roots[0]]
    # a top level of none is no answer when the folder was not the request's (the working folder by default)
    if len(roots) == 1 and top_only(ctx) and len(top) < len(paths) and (top or roots[0] != Path(ctx.workdir).resolve()):
        return {"message": top_count_message(ctx, top, paths, roots[0], pattern, file_types)
                + _ranked(ctx, [(_size(p), _shown(ctx, p)) for p in top[:500]]), "count": len(top),
                "files": [_shown(ctx, p) for p in top[:SHOWN]]}
    largest = _clearly_largest([(p.stat().st_size, p) for p in paths[:SHOWN] if p.is_file()])
    biggest = f"; the largest is {_shown(ctx, largest[1])} ({largest[0]:,} B)" if largest else ""
    # "what are the 3 largest files in dl?" counted "/dl/*", and the 0.5B listed all five (probe46)
    biggest = _ranked(ctx, [(_size(p), _shown(ctx, p)) for p in paths[:500]]) or biggest
    return {"message": count_message(ctx, paths, roots, pattern, file_types) + left + biggest,
            "files": [_shown(ctx, p) + (f" ({largest[0]:,} B, largest)" if largest and p == largest[1] else "")
                      for p in paths[:SHOWN]]}


def _left_out(ctx: ToolContext, paths: list[Path], roots: list[Path]) -> tuple[list[Path], str]:
    """``paths`` without those in the subfolders the request leaves out, and what it says of them. Asked "how many stl
    files do i have under printing/models incl the subfolders? dont count whats in the archive folder", the 1.5B
    answered with the 7 the count gave, archive's 2 among them (probe52)."""
    scope = scope_of(ctx, roots[0]) if len(roots) == 1 else None
    if scope is None or not scope.left_out:
        return paths, ""
    kept = [p for p in paths if not any(p.is_relative_to(out) for out in scope.left_out)]
    if len(kept) == len(paths):
        return paths, ""
    base = Path(ctx.workdir).resolve()
    outs = ", ".join(f"{where(out, base)}/" for out in scope.left_out)
    # no count of what was left out: told "2 more there", the 1.5B answered the 7 of both (probe52)
    return kept, f" (not counted, as asked: {outs})"


def _clearly_largest(sized: list[tuple[int, Any]]) -> tuple[int, Any] | None:
    """The (size, item) of ``sized`` at least twice the size of every other; None for fewer than two, or no such. One
    rule for a listing's flag and a glob's."""
    ranked = sorted(sized, key=lambda s: -s[0])
    if len(ranked) < 2 or ranked[0][0] <= 0 or ranked[0][0] < 2 * ranked[1][0]:
        return None
    return ranked[0]


def _search_roots(ctx: ToolContext, given: str, counting: bool) -> list[Path]:
    """The folders a name search walks: the one given, else (a count) the folder the request puts it in
    ("how many .md files under docs"), else the allowed folders."""
    if given and given.strip() not in (".", "./"):  # "." is the model's default, not a choice
        folder = _folder_meant(ctx, given)[0]   # the search says where it looked (searched)
        # the working folder's whole path is the default too: "how many python files in app/?" was counted
        # over the whole working folder, search_root being its path (0.5B)
        if not counting or folder != Path(ctx.workdir).resolve():
            return [folder]
        roots = [folder]
    else:
        roots = sandbox_roots(ctx)
    said = folder_in_request(ctx) if counting else None
    return [said] if said is not None else roots


def _led_by_the_request(ctx: ToolContext, pattern: str, files: list[Found], message: str) -> str:
    """``message`` led by what the request asks of the files found, or by the files its words point to
    when the names found say nothing of it."""
    asked = _asked_of_found(ctx, pattern, files[:SHOWN])
    if asked:  # "find the parking policy and tell me where visitors park": the answer is in the file found
        return asked + "\n" + message
    if files and not _names_hold(ctx, files[:SHOWN], request_words(ctx.request.message)):
        # the model's pattern named files the request says nothing of ("notes" for "handbook says how many
        # sick days?"): the file the request's own words point to comes first
        pointed = _pointed(ctx)
        if pointed and pointed["files"][0]["path"] not in {str(f.path) for f in files}:
            return pointed["message"] + "\n" + message
    return message


def _newest_first_within_ties(found: list[Found]) -> list[Found]:
    """Best first; among equally good matches the newest file first (the latest report is the one meant)."""
    def mtime(f: Found) -> float:
        try:
            return f.path.stat().st_mtime
        except OSError:
            return 0.0
    return sorted(sorted(found, key=mtime, reverse=True), key=lambda f: (not f.strict, -f.score))


FOUND_TABLE_LINES = 6  # a table found alone: its first lines of figures (those the message asks about lead)


def _found_files_message(ctx: ToolContext, pattern: str, strict: list[Found]) -> str:
    """The message for files whose names match: the one file's first lines, or the names."""
    exact = [f for f in strict if f.path.name.lower() == pattern.lower()]
    one = strict[0] if len(strict) == 1 else exact[0] if len(exact) == 1 else None
    if one is None:
        return f"{len(strict)} files match {pattern!r}: " + _names(ctx, strict, why=False)
    return _one_file_message(ctx, one.path)


def _one_file_message(ctx: ToolContext, path: Path) -> str:
    """"Found x. It begins: ..." for one file found; a table's figures for the message instead of its head."""
    glance = _glance(ctx, path)
    return f"Found {_shown(ctx, path)}. {glance}" if glance else f"Found {_shown(ctx, path)}."


def _glance(ctx: ToolContext, path: Path, who: str = "It") -> str:
    """"It begins: ..." with a text's first lines, or a table's figures; "" for a file that is neither."""
    # a table's first rows are no answer: found for "cheapest thing in the garden category in products.csv?",
    # its head was, and the 0.5B answered "G-01,Hose reel,garden,34.99,12"; its figures for the message are
    figures = table_facts(path, ctx.request.message) if ctx.request.message.strip() else None
    if figures:
        whose = "Its" if who == "It" else f"{who}'s"
        return f"{whose} figures, from every row:\n" + "\n".join(figures[:FOUND_TABLE_LINES])
    head = text_head(ctx, path)
    return f"{who} begins:\n{head}" if head else ""


def _only_file(ctx: ToolContext, folder: Path, dirs: list[dict], files: list[dict]) -> str:
    """For a folder that holds one file and nothing else, that file's glance and its lines on the request past
    its first ones. The 0.5B listed such a folder for "what is the deadline ...? its plan is somewhere in this
    folder" and answered "it holds 1 file: plan.md" (test split, 3 runs of 3)."""
    if dirs or len(files) != 1:
        return ""
    path = folder / files[0]["name"]
    if not (glance := _glance(ctx, path, files[0]["name"])):
        return ""
    shown = glance.count("\n")
    later = [f"line {n}: {text}" for n, text in request_lines(ctx, path, limit=REQUEST_LINES_MAX) if n > shown]
    return glance + ("\nIts lines on the request:\n" + "\n".join(later) if later else "")


def _file_named(ctx: ToolContext, folder: Path, files: list[dict]) -> str:
    """For a listing one of whose files the request names by its whole name, that file's format (when its extension
    does not say it) and glance. Asked "What format is the data in gym/backup/settings.dat?", the 1.5B listed
    gym/backup and answered with the two files' sizes (probe50)."""
    low = ctx.request.message.lower()
    named = [f["name"] for f in files if re.search(rf"(?<![\w.-]){re.escape(f['name'].lower())}(?![\w-])", low)]
    if len(named) != 1:
        return ""
    path = folder / named[0]
    head = text_start(ctx, path, 4000) if not_text_hint(path) is None else ""   # a credential file is never read
    written = format_note(path, head) if head else None
    glance = _glance(ctx, path, named[0])
    return (f"{named[0]} is written in {written}. " if written else "") + glance


def _file_at(ctx: ToolContext, raw: str) -> Optional[Path]:
    """The existing file inside the allowed folders that ``raw`` is a path to, or None."""
    path = resolved_or_none(ctx, raw)
    return path if path is not None and path.is_file() else None


def _head_of_winner(ctx: ToolContext, found: list[Found]) -> str:
    best = clear_winner(found)
    head = text_head(ctx, best.path) if best else ""
    return f"\n{_shown(ctx, best.path)} begins:\n{head}" if best and head else ""


def _nothing_named(ctx: ToolContext, pattern: str, entries: list) -> dict:
    """No file's name is close: the message says which folder is named so, or which files' text holds
    the words, and a list holds what it names (an answer built from the result gives those, not
    "I found nothing")."""
    folders = rank(pattern, entries, "folder")
    if folders:
        best = folders[0]
        holds = _holds(best.path, largest=not asks_count(ctx)) + _ranked(ctx, sized_files(best.path))
        message = (f"No file is named like {pattern!r}, but the folder {_shown(ctx, best.path)} matches "
                   f"({best.reason}); {holds}.")
        return {"folders": [_shown(ctx, best.path)], "message": _with_asked(ctx, pattern, _files_in(ctx, best.path), message)}
    mentioned, how = mentioned_in(ctx, pattern)
    if mentioned:  # "which file mentions a blue heron?" asked of the name search
        names = [_shown(ctx, p) for p in mentioned]
        what = f"{how} appear" if how.startswith("most") else f"the text {pattern!r} appears"
        # "how many python files in src use requests?": the 0.5B answered with this line, so it says how many
        many = f"at least {len(names)}" if len(names) >= 10 else str(len(names))
        return {"mentioned_in": names,
                "message": f"No file is named like that, but {what} in {many} file{'s' if len(names) > 1 else ''}: "
                           + ", ".join(names)
                           + (f" ({how})" if how == "all of its words" else "")}
    pointed = _pointed(ctx)
    if pointed:  # the model's pattern was a guess ("*.csv", a made-up path): the user's own words decide
        return pointed | {"message": pointed["message"] + f" (no file name or text matched {pattern!r})"}
    some = _folders_with_some_words(ctx, pattern, entries)
    if some:   # "uke_chord_sheets.*" for "cant remember where i put my uke chord sheets" (probe_files, 0.5B)
        return {"message": f"No file name or text matched {pattern!r}. Folders named with some of its words: "
                           f"{', '.join(some)}."}
    return {"message": f"No file name or text matched {pattern!r}. Try fewer words, a glob such as *sales*, "
                       "deep_search=true, or ask for --allowed-paths to widen the search."}


def _pointed(ctx: ToolContext) -> dict:
    """The files the words of the user's request point to, with their matching lines, as a search
    result's fields ({} when none): what a search whose argument found nothing falls back on."""
    found = pointed_by_request(ctx)
    if not found:
        return {}
    whole = _whole_if_short(ctx, found[0].path)
    entries = list_entries(next(iter(whole.values()))) if whole else None
    # the list counted first: shown the garden to-do list whole after "no line holds 'TODO'", the 1.5B answered that
    # nothing was unchecked (probe50)
    listed = f"List entries in {_shown(ctx, found[0].path)}: {entries}.\n" if entries else ""
    return {"match": "request", "files": [{**file_entry(p.path), "why": p.reason} for p in found],
            "count": len(found), "message": listed + pointed_message(ctx, found), **whole}


SHORT_TEXT = 1500  # characters: a file this short is shown whole where a search points to it


def _whole_if_short(ctx: ToolContext, path: Path) -> dict[str, str]:
    """{"hosts.txt": <its text>} when ``path`` is a text file of at most SHORT_TEXT characters, else {}.
    "hosts.txt - what's the db server's IP?" went to search_file_content("db server's IP"): no line holds
    those words, the result pointed to hosts.txt by name, and the 1.5B answered that the file does not give
    the IP. Its three lines held it."""
    try:
        if path.stat().st_size > SHORT_TEXT:
            return {}
    except OSError:
        return {}
    text = text_head(ctx, path, lines=60, chars=SHORT_TEXT)
    return {_shown(ctx, path): text + "\n"} if text else {}


def _names_hold(ctx: ToolContext, found: list[Found], asked: list[str]) -> bool:
    """Whether a found file's path (below the working folder) holds a word of the request, or the request
    has none."""
    return not asked or any(set(asked) & set(words(_shown(ctx, f.path))) for f in found)


def _asked_of_found(ctx: ToolContext, pattern: str, found: list[Found]) -> str:
    """The lines of the found files that hold what the request asks beyond the name searched for, as the
    first line of the message ("" when it asks nothing more, or no file holds it): a found file is half
    the answer, and the model stopped there ("the policy is at facilities/parking-policy.md")."""
    from .table_brief import QUERIED_SUFFIXES

    # a table's lines are raw rows; its figures (_found_files_message) say what the request asks of it
    return _asked_of_paths(ctx, pattern, [f.path for f in found
                                          if not f.is_dir and f.path.suffix.lower() not in QUERIED_SUFFIXES])


def _asked_of_paths(ctx: ToolContext, pattern: str, paths: list[Path]) -> str:
    if not paths or not request_words(ctx.request.message):
        return ""
    hits = [(p, lines) for p in paths if (lines := request_lines(ctx, p, beyond=pattern))]
    if not hits:
        return ""
    if (pick := singled_out(ctx.request.message, [_shown(ctx, p) for p, _ in hits])) is not None:
        hits = [hits[pick]]   # "biscuits next vet appt": pets/biscuit/vet-notes.txt's lines, not pets/mochi/'s too
    # the files whose lines hold the most of the request's words, not the most lines: three lines of a gear list
    # that said "water" and "day" hid the guide's "leave the hut at 7:00" and its last refill (probe55)
    asked = set(request_words(ctx.request.message))
    hits.sort(key=lambda h: denied_lines(h[1], sorted(asked)))   # "no tahini needed" after "3 tbsp tahini" (probe56)
    held = [len(asked & {w for _, t in lines for w in words(t)}) for _, lines in hits]
    said = [f"{_shown(ctx, p)}: " + "; ".join(f"line {n}: {t}" for n, t in lines)
            for (p, lines), h in zip(hits, held) if h == max(held)][:3]
    return "For the request: " + " | ".join(said)


def _with_asked(ctx: ToolContext, name: str, paths: list[Path], message: str) -> str:
    """``message`` led by the lines of ``paths`` that hold what the request asks beyond ``name``: the
    1.5B found "pancakes_recipe.txt" or the "website-redesign" folder with search_directory and answered
    "how many eggs?" or "what is the deadline?" from the name alone."""
    asked = _asked_of_paths(ctx, name, paths)
    return f"{asked}\n{message}" if asked else message


def _files_in(ctx: ToolContext, folder: Path, limit: int = 30) -> list[Path]:
    """The first files of ``folder`` (by name; hidden ones left out), then those of its subfolders: the HACK
    comments asked of "the site folder" were in site/js/, below a listing of site/ (probe55)."""
    found = visible_files(folder)[:limit]
    for here, _dirs, names in walk_folders(folder, 4, ctx):
        if len(found) >= limit:
            break
        if here != folder:
            found += [here / n for n in sorted(names) if not n.startswith(".")][:limit - len(found)]
    return found


@tool
def search_directory(ctx: ToolContext, directory_name: str, search_root: Optional[str] = None,
                     max_depth: int = DEFAULT_DEPTH) -> dict:
    """Find folders by name (case-insensitive substring) in the allowed folders.

    Args:
        directory_name: The folder's name or words from it, e.g. "invoices".
        search_root: Folder to search under; defaults to the allowed folders.
        max_depth: How many levels deep to look (1-64).
    """
    name = _required(directory_name, "directory_name is empty: give part of the folder name")
    roots = [_checked_file(ctx, search_root)] if search_root else sandbox_roots(ctx)
    try:
        depth = max(1, min(64, int(max_depth)))
    except (TypeError, ValueError):
        raise ToolFailure(f"max_depth must be a whole number, got {max_depth!r}") from None
    missing = [r for r in roots if not r.is_dir()]
    if missing:
        raise ToolFailure(f"search_root {missing[0]} is not an existing folder")
    given = _folder_given(ctx, name)
    if given is not None and given not in roots:  # a whole path to a folder that exists: that is the answer
        return {"status": "success", "message": f"{_shown(ctx, given)} is a folder: {_holds(given, ctx=ctx)}.",
                "directories": [str(given)], "count": 1, "truncated": False}
    if given is not None:  # the search root itself as the name: the folder the user's message names
        return _folders_the_request_names(ctx, roots, name)
    entries = list(scan(ctx, roots, depth))
    result = _folders_found(ctx, name, entries)
    if result["count"] == 0 and depth < DEFAULT_DEPTH:  # max_depth is a hint: a guess too shallow finds nothing
        result = _folders_found(ctx, name, list(scan(ctx, roots, DEFAULT_DEPTH)))
        if result["count"] or result.get("files"):
            result["note"] = f"nothing within max_depth {depth}; found deeper"
    return result


def _folder_given(ctx: ToolContext, name: str) -> Path | None:
    """The existing folder ``name`` is a path to ("." or a whole path), or None: it is a name."""
    if not (name in (".", "./", "~") or "/" in name or "\\" in name):
        return None
    path = resolved_or_none(ctx, name)
    return path if path is not None and path.is_dir() else None


def _folders_found(ctx: ToolContext, name: str, entries: list) -> dict:
    """The search_directory result for ``name`` among ``entries``: folders named so (or close), else files."""
    found = rank(name, entries, "folder")
    strict = [f for f in found if f.strict]
    folders, lead = _request_first(ctx, strict or found)
    result = {"status": "success", "message": "", "directories": [str(f.path) for f in folders[:SHOWN]],
              "count": len(folders), "truncated": len(folders) > SHOWN}
    if folders:
        one = lead or (clear_winner(folders) if not strict else (strict[0] if len(strict) == 1 else None))
        exact = [f for f in strict if words(f.path.name) == words(name)]
        if strict and len(folders) == 1:
            # "Folders named like 'src': src/. src: it holds api/, core/, ui/ ..." was answered "1 folder is inside
            # src" by the 1.5B (probe44): the one folder found leads, with what it holds
            result["message"] = f"{_shown(ctx, one.path)}/ is the folder named like {name!r}; {_one_holds(ctx, one.path)}."
        elif len(exact) == 1 and not lead:
            # "vacation" found vacation/ and vacation_old/, and the 1.5B counted neither's photos (probe50): the
            # folder of that very name leads, the others named after it
            one = exact[0]
            others = _names(ctx, [f for f in folders if f is not one], why=False)
            result["message"] = (f"{_shown(ctx, one.path)}/ is the folder named {name!r}; {_one_holds(ctx, one.path)}. "
                                 f"Also named like it: {others}.")
        else:
            result["message"] = (f"Folders named like {name!r}: " if strict else
                                 f"No folder name holds {name!r} exactly. Closest: ") + _names(ctx, folders, why=not strict)
            result["message"] += f". {_shown(ctx, one.path)}: {_one_holds(ctx, one.path)}." if one else ""
        # the lines asked for, from the one folder found, however close: "v2 project" found only mobile-app-v2
        # (2 of 3 name words), and the 1.5B answered "who owns it?" with its path (test split)
        alone = one or (folders[0] if len(folders) == 1 else None)
        if not (one and asks_of_tree(ctx.request.message)):   # the tree's answer said, no line of a file beside it
            result["message"] = _with_asked(ctx, name, _files_in(ctx, alone.path) if alone else [], result["message"])
        return result if strict else {**result, "match": "close"}
    files = rank(name, entries, "file")  # a file name asked of the folder search
    if files:
        message = f"No folder is named like {name!r}, but files are: " + _names(ctx, files, why=True)
        return {**result, "files": [_shown(ctx, f.path) for f in files[:NAMED_IN_MESSAGE]],
                "message": _with_asked(ctx, name, [f.path for f in files[:SHOWN]], message)}
    pointed = _pointed(ctx)
    if pointed:
        return {**result, **pointed, "count": 0,
                "message": pointed["message"] + f" (no folder or file is named like {name!r})"}
    some = _folders_with_some_words(ctx, name, entries)
    return {**result, "message": f"No folder or file is named like {name!r}." + (
        f" Folders named with some of its words: {', '.join(some)}." if some else "")}


def _request_first(ctx: ToolContext, folders: list[Found]) -> tuple[list[Found], Found | None]:
    """``folders`` (best first) with those matched alike ordered by how many of the request's own words their paths
    hold, and the first when it holds more than any other matched alike. For "where did I save the wiring diagram
    for the shed lights?", a search for "wiring diagrams" found projects/garage/electrical/diagrams and
    projects/shed/electrical/diagrams alike, and the 1.5B answered with both."""
    asked = set(request_words(ctx.request.message))
    if len(folders) < 2 or not asked:
        return folders, None
    held = {f.path: len(asked & set(words(_shown(ctx, f.path)))) for f in folders}
    ordered = sorted(folders, key=lambda f: (-f.score, -held[f.path]))   # stable: rank's order among equals
    first, second = ordered[0], ordered[1]
    return ordered, first if first.score == second.score and held[first.path] > held[second.path] else None


def _folders_with_some_words(ctx: ToolContext, name: str, entries: list, limit: int = 6) -> list[str]:
    """"music/ukulele/chords (chord)": the folders whose names hold a word of ``name``, most words first, when there
    are at most ``limit`` such; [] otherwise. Asked to find "my uke chord sheets", the 1.5B searched for a folder
    "uke chord sheets" and was told none is named so, next to music/ukulele/chords: a model that reads "uke" as
    ukulele needs the candidates to pick from."""
    asked = set(words(name))
    held = [(sorted(asked & set(words(e.path.name))), e.path) for e in entries if e.is_dir]
    held = sorted(((w, p) for w, p in held if w), key=lambda h: (-len(h[0]), str(h[1])))
    if not held or len(held) > limit:
        return []
    return [f"{_shown(ctx, p)} ({', '.join(w)})" for w, p in held]


def _folders_the_request_names(ctx: ToolContext, roots: list[Path], name: str) -> dict:
    """search_directory given the folder it searches as the name (the model copied the working folder):
    the folders whose names the user's message holds, else what the folder holds."""
    if counted := count_asked(ctx):   # "how many folders are there under projects, at any depth?" (0.5B, probe46)
        return {"status": "success", "message": counted, "directories": [str(r) for r in roots], "count": len(roots),
                "truncated": False}
    found = [f for f in named_in(ctx, ctx.request.message, kind="folder", limit=SHOWN)
             if any(r == f.path or r in f.path.parents for r in roots)]
    if not found:
        home = Path(ctx.workdir).resolve()
        held = "; ".join(f"{'the working folder' if r == home else _shown(ctx, r)}: {_holds(r)}" for r in roots)
        named = "the working folder" if resolved_or_none(ctx, name) == home else _shown(ctx, name)
        return {"status": "success", "directories": [str(r) for r in roots], "count": len(roots), "truncated": False,
                "message": f"{named} is the folder searched, not a name to look for; {held}."}
    one = found[0] if len(found) == 1 or found[0].score > found[1].score else None
    message = "Folders the request names: " + _names(ctx, found, why=True)
    message += f". {_shown(ctx, one.path)}: {_one_holds(ctx, one.path)}." if one else ""
    return {"status": "success", "message": message,
            "directories": [str(f.path) for f in found], "count": len(found), "truncated": False}


def _checked_file(ctx: ToolContext, file_path: str, *, write: bool = False, repair: bool | None = None) -> Path:
    """The resolved, sandbox-checked path; a ToolFailure saying why when it is refused."""
    try:
        return resolve_user_path(ctx, file_path, write=write, repair=repair)
    except SandboxError as exc:
        raise ToolFailure(str(exc)) from None


def _load_text(path: Path) -> str:
    """The file as text; a ToolFailure when it is missing, a folder, too big or not text."""
    if not path.exists():
        raise ToolFailure(f"{path} does not exist; check the name with search_file")
    if path.is_dir():
        raise ToolFailure(f"{path} is a folder; use browse_directory to list it")
    hint = not_text_hint(path)
    if hint:
        raise ToolFailure(hint)
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise ToolFailure(f"{path} is {size / 1e6:.1f} MB; the limit is 10 MB. Use search_file_content to grep it")
    try:
        with open_regular(path) as fh:
            data = fh.read()
    except OSError as exc:
        raise ToolFailure(f"cannot read {path}: {exc.strerror or exc}; only regular text files can be read") from None
    if is_binary(data):
        raise ToolFailure(f"{path} is a binary file, not text")
    return data.decode("utf-8", errors="replace")


@tool
def read_file(ctx: ToolContext, file_path: str) -> dict:
    """Read a text or code file (shows Python symbols and Markdown headings too).

    Args:
        file_path: Path of the file, e.g. "notes/plan.md".
    """
    target = _read_target(ctx, file_path)
    if isinstance(target, dict):
        return target
    path, note = target
    ext = path.suffix.lower()
    # a table's figures are computed, never left to the model's arithmetic: its columns, totals, means
    # and the rows with the highest and lowest values come before its text (table_facts)
    figures = facts_block(path, table_question(ctx.request.message, ctx.request.asked_before))
    spreadsheet = figures is not None and ext in SPREADSHEETS   # no text to show: its figures are what is read
    text = "" if spreadsheet else _load_text(path)
    lines = text.count("\n") + (1 if text and not text.endswith("\n") else 0)
    # The text is what was asked for, and the model answers from what it read last: the short facts go
    # first and the text closes the result. The 0.5B answered a read with the line that followed the
    # text ("size_bytes: 158", "file_path: ...") and with any note about a guessed name, wherever it stood
    # ("meeting_notes.txt does not exist; this is ..."), so a guessed name's note is left out: file_path
    # says which file was read.
    result: dict = {"status": "success", "file_path": str(path)}
    if "outside the allowed folders" in note:  # that the path itself was not read must be said
        result["note"] = "the path given is outside the allowed folders and was not read; this file inside them has its name"
    # the size stays among the short facts: "and how big is it?" follows a read, answered from this result
    result["size_bytes"], result["lines"] = path.stat().st_size, lines
    if written := format_note(path, text):
        result["format"] = written
    if entries := list_entries(text):
        result["list_entries"] = entries
    if spreadsheet:
        del result["lines"]
        return {**result, "figures": figures}
    if ext == ".py":
        result["analysis"] = python_outline(text)
    elif ext in (".md", ".markdown") and lines > OUTLINE_FROM_LINES:  # a short file's headings are its text
        result["analysis"] = markdown_outline(text)
    elif figures is not None:
        result["figures"] = figures
    elif ext in (".csv", ".tsv"):
        result["analysis"] = {"data_rows": max(0, lines - 1),
                              "hint": "for totals, averages or rankings use analyze_data_file"}
    if len(text) > READ_CHAR_CAP:
        result.update(truncated=True,
                      hint=f"only the first {READ_CHAR_CAP} characters are shown; grep with search_file_content")
    asked = _lines_asked(ctx, path, file_path, text, lines)
    if ext == ".json" and figures is not None:
        # a JSON table's lines are no records: "7 of the 21 lines hold 'woodworking'" beside "Woodworking: 6 of 16
        # rows" counted a title of another folder's bookmark (probe54)
        asked.pop("counted", None)
    result = _whole_count_first(path, result, asked)
    result["content"] = text[:READ_CHAR_CAP]
    return {**result, **asked}


COMPARED_TEXT = 4000   # characters of each file compared, at most: two or three fit a small model's context
_COMPARES = re.compile(r"\b(?:compare|comparison|both|the two|versus|vs\.?|difference between|cheaper|pricier|"
                       r"more expensive|longer|shorter|bigger|smaller|higher|lower|better|worse)\b", re.IGNORECASE)


def compared_files(ctx: ToolContext, raw: str, failure: ToolFailure) -> dict | None:
    """For a path that does not exist, when the request compares things and two or three short text files are named
    like it: each file's whole text, in place of the failure. "Compare the two roofing quotes" went to
    "roofing_quotes.csv", beside home/roof/quote-apex.txt and quote-northline.txt; the 0.5B then read one of them
    and answered from it (probe50)."""
    candidates = [Path(c) for c in failure.details.get("candidates", [])]
    if not _COMPARES.search(ctx.request.message) or not 2 <= len(candidates) <= 3:
        return None
    texts = {}
    for path in candidates:
        if path.suffix.lower() not in TEXT_EXTS or not path.is_file() or path.stat().st_size > COMPARED_TEXT:
            return None
        if not (text := text_start(ctx, path, COMPARED_TEXT)):
            return None
        texts[_shown(ctx, path)] = text
    return {"status": "success", "message": f"{Path(raw.strip()).name} does not exist; the request compares, and "
            f"{len(texts)} "
            "files are named like it, so here is each whole: " + ", ".join(texts), **texts}


def _read_target(ctx: ToolContext, file_path: str) -> tuple[Path, str] | dict:
    """(the file read_file reads, a note), or the result that stands in for a read: a folder's listing, the files a
    comparison asks for."""
    folder = _folder_at(ctx, _required(file_path, "file_path is empty: give the file's path"))
    if folder is not None:   # a folder read is its listing: "read_file wiki" for "how many .md files in wiki?" (0.5B)
        listing = browse_directory(ctx, str(folder))
        return {**listing, "note": f"{_shown(ctx, folder)} is a folder, so this is its listing (browse_directory)"}
    try:
        path, note = locate(ctx, file_path, pointed=True)
        return _current_instead(ctx, path) or (path, note)
    except ToolFailure as failure:
        if (each := compared_files(ctx, file_path, failure)) is not None:
            return each
        if (named := _folder_named_so(ctx, file_path)) is None:
            raise
        if (path := _current_file_in(ctx, named)) is None:
            listing = browse_directory(ctx, str(named))
            return {**listing, "note": f"{file_path.strip()} does not exist; {_shown(ctx, named)} is the folder named "
                                       "like it, so this is its listing (browse_directory)"}
        return path, f"{file_path.strip()} does not exist; this is the one current file in {_shown(ctx, named)}"


def _current_instead(ctx: ToolContext, path: Path) -> tuple[Path, str] | None:
    """(the current file, a note) for a read of an older copy ("backup/", "_old", ".bak") that the request does not
    ask for, when one current file of its kind holds its name's words and the request singles it out or it is the
    only one; else None. Asked the frontend package's version, the 1.5B read webshop/backup/frontend_package.json
    and answered 2.3.0, the current packages/frontend/package.json saying 2.4.1 (probe52)."""
    base = Path(ctx.workdir).resolve()
    if not superseded(path, base) or asks_old(ctx.request.message):
        return None
    # "onboarding_guide_v3.md" needs "onboarding" and "guide", not its version's "v" (probe53); settings.ini.orig
    # is an .ini file (probe54)
    real = Path(path.stem) if path.suffix.lower() in (".bak", ".orig", ".old") else path
    need = {w for w in words(real.stem) if w not in SUPERSEDED_WORDS and not w.isdigit() and len(w) > 1}
    alike = [e.path for e in scan(ctx, [base]) if not e.is_dir and e.path.suffix == real.suffix and e.path != path
             and not superseded(e.path, base) and need <= set(words(_shown(ctx, e.path)))]
    if not alike or len(alike) > 5:
        return None
    pick = singled_out(ctx.request.message, [_shown(ctx, p) for p in alike]) if len(alike) > 1 else 0
    if pick is None:
        return None
    return alike[pick], (f"{_shown(ctx, path)} is an older copy, so this is {_shown(ctx, alike[pick])}, the current "
                         "one; name the older copy to read it")


def _current_file_in(ctx: ToolContext, folder: Path) -> Path | None:
    """The one text file of ``folder`` that is no older copy of another, or None. "spectrometer_config.txt" for a
    folder spectrometer/config holding settings.ini and settings.ini.bak got the listing, and the 1.5B answered that
    the firmware version was not given (probe50)."""
    try:
        files = [c for c in folder.iterdir() if c.is_file() and not c.name.startswith(".")]
    except OSError:
        return None
    current = [f for f in files if not superseded(f, folder) and f.suffix.lower() in TEXT_EXTS]
    return ctx.sandbox.check(current[0]) if len(current) == 1 and len(files) <= 4 else None


def _whole_count_first(path: Path, result: dict, asked: dict) -> dict:
    """``result`` led by a count of the whole file's lines or words (taken out of ``asked``), when there is one: it is
    the answer. After a one-sentence essay, both models gave the sentence for "how many words are in essay.txt?", and
    the 1.5B did with the count in a key before the text (probe46)."""
    whole = [c for c in asked.get("counted", []) if c.startswith(WHOLE_FILE)]
    if not whole:
        return result
    asked.pop("counted")
    return {"status": "success", "message": f"{path.name} has {whole[0][len(WHOLE_FILE):].strip()}.",
            **{k: v for k, v in result.items() if k != "status"}}


def _lines_asked(ctx: ToolContext, path: Path, file_path: str, text: str, lines: int) -> dict:
    """What closes a read, after the text, where the 0.5B reads its answer: for "how many" its words' lines counted,
    and in a longer text the lines that hold the request's words."""
    out: dict = {}
    if counted := lines_counted(ctx.request.message, text, f"{file_path} {path.name}"):
        out["counted"] = counted
    rows = text.splitlines()
    if (n := line_number_asked(ctx.request.message)) and n <= len(rows):
        # "whats on line 3 of poem.txt": the 1.5B answered "The poem has 4 lines." (probe46)
        out["line_asked"] = f"line {n}: {rows[n - 1]}"
    # "whats the booking ref for my lisbon hotel?": the 0.5B described the 5-line hotel.txt instead (probe56)
    asked_of = lines > REQUEST_LINES_FROM or (lines > REQUEST_LINES_ASKED_FROM and _ASKS.search(ctx.request.message))
    # a count asked is answered by it: after "7 of the 11 list entries are ticked", the "## Finished" heading closed
    # the read, and the 0.5B listed six titles for "how many books have I finished" (probe56)
    asked_of = asked_of and "counted" not in out
    if asked_of and (found := request_lines(ctx, path, beyond=file_path, limit=REQUEST_LINES_MAX)):
        out["lines_matching_request"] = [f"line {n}: {_with_its_end(rows, n, line)}" for n, line in found]
    if said := _settings_asked(ctx, path, text):
        out["settings_matching_request"] = said
    return out


def _settings_asked(ctx: ToolContext, path: Path, text: str) -> list[str]:
    """The values of a settings file under the whole path of their keys (setting_paths.flat_settings) that hold the
    most of the request's words, best first, at most 5. Read schedules.yaml whole, the 1.5B gave the living room's
    and the weekend's times for "What time does the bedroom heating come on during weekdays?" (probe52)."""
    flat = flat_settings(path.name, text)
    asked = set(request_words(ctx.request.message))
    if not flat or not asked:
        return []
    scored = [(len(asked & set(words(line.split(":")[0]))), line) for line in flat.splitlines()]
    best = max((s for s, _ in scored), default=0)
    return [line for s, line in scored if s == best][:5] if best >= 2 else []


_LINE_NUMBER = re.compile(r"\bline\s*(?:no\.?|number|#)?\s*(\d{1,6})\b|\b(\d{1,6})(?:st|nd|rd|th)\s+line\b|"
                          r"\b(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth)\s+line\b", re.IGNORECASE)
_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")


def line_number_asked(message: str) -> int | None:
    """The line number ``message`` asks for ("line 3", "the 3rd line", "the third line"), or None."""
    m = _LINE_NUMBER.search(message or "")
    if m is None:
        return None
    digits = m.group(1) or m.group(2)
    number = int(digits) if digits else _ORDINALS.index(m.group(3).lower()) + 1
    return number if number > 0 else None


OUTLINE_FROM_LINES = 60
# A longer text's lines that hold the words of the request close the result (read last, nearest the
# answer): the 0.5B answered "What was Acme's revenue in Q3?" after reading the 35-line report with a
# list of its headings, and "sick days, PTO carry-over, furniture allowance" after the 46-line handbook
# with "the handbook covers working hours, PTO days, ...". An 8-line note too: asked "whats our guest wifi called
# again?", the 0.5B gave wifi_notes.txt's first line (probe54).
REQUEST_LINES_FROM = 6
REQUEST_LINES_ASKED_FROM = 3  # a shorter text's, when the request asks something of it
REQUEST_LINES_MAX = 5
RUN_ON_CHARS = 600  # a matching line with the line its sentence runs on into, at most


_LABELLED = re.compile(r"[A-Za-z][\w ./()-]{0,30}\s*[:=]\s|\[")


# a question asked of a text, not a request to show it ("read me soup.md", "open hotel.txt")
_ASKS = re.compile(r"\?|^\s*(?:what|whats|what's|which|when|where|who|how|is|are|does|do|did)\b", re.IGNORECASE)


def _with_its_end(rows: list[str], number: int, line: str) -> str:
    """``line`` (line ``number`` of the text split into ``rows``, whitespace folded) with the next line when the
    sentence runs on into it: "Home-office furniture can be" is no answer without "expensed up to EUR 600."."""
    if line.rstrip().endswith((".", "!", "?", ":", "|")) or number >= len(rows):
        return line
    nxt = rows[number].strip()
    # a line of its own label ("IoT devices:   Larkspur-IoT" after "Guest network: ...") starts another item
    if not nxt or nxt.startswith(("#", "|", "- ", "* ")) or _LABELLED.match(nxt) or _same_start(line, nxt):
        return line
    return f"{line} {' '.join(nxt.split())}"[:RUN_ON_CHARS]


def _same_start(line: str, nxt: str) -> bool:
    """Whether ``nxt`` starts as ``line`` does: a record of its own. Each line of a log starts with its time, and
    "06:14 WARN PUMP STALL on line 2, retrying" ran on into "06:15 INFO pump line 2 running": the 1.5B gave 06:15
    as a stall (probe56)."""
    first, then = line.split(maxsplit=1)[:1], nxt.split(maxsplit=1)[:1]
    if not first or not then:
        return False
    return (first[0][0].isdigit() and then[0][0].isdigit()) or first[0].lower() == then[0].lower()


@tool
def search_file_content(ctx: ToolContext, pattern: str, directory: str = ".", file_pattern: Optional[str] = None,
                        case_sensitive: bool = False, context_lines: int = 0, regex: bool = False) -> dict:
    """Search in files (grep): which file or note mentions, contains or says X; find TODO comments.

    Searches every subfolder.

    Args:
        pattern: Text to find, as written, e.g. "TODO" or "api_key".
        directory: Folder (or one file) to search; default the working folder.
        file_pattern: Glob of file names to search, e.g. "*.py"; default all text.
        case_sensitive: Match upper/lower case exactly.
        context_lines: Lines to show before and after each hit (0-5).
        regex: Read pattern as a regular expression (RE2 syntax).
    """
    if not isinstance(pattern, str) or not pattern.strip():
        raise ToolFailure("pattern is empty: give the text to search for")
    if len(pattern) > MAX_PATTERN_CHARS:
        raise ToolFailure(f"pattern is {len(pattern)} characters; the limit is {MAX_PATTERN_CHARS}")
    if regex and (why := regex_error(pattern)):
        raise ToolFailure(f"pattern {pattern!r} is not a regular expression RE2 can run ({why}); fix it, "
                          "or pass regex=false to search for the text as written")
    if (ext := _EXT_PATTERN.fullmatch(pattern.strip())) and asks_count(ctx):
        # ".*\.py$" searched in the files' text for "how many Python files are under budget_tracker/src": a README
        # line that said "cli.py" was the one hit (probe54); a pattern of a file type asks for files, counted
        root = ext.group("folder") or (directory if directory and directory.strip() not in (".", "./") else None)
        return search_file(ctx, f"*.{ext.group('ext')}", search_root=root)
    target = _checked_file(ctx, directory or ".")
    named: list[Path] = []
    if not target.exists():   # a guessed folder: the one clearly closest, else the files named so, else an error
        target, named = _searched_meant(ctx, directory)
    context = max(0, min(5, int(context_lines or 0)))
    file_pattern, unasked = _filter_asked(ctx, file_pattern)
    files = named or text_files(ctx, target, file_pattern)
    marker = _marker_said(ctx, pattern)
    found, how = _grep(ctx, files, pattern, case_sensitive or marker, regex, context)
    if not found.hits and marker and not case_sensitive:
        found, how = _grep(ctx, files, pattern, False, regex, context)
    if found.hits and how and (instead := _named_instead(ctx, pattern, target)) is not None:   # (none: _no_line_holds)
        return instead
    how = unasked + how if found.hits else how
    if not found.hits and file_pattern and target.is_dir():
        # the model guesses a file filter ("*api-key*", ".*todo.txt" for "which file has a TODO?"): a
        # filter that finds nothing does not end the search; the other text files are searched, and it says so
        found, how = _grep(ctx, text_files(ctx, target), pattern, case_sensitive, regex, context)
        named = Path(file_pattern.strip()).name
        how = f"No file named like {named!r} holds it; other files do. " + how if found.hits else how
    # no "count": 0 beside the files the request points to: shown the garden to-do list after it, the 1.5B answered
    # that nothing on it was unchecked (probe50)
    result = _hits_result(ctx, found, how, "" if regex else pattern) if found.hits else {"status": "success"} | \
        _no_line_holds(ctx, pattern, target, files)
    return _names_first(ctx, target, result)


_FILE_NAME = re.compile(r"(?:[\w.-]+/)*[\w-]+(?:\.[\w-]+)*\.[A-Za-z0-9]{1,5}")   # "games/library.md" too
# "*.py", ".*\.py$", "\.py$", "novel/notes/*.md" (probe54)
_EXT_PATTERN = re.compile(r"(?P<folder>[\w.-]+(?:/[\w.-]+)*/)?(?:\*\*/)?(?:\^?\.\*|\*)?\\?\.(?P<ext>[A-Za-z0-9]{1,5})\$?")


_MARKER = re.compile(r"[A-Z]{3,}")


def _marker_said(ctx: ToolContext, pattern: str) -> bool:
    """Whether ``pattern`` is a marker in capitals that the request writes so ("list the NOTE lines", "any HACK
    comments"): its case is meant. "NOTE" searched in any case found "2. Note that the probe must be rinsed" beside
    the notebook's NOTE lines (probe55)."""
    word = pattern.strip().rstrip(":")
    return _MARKER.fullmatch(word) is not None and re.search(rf"\b{word}\b", ctx.request.message) is not None


def _named_instead(ctx: ToolContext, pattern: str, target: Path) -> dict | None:
    """The files named like ``pattern`` when it is a file's name that no line holds as written, only its words: "Find
    the Python script that resizes images. I think it's called resize.py" was searched in the files' text, and the 0.5B
    answered with an old shell script whose lines held "resize" (probe53). None otherwise."""
    if not _FILE_NAME.fullmatch(pattern.strip()) or Path(pattern.strip()).suffix.lower() not in KNOWN_EXTS:
        return None
    found = rank(pattern.strip(), list(scan(ctx, [target] if target.is_dir() else None)), "file")[:SHOWN]
    if not found:
        return None
    named = ", ".join(_shown(ctx, f.path) + ("" if f.strict else f" ({f.reason})") for f in found[:5])
    # the count asked of the one file named so: "How many games are listed in the board game club's library?" searched
    # "games/library.md" as text, and the 1.5B said none were listed (probe57)
    exact = next((f.path for f in found if f.strict or _shown(ctx, f.path) == pattern.strip()), None)
    entries = list_entries(text_start(ctx, exact, 1_000_000)) if exact is not None and asks_count(ctx) else None
    lead = f"List entries in {_shown(ctx, exact)}: {entries}.\n" if entries else ""
    return {"status": "success", "message": f"{lead}No line holds {pattern.strip()!r}: it is a file's name, and the "
            f"files named like it are: {named}", "files": [_shown(ctx, f.path) for f in found], "count": len(found)}


_CODE_WORD = re.compile(r"(?i)\bcode\b")   # code in no one language: *.py is not all of it


def _filter_asked(ctx: ToolContext, file_pattern: Optional[str]) -> tuple[Optional[str], str]:
    """(the file filter to search with, a note): a "*.txt" the request names no such file for is dropped ("which of
    the meeting notes mentions the new kiln?" searched "*.txt" found the kiln manual, the notes being .md: probe53),
    and so is a code filter where the request asks of the code in no one language."""
    m = re.fullmatch(r"\*\.([A-Za-z0-9]{1,5})", (file_pattern or "").strip())
    message = ctx.request.message
    if m is None or not message.strip() or types_said(_CODE_WORD.sub(" ", message), m.group(1)):
        return file_pattern, ""
    # of the code, in no language named: every code file ("Find every code comment marked HACK in this project"
    # searched "*.py" alone, and the 0.5B missed the one in render.js: probe57); _in_code sets other files apart
    return None, f"(every file searched: the request names no {file_pattern.strip()} file) "


def _names_first(ctx: ToolContext, target: Path, result: dict) -> dict:
    """The result led by the files whose names hold what the request asks names to hold. Asked "find me all files
    with draft in the name in my Writing folder", both models searched the files' text, and answered with the one
    line that said "draft" (probe48)."""
    if not target.is_dir() or name_term(ctx.request.message) is None:
        return result
    lead = tree_lead(ctx, scope_of(ctx, target))
    if not lead or lead.startswith("0 "):
        return result
    # the names alone: given "In the files' text:" after them, the 1.5B put the file whose text said "draft" among
    # the files named so (probe48)
    return {"status": "success", "message": lead, "count": result.get("count", 0), "files": result.get("files", [])}


def _hits_result(ctx: ToolContext, found: Grep, how: str, pattern: str = "") -> dict:
    """The result for lines found: the count and the files first, then the lines as ``path:line: text``."""
    base = Path(ctx.workdir)
    found, prose = _in_code(ctx, found)
    found, lead, named = _by_request(ctx, found, loose="No line holds" in how, pattern=pattern)
    how = lead + how
    # the lines of the file the request names alone: shown episode 12's author first and 11's and 13's after, the
    # 0.5B answered with 11's (probe50); the count still names every file
    lines = hit_lines(replace(found, hits=tuple(h for h in found.hits if h.path == named)) if named else found, base)
    cut = found.stopped or found.count > SHOWN_LINES
    more = f"\n(the first {SHOWN_LINES} lines are shown; narrow the search with directory or file_pattern)" if cut else ""
    files = per_file(found, base)
    # the one file closes the message too: asked "which file talks about the warranty?", both models answered with
    # the last line's text alone, its path dropped (probe45)
    last = f"\n(all in {where(found.hits[0].path, base)})" if len(files) == 1 and not cut else ""
    # asked to list the lines ("List all the TODO comments in src, and say which file each one is in"), the 1.5B
    # answered with the count line's files and numbers, and with "The 3 files: ..." before them: the lines lead,
    # each with its file, and the count closes them (probe55)
    listed = not asks_count(ctx) and _LISTS.search(ctx.request.message) is not None
    # one file singled out for the request answers "which email is it in": "The 4 files: ..." before it was read as
    # the answer, and the 1.5B said the confirmation number was in none (probe55)
    one = how.startswith("For the request:") and not _MANY_FILES.search(ctx.request.message)
    lead = _settings_said(found, base) or ("" if listed or one else _which_files(ctx, found)) \
        or _whole_file_counted(ctx, found)  # a key's values: which files
    body = "\n".join(lines) + "\n" + counted(found, base) if listed else counted(found, base) + "\n" + "\n".join(lines)
    # listed, the lines name their files: the files again after them were answered alone, "The TODO comments are
    # located in the following files: ..." (1.5B, probe55)
    return {"status": "success", "message": lead + how + body + more + last + prose,
            "count": found.count, **({} if listed else {"files": files[:SHOWN]}), "truncated": cut}


def _whole_file_counted(ctx: ToolContext, found: Grep) -> str:
    """The count of the one file's entries, lines or words the request asks for, when every hit is in that file:
    "how many vocab words r in my spanish unit 3 list" found its title line alone with "vocab", and the 1.5B said
    there was one (probe54)."""
    paths = {h.path for h in found.hits}
    if len(paths) != 1 or not asks_count(ctx):
        return ""
    path = paths.pop()
    whole = [c for c in lines_counted(ctx.request.message, text_start(ctx, path, 1_000_000), path.name)
             if c.startswith(WHOLE_FILE)]
    return f"{where(path, Path(ctx.workdir))} has {whole[0][len(WHOLE_FILE):].strip()}.\n" if whole else ""


_MANY_FILES = re.compile(r"\b(?:files|notes|emails|documents|docs|all|every|each)\b", re.IGNORECASE)
_LISTS = re.compile(r"\b(?:list|show|print|what\s+(?:do|does)\s+(?:they|it|each)\s+say|each\s+one|all\s+the)\b",
                    re.IGNORECASE)
_ASKS_CODE = re.compile(r"\b(?:code|comments?|source)\b", re.IGNORECASE)
_CODE_EXTS = frozenset(kind_exts("code")) | {".jsx", ".tsx", ".cs", ".kt", ".swift", ".php", ".hpp", ".cc", ".scala",
                                              ".lua", ".pl", ".r", ".m", ".sql", ".css", ".scss", ".vue", ".dart"}


def _in_code(ctx: ToolContext, found: Grep) -> tuple[Grep, str]:
    """The hits in code files alone, and a line on the others, when the request asks of the code ("the FIXME
    comments in the code") and the lines are in code and in other files; else the hits as found and "". A README's
    "please mark known bugs with FIXME comments" was counted among three FIXME comments, and the 1.5B said 4
    (probe53)."""
    if not _ASKS_CODE.search(ctx.request.message):
        return found, ""
    code = tuple(h for h in found.hits if h.path.suffix.lower() in _CODE_EXTS)
    if not code or len(code) == len(found.hits):
        return found, ""
    base = Path(ctx.workdir)
    other = [h for h in found.hits if h not in code]
    said = "; ".join(f"{where(h.path, base)}:{h.line}: {h.text.strip()}" for h in other[:3])
    return replace(found, hits=code), f"\n(Not code, so not counted: {said})"


def _which_files(ctx: ToolContext, found: Grep) -> str:
    """"The files: a, b, c.\n" for a request that asks which files hold something, when two or more do. Asked
    "which of my meeting notes talk about henderson?", the 1.5B retold the lines and named no file (probe49)."""
    names = list(dict.fromkeys(where(h.path, Path(ctx.workdir)) for h in found.hits))
    if len(names) < 2 or len(names) > SHOWN or not asks_which(ctx.request.message):
        return ""
    return f"The {len(names)} files: {', '.join(names)}.\n"


_ON = frozenset("true on yes 1 enabled enable y".split())
_OFF = frozenset("false off no 0 disabled disable n none null".split())


def _settings_said(found: Grep, base: Path) -> str:
    """"debug is set in 4 places: on in a.ini (on), b.yaml (true); off in c.ini (off), d.yaml (false).\n" when the hits
    set a switch (on/off, true/false, ...) in two files or more (the key most files set); a commented-out line sets
    nothing. Asked which configs have debug turned on, the 1.5B counted every line that said debug, a commented-out
    "; debug = on" among them (probe49)."""
    by_key: dict[str, list[tuple[str, str]]] = {}
    for h in found.hits:
        key = setting_of(h.text)
        if key is not None:
            value = re.split(r"[:=]", h.text, maxsplit=1)[1].split("#")[0].strip().strip("\"',")
            by_key.setdefault(key, []).append((where(h.path, base), value))
    if not by_key:
        return ""
    key, sets = max(by_key.items(), key=lambda kv: len({f for f, _ in kv[1]}))   # the key most files set
    if len({f for f, _ in sets}) < 2:
        return ""
    on = [f"{f} ({v})" for f, v in sets if v.lower() in _ON]
    off = [f"{f} ({v})" for f, v in sets if v.lower() in _OFF]
    other = [f"{f} ({v})" for f, v in sets if v.lower() not in _ON | _OFF]
    if not on and not off:
        return ""   # no switch: "Phone: +1 555 0142" in three notes is said by the lines themselves
    parts = [f"{label} in {', '.join(group)}" for label, group in (("on", on), ("off", off), ("set", other)) if group]
    return f"{key} is set in {len(sets)} places: " + "; ".join(parts) + ".\n"


def _by_request(ctx: ToolContext, found: Grep, loose: bool = False,
                pattern: str = "") -> tuple[Grep, str, Path | None]:
    """The hits with the files that hold the most of the request's words (in their path or their lines) first,
    and, when one file holds more of them than any other, its lines as a lead ("For the request: ...").
    "the initech client - whats their phone number?" searched "(initech|phone)": the three clients' phone
    lines came in folder order, and the 0.5B answered with the count line. Third, the file whose path the request
    names above the others' (singled_out), or None."""
    asked = set(request_words(ctx.request.message))
    if not asked or len({h.path for h in found.hits}) < 2:
        return found, "", None
    base = Path(ctx.workdir)
    held, in_path = _held_words(ctx, found, asked)
    # the file whose path the request names above the others' comes first ("episode 12" for podcast/ep12/)
    pick = singled_out(ctx.request.message, [where(p, base) for p in held])
    named = list(held)[pick] if pick is not None else None
    # a stable sort: ties keep the order found; an older copy after the current file ("backup/server.properties.bak"
    # came first, and the 1.5B gave its port, probe53)
    # a file whose path holds a word the request leaves out, after the others ("not the legacy one": probe54)
    kept = set(not_ruled_out(ctx.request.message, list(held), base, Path))
    # of files that hold as many, the one whose path holds more: "the telemetry package" (probe54)
    score = {p: (len(held[p]), len(in_path[p])) for p in held}
    # a file whose every line found says the pattern is not there ("no tahini needed"), after those that say it is
    denied = {p for p in held if pattern and denied_lines([(h.line, h.text) for h in found.hits if h.path == p],
                                                          [pattern.lower()])}
    order = sorted(held, key=lambda p: (p != named, p not in kept, p in denied, superseded(p, base),
                                        tuple(-n for n in score[p])))
    rank = {p: i for i, p in enumerate(order)}
    hits = tuple(sorted(found.hits, key=lambda h: rank[h.path]))
    best, second = (score[p] for p in order[:2])
    if named is None and order[1] in denied and order[0] not in denied and len(order) - len(denied) == 1:
        best, second = (1, 0), (0, 0)   # the one file that says it: its lines lead
    if best <= second and named is None and (one := _current_alone(ctx, order, held, best[0])) is not None:
        named = order[0] = one   # ("my soil experiment notebook" with its draft beside it: probe55)
        best, second = (1, 0), (0, 0)
    if best <= second and named is None:
        # said where a value is asked, not a count (every rotated log's lines count)
        old = [where(p, base) for p in order if superseded(p, base)] if not asks_count(ctx) else []
        return replace(found, hits=hits), (f"Older copies, after the current: {', '.join(old)}\n" if old and
                                           len(old) < len(order) else ""), None
    own = [(h.line, h.text.strip()) for h in hits if h.path == order[0]][:5]
    # and, when the pattern was not found as written (``loose``), its lines that hold the rest of the request: "min
    # python version the telemetry package needs" found lines with "telemetry", and the one that answers is
    # "requires-python" (probe54). Beside a hit of the whole pattern they are noise: the setlist's title line took
    # the place of "Harbor Lights | F# minor" in the 1.5B's answer
    own += [(n, t) for n, t in request_lines(ctx, order[0]) if loose and n not in {m for m, _ in own}][:5 - len(own)]
    said = "; ".join(f"line {n}: {t}" for n, t in sorted(own))
    return replace(found, hits=hits), f"For the request: {where(order[0], base)}: {said}\n", named


def _held_words(ctx: ToolContext, found: Grep, asked: set[str]) -> tuple[dict[Path, set[str]], dict[Path, set[str]]]:
    """The request's words each file with hits holds (in its path, its hit lines, its other lines), and those in its
    path alone."""
    base = Path(ctx.workdir)
    held: dict[Path, set[str]] = {}
    in_path: dict[Path, set[str]] = {}
    for h in found.hits:
        if h.path not in held:  # the path's words once per file, not once per hit
            in_path[h.path] = asked & set(words(where(h.path, base)))
            held[h.path] = set(in_path[h.path])
        held[h.path] |= asked & set(words(h.text))
    for path in list(held)[:SHOWN]:   # and the rest of the request in its other lines ("requires-python": probe54)
        held[path] |= asked & {w for _, text in request_lines(ctx, path) for w in words(text)}
    return held, in_path


def _current_alone(ctx: ToolContext, order: list[Path], held: dict[Path, set[str]], best: int) -> Path | None:
    """The one current file among the files that hold the most of the request's words, the others older copies of
    it (superseded), when the request lists lines and asks for no count, no files and no older copy: its lines are
    the answer. Listing "the NOTE lines from my soil experiment notebook", the 1.5B gave the draft's too (probe55)."""
    message, base = ctx.request.message, Path(ctx.workdir)
    top = [p for p in order if len(held[p]) == best]
    current = [p for p in top if not superseded(p, base)]
    if len(current) != 1 or len(top) < 2 or not _LISTS.search(message) or asks_count(ctx) \
            or _ASKS_FILES.search(message) or asks_old(message):
        return None
    return current[0]


_ASKS_FILES = re.compile(r"\b(?:which|what)\s+(?:\w+\s+)?(?:files?|notes|docs|documents)\b|\bwhere\b", re.IGNORECASE)


def _no_line_holds(ctx: ToolContext, pattern: str, target: Path, files: list[Path]) -> dict:
    """What a content search that found no line says instead: the file the pattern names, the files the
    request's words point to, or that nothing holds it."""
    named = [] if target.is_file() else [p for p in files if p.name.lower() == pattern.strip().lower()]
    head = text_head(ctx, named[0]) if len(named) == 1 else ""
    if head:  # "config.ini" searched for inside files: the model wanted that file
        return {"message": f"No file's text holds {pattern.strip()!r}, but a file has that name: "
                           f"{_shown(ctx, named[0])}. It begins:\n{head}", "files": [_shown(ctx, named[0])], "count": 0}
    pointed = _pointed(ctx)
    if pointed:  # an over-specific pattern ("//TODO", "api-key="): the request's words
        return {"message": pointed["message"] + f" (no line holds {pattern!r} or its words)",
                **{k: v for k, v in pointed.items() if k not in ("message", "match", "count")}}
    from .memory import facts_told   # kept local, as rag's

    if told := facts_told(ctx, pattern):
        return {"message": f"No line holds {pattern!r} or its words, but you told me: " + "; ".join(told),
                "match": "saved_facts"}
    return {"message": f"No line holds {pattern!r} or its words. Try a shorter pattern or another folder.", "count": 0}


def _grep(ctx: ToolContext, files: list[Path], pattern: str, case_sensitive: bool, regex: bool,
          context: int) -> tuple[Grep, str]:
    """(the lines found, a note on how they matched): the pattern as written (a regular expression only
    with ``regex``); then, found nowhere, as a regular expression when it is written like one ("TODO|FIXME",
    "def \\w+"), and every word of it on one line, in any order: "//TODO" finds "# TODO"."""
    fold = not case_sensitive
    tries = [] if regex else _meant_first(ctx, files, pattern, fold)
    tries.append((compile_user_regex(pattern, ignore_case=fold, literal=not regex), ""))
    if not regex and (is_pattern(pattern, regex_only=True) or ".*" in pattern):
        tries.append((compile_user_regex(pattern, ignore_case=fold),
                      f"No line holds {pattern!r} as text; as a regular expression: "))
    # a dotted part whole before the words: "ip 192.168.1.50" found the line that said "ip" and all four numbers,
    # not the two that held the address alone (probe53)
    tries += [(compile_user_regex(tok, ignore_case=fold, literal=True),
               f"No line holds {pattern!r} as written; lines with {tok!r}: ")
              for tok in re.findall(r"\w+(?:[.:@/]\w+)+", pattern) if tok != pattern.strip() and len(tok) >= 5]
    relaxed = AllWords.of(pattern)
    if relaxed is not None:
        tries.append((relaxed, f"No line holds {pattern!r} as written; lines with its words "
                               f"({', '.join(relaxed.words)}) instead: "))
    if relaxed is not None and len(relaxed.words) > 1:
        # then the files that hold every word, on lines of their own: "wifi password cabin" is the cabin note's, whose
        # "password" line says nothing of a cabin; shown the two notes' password lines, the 1.5B gave the home one's
        # (probe51)
        tries.append((relaxed.any_word(), f"No line holds all of {', '.join(map(repr, relaxed.words))}; the lines "
                                          "with them in the files that hold every one of them: ",
                      lambda: _holding_every_word(ctx, files, relaxed)))
    if relaxed is not None and len(relaxed.words) > 1 and not PATH_MENTION.search(ctx.request.message):
        # then one of its words alone, the longest first: "phone number" finds "Phone: 07700 900873" (the 1.5B,
        # asked for the phone number on a CV, was told no line held it and answered that none did: probe_files).
        # A request that names a file gets that file's lines instead (_no_line_holds)
        # a number first ("order number 58213": a line with "order" was Mrs Hale's order 58123, and the 1.5B named
        # her; probe55), then the longest
        for word in sorted(relaxed.words, key=lambda w: (any(c.isdigit() for c in w), len(w)), reverse=True):
            tries.append((compile_user_regex(word, ignore_case=fold, literal=True),
                          f"No line holds {pattern!r} or all of its words; lines with {word!r} instead: "))
    for rx, how, *among in tries:
        where_ = (among[0]() if callable(among[0]) else among[0]) if among else files
        found = grep(ctx, where_, rx, context) if rx is not None and where_ else Grep()
        if found.hits:
            return found, _absent_words(ctx, files, relaxed, fold) + how if "instead: " in how else how
    return Grep(), ""


def _holding_every_word(ctx: ToolContext, files: list[Path], words_: AllWords) -> list[Path]:
    """The files among ``files`` whose text holds every word of ``words_``, anywhere in it."""
    holding: set[Path] | None = None
    for one in words_.each():
        paths = {h.path for h in grep(ctx, files, one).hits}
        holding = paths if holding is None else holding & paths
        if not holding:
            return []
    return [p for p in files if p in (holding or set())]


def _absent_words(ctx: ToolContext, files: list[Path], relaxed: AllWords | None, fold: bool) -> str:
    """"No line holds 'towing' at all. " for the words of a pattern found nowhere, said before the lines of the words
    that were: told only "lines with 'capacity' instead: Oil capacity ... 4.4 quarts" for "does it say anything about
    towing capacity", the 1.5B answered with the oil capacity (probe50). No more than that: "phone number" is
    answered by "Phone: 07700 900873", with no "number" in it."""
    absent = [w for w in (relaxed.words if relaxed is not None else ())
              if not grep(ctx, files, compile_user_regex(w, ignore_case=fold, literal=True)).hits]
    return f"No line holds {' or '.join(repr(w) for w in absent)} at all. " if absent else ""


def _meant_first(ctx: ToolContext, files: list[Path], pattern: str, fold: bool) -> list[tuple]:
    """The readings of a text pattern tried before the text itself: a log level in the logs ("error": the lines
    at level error), an import in every form ("import requests"), the text as whole words ("TODO", not
    "todoSchema"). Each is tried only where the pattern is written so; the text as written comes after them."""
    tries: list[tuple] = []
    logs = log_files(files)
    if (level := LogLevel.of(pattern)) is not None and logs:
        tries.append((level, f"Lines at level {level.level.upper()} in the logs (a line's own level, not the word "
                             f"anywhere in it): ", logs))
    if (imports := import_regex(pattern)) is not None:
        tries.append((compile_user_regex(imports), f"Lines that import {pattern.split()[-1]!r} (any form): "))
    if (whole := whole_word_regex(pattern)) is not None:
        tries.append((compile_user_regex(whole, ignore_case=fold), ""))
    return tries


@tool(gated=True)
def write_file(ctx: ToolContext, file_path: str, content: str, create_dirs: bool = True) -> dict:
    """Create a text file or overwrite one (the old version is backed up first).

    Only when the user asks for a file; a poem, a summary or an answer is simply replied.

    Args:
        file_path: File to write, e.g. "notes/todo.md".
        content: The complete new text of the file.
        create_dirs: Create missing parent folders.
    """
    if not isinstance(content, str):
        raise ToolFailure("content must be text")
    if len(content.encode("utf-8")) > MAX_FILE_BYTES:
        raise ToolFailure("content is larger than 10 MB; write a smaller file")
    content, lines_note = _lines_asked_for(ctx, content)
    path = _checked_file(ctx, file_path, write=True)
    if path.is_dir():
        raise ToolFailure(f"{path} is a folder; give a file name")
    if not path.parent.exists():
        if not create_dirs:
            raise ToolFailure(f"folder {path.parent} does not exist; pass create_dirs=true to create it")
        path.parent.mkdir(parents=True, exist_ok=True)
    existed = path.exists()
    backup = _write_text(ctx, path, content)
    lines = len(content.splitlines())
    # the path said: "Note saved successfully." named no file (probe53)
    said = f"{'Wrote' if existed else 'Created'} {_shown(ctx, path)} ({lines} line{'' if lines == 1 else 's'})."
    return {"status": "success", "message": said, "file_path": str(path), "bytes_written": len(content.encode("utf-8")),
            "created": not existed, "backup_path": str(backup) if backup else None,
            **({"note": lines_note} if lines_note else {})}


def _new_file_named(ctx: ToolContext, file_path: str = "", **kwargs: Any) -> Redirect | None:
    """write_file's call to the one file the request names by path, when it does not exist yet and the call
    writes a file the request never names (run through its own approval). Asked to "Create a new file
    packing/tromso_list.txt with these four lines", the 0.5B wrote thermal_base_layers_headlamp_ice_cleats_power_bank.txt
    (probe55). A file the request names that exists is never written in place of another: "summarize report.txt into
    a new file" reads it."""
    message = ctx.request.message
    if not isinstance(file_path, str) or not file_path.strip() or Path(file_path.strip()).name.lower() in message.lower():
        return None
    named = {m.group(0).rstrip(".,") for m in PATH_MENTION.finditer(message)}
    named = {n for n in named if Path(n).suffix}
    meant = next(iter(named)) if len(named) == 1 else None
    if meant is None or (path := resolved_or_none(ctx, meant)) is None or path.exists():
        return None
    return Redirect("write_file", {**kwargs, "file_path": meant},
                    f"written to {meant}, the file the request names (the call said {Path(file_path).name})",
                    stands=True)


_LINES_SAID = re.compile(r"\b(?P<n>\d{1,2}|two|three|four|five|six|seven|eight|nine|ten)\s+lines\b|\b(?:separate|own)\s+"
                         r"lines?\b|\bone\s+(?:per|a)\s+line\b|\beach\s+on\s+(?:its|a)\s+(?:own|new)\s+line\b",
                         re.IGNORECASE)
_NUMBER_WORDS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten".split())}


def _lines_asked_for(ctx: ToolContext, content: str) -> tuple[str, str]:
    """(the content, a note): one line of comma-separated items made one item a line, when the request asks for
    lines ("with these four lines: thermal base layers, headlamp, ice cleats, power bank" was written as one line by
    the 0.5B: probe55) and, for a number of lines, the items are that many."""
    m = _LINES_SAID.search(ctx.request.message)
    if m is None or "\n" in content.strip() or "," not in content:
        return content, ""
    items = [i.strip() for i in content.strip().split(",") if i.strip()]
    n = m.group("n")
    want = None if n is None else int(n) if n.isdigit() else _NUMBER_WORDS[n.lower()]
    if len(items) < 2 or (want is not None and len(items) != want):
        return content, ""
    return "\n".join(items) + "\n", f"the request asks for lines: {len(items)} items, one a line"


def _line_meant(ctx: ToolContext, file_path: str = "", content: str = "", **_: object) -> Redirect | None:
    """edit_file's call, when write_file would replace a file here of several lines with one line that sets a key
    the file sets: asked to "bump the version to 2.1.0", the 1.5B wrote "version = 2.1.0" over all of setup.cfg
    (test split). The line is set and the rest of the file kept; edit_file's error stands (a key set in two
    sections is not written over either). A file of that one line, or a line that sets no key of it, is written
    as asked."""
    line = content.strip() if isinstance(content, str) else ""
    if not line or "\n" in line or not isinstance(file_path, str) or (read := config_text(ctx, file_path)) is None:
        return None
    path, text = read
    if len(text.strip().splitlines()) < 2 or not lines_setting(text, line):
        return None
    return set_line_call(file_path, line, f"{path.name} holds more than that line: edit_file set it and kept the rest.",
                         stands=True)


def _entry_meant(ctx: ToolContext, file_path: str = "", content: str = "", **_: object) -> Redirect | None:
    """edit_file's call, when write_file would replace a list file here with the one entry the request adds ("add
    bread to my shopping list" written as "bread" over the whole list): the entry goes at the end of the file's last
    list and the rest is kept (list_entry.added_entry decides, as for an edit)."""
    line = content.strip() if isinstance(content, str) else ""
    if not line or line.count("\n") >= MAX_ADDED or not isinstance(file_path, str) \
            or (read := config_text(ctx, file_path)) is None:
        return None
    text = read[1]
    last = next((row for row in reversed(text.splitlines()) if row.strip()), None)
    if last is None or len(text.strip().splitlines()) < 2 or _added(ctx, text, last, line, read[0].name) is None:
        return None
    what = "those entries: edit_file added them" if "\n" in line else "that entry: edit_file added it"
    return Redirect("edit_file", {"file_path": file_path, "old_content": last, "new_content": line},
                    f"{read[0].name} holds more than {what} and kept the rest.", stands=True)


def _rows_meant(ctx: ToolContext, file_path: str = "", content: str = "", **_: object) -> Redirect | None:
    """edit_file's call, when write_file would replace a CSV or TSV file here with the rows the request adds ("log my
    race in races_2025.csv: ..." written as that one row over the header and every race): they go after its last
    row (table_rows decides, as for an edit)."""
    if not isinstance(content, str) or not isinstance(file_path, str) or (read := config_text(ctx, file_path)) is None:
        return None
    path, text = read
    if rows_to_add(ctx.request.message, text, content, path.name) is None:
        return None
    last = next(row for row in reversed(text.splitlines()) if row.strip())
    return Redirect("edit_file", {"file_path": file_path, "old_content": last, "new_content": content},
                    f"{path.name} holds more rows than that: edit_file added the new ones after them.", stands=True)


def _write_meant(ctx: ToolContext, **kwargs: Any) -> Redirect | None:
    """The edit a write over an existing file stands for: one setting's line, one entry more, or rows more."""
    return _new_file_named(ctx, **kwargs) or _line_meant(ctx, **kwargs) or _rows_meant(ctx, **kwargs) \
        or _entry_meant(ctx, **kwargs)


write_file.redirect = _write_meant  # type: ignore[attr-defined]


def _write_text(ctx: ToolContext, path: Path, text: str) -> Path | None:
    """Write ``text`` to ``path`` (newlines as given), backing up the old file first; the backup's path."""
    try:
        backup = backup_file(ctx, path) if path.exists() else None
        with open(path, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
    except OSError as exc:
        raise ToolFailure(f"could not write {path}: {exc.strerror or exc}") from None
    return backup


@tool(gated=True)
def edit_file(ctx: ToolContext, file_path: str, old_content: str, new_content: str) -> dict:
    """Replace the first occurrence of a snippet in a text file; shows the diff.

    Args:
        file_path: File to change.
        old_content: Exact text to replace, copied from read_file.
        new_content: Text to put in its place.
    """
    if not isinstance(old_content, str):
        raise ToolFailure("old_content is empty: copy the exact text to replace from read_file")
    path = _checked_file(ctx, file_path, write=True, repair=True)  # it edits a file that exists: find it
    if not path.exists():
        raise missing_file(ctx, file_path, path)  # an edit is never made to a guessed file: name them
    text = _load_text(path)
    new_content = _not_the_request(ctx, text, old_content, new_content)
    try:
        return _edited(ctx, path, text, old_content, new_content)
    except ToolFailure as exc:
        if (asked := _asked_rename(ctx, text) or _asked_setting(ctx, text, path)) is None or \
                "edit_file(" in exc.message:
            raise
        # the change the request names, as the call that makes it: the 0.5B, asked "Change MAX_RETRIES in
        # scraper.py to 5.", replaced one unrelated line with another and was told only what was wrong (probe49)
        raise ToolFailure(f"{exc.message}. The request asks for this call: edit_file(file_path={_shown(ctx, path)!r}, "
                          f"old_content={asked[0]!r}, new_content={asked[1]!r})", **exc.details) from None


_TO_VALUE = re.compile(r"\bto\s+(?P<value>[\w.:/@+-]*\w)", re.IGNORECASE)


_RENAME = re.compile(r"\b(?:rename|change|replace|switch|swap)\s+(?:the\s+|all\s+|every\s+)?[\"'\u201c]?"
                     r"(?P<old>[^\"'\u201d]+?)[\"'\u201d]?\s+(?:to|with|into|for|->)\s+(?:the\s+)?[\"'\u201c]?"
                     r"(?P<new>[^\"'\u201d]+?)[\"'\u201d]?\s*(?:[.?!,;]|\bin\b|\beverywhere\b|\bplease\b|\bpls\b|$)",
                     re.IGNORECASE)


_SHOULD_BE = re.compile(r"[\"'\u2018\u201c](?P<old>[^\"'\u2019\u201d]{1,60})[\"'\u2019\u201d]\s+(?:should|must)\s+"
                        r"(?:be|read|say)\s+[\"'\u2018\u201c](?P<new>[^\"'\u2019\u201d]{1,60})[\"'\u2019\u201d]",
                        re.IGNORECASE)


def _not_the_request(ctx: ToolContext, text: str, old: str, new: str) -> str:
    """``new``, unless it is the user's request copied ("Request: theres a typo in the march newsletter ..."): then
    ``old`` with the change the request names made in it, else a failure saying what new_content is. Asked to write
    the edit, the 0.5B wrote the request into the file (probe55)."""
    message = ctx.request.message.strip()
    # a short request ("fix it") may well be in the text; only a whole sentence of it is a copy
    copied = new.lstrip().lower().startswith("request:") or (len(message) >= 20 and message.lower() in new.lower())
    if not message or not copied:
        return new
    asked = _asked_rename(ctx, text)
    if asked is not None and asked[0] in old:
        return old.replace(asked[0], asked[1])
    raise ToolFailure("new_content is the request itself, not the text: write new_content as old_content should "
                      "read after the change")


def _asked_rename(ctx: ToolContext, text: str) -> tuple[str, str] | None:
    """(the old text as the file writes it, the new) when the request renames text the file holds ("in the teams
    file rename the Red Dragons to Crimson Dragons"); else None. The 1.5B replaced '"teams": [' with itself, and was
    offered a change of the key "teams", the file's own name (probe53)."""
    m = _SHOULD_BE.search(ctx.request.message) or _RENAME.search(ctx.request.message)   # "'recieve' should be 'receive'"
    if m is None or len(m.group("old").strip()) < 2:
        return None
    at = text.lower().find(m.group("old").strip().lower())
    if at < 0:
        return None
    return text[at:at + len(m.group("old").strip())], m.group("new").strip()


def _asked_setting(ctx: ToolContext, text: str, path: Path) -> tuple[str, str] | None:
    """(the line, the line as the request would have it) when the request names one key the file sets and a new
    value for it ("Change MAX_RETRIES in scraper.py to 5"); else None. A key that is a word of the file's name is the
    file named ("in the teams file")."""
    message = ctx.request.message
    named = set(words(path.name))
    keys = {k for ln in text.splitlines() if (k := setting_of(ln)) is not None and len(k) > 2
            and singular(k.lower()) not in named
            and re.search(rf"(?<![\w.-]){re.escape(k)}(?![\w-])", message, re.IGNORECASE)}
    if len(keys) != 1:
        return None
    key = keys.pop()
    after = message[re.search(re.escape(key), message, re.IGNORECASE).end():]
    m = _TO_VALUE.search(after)
    lines = [ln.strip() for ln in text.splitlines() if setting_of(ln) == key]
    new = key_set_to(text, key, m.group("value")) if m is not None and len(lines) == 1 else None
    return (lines[0], new.strip()) if new is not None and new.strip() != lines[0] else None


def _edited(ctx: ToolContext, path: Path, text: str, old_content: str, new_content: str) -> dict:
    """edit_file's work on the file's ``text``, once it is found and read."""
    if isinstance(new_content, str) and _is_the_request(ctx, new_content):
        raise ToolFailure("new_content is the request itself, not the file's new text; write the line as the file "
                          "should read, e.g. 'replicas: 4'")
    if isinstance(new_content, str) and (nested := _nested_set(text, new_content)) is not None:
        return _write_edit(ctx, path, text, nested[0], 1, note=nested[1])
    if not old_content:  # the model did not know the text: the lines like the new one are what it may replace
        return _set_line(ctx, path, text, new_content if isinstance(new_content, str) else "")
    if isinstance(new_content, str) and (line := key_alone(text, old_content, new_content)) is not None:
        return _set_line(ctx, path, text, line, f"old_content {old_content.strip()[:80]!r} is only the key")
    count = text.count(old_content)
    if count and isinstance(new_content, str) and (added := _added(ctx, text, old_content, new_content, path.name)):
        return _write_edit(ctx, path, text, added[0], 1, note=added[1])
    if count and isinstance(new_content, str) and \
            (misfit := row_misfit(ctx.request.message, text, old_content, new_content, path.name)):
        raise ToolFailure(misfit)
    # two lines written again, or nothing but lines the file has: for "add piranesi to my to-read list" the 0.5B
    # also replaced the last entry with a copy of the first
    if count and isinstance(new_content, str) and (again := repeated_lines(text, old_content, new_content)) and \
            (len(again) >= 2 or len(again) == len([ln for ln in new_content.splitlines() if ln.strip()])):
        raise ToolFailure(f"not written: new_content repeats {len(again)} line(s) {path.name} already holds "
                          f"({again[0].strip()!r}, ...). Write only the text that replaces old_content: the new or "
                          "changed lines, once")
    if count and isinstance(new_content, str) and (every := _every_place(ctx, text, old_content, new_content)):
        return _write_edit(ctx, path, text, every[0], count, note=every[1], replaced=every[2])
    if count == 1 and isinstance(new_content, str) and (moved := _in_named_section(ctx, text, old_content, new_content)):
        return _write_edit(ctx, path, text, moved[0], 1, note=moved[1])
    if count:
        new_content = _comma_kept(path, text, old_content, new_content)
        return _write_edit(ctx, path, text, text.replace(old_content, new_content, 1), count)
    loose = _loose_match(text, old_content)
    if loose is None:
        if (line := restyled(text, old_content, new_content if isinstance(new_content, str) else "")) is not None:
            return _set_line(ctx, path, text, line, f"old_content {old_content.strip()[:80]!r} is not in the file")
        raise _not_in_file(path, text, old_content)
    (start, end), how = loose  # "port=8080" for "port = 8080", "deadline: 1 march" for "Deadline: 1 March"
    return _write_edit(ctx, path, text, text[:start] + new_content + text[end:], 1,
                       note=f"old_content matched once {how}: {text[start:end]!r} was replaced")


_FLAT_PATH = re.compile(r"^\s*(?P<parent>[\w.-]+):\s+(?P<key>[\w.-]+):\s*(?P<value>\S.*?)\s*$")


def _nested_set(text: str, new: str) -> tuple[str, str] | None:
    """(the text with a nested key set, a note) for new_content that writes a YAML key path on one line ("logging:
    level: warning") where ``text`` has that key under that parent; else None. For "set the logging level to
    warning in config.yaml" the 1.5B wrote that line in place of "logging:", and the edit broke the file (probe49)."""
    m = _FLAT_PATH.match(new)
    if m is None or "\n" in new.strip():
        return None
    rows = text.splitlines(keepends=True)
    starts = [i for i, r in enumerate(rows) if r.rstrip() == f"{m.group('parent')}:"]
    if len(starts) != 1:
        return None
    for i in range(starts[0] + 1, len(rows)):
        row = rows[i]
        if row.strip() and not row[0].isspace():
            return None   # past the parent's block
        child = re.match(rf"(\s+){re.escape(m.group('key'))}:\s*(.*?)(\s*)$", row)
        if child is not None:
            rows[i] = f"{child.group(1)}{m.group('key')}: {m.group('value')}{child.group(3)}"
            return "".join(rows), f"read as {m.group('parent')}'s {m.group('key')}, set to {m.group('value')}"
    return None


def _added(ctx: ToolContext, text: str, old: str, new: str, name: str) -> tuple[str, str] | None:
    """The file with the entry, or entries, the request adds after ``old``, and a note; None for another edit."""
    message = ctx.request.message
    return added_entry(message, text, old, new, name) or added_entries(message, text, old, new, name) \
        or rows_added(message, text, old, new, name)


_EVERY_PLACE = re.compile(r"\b(?:everywhere|throughout|all (?:of )?(?:the )?(?:places|occurrences|instances|mentions)|"
                          r"every (?:place|occurrence|instance|mention|time))\b", re.IGNORECASE)
_WORDS_AND_GAPS = re.compile(r"\w+|\W+")


def _every_place(ctx: ToolContext, text: str, old: str, new: str) -> tuple[str, str, int] | None:
    """(the text with one word swapped in every place, a note, the number of places) when the edit swaps one word
    for another, the request names both and says to change it everywhere, and the file has the word in more places
    than ``old``: for "in invite.txt replace Sam with Alex everywhere" the 1.5B changed "Dear Sam," and left "Sam,
    bring snacks!" (probe45). None otherwise: an edit replaces the text it was given, once."""
    message = ctx.request.message
    if not _EVERY_PLACE.search(message):
        return None
    if (n := text.count(old)) > 1 and old.strip() and new.strip():
        # "replace Jordan Blake with Jordan Blake-Reyes everywhere": the text given, in each of its places (probe49)
        return text.replace(old, new), f"{old!r} was replaced with {new!r} in all {n} places (the request says so)", n
    a, b = _WORDS_AND_GAPS.findall(old), _WORDS_AND_GAPS.findall(new)
    swapped = [(x, y) for x, y in zip(a, b) if x != y]
    if len(a) != len(b) or len(swapped) != 1 or not swapped[0][0].strip() or not swapped[0][1].strip():
        return None
    word, other = swapped[0]
    said = {w.lower() for w in re.findall(r"\w+", message)}
    place = re.compile(rf"\b{re.escape(word)}\b")
    places = len(place.findall(text))
    if word.lower() not in said or other.lower() not in said or places <= len(place.findall(old)):
        return None
    return (place.sub(other, text),
            f"{word!r} was replaced with {other!r} in all {places} places (the request says so)",
            places)


def _comma_kept(path: Path, text: str, old: str, new: str) -> str:
    """``new`` with the comma that ended ``old``, when a JSON file parses with it and not without: the 0.5B
    replaced '"shop_name": "Hollow Oak Joinery",' with '"shop_name": "Hollow Oak Carpentry"', the edit was refused
    as invalid JSON, and it gave up (probe_files)."""
    if path.suffix.lower() != ".json" or not old.rstrip().endswith(",") or not isinstance(new, str) \
            or new.rstrip().endswith(","):
        return new
    kept = new.rstrip() + "," + new[len(new.rstrip()):]
    try:
        json.loads(text.replace(old, new, 1))
        return new
    except ValueError:
        pass
    try:
        json.loads(text.replace(old, kept, 1))
    except ValueError:
        return new
    return kept


def _is_the_request(ctx: ToolContext, new_content: str) -> bool:
    """Whether ``new_content`` is the user's message of this turn, word for word: for "scale deploy.yml to 4
    replicas" the 0.5B replaced "service: web" with those words (probe_data3)."""
    said = " ".join(ctx.request.message.split()).strip(" .!").casefold()
    return len(said) >= 12 and " ".join(new_content.split()).strip(" .!").casefold() == said


def _folder_at(ctx: ToolContext, raw: str) -> Optional[Path]:
    """The existing folder inside the allowed folders that ``raw`` is a path to, or None; None for the working
    folder itself, which a model passes for a question no file answers ("what OS is this?", the test split)."""
    path = resolved_or_none(ctx, raw)
    return path if path is not None and path.is_dir() and path != Path(ctx.workdir).resolve() else None


def _set_line(ctx: ToolContext, path: Path, text: str, new: str, why: str = "old_content was empty") -> dict:
    """edit_file without old_content: a new line that sets a key the file sets on one line ("debug: false")
    replaces that line; a key set in several places is a failure naming each with its section. The 1.5B sent
    "" with "max_connections = 200" and, shown both lines of db.ini, asked the user which text to replace."""
    found = lines_setting(text, new)
    named = _in_sections_named(ctx, text, found)
    found = named if len(named) == 1 else found   # "the primary db" of [primary] and [replica]
    if len(found) == 1:
        updated, written = replaced(text, found[0], new)
        if updated == text:  # the 0.5B swapped them ("theme = 'dark'" -> "theme = 'light'" for "switch to dark")
            raise ToolFailure(f"{why}, and the one line setting that key already reads {found[0].text!r}: nothing "
                              "changed. Call edit_file again with new_content as the line should read after the change",
                              closest_lines=[found[0].text])
        return _write_edit(ctx, path, text, updated, 1, note=f"{why}: the one line setting that key, "
                           f"{found[0].text!r}, is now {written!r}")
    if len(found) > 1:
        places = "; ".join(f"{s.text!r}" + (f" (under {where})" if (where := under(text, s)) else "") for s in found)
        raise ToolFailure(f"{why}, and {path.name} sets that key in {len(found)} places: {places}. "
                          "Call edit_file again with the one to change as old_content",
                          closest_lines=[s.text for s in found])
    raise _not_in_file(path, text, new, empty=True)


def _section_named(ctx: ToolContext, section: str) -> bool:
    """Whether the user's message names ``section`` ("[primary]", "database:", "[tool.ruff]" as "ruff") as a word."""
    name = section.strip("[]:{ ").casefold()
    said = set(re.findall(r"[\w.-]+", ctx.request.message.casefold())) | set(re.findall(r"\w+", ctx.request.message.casefold()))
    return bool(name) and (name in said or name.rpartition(".")[2] in said)


def _in_sections_named(ctx: ToolContext, text: str, found: list[Setting]) -> list[Setting]:
    """The lines of ``found`` under a section the user's message names."""
    return [f for f in found if _section_named(ctx, under(text, f))]


def _in_named_section(ctx: ToolContext, text: str, old: str, new: str) -> tuple[str, str] | None:
    """(the text with the key's line set in the section the request names, a note) when ``old`` is a line setting a
    key that several sections set, ``new`` sets that key too, and the request names one section: not the one ``old``
    is in. For "set ruff's line-length to 120 in pyproject.toml" the 0.5B replaced "line-length = 88", the line of
    [tool.black] (probe45). None otherwise."""
    key = setting_of(old.strip())
    found = lines_setting(text, old.strip()) if key is not None and setting_of(new.strip()) == key else []
    named = _in_sections_named(ctx, text, found)
    if len(found) < 2 or len(named) != 1 or named[0].text == old.strip():
        return None
    updated, written = replaced(text, named[0], new)
    gave = next((f for f in found if f.text == old.strip()), None)
    was = f" (under {section})" if gave is not None and (section := under(text, gave)) else ""
    return updated, (f"old_content {old.strip()!r}{was} is not the line the request names: the line of "
                     f"{under(text, named[0])}, {named[0].text!r}, is now {written!r}")


def _not_in_file(path: Path, text: str, old: str, shown_lines: int = 3, *, empty: bool = False) -> ToolFailure:
    """The failure for an old_content the file does not hold: the file's lines closest to it, quoted exactly
    (indentation kept), so the next call can copy one. "Read the file and copy it" made the 0.5B tell the
    user to run ``cat | sed``; lines it can paste keep the edit within the tools. ``empty``: no old_content
    was given, and ``old`` is the new text (the 1.5B sent "" to bump setup.cfg's version)."""
    if empty:
        found = _not_in_file(path, text, old or text, shown_lines)
        close = found.payload().get("closest_lines") or []
        quoted = "; ".join(repr(ln) for ln in close)
        return ToolFailure(f"old_content is empty: give the exact text to replace. The lines of {path.name} most "
                           f"like the new text: {quoted}. Call edit_file again with one of them as old_content"
                           if close else "old_content is empty: copy the exact text to replace from read_file",
                           closest_lines=close)
    lines = [ln for ln in text.splitlines() if ln.strip()]
    asked = [a.strip().lower() for a in old.strip().splitlines() if a.strip()] or [old.lower()]
    scored = {ln: max(ratio(a, ln.strip().lower()) for a in asked) for ln in lines}
    close = sorted((ln for ln, r in scored.items() if r >= 0.5), key=lambda ln: -scored[ln])[:shown_lines]
    if not close and len(lines) <= 12:  # nothing alike in a short file: every line is a candidate
        close = lines
    if not close:
        return ToolFailure(f"old_content {old.strip()[:120]!r} is not in {path.name}, and no line of it is "
                           "close; search_file_content finds the line to change")
    quoted = "; ".join(repr(ln) for ln in close)
    return ToolFailure(f"old_content {old.strip()[:120]!r} is not in {path.name}. Its closest lines, exactly as "
                       f"the file has them: {quoted}. Call edit_file again with one of them as old_content",
                       closest_lines=close)


def _write_edit(ctx: ToolContext, path: Path, text: str, updated: str, count: int, note: str = "",
                replaced: int = 1) -> dict:
    if updated == text:  # reported as a success, an edit that changed nothing reads as done to the model and the user
        raise ToolFailure(f"nothing changed: new_content is the text {path.name} already has there. Call edit_file "
                          "again with new_content as the text should read after the change")
    if (broken := _breaks_format(path, text, updated)) is not None:
        raise ToolFailure(f"not written: the edit would make {path.name} invalid {broken}. Call edit_file again with "
                          "new_content written as the file writes it")
    return _written_edit(ctx, path, text, updated, count, note, replaced)


def _breaks_format(path: Path, text: str, updated: str) -> str | None:
    """"JSON (...)", "TOML (...)" or "YAML (...)" when ``updated`` no longer parses as the file's format and ``text``
    did; else None. For settings.json the 0.5B replaced the line "{" with "{'theme': 'dark'}" (probe42), and in
    deploy.yml the line "service: web" with the request's own words (probe_data3)."""
    name, parse = _FORMATS.get(path.suffix.lower(), ("", None))
    if parse is None:
        return None
    try:
        parse(text)
    except ValueError:
        return None  # it did not parse before: not this edit's doing
    try:
        parse(updated)
    except ValueError as exc:
        return f"{name} ({str(exc).splitlines()[0][:100]})"
    return None


def _yaml_documents(text: str) -> list:
    """Every document of a YAML text (PyYAML's safe loader), a ValueError when it does not parse."""
    import yaml   # PyYAML: a YAML parser is no code to write ourselves; imported only for a .yaml edit

    try:
        return list(yaml.safe_load_all(text))
    except yaml.YAMLError as exc:
        raise ValueError(" ".join(str(exc).split())) from None


_FORMATS = {".json": ("JSON", json.loads), ".toml": ("TOML", tomllib.loads),
            ".yaml": ("YAML", _yaml_documents), ".yml": ("YAML", _yaml_documents)}


def _written_edit(ctx: ToolContext, path: Path, text: str, updated: str, count: int, note: str,
                  replaced: int = 1) -> dict:
    diff = "".join(difflib.unified_diff(text.splitlines(keepends=True), updated.splitlines(keepends=True),
                                        f"a/{path.name}", f"b/{path.name}"))
    backup = _write_text(ctx, path, updated)
    result = {"status": "success", "message": _edit_said(ctx, path, text, updated), "file_path": str(path),
              "occurrences": count, "replaced": replaced, "diff": diff[:5000], "backup_path": str(backup)}
    return {**result, "note": note} if note else result


def _edit_said(ctx: ToolContext, path: Path, text: str, updated: str) -> str:
    """"Edited running/races.txt: added 'Oct 12 - Riverside 5k'." or ": 'port = 80' is now 'port = 9090'.": the
    change in words. Given the diff alone, the 1.5B answered "The line has been successfully added", the line
    itself unsaid (probe53)."""
    old = text.splitlines()
    new = updated.splitlines()
    gone, came = [], []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag != "equal":
            gone += [ln.strip() for ln in old[i1:i2] if ln.strip()]
            came += [ln.strip() for ln in new[j1:j2] if ln.strip()]
    # no double quotes: copied into a JSON answer, '"max_players": 8' ended the 0.5B's answer at its first quote,
    # "Updated boardgame_night/config.json: '" (probe55)
    def cut(line: str) -> str:
        line = line.replace('"', "").rstrip(",")
        return line if len(line) <= 100 else line[:97] + "..."
    more = (lambda lines: f" (+{len(lines) - 1} more lines)" if len(lines) > 1 else "")
    if gone and came:
        said = f"{cut(gone[0])!r} is now {cut(came[0])!r}" + more(came)
    elif came:
        said = f"added {cut(came[0])!r}" + more(came)
    else:
        said = f"removed {cut(gone[0])!r}" + more(gone) if gone else "whitespace changed"
    return f"Edited {_shown(ctx, path)}: {said}."


def _loose_match(text: str, old: str) -> tuple[tuple[int, int], str] | None:
    """((start, end), how) of the one place ``old`` occurs in ``text`` when the spacing between its words
    and around ``=`` and ``:`` is ignored, and then also upper and lower case; None when there is no such
    place, or more than one (which would be a guess). Whole words only: "port=80" is not in "port = 8080"."""
    tokens = re.findall(r"[=:]|[^\s=:]+", old.strip())
    if not tokens or len(old.strip()) < 3:
        return None
    pattern = re.escape(tokens[0])
    for before, tok in zip(tokens, tokens[1:]):
        pattern += (r"\s*" if "=" in (before, tok) or ":" in (before, tok) else r"\s+") + re.escape(tok)
    if re.match(r"\w", tokens[0][0]):
        pattern = r"(?<!\w)" + pattern
    if re.match(r"\w", tokens[-1][-1]):
        pattern += r"(?!\w)"
    for flags, how in ((0, "with different spacing"), (re.IGNORECASE, "with different spacing or case")):
        matches = list(re.finditer(pattern, text, flags))
        if len(matches) == 1:
            return (matches[0].start(), matches[0].end()), how
        if matches:
            return None
    return None


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
        raise ToolFailure(f"sort_by must be one of {', '.join(_SORT_KEYS)}; got {sort_by!r}")
    folder, guessed = _folder_meant(ctx, directory_path or str(ctx.workdir))
    named = (_subfolder_named(ctx) or folder_in_request(ctx) or _folder_said_before(ctx)) \
        if folder == Path(ctx.workdir).resolve() else None
    scope = scope_of(ctx, named or folder)
    folder = scope.folder
    dirs, files, stamps = _children(folder, show_hidden)
    by_date = (sort_by or "").lower() == "modified"
    dirs.sort(key=key, reverse=by_date)
    files.sort(key=key, reverse=by_date)
    # in the order a size question asks for: listed by name under the answer's lead, the 0.5B named the first file,
    # summary.md, for "Which file in fieldwork/notes is the largest?" (probe57)
    shown_files = [e for _, e in in_size_order(ctx.request.message, [(e["size_bytes"] or 0, e) for e in files])] \
        if asks_size(ctx.request.message) and (sort_by or "name").lower() == "name" else files
    entries = dirs + shown_files
    if not by_date:  # a listing is names and sizes; every date is read and often copied into the answer
        entries = [{k: v for k, v in e.items() if k != "modified"} for e in entries]
    # the names come first and are the message: a model given counts first answered with them, swapped
    # the counts only when the listing is cut: otherwise the message says them, and "folders: 0" after
    # the entries was read as "the folder is empty"
    counts = {"folders": len(dirs), "files": len(files), "truncated": True} if len(entries) > 200 else {}
    top = top_only(ctx)   # "how many folders are directly inside Recipes?": the tree's count was answered (probe48)
    if lead := tree_lead(ctx, scope, top=top):
        # the answer alone, the top level counted: given the lead and then the listing's names, the 1.5B answered
        # "which files in downloads are pdfs?" with names from the listing (pdf-tips.txt), and added a .jpg of the
        # tally to the lead's 4 .mp3 files (probe48); the names stay in the entries
        # the listing's own count of folders would contradict a count of folders that leaves some out
        message = lead if asks_folders(ctx.request.message) else \
            f"{lead} ({_listing_message(ctx, folder, dirs, files, limit=0)} at its top level.)"
    else:
        tally = tree_tally(ctx, folder, show_hidden) if dirs and not top else ""
        message = _listing_message(ctx, folder, dirs, files) + (f". {tally}" if tally else _files_told(files))
    message = _told_of(ctx, folder, dirs, files, message, bool(lead))
    sized = [(f["size_bytes"] or 0, f["name"]) for f in files]
    if not lead and (ranking := by_size(ctx.request.message, sized)):
        message = f"{size_answer(ctx.request.message, sized, _shown(ctx, folder))}\n{message}. {ranking}"
    note = {"note": f"{_shown(ctx, folder)} is the folder the message names, so it is listed."} if named else \
        {"note": guessed} if guessed else {}
    return {"status": "success", "message": message, "entries": _marked(entries[:200], _largest_newest(files, stamps)),
            "path": str(folder), **counts, **note}


def _children(folder: Path, show_hidden: bool) -> tuple[list[dict], list[dict], dict[str, float]]:
    """The folder's subfolders and files as listing entries, and each one's modification time by name."""
    dirs, files, stamps = [], [], {}
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
        stamps[child.name] = st.st_mtime
    return dirs, files, stamps


def _told_of(ctx: ToolContext, folder: Path, dirs: list[dict], files: list[dict], message: str, lead: bool) -> str:
    """A listing's ``message`` with what the request asks of the folder's files: the one file, or the file it
    names, after it; else the lines of its current files that hold the request's words first. Listed for "What
    humidity offset is configured for the outdoor sensor in my weather station config?", the folder's names got
    "The humidity offset is configured for the outdoor sensor" from the 1.5B (probe54)."""
    # what is asked, said only beside the folder: its own file's text after that was read as the answer ("Hive A had
    # chalkbrood", from hive_C's line and hive_A's file: probe55)
    if beside := "" if lead or asks_count(ctx) else _said_beside(ctx, folder):
        return f"{beside}\n{message}"
    if only := _only_file(ctx, folder, dirs, files) or _file_named(ctx, folder, files):
        return f"{message}. {only}"
    if lead or asks_count(ctx):
        return message
    return _with_asked(ctx, folder.name, current_ones(_files_in(ctx, folder), Path(ctx.workdir).resolve(), Path),
                       message)


def _said_beside(ctx: ToolContext, folder: Path, most: int = 5) -> str:
    """What the request asks that no file of ``folder`` says and files of the folders beside it do, with their
    lines: "which hive had chalkbrood this season?" listed apiary/2024/hive_A/, and the 1.5B answered hive A from its
    inspection; hive_C's said chalkbrood (probe55). "" when the folder's files say every word, or none is said beside
    it in at most ``most`` files."""
    base = Path(ctx.workdir).resolve()
    parent = folder.parent
    if folder == base or not parent.is_relative_to(base):
        return ""
    asked = set(request_words(ctx.request.message)) - set(words(where(folder, base)))
    # a word of the folder's file names is said there ("game night log": game_nights_2024.json; probe54)
    # (words() gives each word in the singular: "game_nights" says "night")
    inside = {w for p in _files_in(ctx, folder) for w in words(f"{where(p, base)} {text_start(ctx, p, 32_768)}")}
    beside = [p for p in current_ones(_files_in(ctx, parent, limit=60), base, Path) if not p.is_relative_to(folder)]
    held = {p: asked & set(words(text_start(ctx, p, 32_768))) - inside for p in beside}
    missing = {w for p in held for w in held[p] if sum(w in h for h in held.values()) <= most}
    said = [f"{where(p, base)}: " + "; ".join(f"line {n}: {t}" for n, t in lines)
            for p in beside if held[p] & missing and (lines := request_lines(ctx, p, beyond=" ".join(asked - missing)))]
    if not said:
        return ""
    unsaid = ", ".join(map(repr, sorted(missing)))
    return f"No file in {where(folder, base)}/ says {unsaid}; beside it: " + " | ".join(said[:most])


_TOKEN = re.compile(r"[\w.~-]+(?:/[\w.~-]+)*/?")


def _subfolder_named(ctx: ToolContext) -> Optional[Path]:
    """The one folder below the working folder that the user's message names as a path ("docs/", "docs/api"),
    or None. Asked "whats in docs/?", the 1.5B listed the working folder (test split). A bare word is not
    taken: "list the files in this folder" is not about a subfolder called files."""
    base = Path(ctx.workdir).resolve()
    found = set()
    for token in _TOKEN.findall(ctx.request.message):
        name = token.rstrip("/.")
        if "/" not in token or not name or name.startswith((".", "~", "/")):
            continue
        path = resolved_or_none(ctx, str(base / name))
        if path is not None and path.is_dir() and path != base and path.is_relative_to(base):
            found.add(path)
    return found.pop() if len(found) == 1 else None


_THAT_FOLDER = re.compile(r"\b(?:that|the same|this|same)\s+(?:same\s+)?(?:folder|directory|dir|place|location)\b|"
                          r"\bin there\b", re.IGNORECASE)


def _folder_said_before(ctx: ToolContext) -> Optional[Path]:
    """The folder the conversation last named, for a message that points back to it ("what else is in that same
    folder?"); a file named last stands for its folder. Told where the passport scan was, the 1.5B listed the working
    folder for "what else is in that same folder?" (probe48)."""
    if not _THAT_FOLDER.search(ctx.request.message):
        return None
    base = Path(ctx.workdir).resolve()
    for token in reversed(_TOKEN.findall(ctx.request.earlier)):
        path = resolved_or_none(ctx, str(base / token.rstrip("/.")))
        if "/" in token and path is not None and path.exists() and path.is_relative_to(base):
            folder = path if path.is_dir() else path.parent
            return folder if folder != base else None
    return None


def _largest_newest(files: list[dict], stamps: dict[str, float]) -> dict[str, str]:
    """{"largest": name, "newest": name} for a folder of two files or more, each given only when one file is
    clearly it: twice the size of the next, or changed a second or more after it. "budget.csv (21 B, largest)"
    beside a 20-byte file was read as news: the 1.5B put it in answers to "whats in docs/?".
    Asked "which file in reports is the largest?", the 1.5B listed the folder and named the last file: the
    sizes were there, one per entry, and nothing said which was largest."""
    if len(files) < 2:
        return {}
    out = {}
    if (largest := _clearly_largest([(f["size_bytes"] or 0, f["name"]) for f in files])) is not None:
        out["largest"] = largest[1]
    by_time = sorted(files, key=lambda f: -stamps.get(f["name"], 0.0))
    if stamps.get(by_time[0]["name"], 0.0) - stamps.get(by_time[1]["name"], 0.0) >= 1.0:
        out["newest"] = by_time[0]["name"]
    return {**out, **_dated_ends(files)}


def _dated_ends(files: list[dict]) -> dict[str, str]:
    """{"latest by its date": name, "earliest by its date": name} when two files or more carry a date in their
    names and one is clearly last (and first). Asked for the latest and the first entry of a garden journal of
    dated files ("2026-06-08.md"), what a model had was times that said nothing (written at once) and names to
    compare as dates."""
    dated = sorted((d, f["name"]) for f in files if (d := name_date(f["name"])) is not None)
    if len(dated) < 2:
        return {}
    out = {}
    if dated[-1][0] != dated[-2][0]:
        out["latest by its date"] = dated[-1][1]
    if dated[0][0] != dated[1][0]:
        out["earliest by its date"] = dated[0][1]
    return out


def _marked(entries: list[dict], marks: dict[str, str]) -> list[dict]:
    """The entries, the largest and newest file each flagged on its own line ("q2.txt (1,212 B, largest)").
    On the entry, not in the message: in the lead line the 0.5B copied the whole result, entries and path,
    as its answer to "list the files in this folder" (68 tokens decoded instead of 23)."""
    return [{**e, **{mark: True for mark, name in marks.items() if e["name"] == name and e["type"] == "file"}}
            for e in entries]


def _listing_message(ctx: ToolContext, folder: Path, dirs: list[dict], files: list[dict], limit: int = 30) -> str:
    names = [d["name"] + "/" for d in dirs] + [f["name"] for f in files]
    if not names:
        return f"{_shown(ctx, folder)} is empty."
    where = "This folder" if folder == Path(ctx.workdir).resolve() else _shown(ctx, folder)
    # each count sits right before the names it counts: "0 folder(s) and 3 file(s): …" was answered
    # as "0 files and 3 folders"
    parts = [_group(len(dirs), "folder", names[:min(len(dirs), limit)]),
             _group(len(files), "file", names[len(dirs):limit])]
    more = f" (+{len(names) - limit} more)" if len(names) > limit and limit else ""
    return f"{where} holds " + " and ".join(p for p in parts if p) + more


def _files_told(files: list[dict]) -> str:
    """What the names of a folder without subfolders (with them, tree_tally counts the types) leave a small model
    to work out, in words: how many of each type (". By type: 3 .png, 1 .svg, 1 .css") when some type repeats, and
    which files are empty (". Empty (0 B): b.txt"). Asked "what
    kinds of files are in assets, and how many of each?", the 1.5B listed the names; asked "any empty files in
    tmpdata?", it said none without looking (probe44)."""
    out = ""
    types = Counter(type_key(f["name"]) for f in files)
    if len(types) > 1 and max(types.values()) > 1 and len(files) <= 200:
        out += ". By type: " + ", ".join(f"{n} {t}" for t, n in types.most_common(8))
    empty = [f["name"] for f in files if f["size_bytes"] == 0]
    if empty and len(empty) < len(files):
        out += f". Empty (0 B): {', '.join(empty[:10])}" + (f" (+{len(empty) - 10} more)" if len(empty) > 10 else "")
    return out


def _group(n: int, noun: str, shown: list[str]) -> str:
    """"3 files: a, b, c"; just the count when none of them fit in the message; "" for none."""
    if not n:
        return ""
    counted = f"{n} {noun}" + ("" if n == 1 else "s")
    return f"{counted}: {', '.join(shown)}" if shown else counted


def _folder_named_so(ctx: ToolContext, raw: str) -> Optional[Path]:
    """The one folder clearly named like a file path that does not exist ("setslist.txt" for setlists/), or None.
    Asked which of the band's setlists was the biggest file, the 0.5B read "setslist.txt": the error named three
    of the four setlists, without sizes, and it answered with one of them."""
    stem = Path(raw.strip().replace("\\", "/")).stem
    best = clear_winner(find(ctx, stem, "folder")) if stem else None
    return best.path if best is not None and best.path != Path(ctx.workdir).resolve() else None


def _folder_meant(ctx: ToolContext, given: str) -> tuple[Path, str]:
    """The folder ``given`` names, and "" ; or, when no folder has that path, the one clearly closest to it and a note
    saying so ("sewing_patterns does not exist; this is hobbies/sewing/patterns"). Asked what sort of files were in
    "my sewing patterns folder", the 0.5B listed "<working folder>/sewing_patterns" and answered with the error. A
    ToolFailure naming the close folders when none stands out, or when the path is a file."""
    folder = _checked_file(ctx, given)
    if folder.is_dir():
        return folder, ""
    found = [] if folder.exists() else find(ctx, _shown(ctx, folder), "folder")
    best = clear_winner(found)
    same = [f for f in found if words(f.path.name) == words(folder.name)]
    if best is None and len(same) == 1:   # "demos" for music/demos beside music/demos_archive (probe50)
        return same[0].path, (f"{given.strip()} does not exist; this is {_shown(ctx, same[0].path)}, the folder of "
                              "that name")
    if best is None:
        raise ToolFailure(f"{_shown(ctx, folder)} is not an existing folder" + _folder_hint(ctx, given))
    return best.path, f"{given.strip()} does not exist; this is {_shown(ctx, best.path)}, the closest folder ({best.reason})"


def _searched_meant(ctx: ToolContext, given: str) -> tuple[Path, list[Path]]:
    """What a content search of a folder that does not exist searches: the clearly closest folder, else the text
    files whose names hold every word of it (the folder of the first, and those files), else the error naming the
    close folders. Asked for the wifi password "in the router notes", the 1.5B searched a folder "router_notes" beside
    home/network/router-notes.txt and got "not an existing folder"."""
    try:
        return _folder_meant(ctx, given)[0], []
    except ToolFailure:
        named = [f.path for f in find(ctx, Path(given.strip()).name, "file") if f.strict][:SHOWN]
        if not named:
            raise
        return named[0].parent, [ctx.sandbox.check(p) for p in named]


def _folder_hint(ctx: ToolContext, asked: Optional[str]) -> str:
    """"; did you mean clients/acme-corp (reason)?" for a folder path that does not exist."""
    if not asked:
        return ""
    entries = list(scan(ctx))   # walked once, for both kinds of hint
    found = rank(asked, entries, "folder")
    if found:
        return f"; close folders: {_names(ctx, found, why=True)}"
    # "wedding_pictures" for media/photos/wedding-2024: one word of two is no close name, but it is the folder meant
    # (the 0.5B answered "the wedding pictures folder does not exist", probe45)
    some = _folders_with_some_words(ctx, Path(asked.strip()).name, entries)
    return f"; folders named with some of its words: {', '.join(some)}" if some else ""


@tool
def get_file_info(ctx: ToolContext, file_path: str) -> dict:
    """Show a file's size, dates and type, with a short preview of text files.

    Args:
        file_path: File or folder to inspect.
    """
    path = _checked_file(ctx, _required(file_path, "file_path is empty: give the file's path"))
    note = ""
    if not path.exists():
        path, note = locate(ctx, file_path)
    st = path.stat()
    info = {"status": "success", "path": str(path), "name": path.name,
            "type": "folder" if path.is_dir() else "file", "size_bytes": st.st_size,
            "modified": iso_time(st.st_mtime), "created": iso_time(getattr(st, "st_birthtime", st.st_ctime)),
            "extension": path.suffix.lower(), "mime_type": mimetypes.guess_type(path.name)[0]}
    when = f"modified {minute_time(st.st_mtime)}"
    if path.is_dir():
        children = list(path.iterdir())
        info.update(items=len(children), subfolders=sum(1 for c in children if c.is_dir()))
        info["message"] = (f"{_shown(ctx, path)} is a folder holding {len(children)} "
                           f"item{'' if len(children) == 1 else 's'} ({info['subfolders']} of them folders), {when}.")
        return {**info, **({"note": note} if note else {})}
    preview = text_head(ctx, path, lines=20, chars=6000)
    rows = ""
    if preview:
        info["preview"] = preview
        if path.suffix.lower() in (".csv", ".tsv"):
            with open(path, "rb") as fh:
                info["data_rows"] = max(0, sum(1 for _ in fh) - 1)
            rows = f", {info['data_rows']} data rows"
    info["message"] = f"{_shown(ctx, path)} is a file of {st.st_size:,} B{rows}, {when}."
    return {**info, **({"note": note} if note else {})}


@tool
def list_recent_files(ctx: ToolContext, location: str = "all", file_types: Optional[str] = None,
                      max_results: int = 20, days: int = 30) -> dict:
    """List files changed in the last few days, newest first (what changed recently); to list a folder use browse_directory.

    Args:
        location: "all" for every allowed folder, or one folder path.
        file_types: Comma-separated extensions to keep, e.g. "pdf,docx".
        max_results: How many files to return (1-100).
        days: Only files modified in the last this many days.
    """
    try:
        limit, days = max(1, min(100, int(max_results))), max(1, min(3650, int(days)))
    except (TypeError, ValueError):
        raise ToolFailure("max_results and days must be whole numbers") from None
    if not location or location.strip().lower() == "all":
        roots = sandbox_roots(ctx)
    else:
        roots = [_checked_file(ctx, location)]
        if not roots[0].is_dir():
            raise ToolFailure(f"{roots[0]} is not an existing folder; use \"all\" or a folder path")
    if asks_size(ctx.request.message) and not _RECENT.search(ctx.request.message):
        return _largest_instead(ctx, roots, file_types, limit)
    cutoff, keep = time.time() - days * 86400, ext_filter(file_types)
    recent, others = [], []
    for path in iter_files(roots, DEFAULT_DEPTH, ctx):
        try:
            st = path.stat()
        except OSError:
            continue
        (recent if st.st_mtime >= cutoff and keep(path) else others).append((path, st))
    searched = [str(r) for r in roots]
    home = Path(ctx.workdir).resolve()   # as _listing_message compares: the roots are resolved
    where = "" if len(roots) > 1 else f" in {_shown(ctx, roots[0])}" if roots[0].resolve() != home else " here"
    if not recent and others:  # no dead end: the filter missed, so the newest files there are, and why
        others.sort(key=lambda f: f[1].st_mtime, reverse=True)
        newest = [file_entry(p, st) for p, st in others[:limit]]
        said = [f"the last {days} days"] + ([f"types {file_types}"] if file_types else [])
        return {"status": "success", "message": f"No file{where} matched {' and '.join(said)}. The newest files "
                                                f"there: {_dated(ctx, others)}.",
                "files": newest, "count": len(others), "truncated": len(others) > limit,
                "note": f"No file matched {' and '.join(said)}; these are the newest files there.",
                "days": days, "searched": searched}
    # files written at once (copied, unpacked) carry one time: the dates in their names order them then
    recent.sort(key=lambda f: (int(f[1].st_mtime), name_date(f[0].name) or "", f[1].st_mtime), reverse=True)
    kinds = f" ({file_types})" if file_types else ""
    said = (f"{len(recent)} file{'' if len(recent) == 1 else 's'}{kinds}{where} changed in the last {days} days, "
            f"newest first: {_dated(ctx, recent)}." if recent
            else f"No file{kinds}{where} changed in the last {days} days.")
    return {"status": "success", "message": said, "files": [file_entry(p, st) for p, st in recent[:limit]],
            "count": len(recent), "days": days, "truncated": len(recent) > limit, "searched": searched}


_RECENT = re.compile(r"\b(?:recent(?:ly)?|latest|newest|new|changed|modified|edited|today|yesterday|this week|"
                     r"last (?:few )?(?:days?|weeks?|months?))\b", re.IGNORECASE)


_ONE_OF_THOSE = re.compile(r"\s*(?:and|ok|so|what about|how about)?[\s,]*(?:which|what)\s+(?:one|file)\b",
                           re.IGNORECASE)


def _largest_instead(ctx: ToolContext, roots: list[Path], file_types: Optional[str], limit: int) -> dict:
    """For a request that compares sizes and says nothing of dates ("what are the 3 largest files in dl?"), the
    files ranked by size under the folder it names, whatever the dates: the 1.5B listed recent files of four
    document types nobody asked for, and named the newest three (probe46)."""
    said = folder_in_request(ctx)
    if said is None and _ONE_OF_THOSE.match(ctx.request.message):   # "and which one is the smallest?" after "the
        said = folder_in_request(ctx, ctx.request.earlier)           # biggest file in my demos folder" (probe50)
    roots = [said] if said is not None and roots == sandbox_roots(ctx) else roots
    keep = ext_filter(file_types if file_types and types_said(ctx.request.message, file_types) else None)
    files = [p for p in iter_files(roots, DEFAULT_DEPTH, ctx) if keep(p)]
    found = in_size_order(ctx.request.message, [(_size(p), p) for p in files])
    ranking = by_size(ctx.request.message, [(size, _shown(ctx, p)) for size, p in found])
    listed = ", ".join(_shown(ctx, p) for _, p in found[:limit])
    # "how many files in tax_docs are larger than 1 KB?": the count over the limit, not a ranking (probe50)
    over = tree_lead(ctx, scope_of(ctx, roots[0])) if len(roots) == 1 and size_limit(ctx.request.message) else ""
    return {"status": "success", "message": over or ranking or f"{len(found)} files: {listed}",
            "files": [file_entry(p) for _, p in found[:limit]], "count": len(found),
            "note": "ranked by size, as the request asks, not by date", "searched": [str(r) for r in roots]}


def _dated(ctx: ToolContext, found: list[tuple[Path, os.stat_result]], shown: int = NAMED_IN_MESSAGE * 2) -> str:
    """"notes/todo.md (2026-12-06 16:33), ... (+3 more)": the files as a person reads them, with when each changed."""
    named = [f"{_shown(ctx, p)} ({minute_time(st.st_mtime)})" for p, st in found[:shown]]
    return ", ".join(named) + (f" (+{len(found) - shown} more)" if len(found) > shown else "")


TOOLS = [search_file, search_directory, read_file, search_file_content, write_file, edit_file,
         browse_directory, get_file_info, list_recent_files]
