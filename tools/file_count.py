"""How many files of a kind a folder holds, subfolders included, and in which subfolders.

Asked "how many .md files under docs, subfolders included", the 0.5B and the 1.5B models both counted
the top level only: a name search's result listed the files, and a list of twenty names is no count.
A search for a bare glob (``*.md``, ``*`` with file types) is a count: its message leads with the total
over the whole tree, says that subfolders are included, and breaks it down by folder, so the total is
the number a small model repeats and the top level's share is there for the other question.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from gaia_lite.registry.context import ToolContext

from .file_walk import (ASKED_KINDS, KNOWN_EXTS as _KNOWN_EXTS, kind_asked, kind_exts, type_key, type_words,
                        visible_files, walk_folders)
from .find import find, request_words, words
from .grep import LEVEL_WORD, LogLevel, where
from .list_entry import entry, list_entries
from .sandbox import SandboxError

__all__ = ["COUNT_GLOB", "split_folder", "folder_in_request", "asks_count", "count_message", "tree_tally",
           "count_asked", "none_of_kind", "kind_meant", "exts_named", "lines_counted", "types_said",
           "top_only", "top_count_message", "WHOLE_FILE"]

COUNT_GLOB = re.compile(r"\*(\.(\*|\w{1,10}))?|\.\*|\*\.\*")  # "*", "*.csv", ".*": no name words in it
SHOWN_FOLDERS = 12
_FOLDER_GLOB = re.compile(r"(?P<folder>[^*?\[\]]+?)/(?:\*\*/)*(?P<glob>[^/]+)")
_IN_FOLDER = re.compile(r"\b(?:under|in|inside|within|below|beneath)\s+(?:the\s+|my\s+|our\s+)?"
                        r"(?P<folder>[\w.~-]+(?:/[\w.~-]+)*)/?", re.IGNORECASE)
# "the number of files", not "the version number of the frontend package" (probe52)
_HOW_MANY = re.compile(r"\bho?w\s+many\b|(?:^|\b(?:the|a|total)\s+)number\s+of\b|\bcount\b", re.IGNORECASE)


def split_folder(pattern: str) -> tuple[str, str]:
    """("docs", "*.md") for "docs/*.md" or "docs/**/*.md", ("", "*.md") for "**/*.md"; ("", pattern) for
    anything that does not end in a bare glob (a guessed path such as "reports/sales.csv" is a name)."""
    text = pattern.strip().replace("\\", "/")
    while text.startswith(("**/", "*/")):   # "*/*" for "count all the files, subfolders too" (0.5B)
        text = text.partition("/")[2]
    m = _FOLDER_GLOB.fullmatch(text)
    if m and COUNT_GLOB.fullmatch(m.group("glob")):
        return m.group("folder").rstrip("/"), m.group("glob")
    return "", text if COUNT_GLOB.fullmatch(text) else pattern


def folder_in_request(ctx: ToolContext, text: Optional[str] = None) -> Optional[Path]:
    """The existing folder the user's message (or ``text``) puts the count in ("under docs", "in the notes folder",
    "inside docs/api", "in my demos folder" for music/demos), or None: it names none that exists here."""
    message = ctx.request.message if text is None else text
    names = [m.group("folder") for m in _IN_FOLDER.finditer(message)]
    for name in names:
        try:
            path = ctx.sandbox.check(Path(ctx.workdir) / name)
        except SandboxError:
            continue
        if path.is_dir() and path != Path(ctx.workdir).resolve():
            return path
    for m in _FOLDER_CALLED.finditer(message):
        # "in my demos folder" for music/demos: the one folder of that name, at any depth (probe50)
        name = m.group("folder")
        same = [f.path for f in find(ctx, name, "folder") if words(f.path.name) == words(name)]
        if len(same) == 1:
            return same[0]
    return None


_FOLDER_CALLED = re.compile(r"\b(?:under|in|inside|within)\s+(?:the\s+|my\s+|our\s+)(?P<folder>[\w.-]+)\s+"
                            r"(?:folder|directory|dir)\b", re.IGNORECASE)


def asks_count(ctx: ToolContext) -> bool:
    """Whether the user's message asks how many: the count is then the answer, ahead of anything else."""
    return bool(_HOW_MANY.search(ctx.request.message))


