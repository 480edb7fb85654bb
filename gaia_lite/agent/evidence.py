"""The judge's looks at the user's files, made at most once a step.

Four guards ask the file system about a reply: does the file a call names exist or look like one here
(``invented``), would a write replace most of a file (``clobbers``), which files do the message's words point
to (``pointed``). Each is a walk of the allowed folders, a read of a file, or a scan of up to 300 files' text
(grounding.py), and the same question comes up more than once in a step: a write is asked about by
unasked_write and invented_file, and a draft's detectors run again when it is judged as final. ``Lookups``
answers each question once a step and keeps the answer; it asks nothing until a guard does, since most steps
need none of them (an answer without calls needs at most ``pointed``, and only when it declines).

The loop makes one ``Lookups`` a step and hands its methods to ``Evidence``; a guard reads them as values.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from gaia_lite.messages import ToolCall

from .grounding import clobbered_file, invented_file, pointed_files

if TYPE_CHECKING:
    from gaia_lite.registry.context import ToolContext

__all__ = ["Lookups"]


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
        """A file ``call`` names that nothing backs (grounding.invented_file)."""
        return self._once("invented", call, lambda: invented_file(call.arguments, self.ctx, self.user_messages))

    def clobbers(self, call: ToolCall) -> str | None:
        """A file ``call`` would replace, keeping little of it (grounding.clobbered_file)."""
        return self._once("clobbers", call, lambda: clobbered_file(call.arguments, self.ctx))

    def pointed(self) -> str | None:
        """The files the message's words point to (grounding.pointed_files)."""
        return self._once("pointed", None, lambda: pointed_files(self.message, self.ctx))

    def _once(self, kind: str, call: ToolCall | None, look: Callable[[], str | None]) -> str | None:
        key = (kind, "" if call is None else call.name + json.dumps(call.arguments, sort_keys=True, default=str))
        if key not in self._found:
            self._found[key] = look()
        return self._found[key]
