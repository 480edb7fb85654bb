"""What a request asks of the files under a folder, answered from the tree itself.

Asked "how many photos and how many videos are in Holiday 2022, with its day subfolders?", "how many files in
invoices (not the paid subfolder) are bigger than 200 bytes?" or "how many of the minutes in club/minutes mention
the budget?", both models listed the folder and then had to pick a kind's extensions out of a tally, compare
sizes entry by entry, or open six files: they answered with the top level's count, the subfolder they were told
to leave out, or the list of names (probe48). A listing of the folder leads with the answer instead: the files of
the kind asked, of the size asked, or that say the word asked, at any depth, with the subfolder the request
leaves out left out, each named by its path.

Each question is read from the words that make it one ("photos", "bigger than 200 bytes", "empty", "mention",
"in the name"); a request that asks none of them gets nothing here, and the listing is as before.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from gaia_lite.registry.context import ToolContext

from .file_sizes import asks_size, by_size
from .file_walk import ASKED_KINDS, KNOWN_EXTS, kind_exts, type_key, walk_folders
from .find import request_words, words
from .grep import LogLevel, grep, log_files, per_file, searchable, where, whole_word_regex
from .patterns import compile_user_regex

__all__ = ["Scope", "scope_of", "tree_lead", "asks_of_tree", "asks_folders", "asks_which", "kinds_asked", "exts_asked",
           "size_limit", "mention_term", "name_term", "names_with"]

NAMED = 12            # files a lead names by path; past it, the count alone
WALKED = 5000         # entries walked; a bigger tree gets no lead (a count search serves it)
_DEPTH = 64

_FOLDER_WORD = r"\s+(?:sub-?)?(?:folder|dir(?:ectory)?)s?\b"
_NAME = r"(?:the\s+|my\s+|its\s+|their\s+)?(?P<name>[\w.-]+(?:\s[\w.-]+)?)"
_LEFT_OUT = re.compile(r"\b(?:not|excluding|except(?:\s+for)?|without|leav(?:e|ing)\s+out|ignor(?:e|ing)|"
                       r"skip(?:ping)?|(?:not|don'?t|do\s+not)\s+count(?:ing)?)\s+(?:(?:what'?s|anything|everything|"
                       r"stuff|files?)\s+)?(?:(?:in|inside|under|from)\s+)?" + _NAME + _FOLDER_WORD,
                       re.IGNORECASE)
# a path left out needs no "folder": "not counting anything in deploy/archive" (probe50); nor does a subfolder's
# name ("not counting _unsorted", probe54): only the names of subfolders found below are left out
_LEFT_OUT_PATH = re.compile(r"\b(?:not|excluding|except(?:\s+for)?|without|ignor(?:e|ing)|skip(?:ping)?|"
                            r"(?:not|don'?t|do\s+not)\s+count(?:ing)?)\s+(?:(?:counting|anything|everything|what'?s|"
                            r"files?)\s+)*(?:in|under|inside|from)?\s*(?:the\s+|my\s+)?(?P<name>[\w.-]+(?:/[\w.-]+)*)/?",
                            re.IGNORECASE)
_TAKEN_IN = re.compile(r"\b(?:includ(?:e|ing)|plus|and\s+(?:also\s+)?|with|also)\s+(?:in\s+)?" + _NAME + _FOLDER_WORD,
                       re.IGNORECASE)


@dataclass(frozen=True)
class Scope:
    """The folder a request asks about and the subfolders it leaves out ("not the paid subfolder")."""
    folder: Path
    left_out: tuple[Path, ...] = ()


def _names_said(pattern: re.Pattern[str], message: str) -> set[str]:
    """The folder names ``pattern`` finds in ``message``, lower case, each also as its last word ("the old")."""
    out: set[str] = set()
    for m in pattern.finditer(message):
        name = m.group("name").lower()
        out |= {name, name.split()[-1], name.rstrip("/").rsplit("/", 1)[-1]}
    return out


def scope_of(ctx: ToolContext, folder: Path) -> Scope:
    """The folder to answer for, given the one a tool was asked to list. Asked "which files in downloads are pdfs?
    include the old subfolder" and "in the invoices folder (not the paid subfolder), how many ...", both models
    listed the subfolder named (downloads/old, invoices/paid): a subfolder the request names as one to take in or
    leave out, listed while the request names its parent too, stands for the parent. The subfolders the request
    leaves out are found below the folder, at any depth."""
    message = ctx.request.message
    if _OF_THOSE.search(message):   # "and how many of those have patch in the name": the set asked before
        message = f"{ctx.request.earlier}\n{message}"
    left = _names_said(_LEFT_OUT, message) | _names_said(_LEFT_OUT_PATH, message)
    taken = _names_said(_TAKEN_IN, message)
    base = Path(ctx.workdir).resolve()
    low = message.lower()
    if (folder.name.lower() in left | taken and folder != base and folder.parent != base
            and folder.parent.name.lower() in low):
        folder = folder.parent
    if not left:
        return Scope(folder)
    out: list[Path] = []
    for step in _walk(ctx, folder):
        if step is None:   # the subfolders left out that were found before the walk stopped
            break
        here, dirs, _ = step
        out += [here / d for d in dirs if d.lower() in left]
    return Scope(folder, tuple(out))


_OF_THOSE = re.compile(r"\b(?:of|among|in)\s+(?:those|these|them)\b", re.IGNORECASE)


def _walk(ctx: ToolContext, folder: Path, left_out: tuple[Path, ...] = ()):
    """walk_folders below ``folder``, the left-out subfolders pruned; past ``WALKED`` entries it yields None, once,
    and stops: what was walked of such a tree would give a wrong count."""
    seen = 0
    for here, dirs, files in walk_folders(folder, _DEPTH, ctx):
        dirs[:] = [d for d in dirs if here / d not in left_out]   # walk_folders descends into what is left
        seen += len(dirs) + len(files)
        if seen > WALKED:
            yield None
            return
        yield here, dirs, files


def _files(ctx: ToolContext, scope: Scope, top: bool, hidden: bool) -> tuple[list[Path], bool] | None:
    """The files in the scope (its top level alone with ``top``; hidden ones only with ``hidden``) and whether it
    has subfolders; None for a tree over ``WALKED`` entries."""
    out, nested = [], False
    for step in _walk(ctx, scope.folder, scope.left_out):
        if step is None:
            return None
        here, dirs, files = step
        nested = nested or bool(dirs)
        out += [here / f for f in files if hidden or not f.startswith(".")]
        if top:
            break
    return out, nested


# words first, unless written as an extension or said of files ("how many log files"): "this year's game night log"
# asks for no .log file (probe54)
_NOT_EXTS = frozenset({".go", ".doc", ".c", ".h", ".rs", ".ts", ".sh", ".a", ".so", ".gz", ".log"})


def exts_asked(message: str) -> list[str]:
    """The extensions ``message`` names as kinds of file ("which files r pdfs?", "how many mp3 files"), in order."""
    out, low = [], _FOLDER_NAMED.sub(" ", message.lower())
    refused = {f".{m.group(1)}" for m in _EXT_REFUSED.finditer(low)}   # "only .jpg, not .jpeg"
    for chunk in re.findall(r"[\w./-]+", low):
        word = chunk.rstrip(".").removeprefix(".")
        if re.search(r"[^a-z0-9]", word):   # a name or a path: "observing_logs" asks for no .log file (probe50)
            continue
        ext = next((e for e in (f".{word}", f".{word.removesuffix('s')}") if e in KNOWN_EXTS), None)
        if ext is None or ext in refused or word in ASKED_KINDS:   # "markdown" is a kind: .md too (probe54)
            continue
        if ext not in _NOT_EXTS or re.search(rf"\.{ext[1:]}\b|\b{ext[1:]}s?\s+files?\b", low):
            out.append(ext)
    # a type we do not know, written as one: "how many .gpx files are in cycling/rides" (probe54)
    out += [f".{m.group(1)}" for m in _DOTTED_TYPE.finditer(low) if f".{m.group(1)}" not in refused]
    return list(dict.fromkeys(out))


_DOTTED_TYPE = re.compile(r"(?<![\w/.-])\.([a-z0-9]{2,5})\s+files?\b")


_EXT_REFUSED = re.compile(r"\b(?:not|no|excluding|except|without)\s+(?:the\s+|any\s+)?\.([a-z0-9]+)\b")


_FOLDER_NAMED = re.compile(r"\b[\w.-]+\s+(?:folder|directory|dir)\b", re.IGNORECASE)


def kinds_asked(message: str) -> list[str]:
    """The kinds of file (file_walk.ASKED_KINDS) ``message`` names, in order: "photos and videos" -> both; a folder's
    name is none ("how big is my pics folder?")."""
    # a path's words name a place, not a kind: "how many jpg pics are in photos/birds" asks no photo files (probe56)
    low = _PATH.sub(" ", _FOLDER_NAMED.sub(" ", message.lower()))
    said = [w.removesuffix("s") for w in re.findall(r"[a-z]+", low)]
    return list(dict.fromkeys(w for w in said if w in ASKED_KINDS))


_PATH = re.compile(r"[\w.-]*(?:/[\w.-]*)+")


def _kinds_lead(message: str, files: list[Path], where_said: str, base: Path) -> list[str]:
    """"5 photo files (.png, .jpg, ...) under Holiday 2022/, subfolders included: ..." for each kind or extension
    asked, and which there are more of when two are."""
    exts = exts_asked(message)
    kinds = kinds_asked(message)
    # ".jpg pics, not .jpeg" or "jpg pics": the extension said, not every extension of its kind (probe56)
    narrowed = [e for e in exts if e in message.lower() or any(e in kind_exts(k) for k in kinds)]
    groups = ([] if narrowed else [(f"{k} file", set(kind_exts(k))) for k in kinds]) or \
        [(f"{e} file", {e}) for e in exts]
    out, counts = [], []
    for label, exts in groups[:3]:
        hits = [p for p in files if type_key(p.name) in exts]
        kinds = f" ({', '.join(sorted(exts))})" if len(exts) > 1 else ""
        counts.append((len(hits), label.split()[0]))
        # "which CSV file directly in lab/data is the biggest in size?": the count alone named no file (probe52)
        ranked = by_size(message, [(_size(p), where(p, base)) for p in hits])
        out.append(f"{len(hits)} {label}{'' if len(hits) == 1 else 's'}{kinds} {where_said}"
                   + (f". {ranked}" if ranked else _named(hits, base)))
    if len(counts) == 2 and counts[0][0] != counts[1][0] and _COMPARES.search(message):
        (n1, k1), (n2, k2) = sorted(counts, reverse=True)
        out.append(f"There are more {k1} files than {k2} files ({n1} to {n2})")
    asked = set(request_words(message))
    of_kinds = {e for _, es in groups for e in es}   # once, not once per file of the tree
    named = [p for p in files if type_key(p.name) in of_kinds and asked & set(words(p.stem))]
    if len(named) == 1:   # "a knitting pattern for a cardigan, its a md or txt file": the one named so (probe53)
        out.insert(0, f"{where(named[0], base)} is the one whose name holds what the request says")
    return out


# "which are there more of", not "its a md or txt file i think" (probe53)
_COMPARES = re.compile(r"\b(?:more|fewer|less|than|most|fewest|compare[sd]?|vs|versus)\b", re.IGNORECASE)


def _named(paths: list[Path], base: Path, sizes: bool = False) -> str:
    if not paths or len(paths) > NAMED:
        return ""
    return ": " + ", ".join(where(p, base) + (f" ({_size(p):,} B)" if sizes else "") for p in sorted(paths))


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


_UNITS = {"b": 1, "byte": 1, "bytes": 1, "k": 1024, "kb": 1024, "kib": 1024, "m": 1024 ** 2, "mb": 1024 ** 2,
          "mib": 1024 ** 2, "g": 1024 ** 3, "gb": 1024 ** 3, "gib": 1024 ** 3}
_LIMIT = re.compile(r"\b(?P<side>bigger|larger|more|greater|over|above|heavier|smaller|less|under|below|lighter)"
                    r"(?:\s+than)?\s+(?P<n>\d+(?:\.\d+)?)\s*(?P<unit>bytes?|b|kib|kb|k|mib|mb|m|gib|gb|g)\b", re.I)
_EMPTY = re.compile(r"\bempty\s+files?\b|\b(?:0|zero)\s*(?:bytes?|b)\b", re.IGNORECASE)


def size_limit(message: str) -> tuple[str, int, str] | None:
    """(">" or "<", bytes, as said) for "bigger than 200 bytes", "under 2 MB"; ("=", 0, "empty (0 bytes)") for
    "empty files" and "0 bytes"; None for a message that sets no size."""
    if _EMPTY.search(message):
        return "=", 0, "empty (0 bytes)"
    m = _LIMIT.search(message)
    if m is None:
        return None
    big = m.group("side").lower() in ("bigger", "larger", "more", "greater", "over", "above", "heavier")
    n = int(float(m.group("n")) * _UNITS[m.group("unit").lower()])
    said = f"{'bigger' if big else 'smaller'} than {m.group('n')} {m.group('unit')}"
    return (">" if big else "<"), n, said


def _size_lead(message: str, files: list[Path], where_said: str, base: Path) -> list[str]:
    limit = size_limit(message)
    if limit is None:
        return []
    side, n, said = limit
    keep = {"=": lambda s: s == 0, ">": lambda s: s > n, "<": lambda s: s < n}[side]
    hits = [p for p in files if keep(_size(p))]
    noun = "file is" if len(hits) == 1 else "files are"
    return [f"{len(hits)} {noun} {said} {where_said}" + _named(hits, base, sizes=side != "=")]


_MENTION = re.compile(r"\b(?:mention(?:s|ed|ing)?|contain(?:s|ing)?|talk(?:s|ing)?\s+about|refer(?:s|ring)?\s+to|"
                      r"(?:say|says)\s+(?:anything\s+|something\s+)?about)\s+(?P<rest>.+)", re.IGNORECASE)
_QUOTED = re.compile(r"[\"'“‘](?P<q>[^\"'”’]{2,60})[\"'”’]")
_NOT_TERMS = frozenset("most fewest least more fewer files file folders folder items things stuff space room".split())
_FILLER = frozenset("the a an any some word words term phrase text my our their its of".split())


_IN_THEM = re.compile(r"\b(?:have|has|with|use[sd]?|needs?|calls?\s+for|put)\s+(?P<rest>(?:[\w-]+\s+){0,2}?[\w-]+)\s+"
                      r"in\s+(?:them|it)\b", re.IGNORECASE)


def mention_term(message: str) -> str | None:
    """What a request asks files to mention: "mention the budget" -> "budget", "which recipes have peanuts in them?"
    -> "peanuts"; a quoted phrase as quoted."""
    m = _MENTION.search(message) or _IN_THEM.search(message)
    if m is None:
        return None
    if (q := _QUOTED.search(m.group("rest"))) is not None:
        return q.group("q").strip()
    words = [w for w in re.findall(r"[\w-]+", m.group("rest")) if w.lower() not in _FILLER]
    if not words or len(words[0]) < 2 or words[0].lower() in _NOT_TERMS:
        return None   # "which folder has the most files in it?" asks no word of the files
    return words[0].lower()


def _mention_lead(ctx: ToolContext, scope: Scope, files: list[Path], where_said: str, base: Path) -> list[str]:
    term = mention_term(ctx.request.message)
    if term is None:
        return []
    stem = term[:-1] if len(term) > 4 and term.endswith("s") else term
    rx = compile_user_regex(stem, ignore_case=True, literal=True)
    readable = [p for p in files if searchable(p)]   # binary files (a photo, a .docx) are not read for words
    if rx is None or not readable:
        return []
    found = grep(ctx, readable, rx)
    holding = sorted({h.path for h in found.hits})
    if asks_which(ctx.request.message) and 0 < len(holding) <= NAMED:
        # the names first: told "4 of the 8 files under recipes/ mention 'peanuts': ...", the 1.5B answered
        # "which of my recipes have peanuts in them?" with "4 of them mention peanuts" (probe49)
        return [f"The files {where_said} that mention {term!r}" + _named(holding, base)
                + f" ({len(holding)} of the {len(readable)})"]
    verb = "mentions" if len(holding) == 1 else "mention"
    # the count alone before the names, the files read after them: "4 of the 8 files under recipes/ mention 'garlic'"
    # was answered "8 recipes mention garlic" by the 0.5B (probe50)
    return [f"{len(holding)} file{'' if len(holding) == 1 else 's'} {where_said} {verb} {term!r}"
            + _named(holding, base) + f" ({len(readable)} files read)"]


_WHICH = re.compile(r"\b(?:which|what|where)\b|\blist\b", re.IGNORECASE)


def asks_which(message: str) -> bool:
    """Whether ``message`` asks which files (or where, or for a list): the files' names then come first."""
    return bool(_WHICH.search(message))


