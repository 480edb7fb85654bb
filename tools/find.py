"""One engine for finding a file or folder by what a person calls it.

People (and small models) name things in words: "the website redesign project" for a folder
``website-redesign``, "the Acme Corp client" for ``clients/acme-corp``, a guessed path
``docs/handbook.txt`` for ``policies/employee-handbook.md``. An exact-name search then finds nothing,
and the answer stops there. Here a name and a path are both read as *words*: case, the separators
``- _ . /``, camelCase, letters vs digits and plural forms do not matter, and a word spelled a little
differently still counts. Every entry the walk sees is scored by how many of the asked-for words its
name (and, at a lower weight, its folders) holds, and the best come back with the reason for each, so a
near miss is offered instead of a bare "nothing found".

``search_file``, ``search_directory``, ``search_file_content`` and the path guesses of ``read_file``
and the document tools all use this module. Text is the last resort (``mentioned_in``): files whose
text holds the words.
"""

from __future__ import annotations

import calendar
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Literal, Sequence, TypeVar

from rapidfuzz import fuzz

from gaia_lite.memory.keywords import STOPWORDS
from gaia_lite.registry.context import ToolContext
from gaia_lite.registry.failure import ToolFailure

from .file_text import TEXT_EXTS, text_start
from .grep import denies, grep
from .setting_paths import SETTINGS_SUFFIXES, keys_above
from .file_walk import is_pattern, name_matcher, name_when, newest_version, sandbox_roots, walk_folders
from .patterns import MAX_PATTERN_CHARS, compile_user_regex, singular

__all__ = ["Query", "Found", "Entry", "AllWords", "words", "singular", "scan", "find", "rank", "mentioned_in",
           "locate", "missing_file", "named_in", "named_in_words", "named_by_user", "folder_named_by_user", "PATH_MENTION", "clear_winner", "shown", "ratio", "DEFAULT_DEPTH", "Similarity",
           "Pointed", "pointed_by_request", "pointed_message", "request_words", "request_lines", "files_named",
           "singled_out", "singled_pointed", "superseded", "current_ones", "not_ruled_out", "asks_old", "one_pointed", "table_asked",
           "SUPERSEDED_WORDS", "asks_summary", "denied_lines"]

Kind = Literal["file", "folder", "any"]
Similarity = Callable[[str, str], float]

# Levels a search walks unless asked for more. Measured on a 24k-entry tree (scripts/bench_find.py): the
# walk costs per entry, not per level, so a deep tree is no dearer than a wide one of the same size.
DEFAULT_DEPTH = 16
ENTRY_BUDGET = 100_000   # entries one search looks at, at most: a home folder's worth

# Words that say what kind of thing is meant, not which one ("the report file", "my notes folder")
_STOP = frozenset("the a an my our your his her their this that these those of for in on at to from and or "
                  "with called named file files folder folders directory directories dir dirs".split())
# Words that may or may not be part of a name ("the redesign project" is often the folder ``redesign``):
# a miss on one of them costs half as much.
_GENERIC = frozenset("project client customer document doc thing stuff item info".split())
_GENERIC_WEIGHT = 0.5
_PATH_WEIGHT = 0.75        # a word found in an entry's folders counts less than one in its own name
_FUZZY_MIN = 0.8           # similarity from which two spellings are the same word ("handbok", "handbook")
MIN_SCORE = 0.55


_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_WORD = re.compile(r"[^\W\d_]+|\d+")


def words(text: str) -> list[str]:
    """The words of a name or phrase, lower case and singular: ``meetingNotes-March_2024.md`` ->
    ``meeting note march 2024 md``."""
    return [singular(w) for w in _WORD.findall(_CAMEL.sub(" ", text).lower())]


@dataclass(frozen=True)
class Query:
    """What was asked for, as words: the name's words, the extension it was given with (if any), and
    the words of the folders of a guessed path."""

    raw: str
    words: tuple[str, ...]
    ext: str = ""
    folders: tuple[str, ...] = ()

    @classmethod
    def parse(cls, text: str) -> "Query":
        raw = text.strip()
        cleaned = re.sub(r"[*?^$()\[\]{}|+\\]", " ", raw.replace(".*", " "))  # "*budget*", ".*budget.*"
        head, _, name = cleaned.replace("\\", "/").rstrip("/").rpartition("/")
        ext = ""
        m = re.fullmatch(r"(.*\w)\.([A-Za-z][A-Za-z0-9]{0,4})", name.strip())
        if m and " " not in m.group(2):
            name, ext = m.group(1), "." + m.group(2).lower()
        kept = [w for w in words(name) if w not in _STOP] or words(name)
        folders = tuple(w for w in words(head) if w not in _STOP and w not in kept)
        return cls(raw, tuple(dict.fromkeys(kept)), ext, folders)

    def weight(self, word: str) -> float:
        return _GENERIC_WEIGHT if word in _GENERIC else 1.0


@dataclass(frozen=True)
class Found:
    """One candidate: where it is, how well it matches (0-1, 1.0 for every word in its name) and why."""

    path: Path
    is_dir: bool
    score: float
    reason: str
    strict: bool = False  # its name holds every word (or matches the glob or regex) as given


def ratio(a: str, b: str) -> float:
    """How alike two spellings are, 0-1: rapidfuzz's ratio (2 x longest common subsequence / total
    length). It ranks the cases of scripts/bench_find.py as difflib's did, faster; see docs/benchmarks.md."""
    return fuzz.ratio(a, b) / 100.0