def kind_meant(message: str, pattern: str, file_types: Optional[str]) -> tuple[str, Optional[str]]:
    """(pattern, file_types) for a count: those given, or ("*", KIND) when the user's message asks a kind of file
    (file_walk.kind_asked) and the search names only that kind's extensions or the kind itself. Asked "how many
    photos are in my holiday folder?", a count of "*.jpg" leaves out the .jpeg, .png and .heic photos."""
    if file_types and "/" in file_types and not types_said(message, file_types):
        file_types = None   # "text/csv" for "count all the files inside project" (0.5B): a type nobody asked for
    given, named_exts = _given_exts(pattern, file_types), exts_named(message)
    if given and len(named_exts) > 1 and given <= set(named_exts):
        return "*", ",".join(e.lstrip(".") for e in named_exts)   # "jpg or png" counted as "*.jpg": the png left out
    kind = kind_asked(message)
    if kind is None:
        return pattern, file_types
    if (given and given <= set(kind_exts(kind))) or pattern.strip("* ").lower().rstrip("s") == kind:
        return "*", kind
    return pattern, file_types


def exts_named(message: str) -> list[str]:
    """The file extensions ``message`` names together, in order: "how many jpg or PNG files" -> [".jpg", ".png"]
    ("jpg/png", ".csv, .tsv and .xlsx" too); only extensions of a known kind of file (file_walk's kinds), and only
    a run of them: in "the .jpg files, and is there an mp4?" each is its own question."""
    text = message.lower()
    for run in _EXT_RUN.finditer(text):
        named = [f".{w}" for w in _EXT.findall(run.group(0)) if w not in ("or", "and")]
        if len(named) > 1 and all(e in _KNOWN_EXTS for e in named):
            return list(dict.fromkeys(named))
    return []


_EXT = re.compile(r"(?<!\w)\.?([a-z][a-z0-9]{1,4}?)s?\b")
_EXT_RUN = re.compile(r"(?<![\w/])\.?[a-z][a-z0-9]{1,4}s?(?:\s*(?:,|/|&|\bor\b|\band\b|,\s*(?:or|and)\b)\s*"
                      r"\.?[a-z][a-z0-9]{1,4}s?\b)+")


def types_said(message: str, file_types: str) -> bool:
    """Whether ``message`` names one of ``file_types`` (MIME types read as extensions), or a kind of file it is."""
    said = {w.rstrip("s") for w in re.findall(r"[a-z0-9]+", message.lower())}
    exts = {"." + w.strip(" .*") for w in type_words(file_types)}
    return any(e.lstrip(".") in said for e in exts) or any(k in said and exts & set(kind_exts(k)) for k in said)


def _given_exts(pattern: str, file_types: Optional[str]) -> set[str]:
    """The extensions a count search was given: the glob's and ``file_types``'s (empty when it gave none)."""
    given = {pattern[1:].lower()} if pattern.startswith("*.") and COUNT_GLOB.fullmatch(pattern) else set()
    return given | {"." + t.strip(" .*").lower() for t in (file_types or "").split(",") if t.strip(" .*")}


def _kind(glob: str, file_types: Optional[str], n: int) -> str:
    """".md files", "files of type csv,xlsx", "photo files (.png, .jpg, .jpeg, .heic, .webp)", "files"."""
    noun = "file" if n == 1 else "files"
    if file_types and file_types.strip() in ASKED_KINDS:
        return f"{file_types.strip()} {noun} ({', '.join(kind_exts(file_types.strip()))})"
    types = [t.strip(" .*") for t in (file_types or "").split(",") if t.strip(" .*")]
    if len(types) > 1:
        return f"{', '.join('.' + t for t in types[:-1])} or .{types[-1]} {noun}"
    if file_types:
        return f"{noun} of type {file_types.strip()}"
    ext = glob[1:] if glob.startswith("*.") and glob != "*.*" else ""
    return f"{ext} {noun}" if ext else noun