_IN_NAME = re.compile(r"\b(?:with|having|has|have|contain(?:s|ing)?)\s+[\"'“]?(?P<a>[\w.-]+)[\"'”]?\s+in\s+"
                      r"(?:the|their|its|his|her)\s+(?:file\s*)?names?\b|\bnames?\s+(?:has|have|contains?|includes?|"
                      r"with)\s+[\"'“]?(?P<b>[\w.-]+)|\b(?:named|called)\s+(?:like\s+)?[\"'“](?P<c>[^\"'”]+)[\"'”]",
                      re.IGNORECASE)


def name_term(message: str) -> str | None:
    """What a request asks file names to hold: "files with draft in the name" -> "draft"."""
    m = _IN_NAME.search(message)
    return None if m is None else next(g for g in m.groups() if g).lower()


def names_with(paths: list[Path], term: str) -> list[Path]:
    """The paths whose file names hold ``term``, any case."""
    return [p for p in paths if term in p.name.lower()]


def _name_lead(message: str, files: list[Path], where_said: str, base: Path) -> list[str]:
    term = name_term(message)
    if term is None:
        return []
    hits = names_with(files, term)
    return [f"{len(hits)} file{' has' if len(hits) == 1 else 's have'} {term!r} in {'its' if len(hits) == 1 else 'their'}"
            f" name {where_said}" + _named(hits, base)]


