"""How the model is asked to reply, and how its reply is read.

A ``ReplyMode`` adds what its mode needs to each request and turns a finished
``ChatResult`` into a ``Reply``: the tool calls to run, or the answer. The loop
only sees ``Reply`` values, so another mode (say, replies constrained by a JSON
schema) is a new class here, not a new branch in the loop.

``FreeReplies`` is the mode every model gets today: native ``tool_calls``, or
calls written into the text (JSON, fences, tags; ``llm.textcalls``), and
anything else is the answer.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Iterable, Protocol

from gaia_lite.llm.textcalls import parse_text_calls, strip_think
from gaia_lite.messages import ChatResult

from .judge import Evidence, hiding_guard
from .reply import MIN_CUT, Reply, names_a_tool

# names_a_tool: eval/tasks.py counts narrated answers with the judge's own rule
__all__ = ["Reply", "ReplyMode", "ReplyView", "FreeReplies", "HoldingView", "OwnLinesView",
           "names_a_tool", "first_sentence_pending"]

# Starts of a reply that may still become a written tool call: held off the screen until it is prose.
_HOLD_PREFIXES = ("{", "[", "(", "```", "<tool_call", "<think", "<")

# A streamed answer's first sentence is held until it is complete (or this long): a narrated call names its tool
# there, and the judge's narrated guard must see it before the user does
FIRST_SENTENCE_MAX = 160
_SENTENCE_END = re.compile(r".{12}[.!?:](\s|$)|\n", re.DOTALL)


def first_sentence_pending(text: str) -> bool:
    """Is ``text`` (an answer as it streams) still inside its first sentence?"""
    return len(text) < FIRST_SENTENCE_MAX and not _SENTENCE_END.search(text)


class ReplyMode(Protocol):
    response_format_text: str | None  # replaces the prompt's free-text reply format (None: keep it)
    forces_calls: bool  # can hold a reply to "a call, no answer" (calls_only), with no words to the model
    after_result: str | None  # the text path's line after each tool result (None: the loop's own)
    call_key: str  # the key that names the tool in a call written as JSON ("name", or "tool" tool-first)

    def request_extra(self, tools: list[dict[str, Any]] | None, *, forced: bool = False,
                      calls_only: bool = False, has_result: bool = False) -> dict[str, Any]:
        """Extra request fields this mode sends with a model call ({} for none); ``forced``: the call
        that must answer without tools; ``calls_only``: the reply must be a call (``forces_calls`` modes);
        ``has_result``: this turn already has a tool result."""

    def reply_opening(self, *, forced: bool = False, calls_only: bool = False, has_result: bool = False) -> str:
        """Text every reply of this request starts with, sent as the opening of the assistant's message so
        the model reads it with the prompt instead of decoding it ("" for none); same flags as above."""

    def call_opening(self, tool: str, arguments: dict[str, str], writes: tuple[str, ...],
                     start: str, options: tuple[str, ...] = ()) -> tuple[str, dict[str, Any]] | None:
        """A reply held to one call of ``tool`` with ``arguments`` set, whose string arguments ``writes`` the
        model writes, the first from ``start`` on and one of ``options`` when given: the opening and the request's
        extra fields, or None where this mode cannot hold a reply so."""

    def holds(self, head: str) -> bool:
        """May a reply starting with ``head`` still turn into a call (so it is not streamed yet)?"""

    def parse(self, result: ChatResult) -> Reply:
        """The calls and text of a finished reply."""

    def view(self) -> "ReplyView":
        """A fresh view for one streamed reply: which of its text the user may see, and when."""


class ReplyView(Protocol):
    def feed(self, delta: str) -> str:
        """The text to show now, given the next chunk of the reply ("" to hold it)."""

    def finish(self, result: ChatResult) -> str:
        """The text still to show once the reply is complete."""


class FreeReplies:
    """Native ``tool_calls``, or calls the model wrote into its text; anything else is the answer."""

    response_format_text: str | None = None
    forces_calls = False
    after_result: str | None = None
    call_key = "name"  # the key that names the tool in a call written as JSON (worked examples use it)

    def __init__(self, tool_names: Callable[[], list[str]], *, hold_all: bool = False) -> None:
        self._names = tool_names
        self._hold_all = hold_all  # the text path: a call may follow prose, so show only the parsed answer

    def request_extra(self, tools: list[dict[str, Any]] | None, *, forced: bool = False,
                      calls_only: bool = False, has_result: bool = False) -> dict[str, Any]:
        return {}

    def reply_opening(self, *, forced: bool = False, calls_only: bool = False, has_result: bool = False) -> str:
        return ""

    def call_opening(self, tool: str, arguments: dict[str, str], writes: tuple[str, ...],
                     start: str, options: tuple[str, ...] = ()) -> tuple[str, dict[str, Any]] | None:
        return None

    def holds(self, head: str) -> bool:
        return any(head.startswith(p) or p.startswith(head) for p in _HOLD_PREFIXES)

    def view(self) -> "HoldingView":
        return HoldingView(self, hold_all=self._hold_all, tool_names=self._names)

    def parse(self, result: ChatResult) -> Reply:
        if result.tool_calls:
            return Reply(tuple(result.tool_calls), strip_think(result.content))
        parsed = parse_text_calls(result.content, self._names())
        if parsed.calls:
            return Reply(parsed.calls, parsed.text)
        return Reply((), parsed.answer if parsed.answer is not None else strip_think(result.content))


class HoldingView:
    """Free replies on screen: text that may still become a written call is held until it is clearly
    prose; with ``hold_all`` (the text path, where a call may follow a sentence) the whole reply is
    held and only its answer is shown, so prose that came with a call never looks like the answer."""

    def __init__(self, mode: ReplyMode, *, hold_all: bool = False,
                 tool_names: Callable[[], list[str]] = list) -> None:
        self._mode = mode
        self._tool_names = tool_names
        self._held = ""
        self._holding = True
        self._hold_all = hold_all

    def feed(self, delta: str) -> str:
        if not self._holding:
            return delta
        self._held += delta
        head = self._held.lstrip()
        if self._hold_all or not head or self._mode.holds(head):
            return ""
        self._holding = False
        out, self._held = self._held, ""
        return out

    def finish(self, result: ChatResult) -> str:
        if not self._held or result.tool_calls:
            return ""
        reply = self._mode.parse(ChatResult(self._held))
        # what a guard catches is left to the loop, which asks again or answers from the results
        if not reply.calls and reply.text and hiding_guard(reply.text, Evidence(tuple(self._tool_names()))) is None:
            return reply.text
        return ""


class OwnLinesView:
    """Keeps the agent's own after-result lines off the screen. A small model ends an answer by copying
    the line it was given after a tool result ("Buy stamps.\n(If this answers the request, reply {");
    the loop strips it from the answer (``reply.without_own_lines``), and the screen must agree, or
    the user reads the copy and then the clean answer printed again. Text that may be the start of one of
    ``lines`` is held until it cannot be; from the first ``MIN_CUT`` characters of one, nothing more of
    the reply is shown."""

    def __init__(self, inner: ReplyView, lines: Iterable[str]) -> None:
        self._inner = inner
        self._lines = tuple(dict.fromkeys(ln.strip() for ln in lines if ln and len(ln.strip()) >= MIN_CUT))
        self._text = ""
        self._shown = 0
        self._cut: int | None = None

    def _limit(self, final: bool) -> int:
        """How much of the text so far may be shown: never trailing white space, which only the text
        after it can show to be part of the answer."""
        if self._cut is None:
            starts = [i for i in (self._text.find(ln[:MIN_CUT]) for ln in self._lines) if i >= 0]
            self._cut = min(starts) if starts else None
        end = len(self._text)
        if self._cut is not None:
            end = self._cut
        elif not final:
            end -= max((k for ln in self._lines for k in range(min(len(ln), end), 0, -1)
                        if self._text.endswith(ln[:k])), default=0)
        return len(self._text[:end].rstrip())

    def _out(self, final: bool) -> str:
        limit = self._limit(final)
        out = self._text[self._shown:limit]
        self._shown = max(self._shown, limit)
        return out

    def feed(self, delta: str) -> str:
        self._text += self._inner.feed(delta)
        return self._out(final=False)

    def finish(self, result: ChatResult) -> str:
        self._text += self._inner.finish(result)
        return self._out(final=True)