_TOP_ONLY = re.compile(r"\bdirectly (?:in|inside|under)\b|\btop[- ]level\b|\b(?:not|don'?t|do not|without|excluding|"
                       r"ignor(?:e|ing)|skip(?:ping)?)(?: count(?:ing)?| includ(?:e|ing)| look(?:ing)? in)?"
                       r"(?: the| any| its)? sub-?(?:folders?|director(?:y|ies)|dirs?)\b", re.IGNORECASE)


def top_only(ctx: ToolContext) -> bool:
    """Whether the user's message asks for a folder's top level alone ("directly in notes", "don't count
    subfolders"): a count then leaves the subfolders out."""
    return bool(_TOP_ONLY.search(ctx.request.message))


def count_message(ctx: ToolContext, paths: list[Path], roots: list[Path], glob: str,
                  file_types: Optional[str]) -> str:
    """"12 .md files under docs/, subfolders included: docs/ 3, docs/api/ 5, docs/guides/how-to/ 4"; a few files are
    named instead, "2 .py files under app/, subfolders included: app/main.py, app/api/routes.py": asked to list
    the pictures, the count by folder was the answer built from it, and no picture was named."""
    base = Path(ctx.workdir).resolve()
    if len(paths) <= NAMED_FILES:
        parts = [where(p, base) for p in sorted(paths)]
    else:
        by_folder = Counter(where(p.parent, base) for p in paths)
        parts = [f"{'./' if f == '.' else f + '/'} {n}" for f, n in sorted(by_folder.items())]
    more = f" (+{len(parts) - SHOWN_FOLDERS} more folders)" if len(parts) > SHOWN_FOLDERS else ""
    under = _under(roots, base)
    # the top level's share said when the files are named, not left to add up (by folder, "docs/ 3" says it): asked
    # "how many .txt files are directly in notes? Don't count subfolders", the 1.5B gave the tree's 5 for 3 (probe46)
    top = sum(p.parent == roots[0] for p in paths) if len(roots) == 1 else len(paths)
    direct = f"; {top} of them directly in {under}" if top < len(paths) <= NAMED_FILES else ""
    return (f"{len(paths)} {_kind(glob, file_types, len(paths))} under {under}, subfolders included: "
            + ", ".join(parts[:SHOWN_FOLDERS]) + more + direct)


def _under(roots: list[Path], base: Path) -> str:
    if len(roots) == 1:
        return "the working folder" if roots[0] == base else where(roots[0], base) + "/"
    return "the allowed folders"


def top_count_message(ctx: ToolContext, top: list[Path], paths: list[Path], root: Path, glob: str,
                      file_types: Optional[str]) -> str:
    """"3 .txt files directly in notes/, subfolders not counted (5 with them): notes/a.txt, ..." for a count the
    message asks of the top level alone: told "5 .txt files under notes/, subfolders included: ...; 3 of them
    directly in notes/", the 1.5B answered "How many .txt files are directly in notes? Don't count subfolders."
    with the 5 (probe46)."""
    base = Path(ctx.workdir).resolve()
    names = [where(p, base) for p in sorted(top)[:NAMED_FILES]] + (
        [f"(+{len(top) - NAMED_FILES} more)"] if len(top) > NAMED_FILES else [])
    return (f"{len(top)} {_kind(glob, file_types, len(top))} directly in {_under([root], base)}, subfolders not "
            f"counted ({len(paths)} with them)" + (f": {', '.join(names)}" if names else ""))


NAMED_FILES = 6  # a count of at most this many files names them
STRUCTURE_FILES = 30  # paths a listing names when the request asks for the whole tree
_WHOLE_TREE = re.compile(r"\b(?:structure|tree|layout|everything|all (?:the |of the )?(?:sub-?folders|files)|"
                         r"(?:sub-?folders|folders) and (?:the )?files)\b", re.IGNORECASE)
WHOLE_FILE = "the file has"  # how a count of the whole file's lines or words begins

TALLY_LIMIT = 5000  # entries walked for a listing's tree tally; a bigger tree gets no tally (search_file counts it)
TALLY_KINDS = 4  # extensions named in the tally, most common first
TALLY_DEPTH = 64  # the levels a count walks, as search_file's count does