@dataclass
class _Scorer:
    """Scores entries against one query. A tree repeats its words and folders, so each spelling pair
    is compared once, each name split into words once and each folder's words scored once per search."""

    query: Query
    similarity: Similarity = ratio
    _pairs: dict[tuple[str, str], float] = field(default_factory=dict)
    _words: dict[str, tuple[str, ...]] = field(default_factory=dict)
    _folders: dict[tuple[str, ...], tuple[list[float], float]] = field(default_factory=dict)

    def pair(self, asked: str, have: str) -> float:
        key = (asked, have)
        if key not in self._pairs:
            self._pairs[key] = _pair(asked, have, self.similarity)
        return self._pairs[key]

    def best(self, asked: str, have: Sequence[str]) -> tuple[float, str]:
        score, which = 0.0, ""
        for word in have:
            s = self.pair(asked, word)
            if s > score:
                score, which = s, word
        return score, which

    def name_words(self, name: str) -> tuple[str, ...]:
        if name not in self._words:
            stem = os.path.splitext(name)[0] if "." in name[1:] else name
            self._words[name] = tuple(words(stem) or words(name))
        return self._words[name]

    def folders(self, parents: tuple[str, ...]) -> tuple[list[float], float]:
        """(score of each asked-for word among these folders' words, share of the guessed folders found)."""
        if parents not in self._folders:
            around = [w for p in parents for w in self.name_words(p)]
            hints = [self.best(w, around)[0] for w in self.query.folders]
            self._folders[parents] = ([_PATH_WEIGHT * self.best(w, around)[0] for w in self.query.words],
                                      sum(hints) / len(hints) if hints else 0.0)
        return self._folders[parents]

    def score(self, name: str, parents: tuple[str, ...]) -> tuple[float, str]:
        """(score, reason) of one entry named ``name`` below the folders ``parents`` (relative to its root).

        0.8 x the weighted share of asked-for words found (in the name, or at 0.75 in its folders) + 0.2 x
        the share of the name's words asked for, plus small bonuses for the guessed folders and extension:
        a wrong guess of those costs nothing, the name's words decide."""
        query, own = self.query, self.name_words(name)
        in_name_scores = [self.best(w, own) for w in query.words]
        if not own or all(s < 0.5 for s, _ in in_name_scores):
            return 0.0, ""  # the name must hold at least one asked-for word: most entries stop here
        path_scores, hints = self.folders(parents)
        got, in_name, in_path, spelled = 0.0, [], [], []
        for w, (s_name, seen), s_path in zip(query.words, in_name_scores, path_scores):
            got += query.weight(w) * max(s_name, s_path)
            if s_name >= max(s_path, 0.5):
                in_name.append(w)
                spelled += [seen] if not (seen.startswith(w) or w.startswith(seen) or w in seen) else []
            elif s_path > 0:
                in_path.append(w)
        covered = sum(1 for o in own if any(self.pair(w, o) >= 0.8 for w in query.words)) / len(own)
        ext = os.path.splitext(name)[1].lower() if "." in name[1:] else ""
        score = (0.8 * got / sum(query.weight(w) for w in query.words) + 0.2 * covered + 0.05 * hints
                 + (0.03 if query.ext and ext == query.ext else 0.0))
        return round(min(score, 1.0), 3), _reason(query, in_name, in_path, spelled, ext)


def _pair(asked: str, have: str, similarity: Similarity) -> float:
    """How well the word ``have`` stands for the asked-for word ``asked`` (0-1)."""
    if asked == have:
        return 1.0
    short, long_ = sorted((asked, have), key=len)
    if asked.isdigit() or have.isdigit():  # 2024 is not 2023; but 2024 is part of 20240315
        return 0.85 if short.isdigit() and long_.isdigit() and len(short) >= 4 and short in long_ else 0.0
    if len(short) >= 3 and long_.startswith(short) and len(short) * 2 >= len(long_):
        return 0.85                                          # "doc" and "docs", "config" and "configs"
    if len(short) >= 4 and short in long_:
        return 0.8                                           # "handbook" in "employeehandbook"
    if len(short) >= 4 and len(long_) - len(short) <= 3:
        sim = similarity(asked, have)
        return round(sim * 0.9, 3) if sim >= _FUZZY_MIN else 0.0   # "handbok", "recipies"
    return 0.0


def _reason(query: Query, in_name: list[str], in_path: list[str], spelled: list[str], ext: str) -> str:
    parts = [f"name words match {len(in_name)}/{len(query.words)} ({', '.join(in_name)})"]
    if in_path:
        parts.append(f"its folders hold {', '.join(in_path)}")
    if spelled:
        parts.append(f"spelled {', '.join(repr(s) for s in spelled)}")
    if query.ext and ext and ext.lower() != query.ext:
        parts.append(f"extension {ext}, not {query.ext}")
    return "; ".join(parts)


@dataclass(frozen=True)
class Entry:
    """A file or folder the walk saw: its path, its folders below the root it was found under."""

    path: Path
    parents: tuple[str, ...]
    is_dir: bool


def scan(ctx: ToolContext, roots: Sequence[Path] | None = None, depth: int = DEFAULT_DEPTH,
         budget: int = ENTRY_BUDGET) -> Iterator[Entry]:
    """Every file and folder below ``roots`` (default: the sandbox roots) the searches may see."""
    seen = 0
    for root in roots or sandbox_roots(ctx):
        for here, dirs, files in walk_folders(root, depth, ctx):
            parents = Path(os.path.relpath(here, root)).parts if here != root else ()
            for name, is_dir in [(d, True) for d in dirs] + [(f, False) for f in files]:
                seen += 1
                if seen > budget:
                    return
                yield Entry(here / name, tuple(p for p in parents if p != "."), is_dir)


def rank(query_text: str, entries: Iterable[Entry], kind: Kind = "any", *, keep: Callable[[Path], bool] | None = None,
         similarity: Similarity = ratio, min_score: float = MIN_SCORE) -> list[Found]:
    """Entries of ``kind`` that match ``query_text``, best first. A name the plain matcher accepts (every
    word in it, or the glob or regex) is ``strict`` and ranks first; any other entry needs a score of
    ``min_score`` or more."""
    query, strict_match = Query.parse(query_text), name_matcher(query_text)
    scorer, found = _Scorer(query, similarity), []
    for e in entries:
        if (kind == "file" and e.is_dir) or (kind == "folder" and not e.is_dir) or (keep and not keep(e.path)):
            continue
        strict = strict_match(e.path.name)
        score, reason = scorer.score(e.path.name, e.parents) if query.words else (0.0, "")
        if strict:
            found.append(Found(e.path, e.is_dir, max(score, 1.0), _strict_reason(query_text), True))
        elif score >= min_score and not is_pattern(query_text, regex_only=True):
            found.append(Found(e.path, e.is_dir, score, reason))
    found.sort(key=lambda f: (not f.strict, -f.score, len(f.path.parts), str(f.path)))
    return found


def _strict_reason(query_text: str) -> str:
    return "name matches the pattern" if is_pattern(query_text) else "name holds every word"


def find(ctx: ToolContext, query_text: str, kind: Kind = "any", *, roots: Sequence[Path] | None = None,
         depth: int = DEFAULT_DEPTH, keep: Callable[[Path], bool] | None = None) -> list[Found]:
    """Files and folders below ``roots`` (default: the sandbox roots) that match ``query_text``, best
    first (see ``rank``)."""
    return rank(query_text, scan(ctx, roots, depth), kind, keep=keep)


def files_named(ctx: ToolContext, text: str, *, keep: Callable[[Path], bool] | None = None) -> list[Path]:
    """The files under the allowed folders whose names hold every word of ``text`` (the plain matcher's strict
    matches), best first; [] for text with no words."""
    if not words(text):
        return []
    return [f.path for f in rank(text, scan(ctx, None), "file", keep=keep) if f.strict]


def clear_winner(found: Sequence[Found], *, min_score: float = 0.75, margin: float = 0.1) -> Found | None:
    """The one candidate good enough to act on without asking: strong, and well ahead of the next."""
    if not found or found[0].score < min_score:
        return None
    if len(found) > 1 and found[0].score - found[1].score < margin:
        return None
    return found[0]


def shown(path: Path, base: Path) -> str:
    """``path`` relative to ``base`` when it is below it (what a person reads), else as is."""
    try:
        return str(path.relative_to(base))
    except ValueError:
        return str(path)


