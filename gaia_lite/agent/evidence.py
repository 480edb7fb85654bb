"""The judge's looks at the user's files, made at most once a step.

Four guards ask the file system about a reply: does the file a call names exist or look like one here
(``invented``), would a write replace most of a file (``clobbers``), which files do the message's words point
to (``pointed``). Each is a walk of the allowed folders, a read of a file, or a scan of up to 300 files' text
(``invented_file``, ``clobbered_file``, ``pointed_files`` below), and the same question comes up more than once
in a step: a write is asked about by unasked_write and invented_file, and a draft's detectors run again when it
is judged as final. ``Lookups`` answers each question once a step and keeps the answer; it asks nothing until a
guard does, since most steps need none of them (an answer without calls needs at most ``pointed``, and only when
it declines).

The loop makes one ``Lookups`` a step and hands its methods to ``Evidence``; a guard reads them as values.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence

from gaia_lite.messages import ToolCall

from .named import inside, named_in_message

if TYPE_CHECKING:
    from gaia_lite.registry.context import ToolContext

__all__ = ["Lookups", "invented_file", "clobbered_file", "pointed_files"]


@dataclass
class Lookups:
    """One step's file-system lookups for the judge, each made at most once (by call, where it asks about one)."""

    ctx: ToolContext
    user_messages: tuple[str, ...]  # the conversation's, the current one last
    _found: dict[tuple[str, str], str | None] = field(default_factory=dict, repr=False)

    @property
    def message(self) -> str:
        return self.user_messages[-1] if self.user_messages else ""

    def invented(self, call: ToolCall) -> str | None:
        """A file ``call`` names that nothing backs (invented_file)."""
        return self._once("invented", call, lambda: invented_file(call.arguments, self.ctx, self.user_messages))

    def clobbers(self, call: ToolCall) -> str | None:
        """A file ``call`` would replace, keeping little of it (clobbered_file)."""
        return self._once("clobbers", call, lambda: clobbered_file(call.arguments, self.ctx))

    def pointed(self) -> str | None:
        """The files the message's words point to (pointed_files)."""
        return self._once("pointed", None, lambda: pointed_files(self.message, self.ctx))

    def _once(self, kind: str, call: ToolCall | None, look: Callable[[], str | None]) -> str | None:
        key = (kind, "" if call is None else call.name + json.dumps(call.arguments, sort_keys=True, default=str))
        if key not in self._found:
            self._found[key] = look()
        return self._found[key]


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
        if name.lower() in said or not inside(ctx, raw):
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
    if not inside(ctx, raw):
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
