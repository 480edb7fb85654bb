"""The judge's look at the user's files: does a file a call names exist or look like one here (``invented``). It
walks the allowed folders or scans up to 300 files' text, so ``Lookups`` makes each look once a step, when a guard
first asks; most steps need none."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from gaia_lite.messages import ToolCall

from .named import inside, named_in_message

if TYPE_CHECKING:
    from gaia_lite.registry.context import ToolContext

__all__ = ["Lookups", "invented_file"]

_FILE_ARG = re.compile(r"(?:^|_)(?:path|file)$")  # arguments that name a file: file_path, image_path, path


@dataclass
class Lookups:
    """One step's looks, for ``Evidence``: the loop hands over the methods, and a guard reads them as values."""

    ctx: ToolContext
    user_messages: tuple[str, ...]  # the conversation's, the current one last
    _found: dict[str, str | None] = field(default_factory=dict, repr=False)  # by call

    def invented(self, call: ToolCall) -> str | None:
        key = call.name + json.dumps(call.arguments, sort_keys=True, default=str)
        if key not in self._found:
            self._found[key] = invented_file(call.arguments, self.ctx, self.user_messages)
        return self._found[key]


def invented_file(arguments: dict[str, object], ctx: ToolContext, user_messages: Sequence[str]) -> str | None:
    """A file the arguments name that does not exist, is like no file here, and that the user's messages do not
    name when they name no file of their own ("leaves.jpg" to analyze_image for "why do leaves turn red?")."""
    from gaia_lite.registry.failure import ToolFailure
    from gaia_lite.tools.find import PATH_MENTION, find, named_in, pointed_by_request
    from gaia_lite.tools.sandbox import SandboxError, resolve_user_path

    said, message = "\n".join(user_messages).lower(), user_messages[-1] if user_messages else ""
    for key, value in arguments.items():
        if not (isinstance(value, str) and _FILE_ARG.search(key) and PATH_MENTION.fullmatch(value.strip())):
            continue
        name, raw = Path(value.strip()).name, _as_run(ctx, value.strip())
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


def _as_run(ctx: ToolContext, raw: str) -> str:
    """``raw`` as the executor runs it: a path that dropped the working folder's last folders, put back under it
    (registry/paths.py); the 1.5B wrote <task>-on/poem.txt for <task>-on/work, unjudged."""
    from gaia_lite.registry.paths import beside_workdir
    from gaia_lite.tools.file_walk import sandbox_roots

    return beside_workdir(raw, Path(ctx.workdir), sandbox_roots(ctx)) or raw