def tree_tally(ctx: ToolContext, folder: Path, show_hidden: bool = False, total: bool = True) -> str:
    """"Counting its subfolders: 6 .md files, 1 .txt file (7 in all)." for a folder that has subfolders; "" for one
    that has none, or a tree over ``TALLY_LIMIT`` entries. Asked how many files of a kind sit under a folder,
    subfolders included, the 1.5B listed the folder and counted its top level: the listing now carries the
    tree's count, whatever words the question used. The tree is walked as search_file walks it (walk_folders:
    no symlinks, no hidden or build folders), so the two counts agree. Folders below its subfolders are counted
    too ("7 folders at any depth"), and a few files are named by path: asked "how many folders are under projects,
    at any depth?" and "show me everything in the website folder, subfolders too", the 1.5B had the top level's
    folders and a count by type, and answered with those (probe46)."""
    # "show me the folder structure of website, all subfolders and files": every path, up to a screenful (probe48)
    tree = _tree(ctx, folder, show_hidden, STRUCTURE_FILES if _WHOLE_TREE.search(ctx.request.message) else NAMED_FILES)
    if tree is None or not tree.nested:
        return ""
    base = Path(ctx.workdir).resolve()
    deeper = tree.folders > tree.top_folders   # the top level's folders are the listing's own
    n = sum(tree.kinds.values())
    # the folders named unless every file is: the files' paths name them, and the 1.5B cut the last file's path
    # off a listing that named them both (probe48)
    paths = ", ".join(where(d, base) + "/" for d in sorted(tree.folder_paths))
    shown = len(tree.folder_paths) == tree.folders and not (n and len(tree.file_paths) == n)
    folders = f"{tree.folders} folders at any depth" + (f" ({paths})" if shown else "") + "; " if deeper else ""
    if not n:
        return f"Counting its subfolders: {folders}no files." if deeper else "Its subfolders hold no files."
    named = f": {', '.join(where(f, base) for f in sorted(tree.file_paths))}" if len(tree.file_paths) == n else \
        _per_top(tree)
    said = f"Counting its subfolders: {folders}{_kinds_said(tree.kinds)}" + (f" ({n} in all)" if total else "")
    return said + named + "." + _of_kind(ctx, tree.kinds)


def _of_kind(ctx: ToolContext, kinds: Counter[str]) -> str:
    """" 5 of them are photo files (.png, .jpg, .jpeg, .heic, .webp)." when the user's message asks a kind of file
    (file_walk.kind_asked): a small model does not add up the extensions of a kind itself."""
    kind = kind_asked(ctx.request.message)
    if kind is None:
        return _of_ext(ctx.request.message, kinds)
    n = sum(kinds[ext] for ext in kind_exts(kind))
    files = f"{kind} file{'' if n == 1 else 's'} ({', '.join(kind_exts(kind))})"
    return f" {n} of them {'is a' if n == 1 else 'are'} {files}."


def _of_ext(message: str, kinds: Counter[str]) -> str:
    """" 4 of them are .pdf files." when ``message`` names one extension the tree holds beside others ("hw many pdfs in
    my docs folder"): given "4 .pdf files, 2 .docx files (6 in all)", the 1.5B answered "6 .pdf files" (probe46)."""
    said = {w.rstrip("s") for w in re.findall(r"[a-z0-9]+", message.lower())} | set(re.findall(r"[a-z0-9]+",
                                                                                               message.lower()))
    asked = [ext for ext in kinds if ext.lstrip(".") in said and ext in _KNOWN_EXTS]
    if len(asked) != 1 or len(kinds) < 2:
        return ""
    n = kinds[asked[0]]
    return f" {n} of them {'is a' if n == 1 else 'are'} {asked[0]} file{'' if n == 1 else 's'}."


