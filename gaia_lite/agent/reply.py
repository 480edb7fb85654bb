"""A model's reply as the agent reads it: the calls it makes, and its text.

The reply modes (replies.py, constrained.py, grammar.py) turn a finished model call into a ``Reply``; the
judge says what to do with it; the loop puts a reply that calls tools into the history.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Iterable

from gaia_lite.messages import AssistantCallsMessage, ToolCall

__all__ = ["Reply", "names_a_tool", "without_tool_names", "without_own_lines", "MIN_CUT"]

MIN_CUT = 12  # a cut-off copy counts from this many characters ("(If this answers"); "(If" may be the answer's own


@dataclass(frozen=True)
class Reply:
    calls: tuple[ToolCall, ...]
    text: str  # the prose beside the calls, or the answer when there are none (think blocks removed)

    def assistant_message(self) -> AssistantCallsMessage:
        """The history entry for a reply that calls tools."""
        return {"role": "assistant", "content": self.text or None, "tool_calls": [c.wire() for c in self.calls]}


def _named(name: str) -> re.Pattern[str]:
    """A tool's name as a whole word, not part of a file name or a longer identifier."""
    return re.compile(rf"(?<![\w.]){re.escape(name)}(?!\w)")


def names_a_tool(text: str, tool_names: Iterable[str]) -> bool:
    """Does ``text`` name a tool (a call described instead of made)? Only snake_case names count, so "read" or
    "recall" in a sentence never does."""
    return any(_named(n).search(text or "") for n in tool_names if "_" in n)


def without_tool_names(text: str, tool_names: Iterable[str], words: Callable[[str], str]) -> str:
    """``text`` with every tool name ``names_a_tool`` would find replaced by ``words(name)``."""
    for n in (n for n in tool_names if "_" in n):
        text = _named(n).sub(words(n), text)
    return text


def without_own_lines(text: str, lines: Iterable[str]) -> str:
    """``text`` without each whole occurrence of ``lines``, nor a cut-off start of one that ends it."""
    out = text
    for line in (ln.strip() for ln in lines if ln and ln.strip()):
        out = out.replace(line, "")
        # a cut-off copy may end in the closers the JSON reply added after it ("To answer: {}}")
        for end in dict.fromkeys((out.rstrip(), out.rstrip().rstrip("}]\"' "))):
            cut = next((n for n in range(len(line) - 1, MIN_CUT - 1, -1) if end.endswith(line[:n])), 0)
            if cut:
                out = end[:-cut]
                break
    return out.strip() if out != text else text