def _forms(word: str) -> list[str]:
    """A word as a line may write it: as given, and in its singular ("tomatoes" finds "tomato leaves", "policies"
    "policy"); each found as text, so the singular finds the plural too."""
    low = word.lower()
    one = singular(low)
    return list(dict.fromkeys([low, one]))


class AllWords:
    """Matches a line that holds every word of a phrase, in any order and any case (RE2 has no
    look-ahead, so this is one literal pattern per word)."""

    def __init__(self, found: Sequence[str]) -> None:
        self.words = tuple(found)
        self._patterns = [compile_user_regex("|".join(re.escape(f) for f in _forms(w)), ignore_case=True)
                          for w in self.words]

    @classmethod
    def of(cls, phrase: str, *, min_words: int = 1) -> "AllWords | None":
        """The words of ``phrase`` (two letters or more, not "the", "file", "had" ...) when there are at least
        ``min_words`` and they are more than the phrase as written; else None (nothing to relax)."""
        found = list(dict.fromkeys(w for w in re.findall(r"\w{2,}", phrase) if w.lower() not in _STOP))
        # "had" in "tomatoes had blight" is in no line that says so (probe51): words that say nothing are dropped,
        # when two words or more are left
        said = [w for w in found if w.lower() not in STOPWORDS]
        found = said if len(said) >= 2 else found
        if len(found) < max(1, min_words) or [phrase.strip()] == found:
            return None
        return cls(found)

    def search(self, line: str) -> bool:
        return all(p is not None and p.search(line) for p in self._patterns)

    def each(self) -> list["AllWords"]:
        """One matcher per word: a line that holds that word."""
        return [AllWords([w]) for w in self.words]

    def any_word(self) -> Any:
        """A pattern for a line that holds any of the words, in any of their forms (an RE2 pattern, or None)."""
        return compile_user_regex("|".join(re.escape(f) for w in self.words for f in _forms(w)), ignore_case=True)


def mentioned_in(ctx: ToolContext, text: str, *, roots: Sequence[Path] | None = None, limit: int = 10,
                 files_scanned: int = 2_000) -> tuple[list[Path], str]:
    """Text files whose text holds ``text``: the phrase as written, else all of its words on one line.
    Returns (files, how they matched). Globs, regexes and over-long text are not looked for."""
    phrase = re.sub(r"^\^?(?:\.\*|\*)|(?:\.\*|\*)\$?$", "", text.strip()).strip()  # ".*blue heron.*"
    if " " not in phrase:
        phrase = text.strip()
    phrase = re.sub(r"\.[A-Za-z0-9]{1,5}$", "", phrase) if " " in phrase else phrase  # "blue heron.md"
    if is_pattern(phrase) or len(phrase) > MAX_PATTERN_CHARS or not phrase:
        return [], ""
    files = list(_text_files(ctx, roots, files_scanned))
    for rx, how in ((compile_user_regex(phrase, ignore_case=True, literal=True), "the phrase"),
                    (AllWords.of(phrase, min_words=2), "all of its words")):
        hits = list(dict.fromkeys(h.path for h in grep(ctx, files, rx, limit=100).hits)) if rx else []
        if hits:
            return hits[:limit], how
    return _most_words_in(ctx, files, phrase, limit)


def _most_words_in(ctx: ToolContext, files: list[Path], phrase: str, limit: int,
                   min_share: float = 0.6) -> tuple[list[Path], str]:
    """The files whose text and path together hold the largest share (``min_share`` or more) of the
    phrase's words, for a question asked in words no line holds together ("the Wi-Fi details for the
    home router" is ``home-network/router_setup.txt``, whose lines say "Wi-Fi name" and "Router")."""
    asked = [w for w in dict.fromkeys(words(phrase)) if w not in _STOP and w not in _REQUEST_WORDS]
    if len(asked) < 2:
        return [], ""
    scored: list[tuple[int, Path, list[str]]] = []
    for path in files:
        have = set(words(text_start(ctx, path))) | set(words(shown(path, Path(ctx.workdir))))
        held = [w for w in asked if w in have]
        if len(held) / len(asked) >= min_share:
            scored.append((len(held), path, held))
    if not scored:
        return [], ""
    best = max(n for n, _, _ in scored)
    top = [(p, held) for n, p, held in scored if n == best][:limit]
    return [p for p, _ in top], f"most of its words ({', '.join(top[0][1])})"


def _text_files(ctx: ToolContext, roots: Sequence[Path] | None, limit: int) -> Iterator[Path]:
    count = 0
    for e in scan(ctx, roots or [ctx.workdir]):
        if not e.is_dir and e.path.suffix.lower() in TEXT_EXTS:
            count += 1
            if count > limit:
                return
            yield e.path


# Words of a request that are not part of any document's name ("what does the handbook say about ...")
_REQUEST_WORDS = frozenset("what which who whom whose when where why how many much does do did is are was were be "
                           "say says said tell according about summarize summarise summary give gives me us "
                           "please can could would should there any all".split())


def named_in(ctx: ToolContext, text: str, *, keep: Callable[[Path], bool] | None = None,
             limit: int | None = 3, kind: Kind = "file", min_share: float = 0.6) -> list[Found]:
    """Files (or folders, or both, with ``kind``) whose names a request names in words ("what does the employee
    handbook say about leave?" -> ``employee-handbook.md``; "add the minutes folder" -> ``minutes/``): at
    least ``min_share`` of a name's words are in the request, one of them a real word. Best first: the
    larger the share of the name in the request, the better; among names alike, the one whose folders the
    request names ("the porto trip notes" -> trips/2024-porto/notes.md before trips/2023_vienna/notes.md)."""
    asked = tuple(w for w in dict.fromkeys(words(text)) if w not in _STOP and w not in _REQUEST_WORDS)
    scorer, found, in_folders = _Scorer(Query(text, asked)), [], {}
    for e in scan(ctx):
        if (kind != "any" and e.is_dir != (kind == "folder")) or (keep and not keep(e.path)):
            continue
        own = scorer.name_words(e.path.name) if not e.is_dir else tuple(words(e.path.name))
        own = tuple(o for o in own if o not in _STOP) or own   # "to-read.md" is all said in "my to-read list"
        hits = [o for o in own if scorer.best(o, asked)[0] >= 0.8]
        if own and any(len(h) >= 3 and not h.isdigit() and h not in _GENERIC for h in hits) \
                and len(hits) / len(own) >= min_share:
            score = round(0.8 * len(hits) / len(own) + 0.2 * min(1.0, len(hits) / 3), 3)
            found.append(Found(e.path, e.is_dir, score, f"the request names {', '.join(hits)}"))
            folder_words = {w for part in e.parents for w in words(part)}
            in_folders[e.path] = sum(1 for w in asked if any(scorer.best(f, (w,))[0] >= 0.8 for f in folder_words))
    found.sort(key=lambda f: (-f.score, -in_folders[f.path], len(f.path.parts), str(f.path)))
    return found[:limit]