_MOST = re.compile(r"\b(?P<end>most|fewest|least)\s+(?:\w+\s+)?(?:files|things|stuff|items|in it)\b", re.IGNORECASE)


def _most_lead(message: str, scope: Scope, files: list[Path], base: Path) -> list[str]:
    """"Tournaments/ has the most files (5 at any depth): Finances/ 3, Members/ 2, Tournaments/ 5" for "which
    folder inside Chess Club has the most files?" (the 0.5B echoed the call, probe48)."""
    m = _MOST.search(message)
    if m is None:
        return []
    per: dict[str, int] = {}
    for p in files:
        if p.parent != scope.folder:
            top = p.relative_to(scope.folder).parts[0]
            per[top] = per.get(top, 0) + 1
    if len(per) < 2:
        return []
    fewest = m.group("end").lower() != "most"
    ranked = sorted(per.items(), key=lambda kv: (kv[1] if fewest else -kv[1], kv[0].lower()))
    if ranked[0][1] == ranked[1][1]:
        return []
    said = ", ".join(f"{where(scope.folder / d, base)}/ {n}" for d, n in ranked)
    end = "fewest" if fewest else "most"
    return [f"{where(scope.folder / ranked[0][0], base)}/ has the {end} files ({ranked[0][1]} at any depth); by "
            f"subfolder: {said}"]