def count_asked(ctx: ToolContext) -> str | None:
    """"Under data/, counting its subfolders: 3 .csv files, 1 .md file (4 in all)." when the user's message asks how
    many and names a folder here that has subfolders; else None. For a tool the model picked instead of a count:
    asked to "count the csv files under data (all levels)", the 0.5B searched past chats (probe42)."""
    folder = folder_in_request(ctx) if asks_count(ctx) else None
    if folder is None:
        return None
    under = where(folder, Path(ctx.workdir).resolve())
    if top_only(ctx):   # "how many .txt files are directly in notes?": the top level's, as a count would give
        kinds = Counter(type_key(c.name) for c in visible_files(folder))
        n = sum(kinds.values())
        # the folders too: asked "how many folders are directly inside Recipes?", the 0.5B was told one .txt file
        # and answered "1 folder" (probe48)
        dirs = sorted(c.name + "/" for c in folder.iterdir() if c.is_dir() and not c.name.startswith("."))
        folders = f"{len(dirs)} folder{'' if len(dirs) == 1 else 's'} ({', '.join(dirs[:SHOWN_FOLDERS])}) and " \
            if dirs else ""
        return f"Directly in {under}/, subfolders not counted: {folders}{_kinds_said(kinds)} ({n} in all)." \
            if n else f"Directly in {under}/: {folders}no files."
    tally = tree_tally(ctx, folder)
    if not tally:
        return None
    return f"Under {under}/, {tally[0].lower()}{tally[1:]}"


def _per_top(tree: _Tree, shown: int = 8) -> str:
    """"; by subfolder: 2023/ 4, 2024/ 5" for a tree of two top-level subfolders or more: asked "how many photos
    did i take in 2024? theyre in photos/2024", a listing of photos/ gave the total of every year (probe46)."""
    if len(tree.per_top) < 2 or len(tree.per_top) > shown:
        return ""
    return "; by subfolder: " + ", ".join(f"{d}/ {n}" for d, n in sorted(tree.per_top.items()))


@dataclass
class _Tree:
    """What a folder holds, subfolders included: files by extension, how many folders below it (and how many of
    them at its top level), and the first few folders' and files' paths (all of them when the tree is small)."""
    kinds: Counter[str] = field(default_factory=Counter)
    folders: int = 0
    top_folders: int = 0
    folder_paths: list[Path] = field(default_factory=list)
    file_paths: list[Path] = field(default_factory=list)
    per_top: Counter[str] = field(default_factory=Counter)   # files under each top-level subfolder

    @property
    def nested(self) -> bool:
        return self.folders > 0


def _tree(ctx: ToolContext, folder: Path, show_hidden: bool = False, named: int = NAMED_FILES) -> _Tree | None:
    """The tree under ``folder`` (walked as search_file walks it), or None for one over ``TALLY_LIMIT`` entries;
    the first ``named`` folders' and files' paths kept."""
    tree, seen = _Tree(), 0
    for here, dirs, files in walk_folders(folder, TALLY_DEPTH, ctx):
        seen += len(dirs) + len(files)
        if seen > TALLY_LIMIT:
            return None
        tree.folders += len(dirs)
        tree.top_folders += len(dirs) if here == folder else 0
        tree.folder_paths.extend(here / d for d in dirs[:max(0, named - len(tree.folder_paths))])
        for name in files:
            if show_hidden or not name.startswith("."):
                tree.kinds[type_key(name)] += 1
                if len(tree.file_paths) < named:
                    tree.file_paths.append(here / name)
                if here != folder:
                    tree.per_top[here.relative_to(folder).parts[0]] += 1
    return tree


def _kinds_said(kinds: Counter[str]) -> str:
    """"6 .md files, 1 .txt file, 2 other": the most common extensions first."""
    top = kinds.most_common(TALLY_KINDS)
    named = [f"{n} {ext} file{'' if n == 1 else 's'}" for ext, n in top]
    rest = sum(kinds.values()) - sum(n for _, n in top)
    return ", ".join(named + ([f"{rest} other"] if rest else []))


def none_of_kind(ctx: ToolContext, roots: list[Path], glob: str, file_types: Optional[str]) -> str:
    """A count that found nothing, with what the folder does hold: "No .pdf files under invoices/, subfolders
    included. It holds 4 files: 3 .txt files, 1 .md file." Asked "how many files in the invoices folder?", the
    1.5B counted "invoices/*.pdf" and, given the files the request's words pointed to, answered 3 of the 4."""
    base = Path(ctx.workdir).resolve()
    under = "the working folder" if roots == [base] else where(roots[0], base) + "/" if len(roots) == 1 else \
        "the allowed folders"
    none = f"No {_kind(glob, file_types, 0)}"
    tree = _tree(ctx, roots[0]) if len(roots) == 1 else None
    kinds = tree.kinds if tree is not None else None
    if not kinds:
        return f"{none} under {under}, subfolders included."
    total = sum(kinds.values())
    # the total first: after "No .pdf files under invoices/. It holds 4 files in all: 3 .txt, 1 .md" the 1.5B
    # answered "no .pdf files; 3 .txt files and 1 .md file", no total
    return (f"{under} holds {total} file{'' if total == 1 else 's'}, subfolders included: "
            f"{_kinds_said(kinds)}. {none} among them.")