def named_in_words(ctx: ToolContext, text: str, kind: Kind = "file") -> list[Found]:
    """Every file (or folder, or both, with ``kind``) whose whole name ``text`` says in words, best first
    (``named_in`` with every word, no limit). The agent's named files, its held call, read first and list first all
    read one such look (agent/named.NamedInWords), so a turn walks the allowed folders for this once."""
    return named_in(ctx, text, min_share=1.0, limit=None, kind=kind)


def folder_named_by_user(ctx: ToolContext) -> Path | None:
    """The one folder the user's message of this turn names in words, every word of its name ("add the
    minutes folder to your docs" -> ``minutes/``), or None: it names none, or several equally."""
    found = named_in(ctx, ctx.request.message, kind="folder", min_share=1.0)
    if not found or (len(found) > 1 and found[1].score >= found[0].score):
        return None
    return found[0].path


# A file named in a message by path or name: "reports/acme_q3_report.md", "budget-2025.csv"
# The look-behind starts a match only where a run of path characters starts: without it a long run with
# no file name in it ("xxxx..." in a 30 KB pasted log) is rescanned from each of its characters, O(n^2)
# in re's C loop, which holds the GIL, so not even the executor's timeout could end the call.
PATH_MENTION = re.compile(r"(?<![\w~./\\-])[\w~./\\-]*\w\.[A-Za-z][A-Za-z0-9]{0,9}\b")   # "server.properties"


def named_by_user(ctx: ToolContext, *, keep: Callable[[Path], bool] | None = None) -> Path | None:
    """The one existing file the user's message of this turn names by its path (ToolContext.request),
    or None: it names none, or several."""
    from .sandbox import SandboxError, resolve_user_path

    hits: list[Path] = []
    for m in PATH_MENTION.finditer(ctx.request.message):
        try:
            path = resolve_user_path(ctx, m.group(0).rstrip("."))
        except SandboxError:
            continue
        if path.is_file() and (keep is None or keep(path)) and path not in hits:
            hits.append(path)
    return hits[0] if len(hits) == 1 else None


def locate(ctx: ToolContext, raw: str, *, keep: Callable[[Path], bool] | None = None,
           pointed: bool = False) -> tuple[Path, str]:
    """The file a model-given path means, and a note when it is not the path as given.

    The path itself when it is a file; else the one clear best match for it in the allowed folders
    (``docs/handbook.txt`` -> ``policies/employee-handbook.md``). A path outside the allowed folders
    (``/etc/hosts.txt`` for the ``hosts.txt`` here) is never read: the file of its name inside them is,
    when there is a clear one. Raises ToolFailure naming the closest candidates (or what is there)
    otherwise, and for a folder, a credential file or a refused path nothing inside stands for. With
    ``pointed`` (read_file), a made-up name no file is like means the one file the words of the request point
    to, when one stands out."""
    from .sandbox import SandboxError, SecretPathError, resolve_user_path

    try:
        path = resolve_user_path(ctx, raw)
    except SecretPathError as exc:
        raise ToolFailure(str(exc)) from None
    except SandboxError as exc:
        return _inside_instead(ctx, raw, str(exc), keep)
    try:
        if path.is_dir():
            raise ToolFailure(f"{path} is a folder, not a file; use browse_directory to list it")
        if path.is_file():
            return path, ""
        if (typed := _of_the_type_said(ctx, path)) is not None:
            return ctx.sandbox.check(typed), (f"{raw.strip()} does not exist; this is {shown(typed, ctx.workdir)}, "
                                              f"the one {typed.suffix} file here, the type the request says.")
        named = named_by_user(ctx, keep=keep)
        if named is not None:  # the model's path is a guess; the user's message names a file that exists
            return ctx.sandbox.check(named), (f"{raw.strip()} does not exist; this is "
                                              f"{shown(named, ctx.workdir)}, the file the request names.")
        found = find(ctx, shown(path, Path(ctx.workdir).resolve()), "file", keep=keep)
        best = clear_winner(found)
        near = [f for f in found[:5] if best is None and f.score >= found[0].score - 0.1]
        if (alike := _one_alike(ctx, near, keep, pointed)) is not None:
            return ctx.sandbox.check(alike[0]), f"{raw.strip()} does not exist; this is {alike[1]}"
        others = pointed_by_request(ctx, keep=keep) if best is None and not found and pointed else []
        # the file whose month, number or folders the request says first: "the june meeting notes" read the May
        # minutes, whose text holds "June" and "decided" (probe55)
        one = _said_of(ctx, others) or one_pointed(others, Path(ctx.workdir)) or table_asked(ctx, others)
        if one is not None:  # a made-up name ("policy.txt"); the request's words point to one file
            return ctx.sandbox.check(one.path), (f"{raw.strip()} does not exist; this is {one.said(ctx.workdir)}, "
                                                 "the file the words of the request point to.")
        paths = [f.path for f in found[:5]] or [p.path for p in others]
        current = _current_version(ctx.request.message, paths) if best is None and pointed else None
        if current is not None:  # "report.txt" for "tl;dr of the latest boiler service report": its two years
            return ctx.sandbox.check(current), (f"{raw.strip()} does not exist; this is {shown(current, ctx.workdir)}, "
                                                "the current one of the files named alike.")
        if best is None:
            raise missing_file(ctx, raw, path, found)
        return ctx.sandbox.check(best.path), (f"{raw.strip()} does not exist; this is "
                                              f"{shown(best.path, ctx.workdir)} ({best.reason}).")
    except SandboxError as exc:
        raise ToolFailure(str(exc)) from None


_ASKS_FIGURE = re.compile(r"\bhow (?:much|many)\b|\b(?:total|sum|average|mean|most|least|highest|lowest|spent|spend)\b",
                          re.IGNORECASE)
_TABLES = frozenset({".csv", ".tsv", ".xlsx", ".xlsm"})


def table_asked(ctx: ToolContext, pointed: Sequence[Pointed]) -> Pointed | None:
    """Of the files the request points to, the one table, when the request asks a figure: "groceries.txt" for "how
    much did i spend on groceries in march" pointed to money/expenses_2024.csv and money/notes.txt alike, and the
    0.5B stopped at the failure (probe51)."""
    tables = [p for p in pointed if p.path.suffix.lower() in _TABLES]
    base = Path(ctx.workdir).resolve()
    tables = current_ones(tables, base, lambda p: p.path)   # not its older copy beside it (probe52)
    return tables[0] if len(tables) == 1 and _ASKS_FIGURE.search(ctx.request.message) else None


_DOTTED_EXT = re.compile(r"(?<![\w/])\.([a-z][a-z0-9]{1,11})\b")


def _of_the_type_said(ctx: ToolContext, path: Path) -> Path | None:
    """The one current file of the extension a made-up path and the request both say: "config.properties" for "the
    config file for my minecraft server ..., i think its .properties" read config.yml, named "config" by the user,
    and server.properties was the one (probe53)."""
    ext = path.suffix.lower()
    if not ext or ext not in {f".{e}" for e in _DOTTED_EXT.findall(ctx.request.message.lower())}:
        return None
    base = Path(ctx.workdir).resolve()
    typed = [e.path for e in scan(ctx)
             if not e.is_dir and e.path.suffix.lower() == ext and not superseded(e.path, base)]
    return typed[0] if len(typed) == 1 else None