_TOTAL_SIZE = re.compile(r"\bhow (?:big|large|heavy)\b|\btotal (?:file )?size\b|\bhow much (?:space|room|disk|storage)\b|"
                         r"\bsize of (?:the |my |this |that )?(?:whole )?(?:folder|directory)\b|\btake up\b",
                         re.IGNORECASE)


def _total_lead(message: str, files: list[Path], where_said: str) -> list[str]:
    """"The 9 files under photos/ (subfolders included) take 1,234,567 B (1.2 MB) in all" for "how big is my photos
    folder?": a listing gives each top-level file's size, and no model adds up a tree."""
    if not _TOTAL_SIZE.search(message) or asks_size(message):
        return []
    total = sum(_size(p) for p in files)
    return [f"The {len(files)} file{'' if len(files) == 1 else 's'} {where_said} take {total:,} B ({_human(total)}) "
            f"in all"]


def _human(n: int) -> str:
    for unit, size in (("GB", 1024 ** 3), ("MB", 1024 ** 2), ("KB", 1024)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


_EMPTY_FOLDERS = re.compile(r"\bempty (?:sub-?)?(?:folders?|director(?:y|ies)|dirs?)\b", re.IGNORECASE)


def _empty_folders_lead(ctx: ToolContext, message: str, scope: Scope, where_said: str) -> list[str]:
    """"2 empty folders under ...: a/, b/c/" for "are there any empty folders in projects?"."""
    if not _EMPTY_FOLDERS.search(message):
        return []
    base = Path(ctx.workdir).resolve()
    steps = list(_walk(ctx, scope.folder, scope.left_out))
    if None in steps:
        return []
    empty = [here for here, dirs, files in steps if not dirs and not files and here != scope.folder]
    return [f"{len(empty)} empty folder{'' if len(empty) == 1 else 's'} {where_said}"
            + (": " + ", ".join(where(p, base) + "/" for p in sorted(empty)[:NAMED]) if empty else "")]


_FOLDERS_COUNT = re.compile(r"\bhow\s+many\s+(?:[\w'-]+\s+){0,2}?(?:sub-?)?(?:folders|directories|dirs)\b",
                            re.IGNORECASE)


def asks_folders(message: str) -> bool:
    """Whether ``message`` asks how many folders there are ("how many client folders r there in clients?")."""
    return bool(_FOLDERS_COUNT.search(message)) and not _EMPTY_FOLDERS.search(message)


def _folders_lead(ctx: ToolContext, message: str, scope: Scope) -> list[str]:
    """"translation/clients/ holds 5 folders (_archive/ left out, as asked): ..." for "how many client folders r
    there in translation/clients? dont count the _archive folder": told the listing's 6, the 1.5B answered 6
    (probe52). The folders directly inside, when the request leaves one of them out; else the listing says it."""
    if not asks_folders(message):
        return []
    base = Path(ctx.workdir).resolve()
    try:
        subs = sorted(p for p in scope.folder.iterdir() if p.is_dir() and not p.name.startswith("."))
    except OSError:
        return []
    kept = [p for p in subs if p not in scope.left_out]
    left = [p for p in subs if p in scope.left_out]
    if not left:   # the listing's count is the answer
        return []
    folder = "The working folder" if scope.folder == base else where(scope.folder, base) + "/"
    said = ", ".join(f"{p.name}/" for p in left)
    return [f"{folder} holds {len(kept)} folder{'' if len(kept) == 1 else 's'} directly"
            + (f" ({said} left out, as asked)" if left else "") + ": " + ", ".join(f"{p.name}/" for p in kept[:NAMED])
            + (f" (+{len(kept) - NAMED} more)" if len(kept) > NAMED else "")]


_LINES_OF = re.compile(r"\bhow\s+many\s+(?P<word>[\w-]+)\s+(?:lines|entries|messages)\b", re.IGNORECASE)


def _lines_lead(ctx: ToolContext, scope: Scope, files: list[Path], where_said: str, base: Path) -> list[str]:
    """"6 lines at level ERROR in the logs under logs/ (subfolders included): logs/app.log (2), ..." for "how many
    error lines are there across the logs?" (a word's lines, as whole words, when it is no log level). The 0.5B
    passed the logs folder to analyze_data_file (probe49)."""
    m = _LINES_OF.search(ctx.request.message)
    if m is None:
        return []
    word = m.group("word")
    readable = [p for p in files if searchable(p)]
    level, logs = LogLevel.of(word), log_files(readable)
    if level is not None and logs:
        rx, among, what = level, logs, f"at level {level.level.upper()} in the logs"
    elif (whole := whole_word_regex(word)) is not None and (rx := compile_user_regex(whole, ignore_case=True)):
        among, what = readable, f"with {word!r}"
    else:
        return []
    found = grep(ctx, among, rx)
    counts = ", ".join(per_file(found, base))
    return [f"{found.count} line{'' if found.count == 1 else 's'} {what} {where_said}"
            + (f": {counts}" if counts else "")]


def asks_of_tree(message: str) -> bool:
    """Whether ``message`` asks something ``tree_lead`` answers."""
    return bool(kinds_asked(message) or exts_asked(message) or size_limit(message) or asks_size(message)
                or mention_term(message) or name_term(message) or _MOST.search(message) or _TOTAL_SIZE.search(message)
                or _EMPTY_FOLDERS.search(message) or _FOLDERS_COUNT.search(message) or _LINES_OF.search(message)
                or _TIMES.search(message))


_TIMES = re.compile(r"\bhow\s+(?:many\s+times|often)\s+(?:does|do|did|is|are|was)\s+(?:the\s+(?:word|name|term)\s+)?"
                    r"[\"'\u201c]?(?P<word>[\w-]+)[\"'\u201d]?\s+"
                    r"(?:appear|occur|show\s+up|come\s+up|(?:get\s+)?mentioned|used)",
                    re.IGNORECASE)


def _times_lead(ctx: ToolContext, files: list[Path], where_said: str, base: Path) -> list[str]:
    """"In observing_logs/, the word 'Kepler' appears 7 times in all: ..." for "how many times does
    the word Kepler appear across the files in observing_logs?": the 1.5B counted lines, or files (probe50)."""
    m = _TIMES.search(ctx.request.message)
    if m is None or (whole := whole_word_regex(m.group("word"))) is None or \
            (rx := compile_user_regex(whole, ignore_case=True)) is None:
        return []
    found, word = grep(ctx, [p for p in files if searchable(p)], rx), re.compile(whole, re.IGNORECASE)
    per: dict[Path, int] = {}
    for h in found.hits:
        per[h.path] = per.get(h.path, 0) + max(1, len(word.findall(h.text)))
    total = sum(per.values())
    counts = ", ".join(f"{where(p, base)} ({n})" for p, n in per.items())
    # the count before the word: led by "'Kepler' appears 7 times", the 1.5B answered "Kepler" (probe50)
    return [f"{where_said[0].upper()}{where_said[1:]}, the word {m.group('word')!r} appears {total} "
            f"time{'' if total == 1 else 's'} in all" + (f": {counts}" if counts else "")]


def tree_lead(ctx: ToolContext, scope: Scope, top: bool = False) -> str:
    """The sentences that answer what the request asks of the files under ``scope`` (see the module's
    docstring), or "" when it asks none of it, or the tree is too big to walk here."""
    message = ctx.request.message
    if not asks_of_tree(message):
        return ""
    # an empty ".gitkeep" is an empty file to the person asking for the empty files (probe48)
    walked = _files(ctx, scope, top, hidden=size_limit(message) is not None)
    if walked is None:
        return ""
    files, nested = walked
    base = Path(ctx.workdir).resolve()
    where_said = _where_said(scope, base, top, nested)
    # a count of lines is the question: "the logs" in "how many error lines across the logs" asks no count of .log files
    kinds = [] if _LINES_OF.search(message) or _TIMES.search(message) else _kinds_lead(message, files, where_said, base)
    said = (kinds + _size_lead(message, files, where_said, base)
            + _mention_lead(ctx, scope, files, where_said, base) + _name_lead(message, files, where_said, base)
            + _most_lead(message, scope, files, base) + _total_lead(message, files, where_said)
            + _empty_folders_lead(ctx, message, scope, where_said) + _folders_lead(ctx, message, scope)
            + _lines_lead(ctx, scope, files, where_said, base)
            + _times_lead(ctx, files, where_said, base))
    if not said and nested and size_limit(message) is None and (ranking := by_size(message, [(_size(p), where(p, base))
                                                                                   for p in files])):
        said = [f"{where_said[0].upper()}{where_said[1:]}: {ranking[0].lower()}{ranking[1:]}"]
    return ". ".join(said) + "." if said else ""


def _where_said(scope: Scope, base: Path, top: bool, nested: bool) -> str:
    """"under invoices/ (subfolders included, invoices/paid/ left out)", "directly in notes/", "in club/minutes/"."""
    folder = "the working folder" if scope.folder == base else where(scope.folder, base) + "/"
    left = f"{', '.join(where(p, base) + '/' for p in scope.left_out)} left out" if scope.left_out else ""
    if top or not nested:
        return f"{'directly in' if top else 'in'} {folder}" + (f" ({left})" if left and not top else "")
    return f"under {folder} (subfolders included{', ' + left if left else ''})"