def lines_counted(message: str, text: str, beyond: str, shown: int = 12) -> list[str]:
    """For a message that asks how many, the lines of ``text`` that hold each of its words beyond those of
    ``beyond`` (the file's name), counted: ["3 of the 7 lines hold 'error': lines 2, 4, 6"]. A word every line
    holds, or none, counts nothing. Asked "How many ERROR lines are in server.log?", both models read the file
    and counted wrong (4, and 7 of 7) (probe44)."""
    if not _HOW_MANY.search(message):
        return []
    rows = text.splitlines()
    in_rows = [set(words(row)) for row in rows]   # each row split into words once, not once per asked word
    named, asked = set(words(beyond)), request_words(message)
    if "word" in asked and (pairs := _glossary(rows)):   # the words to learn, whatever else the lines hold
        return [f"{WHOLE_FILE} {len(pairs)} entries, one a line ({pairs[0]} ... {pairs[-1]})"]
    counted = _boxes_counted(message, rows)
    tags = _tags(rows)
    for word in dict.fromkeys(w for w in asked if w not in named and len(w) > 1):
        if said := _as_tag(word, tags) or _at_level(word, rows):
            counted.append(said)
            continue
        hits = [n for n, held in enumerate(in_rows, 1) if word in held]
        if 0 < len(hits) < len(rows):
            more = f" (+{len(hits) - shown} more)" if len(hits) > shown else ""
            counted.append(f"{len(hits)} of the {len(rows)} lines hold {word!r}: lines "
                           f"{', '.join(map(str, hits[:shown]))}{more}")
    if not counted and "line" in asked:   # "how many lines does todo.txt have?": 0.5B said 62,
        counted.append(f"{WHOLE_FILE} {len(rows)} lines")  # its size in bytes
    if not counted and "word" in asked:   # "how many words are in essay.txt?": the 1.5B said 168 for 30 (probe46)
        counted.append(f"{WHOLE_FILE} {sum(any(c.isalnum() for c in t) for t in text.split())} words")  # not "-"
    if not counted and (entries := list_entries(text)):   # headings and blank lines are no entries
        counted.append(f"{WHOLE_FILE} {entries} list entries")
    if not counted and (items := _list_items(rows)):
        counted.append(f"{WHOLE_FILE} {len(items)} entries, one a line ({items[0]} ... {items[-1]})")
    return counted[:3]


_LINES_SHOWN = 12
_TAG = re.compile(r"\[(?P<tag>[^\]\s][^\]]{0,24})\]")  # at an entry's start: "- [finished] Piranesi"
_OPEN_ASKED = re.compile(r"\b(?:not|n't|never)\s+(?:yet\s+)?(?:been\s+)?(?:checked|ticked|done|packed|bought|finished|"
                         r"completed?)|\bun(?:checked|ticked|done|finished)\b|\bstill\b|\bleft\b|\bremaining\b|"
                         r"\boutstanding\b|\bopen\b|\bto\s*do\b", re.IGNORECASE)
_DONE_ASKED = re.compile(r"\b(?:checked|ticked|done|packed|bought|finished|completed?)\b", re.IGNORECASE)


def _lines_said(hits: list[int]) -> str:
    more = f" (+{len(hits) - _LINES_SHOWN} more)" if len(hits) > _LINES_SHOWN else ""
    return ", ".join(map(str, hits[:_LINES_SHOWN])) + more