def _the_current(ctx: ToolContext, near: Sequence[Found]) -> Path | None:
    """Of files found alike for a made-up name, the one that is no older copy or draft, when the request asks for
    none: "fourth_field_trip_letter.txt" found letters/field_trip_letter.md and its drafts/ copy alike (probe53)."""
    base = Path(ctx.workdir).resolve()
    near = not_ruled_out(ctx.request.message, near, base, lambda f: f.path)   # "not the test fixture" (probe54)
    current = [f.path for f in near if not superseded(f.path, base)] if len(near) > 1 else []
    return current[0] if len(current) == 1 and not asks_old(ctx.request.message) else None


def _one_alike(ctx: ToolContext, near: Sequence[Found], keep: Callable[[Path], bool] | None,
               pointed: bool) -> tuple[Path, str] | None:
    """(the one of files found alike for a made-up name that is meant, why), or None: the current one (the letter,
    not its draft: probe53), the one whose folders or name the request says ("vet-notes.txt" for "when is biscuits
    next vet appt": pets/biscuit/'s), or, for a read, the one the request's words point to."""
    if (current := _the_current(ctx, near)) is not None:
        return current, f"{shown(current, ctx.workdir)}, the current one of the files named alike."
    if (pick := singled_out(ctx.request.message, [shown(f.path, ctx.workdir) for f in near])) is not None:
        return near[pick].path, (f"{shown(near[pick].path, ctx.workdir)}, the one of the files named alike whose "
                                 "folders or name the request says.")
    if pointed and (said := _said_inside(ctx, near, keep)) is not None:
        return said.path, f"{said.said(ctx.workdir)}, the one of the files named alike the words of the request point to."
    return None


def _said_inside(ctx: ToolContext, near: Sequence[Found], keep: Callable[[Path], bool] | None) -> Pointed | None:
    """Of files found alike for a made-up name, the one the words of the request point to clearly (one_pointed), its
    text or folders: three tank.yaml files (config/, config/backup/, quarantine/config/) for "the current config for
    my main display tank", whose own first line says "Main display tank" (probe54)."""
    if len(near) < 2:
        return None
    paths = {f.path for f in near}
    base = Path(ctx.workdir)
    alike = [p for p in pointed_by_request(ctx, keep=keep, limit=5) if p.path in paths]
    return one_pointed(current_ones(alike, base.resolve(), lambda p: p.path), base)


def _said_of(ctx: ToolContext, pointed: Sequence[Pointed]) -> Pointed | None:
    """Of the files the request points to alike, the one whose folders, number or month it says (singled_out):
    "class_7b_scores.txt" for "the average score for class 7B on the October maths test" pointed to
    math_test_oct.tsv and math_test_sep.tsv alike (probe52)."""
    if len(PATH_MENTION.findall(ctx.request.message)) > 1:   # files named by path: the request's to choose among
        return None
    return singled_pointed(ctx, pointed)


def singled_pointed(ctx: ToolContext, pointed: Sequence[Pointed]) -> Pointed | None:
    """The one of the first five files the request points to that it singles out (``singled_out``), or None."""
    pick = singled_out(ctx.request.message, [shown(p.path, ctx.workdir) for p in pointed[:5]])
    return pointed[pick] if pick is not None else None


def one_pointed(pointed: Sequence[Pointed], base: Path) -> Pointed | None:
    """The one file the words of the request point to (``pointed``), when one stands out: the only one, or scored
    at least half again above the next. The 1.5B read "policy.txt" for "returns policy - can I get my money back on
    sale items?", got "does not exist ... point to: policies/returns.md (...)" and answered "The policy file
    does not exist" (test split)."""
    if not pointed:
        return None
    if len(pointed) > 1 and pointed[0].score < 1.5 * pointed[1].score:
        # alike but for an older copy ("todo.md", "todo-old.md"): the current one
        current = [p for p in pointed if p.score >= pointed[0].score / 1.5 and not superseded(p.path, base)]
        return current[0] if len(current) == 1 and current[0] is pointed[0] else None
    return pointed[0]


def _current_version(message: str, paths: Sequence[Path]) -> Path | None:
    """For a made-up name, the current one of ``paths`` (the files it is like, or the request's words point to), when
    they are versions of one file (file_walk.newest_version) and the request names none of their dates: "not the
    2025 one" or "last year's" is the model's to tell apart."""
    if any(when and when in message for when in (name_when(p.name) for p in paths)):
        return None
    return newest_version(paths)


def _inside_instead(ctx: ToolContext, raw: str, refusal: str,
                    keep: Callable[[Path], bool] | None) -> tuple[Path, str]:
    """For a path the sandbox refused (outside the allowed folders, or a system file): the file the user's
    message names, or the one clear match for its name inside the allowed folders, with a note saying the
    path itself was not read; else the refusal, with close names inside if there are any. Whether the
    refused path exists is never looked at, so the answer says nothing about what is outside."""
    from .sandbox import SandboxError

    given = Path(raw.strip().replace("\\", "/"))
    named = named_by_user(ctx, keep=keep)
    found = [] if named is not None or not words(given.name) else \
        find(ctx, "/".join(given.parts[-2:]), "file", keep=keep)
    winner = clear_winner(found)
    best = named or (winner.path if winner else None)
    pointed = None
    if best is None and not found:   # a made-up name outside ("data/nitrate_concentration.csv"): the one file the
        # request's words point to, or its one table for a figure; the 1.5B answered "access restrictions" (probe51)
        others = pointed_by_request(ctx, keep=keep)
        pointed = one_pointed(others, Path(ctx.workdir)) or table_asked(ctx, others)
        best = pointed.path if pointed is not None else None
    if best is None:
        close = "; ".join(shown(f.path, ctx.workdir) for f in found[:5])
        raise ToolFailure(refusal + (f". Inside the allowed folders, close names: {close}" if close else ""),
                          **({"candidates": [str(f.path) for f in found[:5]]} if close else {}))
    try:
        best = ctx.sandbox.check(best)
    except SandboxError:
        raise ToolFailure(refusal) from None
    why = ", the file the request names." if named else f" inside them ({winner.reason})." if winner else \
        ", the file the words of the request point to." if pointed else "."
    return best, f"{raw.strip()} is outside the allowed folders and was not read; this is {shown(best, ctx.workdir)}{why}"


