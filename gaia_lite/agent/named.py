"""What the user's message names that exists: the files and folders a question is about.

The loop shows them beside the message ("settings.toml is in the working folder") and the judge's unread_file
guard holds an answer that read none of them; the judge's file looks (evidence.py) also ask it whether a call's
made-up file stands for a file the message names.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from .lexicon import FOLDER_WORDS, HERE

if TYPE_CHECKING:
    from gaia_lite.registry.context import ToolContext
    from gaia_lite.tools.find import Found

__all__ = ["named_in_message", "names_file", "inside", "in_words_once", "NamedInWords"]


class NamedInWords:
    """The turn's look at the files and folders whose whole name ``message`` says in words (find.named_in_words),
    made when first asked and then kept: the named files, the held call, read first and list first all read it, so
    a turn walks the allowed folders for it once. Called, it gives the files; ``folders()`` the folders."""

    def __init__(self, message: str, ctx: ToolContext) -> None:
        self.message, self.ctx = message, ctx

    @functools.cached_property
    def _found(self) -> list[Found]:
        from gaia_lite.tools.find import named_in_words

        return named_in_words(self.ctx, self.message, kind="any")

    def __call__(self) -> list[Found]:
        return [f for f in self._found if not f.is_dir]

    def folders(self) -> list[Found]:
        return [f for f in self._found if f.is_dir]


def in_words_once(message: str, ctx: ToolContext) -> NamedInWords:
    """The turn's one look at what ``message`` names in words (NamedInWords)."""
    return NamedInWords(message, ctx)


def named_in_message(message: str, ctx: ToolContext,
                     in_words: Callable[[], list[Found]] | None = None) -> tuple[str, ...]:
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
        if not inside(ctx, raw):
            continue
        try:
            path = resolve_user_path(ctx, raw)
        except (SandboxError, OSError):  # a look that fails must never break a turn
            continue
        if path.is_dir() if folder else path.is_file():
            found.append(_where(path, base))
    if not found:
        found += [_where(f.path, base) for f in _named_in_words(message, ctx, in_words)]
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


def named_file(line: str) -> str:
    """The file's name in ``line`` (one of named_in_message's): "big.log" of "big.log is in the folder logs"."""
    return line.split(_IS_IN, 1)[0]


def _named_in_words(message: str, ctx: ToolContext, in_words: Callable[[], list[Found]] | None = None) -> list:
    """Files whose whole name of two words or more the message says in words: "tl;dr of the onboarding
    guide?" -> hr/onboarding/onboarding-guide.md (0.5B, dev run: answered "Onboarding guide for working
    directory setup." without reading it). A one-word name ("notes", "budget") is too often just a word."""
    from gaia_lite.tools.find import named_in_words, words

    try:
        found = in_words() if in_words is not None else named_in_words(ctx, message)
        return [f for f in found[:2] if len(words(Path(f.path).stem)) >= 2]
    except OSError:  # a look that fails must never break a turn
        return []


def inside(ctx: ToolContext, raw: str) -> bool:
    """Is ``raw`` (relative to the working folder) inside the allowed folders? Checked before the sandbox
    is asked, which could ask the user to approve a path outside them."""
    from gaia_lite.tools.file_walk import sandbox_roots

    here = Path(os.path.normpath(Path(ctx.workdir).resolve() / os.path.expanduser(raw)))
    return any(here.is_relative_to(Path(r).resolve()) for r in sandbox_roots(ctx))
