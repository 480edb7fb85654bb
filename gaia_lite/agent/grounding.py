"""Is an answer's every specific backed by the turn's evidence?

A small model that read a file still writes "The initech client's phone number is 1234567890" or "the
contract ends on October 15, 2023" when neither is in anything it was shown. Those answers look right
and are wrong, which is worse than "I could not find it". Here an answer's *specifics* — numbers and
file names — are looked up in the evidence: the tool results of the conversation, the user's own
messages and the saved facts shown. The judge no longer acts on it (issue 43: as a guard it turned no blind
task from fail to pass); the loop marks an answer with an unbacked specific (``ungrounded_in``:
``TurnFinished.ungrounded``), and ``eval tasks`` reports those turns as ``ungrounded_turns``.

Looking up is forgiving on purpose, because a false alarm costs a good answer: small whole numbers
(counts, days of a week, "3 files") pass; a number matches the evidence rounded to the answer's
decimals, with thousands separators, and in thousands, millions, KiB or MiB or per cent of one
(1077 bytes is "1.05 KB", "14.2 million" is 14,200,000, 0.25 is "25 %"). A name counts only as two
or more capitalised words in a row ("John Doe", "Brightwave Media"), and is backed when any of its
words is in the evidence: one capitalised word ("Python", "Monday") could be any word at all.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from .lexicon import (
    ABOUT_FILES, ABOUT_ME, AGAIN, ASKS_WHAT_I_SAID, CHANGES_TOPIC, FOLDER_WORDS, HERE, NOT_NAMES, POINTS_BACK,
    QUESTION_START, WH_START,
)

if TYPE_CHECKING:
    from gaia_lite.registry.context import ToolContext
    from gaia_lite.registry.execute import ToolResult

__all__ = ["Specific", "specifics", "unsupported", "ungrounded_in", "named_in_message", "asks_what_user_said",
           "asks_about_user", "invented_file", "clobbered_file", "names_file", "SMALL_NUMBER"]

SMALL_NUMBER = 20  # whole numbers up to this are counts and ordinals, said without a source
_SCALES = (1.0, 1e3, 1e6, 1e9, 1024.0, 1024.0 ** 2, 1024.0 ** 3, 0.01)

# A number standing alone: not part of a word, a version, a file name, a time's minutes or an id
# (Q3, v2, 2nd, budget-2025.csv, 3.4.1, GM-55-0912). Thousands separators are one number.
_NUMBER = re.compile(r"(?<![\w./\-:#])(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(?![\w/\-]|\.\d|\.[A-Za-z])")
_EVIDENCE_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_EXTENSIONS = ("txt|md|markdown|csv|tsv|json|jsonl|ya?ml|toml|ini|cfg|conf|env|py|ts|html?|css|xml|pdf|docx?|"
               "xlsx?|pptx?|log|sh|sql|db|png|jpe?g|gif|svg|zip|gz|tar|rst|ipynb")
_NAME = re.compile(r"\b[A-Z][a-z]{2,}(?:[ -][A-Z][a-z]{2,})+\b")
_FILE = re.compile(rf"(?<![\w@.-])((?:[\w.-]+/)*\w[\w.-]{{0,80}}?\.(?:{_EXTENSIONS}))(?![\w/])", re.IGNORECASE)


@dataclass(frozen=True)
class Specific:
    kind: str  # "number", "file" or "name"
    text: str  # as the answer wrote it


def specifics(answer: str) -> list[Specific]:
    """The file names, numbers and names of ``answer``, in that order."""
    found = [Specific("file", m.group(1).rsplit("/", 1)[-1]) for m in _FILE.finditer(answer)]
    without_files = _FILE.sub(" ", answer)
    found += [Specific("number", m.group(0)) for m in _NUMBER.finditer(without_files)]
    for m in _NAME.finditer(without_files):
        words = [w for w in re.split(r"[ -]", m.group(0)) if w.lower() not in NOT_NAMES.words]
        if len(words) >= 2:
            found.append(Specific("name", " ".join(words)))
    return found


def unsupported(answer: str, evidence: str) -> Specific | None:
    """The first specific of ``answer`` that ``evidence`` does not back, or None when all are backed."""
    said = evidence.lower()
    numbers = _numbers(evidence)
    for item in specifics(answer):
        if item.kind == "file" and item.text.lower() not in said:
            return item
        if item.kind == "number" and not _number_backed(item.text, numbers):
            return item
        if item.kind == "name" and not any(w.lower() in said for w in item.text.split()):
            return item
    return None


def ungrounded_in(answer: str, results: Sequence[ToolResult], seen_results: Sequence[str],
                  user_messages: Sequence[str], facts: Sequence[str]) -> str | None:
    """The first number, file name or name of ``answer`` that nothing the conversation was shown holds, or
    None. ``results`` are this turn's, ``seen_results`` every tool result of the conversation as the model
    read it. Checked only where the answer may draw on evidence: a tool succeeded this turn, saved facts
    were shown, or no tool ran and earlier turns' results are there (a follow-up: "and its q1?"). "Rome"
    to a plain question, or "144" after a denied call, has no source to be checked against. A call's arguments count (a file it read is
    named there). A message that says it changes the topic ("Unrelated question: how many minutes in two hours?")
    is no follow-up: "120" was flagged there after a report was read, for both models (dev split, 32d9094)."""
    follow_up = seen_results and not results and not (user_messages and changes_topic(user_messages[-1]))
    if not (any(r.ok for r in results) or facts or follow_up):
        return None
    said = [*seen_results, *user_messages, *facts,
            *(json.dumps([r.arguments, r.payload], ensure_ascii=False, default=str) for r in results)]
    found = unsupported(answer, "\n".join(said))
    return found.text if found is not None else None


def _numbers(text: str) -> list[float]:
    plain = re.sub(r"(?<=\d),(?=\d{3}\b)", "", text)
    return [float(m.group(0)) for m in _EVIDENCE_NUMBER.finditer(plain)]


def _number_backed(text: str, evidence: list[float]) -> bool:
    value = float(text.replace(",", ""))
    decimals = len(text.partition(".")[2])
    if decimals == 0 and value <= SMALL_NUMBER:
        return True
    slack = 0.5 * 10 ** -decimals + 1e-9
    return any(abs(e / scale - value) <= slack or abs(e * scale - value) <= slack
               for e in evidence for scale in _SCALES)


# ---------------------------------------------------------------- what the user's message names


def named_in_message(message: str, ctx: ToolContext) -> tuple[str, ...]:
    """What the user's ``message`` names that exists in the allowed folders: files by name or path
    ("settings.toml", "reports/q3.md"), folders in words ("the projects folder"), or "the working
    folder" when it asks about the files here ("whats in here?"). Each as the user can read it
    ("settings.toml is in the working folder"). An answer given without reading any of them is a guess."""
    from gaia_lite.tools.find import PATH_MENTION
    from gaia_lite.tools.sandbox import SandboxError, resolve_user_path

    found: list[str] = []
    base = Path(ctx.workdir).resolve()
    mentions = [(m.group(0).rstrip("."), False) for m in PATH_MENTION.finditer(message)]
    mentions += [(m.group(1), True) for m in FOLDER_WORDS.pattern.finditer(message)]
    for raw, folder in mentions:
        if not _inside(ctx, raw):
            continue
        try:
            path = resolve_user_path(ctx, raw)
        except (SandboxError, OSError):  # a look that fails must never break a turn
            continue
        if path.is_dir() if folder else path.is_file():
            found.append(_where(path, base))
    if not found:
        found += [_where(f.path, base) for f in _named_in_words(message, ctx)]
    if not found and HERE.search(message):
        found.append("your question is about the files in the working folder")
    return tuple(dict.fromkeys(found))


_IS_IN = " is in "  # how a line of named_in_message says where a file is


def _where(path: Path, base: Path) -> str:
    where = path.parent.relative_to(base) if path.parent.is_relative_to(base) else path.parent
    return f"{path.name}{_IS_IN}{'the working folder' if str(where) == '.' else f'the folder {where}'}"


def names_file(line: str) -> bool:
    """Is ``line`` (one of named_in_message's) a file or folder here, not "your question is about the files ..."?"""
    return _IS_IN in line


def _named_in_words(message: str, ctx: ToolContext) -> list:
    """Files whose whole name of two words or more the message says in words: "tl;dr of the onboarding
    guide?" -> hr/onboarding/onboarding-guide.md (0.5B, dev run: answered "Onboarding guide for working
    directory setup." without reading it). A one-word name ("notes", "budget") is too often just a word."""
    from gaia_lite.tools.find import named_in, words

    try:
        return [f for f in named_in(ctx, message, min_share=1.0, limit=2)
                if len(words(Path(f.path).stem)) >= 2]
    except OSError:  # a look that fails must never break a turn
        return []


def asks_what_user_said(message: str) -> bool:
    """Does ``message`` ask what the user told the agent earlier (its answer is a saved fact)?"""
    return bool(ASKS_WHAT_I_SAID.search(message or ""))


def asks_about_user(message: str) -> bool:
    """Is ``message`` a question about the user or what they said: its answer may be a saved fact ("what's
    my locker code again?", "how do I like my summaries?", "What did I tell you about my diet?")? A
    question, with "my", "remember"/"recall", "I told/said ..." or a closing "again", that names no file,
    folder or other place the tools look in ("how big is my report.txt?", "what's in my downloads?")."""
    text = (message or "").strip()
    if asks_what_user_said(text):
        return True
    if not (text.endswith("?") or QUESTION_START.match(text)) or ABOUT_FILES.search(text):
        return False
    return bool(ABOUT_ME.search(text) or (AGAIN.search(text) and WH_START.match(text)))


# Arguments that name a file to read or write ("file_path", "image_path", "output_path", "path")
_FILE_ARG = re.compile(r"(?:^|_)(?:path|file)$")


def invented_file(arguments: dict[str, object], ctx: ToolContext, user_messages: Sequence[str]) -> str | None:
    """A file a call's arguments name that nothing backs, or None: it does not exist, no file in the
    allowed folders is like it, the user's messages do not name it and name no file of their own. A
    small model calls analyze_image on "leaves.jpg" for "in one sentence - why do leaves turn red?", or
    writes "poem.txt" for "write me a two-line poem"."""
    from gaia_lite.registry.failure import ToolFailure
    from gaia_lite.tools.find import PATH_MENTION, find, named_in, pointed_by_request
    from gaia_lite.tools.sandbox import SandboxError, resolve_user_path

    said = "\n".join(user_messages).lower()
    message = user_messages[-1] if user_messages else ""
    for key, value in arguments.items():
        if not (isinstance(value, str) and _FILE_ARG.search(key) and PATH_MENTION.fullmatch(value.strip())):
            continue
        name = Path(value.strip()).name
        raw = _as_run(ctx, value.strip())
        if name.lower() in said or not _inside(ctx, raw):
            continue  # named by the user, or for the tool to refuse in its own words
        try:
            if resolve_user_path(ctx, raw).exists() or find(ctx, name, "file") or named_in(ctx, message) \
                    or named_in_message(message, ctx) or pointed_by_request(ctx, message, files_scanned=300):
                continue  # the request is about a file here: the tool finds the one meant (find.locate)
        except (SandboxError, ToolFailure, OSError):  # the tool will say what is wrong in its own words
            continue
        return name
    return None


# A file's text kept by a rewrite at least this share of its lines is edited, not replaced
KEPT_LINES = 0.5
_CLOBBER_MAX_BYTES = 1_000_000


def clobbered_file(arguments: dict[str, object], ctx: ToolContext) -> str | None:
    """The file a write_file call would replace with text that keeps under half of its lines, or None. The
    1.5B "bumped" setup.cfg's version by writing "bump the version to 2.1.0" over all of it, after two
    edit_file calls with an empty old_content (test split, 287ef59); the answer said the version was updated."""
    from gaia_lite.tools.find import shown
    from gaia_lite.tools.sandbox import SandboxError, resolve_user_path

    raw, content = arguments.get("file_path"), arguments.get("content")
    if not isinstance(raw, str) or not isinstance(content, str) or not raw.strip():
        return None
    raw = _as_run(ctx, raw.strip())
    if not _inside(ctx, raw):
        return None  # for the tool to refuse in its own words
    try:
        path = resolve_user_path(ctx, raw)
        if not path.is_file() or path.stat().st_size > _CLOBBER_MAX_BYTES:
            return None
        old = [ln.strip() for ln in path.read_text(encoding="utf-8", errors="replace").splitlines() if ln.strip()]
    except (SandboxError, OSError):
        return None
    new = {ln.strip() for ln in content.splitlines()}
    kept = sum(ln in new for ln in old)
    if not old or kept >= KEPT_LINES * len(old):
        return None
    return shown(path, Path(ctx.workdir).resolve())


def _as_run(ctx: ToolContext, raw: str) -> str:
    """``raw`` as the executor will run it: a path that dropped the working directory's last folders put back
    under it (registry/paths.py). "<task>-on/poem.txt" for "write me a two-line poem" was written to
    <task>-on/work/poem.txt, unjudged, since the path as given was outside the allowed folders (1.5B)."""
    from gaia_lite.registry.paths import beside_workdir
    from gaia_lite.tools.file_walk import sandbox_roots

    return beside_workdir(raw, Path(ctx.workdir), sandbox_roots(ctx)) or raw


def _inside(ctx: ToolContext, raw: str) -> bool:
    """Is ``raw`` (relative to the working folder) inside the allowed folders? Checked before the sandbox
    is asked, which could ask the user to approve a path outside them."""
    from gaia_lite.tools.file_walk import sandbox_roots

    here = Path(os.path.normpath(Path(ctx.workdir).resolve() / os.path.expanduser(raw)))
    return any(here.is_relative_to(Path(r).resolve()) for r in sandbox_roots(ctx))


def changes_topic(message: str) -> bool:
    """Does ``message`` say in so many words that it leaves the topic ("Unrelated question: ...", "different
    topic: ...")? Thanks first is not enough: "cool - which month was the most expensive?" asks about the
    results just shown."""
    return CHANGES_TOPIC.search(message) is not None and not POINTS_BACK.search(message)


def pointed_files(message: str, ctx: ToolContext) -> str | None:
    """The files here that the words of ``message`` point to, as the user reads them ("policies/returns.md"),
    or None."""
    from gaia_lite.tools.find import pointed_by_request, shown

    try:
        found = pointed_by_request(ctx, message, files_scanned=300)
    except OSError:  # a look that fails must never break a turn
        return None
    base = Path(ctx.workdir).resolve()
    return " or ".join(shown(p.path, base) for p in found[:2]) or None