def _boxes_counted(message: str, rows: list[str]) -> list[str]:
    """The open or the ticked entries of a checklist, named, for a message that asks of either: "7 of the 18 list
    entries are open (not checked off): Sleeping pads, ...". Told "23 entries, one a line" before the 7 open of 18,
    the 1.5B answered "18 ... still not checked off" (probe52)."""
    entries = [e for row in rows if (e := entry(row))]
    boxes = [(box in "xX", text) for box, text in entries if box is not None]
    if len(boxes) < 2:
        return []
    ticked = [t for done, t in boxes if done]
    open_ = [t for done, t in boxes if not done]
    if _OPEN_ASKED.search(message):
        return [f"{len(open_)} of the {len(boxes)} list entries are open (not checked off): "
                + ", ".join(open_[:_LINES_SHOWN]) + f"; {len(ticked)} are ticked"]
    if _DONE_ASKED.search(message):
        return [f"{len(ticked)} of the {len(boxes)} list entries are ticked (checked off): "
                + ", ".join(ticked[:_LINES_SHOWN]) + f"; {len(open_)} are open"]
    return []


def _tags(rows: list[str]) -> dict[str, list[int]]:
    """The lines of each bracketed tag that list entries start with ("- [finished] Piranesi"), by tag."""
    out: dict[str, list[int]] = {}
    for n, row in enumerate(rows, 1):
        if (e := entry(row)) and e[0] is None and (m := _TAG.match(e[1])):
            out.setdefault(m.group("tag").strip().lower(), []).append(n)
    return out if len(out) > 1 or sum(map(len, out.values())) > 1 else {}


def _as_tag(word: str, tags: dict[str, list[int]]) -> str:
    """"6 of the 13 list entries are tagged [finished]: lines 2, 3, ..." when ``word`` is a tag's; "" otherwise. The
    word counted anywhere counted "never finished it" and "Unfinished Tales" too, 8 for 6 (probe52)."""
    tag = next((t for t in tags if word in words(t)), None)
    if tag is None:
        return ""
    entries = sum(map(len, tags.values()))
    others = "; ".join(f"[{t}] {len(ns)}" for t, ns in tags.items() if t != tag)
    return (f"{len(tags[tag])} of the {entries} list entries are tagged [{tag}]: lines {_lines_said(tags[tag])}"
            + (f" (the others: {others})" if others else ""))


def _at_level(word: str, rows: list[str]) -> str:
    """"4 of the 14 lines are at level ERROR: lines 4, 6, 10, 13" when ``word`` is a log level and ``rows`` are a log
    (most lines say a level as logs do: "ERROR", "level=error"); "" otherwise. A log's "WARN ... retrying after
    error" is no error (probe52)."""
    level = LogLevel.of(word)
    if level is None:
        return ""
    said = [bool(m := LEVEL_WORD.search(r)) and (m.group(1).isupper() or "=" in m.group(0)) for r in rows if r.strip()]
    if not said or sum(said) * 2 < len(said):
        return ""
    hits = [n for n, row in enumerate(rows, 1) if level.search(row)]
    return f"{len(hits)} of the {len(rows)} lines are at level {level.level.upper()}: lines {_lines_said(hits)}" \
        if hits else f"No line of the {len(rows)} is at level {level.level.upper()}"


_PAIR = re.compile(r"\S\s+[-\u2013\u2014=:]\s+\S|\S\t+\S")


def _glossary(rows: list[str]) -> list[str]:
    """The entries of a file that pairs a term with its gloss one a line ("la manzana - apple"), headings and
    comments left out, else []. Asked "how many vocab words r in my spanish unit 3 list", the count was the file's
    88 words, where a person counts its 17 words to learn (probe54)."""
    items = [r.strip() for r in rows if r.strip() and not r.lstrip().startswith("#")]
    pairs = [r for r in items if _PAIR.search(r)]
    return pairs if len(pairs) >= 3 and len(pairs) >= 0.8 * len(items) else []


def _list_items(rows: list[str]) -> list[str]:
    """The non-empty lines of a file that is a list, one short entry a line (a guest list, a packing list), else
    []. Asked "how many people are on the guest list?", the 0.5B read the 13 names and answered with them (probe48):
    no word of the question is in the file, so nothing else counted them."""
    items = [r.strip() for r in rows if r.strip()]
    if len(items) < 3 or any(len(r) > 60 or r.endswith((":", ".")) for r in items):
        return []
    return items