def missing_file(ctx: ToolContext, raw: str, path: Path, found: Sequence[Found] | None = None) -> ToolFailure:
    """The failure for a file that does not exist, naming the closest files to it, or (none close) what
    the folder the user's message names, or the folder the path points into, holds: never a bare "does
    not exist" the answer stops at."""
    if found is None:
        found = find(ctx, shown(path, Path(ctx.workdir).resolve()), "file")
    pointed = [] if found else pointed_by_request(ctx)
    if pointed:  # a guessed name ("todo.txt" for "which file has a TODO comment?"): the request's own words
        return ToolFailure(f"{path} does not exist, and no file is named like it. "
                           + pointed_message(ctx, pointed) + ". Pass one of these paths",
                           candidates=[str(p.path) for p in pointed])
    if not found:
        folder = folder_named_by_user(ctx) or _existing_folder(ctx, path)
        holds = _listing(folder) if folder is not None else []
        where = "This folder" if folder is not None and folder == Path(ctx.workdir).resolve() else \
            f"The folder {shown(folder, ctx.workdir)}" if folder is not None else ""
        listed = f" {where} holds: {', '.join(holds)}." if holds else ""
        return ToolFailure(f"{path} does not exist, and no file in the allowed folders is named like it.{listed}"
                           + ("" if holds else " Check the name with search_file"),
                           **({"folder_holds": holds} if holds else {}))
    options = "; ".join(f"{shown(f.path, ctx.workdir)} ({f.reason})" for f in found[:5])
    return ToolFailure(f"{raw.strip()} does not exist. Close matches: {options}. Pass one of these paths",
                       candidates=[str(f.path) for f in found[:5]])


def _existing_folder(ctx: ToolContext, path: Path) -> Path | None:
    """The nearest existing folder ``path`` lies in, when it is inside the allowed folders."""
    from .sandbox import SandboxError

    for folder in path.parents:
        if folder.is_dir():
            try:
                return ctx.sandbox.check(folder)
            except SandboxError:
                return None
    return None


def _listing(folder: Path, limit: int = 30) -> list[str]:
    """A folder's visible names, folders first (with a "/"), at most ``limit`` and "+N more"."""
    try:
        children = sorted(folder.iterdir(), key=lambda c: (not c.is_dir(), c.name.lower()))
    except OSError:
        return []
    names = [c.name + ("/" if c.is_dir() else "") for c in children if not c.name.startswith(".")]
    return names[:limit] + ([f"+{len(names) - limit} more"] if len(names) > limit else [])


# --- The user's own words: what a search falls back on when the model's argument finds nothing ---------

# Words of a request that ask, point or say what kind of thing is meant, not what it is about: "which file
# in this folder mentions a blue heron?" is about "blue heron"; "is there a doc about the guest wifi
# somewhere?" about "guest wifi".
_FILLER = STOPWORDS | _STOP | _REQUEST_WORDS | frozenset(
    "mention mentioned contain contained containing hold held ha have find found search look show list tell know "
    "let see check got get here somewhere anywhere anything something one some doc docs document project "
    "pls plz thanks thank hey hi just also only again up out it its it's s t whats what's where's wheres "
    "should must might may will shall need want like called named".split())
_MIXED = re.compile(r"[^\W\d_]+\d+|\d+[^\W\d_]+")   # "q3", "p2": short, and what a question is about
_NAME_HIT, _FOLDER_HIT, _TEXT_HIT = 1.0, 0.7, 0.8   # a request's word in a file's name says most
_LINE_CHARS = 200
POINTED_MIN = 0.2


def _compounds(text: str) -> list[str]:
    """Words ``words`` splits that a request may write whole: a hyphenated word with a short part, joined
    ("Wi-Fi" -> wifi), and letters with digits ("Q3" -> q3, "acme_q2_report" -> q2)."""
    # (?<![^\W_]): a match starts where a word does, or a long word ("xxx...", 1 MB of it) is rescanned from
    # each of its letters, O(n^2) with the GIL held (as PATH_MENTION)
    joined = [re.sub(r"[-_]", "", m).lower() for m in re.findall(r"(?<![^\W_])[^\W_]+(?:[-_][^\W_]+)+", text)
              if any(len(w) < 3 for w in _WORD.findall(m)) and not re.fullmatch(r"[\d_-]+", m)]
    # "WiFi password: birch-canoe-88": split in camel case, the line held no "wifi", and the line the request asked
    # for fell below the cabin's title (probe57)
    camel = [m.lower() for m in re.findall(r"(?<![^\W_])[A-Za-z]*[a-z][A-Z][A-Za-z]*", text)
             if any(len(w) < 3 for w in _CAMEL.sub(" ", m).split())]
    return joined + camel + [m.lower() for m in re.findall(r"(?<![^\W_])(?:[^\W\d_]+\d+[^\W_]*|\d+[^\W\d_]+[^\W_]*)",
                                                           text)]


def request_words(text: str) -> list[str]:
    """The words of a request that say what it is about: no question, search or filler words, nothing
    shorter than three letters (``Wi-Fi`` counts as ``wifi``)."""
    raw = [*_WORD.findall(_CAMEL.sub(" ", text).lower()), *_compounds(text)]
    kept = (singular(w) for w in raw if w not in _FILLER and singular(w) not in _FILLER)
    return [w for w in dict.fromkeys(kept) if len(w) >= 3 or _MIXED.fullmatch(w)]


# Month names a request says a dated file by ("the march board minutes" for minutes/2025-03-board.md); "may" is
# left out, as the verb it mostly is
_MONTH_OF = {n.lower(): i for i, n in enumerate(calendar.month_name) if n and n != "May"}
# in a path, a month's short name too ("math_test_oct.tsv"); in a request "jan" may be a person
_MONTH_IN_PATH = {**_MONTH_OF, **{n.lower(): i for i, n in enumerate(calendar.month_abbr) if n and n != "May"},
                  "sept": 9}
_YEAR_MONTH = re.compile(r"(?<!\d)(?:19|20)\d\d[-_.]?(0[1-9]|1[0-2])(?!\d)")


# what a request says to leave out names no file it means: "not the 2025 one", "dont count the archive folder"
_LEFT_OUT = re.compile(r"(?i)\b(?:not|except|excluding|without|besides|other than|ignor(?:e|ing)|skip(?:ping)?|"
                       r"(?:don'?t|do not) (?:count|include|use|look (?:in|at)))\b(?:\s+(?:the|a|an|my|any|anything|"
                       r"in|from|counting|including|one|ones))*\s+[\w./-]+")


def _numbers(ws: Iterable[str]) -> set[str]:
    """The numbers among ``ws`` (of up to four digits) without their leading zeros: "03" and "3" alike."""
    return {str(int(w)) for w in ws if w.isdigit() and len(w) <= 4}


def _said_tokens(message: str) -> set[str]:
    """The request's words, its numbers and its months, as ``_path_tokens`` writes them; not those of what it says
    to leave out."""
    message = _LEFT_OUT.sub(" ", message)
    ws = words(message)
    return set(request_words(message)) | _numbers(ws) | {f"month {_MONTH_OF[w]}" for w in ws if w in _MONTH_OF}


def _months_named(stem: str) -> str:
    """The names of the months a file's dated name holds: "june" for 2025-06-12_minutes. Asked to sum up "the june
    meeting notes", the May minutes that say "Next meeting: 12 June" were read instead (probe55)."""
    return " ".join(calendar.month_name[int(m.group(1))].lower() for m in _YEAR_MONTH.finditer(stem))


def _path_tokens(rel: str) -> set[str]:
    ws = words(rel)
    # a month by its name too: "math_test_oct.tsv" is October's (probe52); words() gives each word in the singular
    # already, as request_words does: "not the test fixture" leaves out tests/fixtures/ (probe54)
    return set(ws) | _numbers(ws) | {f"month {int(m.group(1))}" for m in _YEAR_MONTH.finditer(rel)} \
        | {f"month {_MONTH_IN_PATH[w]}" for w in ws if w in _MONTH_IN_PATH}


# an example or template of a config is no more the live file than its backup is (settings.example.ini, probe54)
SUPERSEDED_WORDS = frozenset("old older backup bak archive archived previous prev orig deprecated obsolete draft "
                             "example template provisional preliminary".split())


T = TypeVar("T")


def current_ones(items: Sequence[T], base: Path, path: Callable[[T], Path]) -> list[T]:
    """The items whose file (``path`` of each) is no older copy (``superseded``), or all of them when none is."""
    return [i for i in items if not superseded(path(i), base)] or list(items)


def asks_old(message: str) -> bool:
    """Whether ``message`` asks for an older copy itself ("what did the backup say?", "the draft of the letter")."""
    return bool(set(words(message)) & SUPERSEDED_WORDS)


def superseded(path: Path, base: Path) -> bool:
    """Whether a file's name or its folders below ``base`` mark it as an older copy ("todo-old.md", "backup/",
    "settings.ini.bak"): of files alike, the current one is meant first. Asked how many things were unchecked on the
    garden todo list, the 1.5B was shown garden/todo-old.md before garden/todo.md (probe50)."""
    rel = Path(shown(path, base))
    if SUPERSEDED_WORDS & {w for part in rel.parts[:-1] for w in words(part)}:
        return True
    # in the name, beside words of its own: "settings_backup.json", "todo-old.md", ".bak"; "backup.sh" and
    # "archive.py" do a job of that name (probe53)
    if rel.suffix.lower() in (".bak", ".orig", ".old"):
        return True
    named = set(words(rel.stem))
    return bool(SUPERSEDED_WORDS & named and named - SUPERSEDED_WORDS)


def singled_out(message: str, rels: Sequence[str]) -> int | None:
    """The index of the one path of ``rels`` (relative, as a person reads them) whose words the request says more
    of than it says of any other's: its folders and name, a number ("episode 12" for podcast/ep12/) or a month
    ("the march minutes" for 2025-03-board.md); None when no path or several tie. Asked "when is biscuits next vet
    appt", the 1.5B got pets/mochi/vet-notes.txt's line before pets/biscuit/'s and answered with both (probe50)."""
    if len(rels) < 2:
        return None
    said = _said_tokens(message)
    # a path holding a word the request leaves out is not the one: "the final one not the draft" (probe52)
    left = _left_words(message, said)
    held = [_tokens_met(said, tokens) - (2 if left & tokens else 0) for tokens in map(_path_tokens, rels)]
    best = max(held)
    return held.index(best) if best and held.count(best) == 1 else None


def _left_words(message: str, said: set[str]) -> set[str]:
    return {w for m in _LEFT_OUT.finditer(message) for w in words(m.group(0))[1:]} - said - _LEFT_FILLER


_LEFT_FILLER = frozenset("the a an my any one ones in from counting including anything".split())


def not_ruled_out(message: str, items: Sequence[T], base: Path, path: Callable[[T], Path]) -> list[T]:
    """The items whose file's path holds no word the request leaves out ("not the legacy one" for
    packages/telemetry_legacy/), or all of them when every one does. Asked the telemetry package's minimum Python
    "not the legacy one", the legacy package's pyproject led the passages (probe54)."""
    left = _left_words(message, _said_tokens(message))
    if not left:
        return list(items)
    return [i for i in items if not left & _path_tokens(shown(path(i), base))] or list(items)


def _tokens_met(said: set[str], path: set[str]) -> int:
    """How many of the request's tokens the path's meet: the same, or a word that starts alike for five letters or
    more ("plumber" meets plumbing_invoice_june.txt)."""
    return sum(1 for t in said if t in path or (len(t) >= 5 and t.isalpha()
                                                and any(len(p) >= 5 and p.isalpha() and p[:5] == t[:5] for p in path)))


class _Bag:
    """A set of words, and the same words by their first three letters (a prefix match checks few)."""

    def __init__(self, found: Iterable[str]) -> None:
        self.words = set(found)
        self.by_start: dict[str, list[str]] = {}
        for w in self.words:
            self.by_start.setdefault(w[:3], []).append(w)

    def holds(self, asked: str) -> bool:
        """``asked`` or a word it starts, or that starts it, at least half as long ("park", "parking")."""
        if asked in self.words:
            return True
        for have in self.by_start.get(asked[:3], ()):
            short, long_ = sorted((asked, have), key=len)
            if len(short) >= 3 and long_.startswith(short) and 2 * len(short) >= len(long_):
                return True
        return False


def _bag(text: str) -> _Bag:
    return _Bag([*words(text), *(singular(w) for w in _compounds(text))])


@dataclass(frozen=True)
class Pointed:
    """A file the words of a request point to: how well (0-1), why, and its lines that hold the words."""

    path: Path
    score: float
    reason: str
    lines: tuple[tuple[int, str], ...] = ()

    def said(self, base: Path) -> str:
        """"notes/day2.md: line 1: A blue heron ...", for a message; the file alone when no line holds the words.
        The reason ("content matches heron") stays out: the 0.5B copied it into answers."""
        lines = "; ".join(f"line {n}: {t}" for n, t in self.lines)
        return f"{shown(self.path, base)}{': ' + lines if lines else ''}"


def pointed_by_request(ctx: ToolContext, text: str | None = None, *, keep: Callable[[Path], bool] | None = None,
                       limit: int = 3, files_scanned: int = 1_000, roots: Sequence[Path] | None = None) -> list[Pointed]:
    """The text files the words of the user's request (``text``, default the message of the turn) point
    to, best first: each asked-for word counts where it is found, in the file's name (most), its text or
    its folders, the words fewer files hold counting more. A file must hold a word of the request; one far
    below the best is left out. Each comes with its lines that hold the words (the answer, when the
    request asks something of the file). [] when the request has no such words or no file holds them."""
    said = ctx.request.message if text is None else text
    left = _left_words(said, _said_tokens(said))   # "not the legacy one" points away from legacy/ (probe54)
    asked = [w for w in request_words(said) if w not in left]
    if not asked:
        return []
    seen: list[tuple[Path, _Bag, _Bag, _Bag, str]] = []
    for e in scan(ctx, roots or [ctx.workdir]):
        if e.is_dir or e.path.suffix.lower() not in TEXT_EXTS or (keep and not keep(e.path)):
            continue
        if len(seen) >= files_scanned:
            break
        try:
            ctx.sandbox.check(e.path)   # a credential file is never offered, not even by its name
        except PermissionError:
            continue
        body = text_start(ctx, e.path, 32_768)
        stem = os.path.splitext(e.path.name)[0]
        seen.append((e.path, _bag(f"{stem} {_months_named(stem)}"), _bag(" ".join(e.parents)), _bag(body), body))
    held = [[max(_NAME_HIT * name.holds(w), _FOLDER_HIT * folder.holds(w), _TEXT_HIT * body.holds(w))
             for w in asked] for _, name, folder, body, _ in seen]
    if not held:
        return []
    holding = [sum(1 for h in held if h[i] > 0) for i in range(len(asked))]
    if not any(holding):
        return []
    # a word no file holds says nothing of which file is meant: weighed as the rarest word it outweighed the words
    # that point ("a PDF or a Word document, I'm not sure" kept 2026-renewal-offer.txt in mortgage/ below the bar)
    floor = min(math.log(1 + len(seen) / n) for n in holding if n)
    weight = [math.log(1 + len(seen) / n) if n else floor for n in holding]
    total = sum(weight)
    scored = []
    for (path, name, folder, body, raw), h in zip(seen, held):
        if not any(s > 0 for s in h):
            continue
        score = round(sum(wt * s for wt, s in zip(weight, h)) / total, 3)
        scored.append((score, path, name, folder, body, raw))
    if not scored:
        return []
    best = max(s for s, *_ in scored)
    if best < POINTED_MIN:
        return []
    base = Path(ctx.workdir)
    scored.sort(key=lambda s: (bool(left & _path_tokens(shown(s[1], base))), -s[0], superseded(s[1], base),
                               len(s[1].parts), str(s[1])))
    found = []
    for score, path, name, folder, body, raw in scored[:limit]:
        if score < 0.6 * best:   # far behind the best: another file that merely shares a common word
            break
        by_weight = dict(zip(asked, weight))
        found.append(Pointed(path, score, _pointed_reason(asked, name, folder, body),
                             tuple(_lines_for(raw, asked, by_weight, name))))
    # a file whose lines say the thing asked is not there ("no tahini needed") after those that say it is (probe56)
    return sorted(found, key=lambda p: denied_lines(p.lines, asked))


def denied_lines(lines: Sequence[tuple[int, str]], asked: Sequence[str]) -> bool:
    """Whether each of ``lines`` says every asked word it holds is not there."""
    held = [[w for w in asked if w in t.lower()] for _, t in lines]
    return bool(lines) and all(ws and all(denies(t, w) for w in ws) for (_, t), ws in zip(lines, held))


def _pointed_reason(asked: list[str], name: _Bag, folder: _Bag, body: _Bag) -> str:
    parts, said = [], set()
    for label, bag in (("name holds", name), ("content matches", body), ("its folders hold", folder)):
        hits = [w for w in asked if bag.holds(w) and (label == "content matches" or w not in said)]
        said.update(hits)
        if hits:
            parts.append(f"{label} {', '.join(hits)}")
    return "; ".join(parts)


def _lines_for(text: str, asked: Sequence[str], weight: dict[str, float], name: _Bag | None = None,
               limit: int = 3) -> list[tuple[int, str]]:
    """(number, line) of the lines of ``text`` that hold most of the asked-for words, best first: a word
    the file's name holds counts half there (the name already said it), and a heading half (a heading
    alone answers nothing)."""
    scored = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        bag = _bag(line)
        got = sum(weight.get(w, 1.0) * (0.5 if name is not None and name.holds(w) else 1.0)
                  for w in asked if bag.holds(w))
        if got > 0:
            scored.append((got * (0.5 if line.lstrip().startswith("#") and not line.lstrip().startswith("#!") else 1.0),
                           n, " ".join(line.split())[:_LINE_CHARS]))
    scored.sort(key=lambda s: (-s[0], s[1]))
    # a line far below the best (a heading with the name's words) is no answer beside it
    return [(n, t) for got, n, t in scored[:limit] if got >= 0.5 * scored[0][0]]


def request_lines(ctx: ToolContext, path: Path, *, beyond: str = "", limit: int = 3) -> list[tuple[int, str]]:
    """The lines of the file ``path`` that hold the words of the user's request beyond those of
    ``beyond`` (the name searched for): "find the parking policy and tell me where visitors park" ->
    "Visitors park on level P2". [] when the request asks nothing more of it, or no line holds it."""
    named = set(request_words(beyond)) | set(words(beyond))
    asked = [w for w in request_words(ctx.request.message) if w not in named]
    if not asked or asks_summary(ctx.request.message):
        return []
    text, name = _keyed(path, text_start(ctx, path)), _bag(os.path.splitext(path.name)[0])
    parts = [[w for w in request_words(part) if w not in named] for part in _ASKED_APART.split(ctx.request.message)]
    if len(parts) < 2 or any(len(part) < 2 for part in parts):
        return _lines_for(text, asked, {}, name, limit)
    # each question of "what time do we leave the hut on day 2, and where is the last place to refill water?" gets
    # its own lines: the words of the whole found the water lines twice and not "We leave the hut at 7:00" (probe55)
    found = [line for part in parts for line in _lines_for(text, part, {}, name, 2)]
    return sorted(dict.fromkeys(found), key=found.index)[:limit + 1]


def asks_summary(message: str) -> bool:
    """Whether ``message`` asks for the whole of a text in short ("summarize the PTA minutes", "tl;dr"): no line of it
    answers alone. The minutes' title line, the one line holding the request's words, led a read of them (probe56)."""
    return bool(_SUMMARY.search(message))


_SUMMARY = re.compile(r"\b(?:summar(?:y|ies|ise|ize|ised|ized|ising|izing)|tl;?dr|recap|gist|overview|sum\s+up)\b",
                      re.IGNORECASE)


# where one request asks two things: ", and where ...", "? And what ..."
_ASKED_APART = re.compile(r"(?:,\s*|\?\s*|\s+)and\s+(?=(?:what|whats|what's|where|when|who|how|which|is|are|does|do)\b)",
                          re.IGNORECASE)


def _keyed(path: Path, text: str, most: int = 400) -> str:
    """A settings file's ``text`` with each line's keys after it ("humidity_offset_pct": -3.2 (under sensors >
    outdoor)), so a line is found by them too: three sensors' humidity offsets looked alike (probe54)."""
    if path.suffix.lower() not in SETTINGS_SUFFIXES:
        return text
    lines = text.splitlines()
    if len(lines) > most:
        return text
    return "\n".join(f"{line} (under {keys})" if line.strip() and (keys := keys_above(path.name, lines, i)) else line
                     for i, line in enumerate(lines))


def pointed_message(ctx: ToolContext, found: Sequence[Pointed]) -> str:
    """"For the request: a.md: line 3: ... | b.md"; "" for none. In the words of an answer: "The words of the
    request (initech, client, phone, number) point to: ... (content matches ...)" was copied whole by the 0.5B."""
    if not found:
        return ""
    if (one := singled_pointed(ctx, found)) is not None:   # "the telemetry package": its own pyproject first
        found = [one, *(p for p in found if p is not one)]   # (ingest's, naming telemetry, led; probe54)
    return "For the request: " + " | ".join(p.said(ctx.workdir) for p in found)
