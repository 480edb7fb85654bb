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

import json
import re
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Protocol

from gaia_lite.llm.textcalls import parse_text_calls, strip_think
from gaia_lite.messages import AssistantCallsMessage, ChatResult, ToolCall

__all__ = ["Reply", "ReplyMode", "ReplyView", "FreeReplies", "HoldingView", "UnrepeatedView", "is_result_echo",
           "echoes_result", "opens_json_object", "names_a_tool", "bare_tool_name", "placeholder", "answer_slot",
           "written_call", "not_an_answer", "plain_words", "without_tool_names"]

# Starts of a reply that may still become a written tool call: held off the screen until it is prose.
_HOLD_PREFIXES = ("{", "[", "(", "```", "<tool_call", "<think", "<")


@dataclass(frozen=True)
class Reply:
    calls: tuple[ToolCall, ...]
    text: str  # the prose beside the calls, or the answer when there are none (think blocks removed)

    def assistant_message(self) -> AssistantCallsMessage:
        """The history entry for a reply that calls tools."""
        return {"role": "assistant", "content": self.text or None, "tool_calls": [c.wire() for c in self.calls]}


class ReplyMode(Protocol):
    response_format_text: str | None  # replaces the prompt's free-text reply format (None: keep it)
    forces_calls: bool  # can hold a reply to "a call, no answer" (calls_only), with no words to the model
    after_result: str | None  # the text path's line after each tool result (None: the loop's own)

    def request_extra(self, tools: list[dict[str, Any]] | None, *, forced: bool = False,
                      calls_only: bool = False, has_result: bool = False) -> dict[str, Any]:
        """Extra request fields this mode sends with a model call ({} for none); ``forced``: the call
        that must answer without tools; ``calls_only``: the reply must be a call (``forces_calls`` modes);
        ``has_result``: this turn already has a tool result."""

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

    def __init__(self, tool_names: Callable[[], list[str]], *, hold_all: bool = False) -> None:
        self._names = tool_names
        self._hold_all = hold_all  # the text path: a call may follow prose, so show only the parsed answer

    def request_extra(self, tools: list[dict[str, Any]] | None, *, forced: bool = False,
                      calls_only: bool = False, has_result: bool = False) -> dict[str, Any]:
        return {}

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
        # the loop answers an echo, and asks again (or answers from the results) for a narrated call
        if not reply.calls and reply.text and not opens_json_object(reply.text) \
                and not not_an_answer(reply.text, self._tool_names()):
            return reply.text
        return ""


def plain_words(text: str) -> str:
    """``text`` lower-cased, without punctuation, one space between words: for "said the same"."""
    return " ".join("".join(c for c in text.lower() if c.isalnum() or c.isspace()).split())


class UnrepeatedView:
    """Wraps a view: what it would show is held while it may still turn out to be one of ``earlier``
    (answers already given in this conversation), and dropped if it is one, word for word. The loop
    then asks for an answer to the new question, so a repeat never reaches the screen."""

    def __init__(self, inner: ReplyView, earlier: Iterable[str]) -> None:
        self._inner = inner
        self._earlier = [e for e in map(plain_words, earlier) if e]
        self._held = ""
        self._open = not self._earlier

    def _release(self) -> str:
        if not self._open and not any(e.startswith(plain_words(self._held)) for e in self._earlier):
            self._open = True
        if not self._open:
            return ""
        out, self._held = self._held, ""
        return out

    def feed(self, delta: str) -> str:
        self._held += self._inner.feed(delta)
        return self._release()

    def finish(self, result: ChatResult) -> str:
        self._held += self._inner.finish(result)
        if not self._open and plain_words(self._held) in self._earlier:
            return ""
        self._open = True
        return self._release()


def is_result_echo(text: str) -> bool:
    """Does the model's reply look like a tool result (a JSON object with a status)?"""
    t = text.strip()
    if not t.startswith("{"):
        return False
    try:
        value, _ = json.JSONDecoder().raw_decode(t)
    except ValueError:
        return False
    return isinstance(value, dict) and "status" in value


# A reply that opens a JSON object with a plain key ({"size_bytes": ...): data, held off the screen until the
# loop has read it (the answer shown is the loop's, so a JSON answer the user asked for still appears).
_JSON_OBJECT = re.compile(r'\s*\{\s*"([\w ]+)"\s*:')


def opens_json_object(text: str) -> bool:
    return bool(_JSON_OBJECT.match(text or ""))


def echoes_result(text: str, payload: dict[str, Any]) -> bool:
    """Is ``text`` a tool result given back as JSON: with its status, or opening with one of ``payload``'s
    keys (the 0.5B model dropped "status" and was cut off mid-"content")?"""
    if is_result_echo(text):
        return True
    m = _JSON_OBJECT.match(text or "")
    return m is not None and m.group(1) in payload


def names_a_tool(text: str, tool_names: Iterable[str]) -> bool:
    """Does ``text`` name a tool (``browse_directory``, `read_file`)? An answer has no reason to:
    it is a call described in prose, or a bare tool name, instead of a call made. Only snake_case
    names count, so "read" or "recall" in a sentence never does."""
    return any(_named(n).search(text or "") for n in tool_names if "_" in n)


def without_tool_names(text: str, tool_names: Iterable[str], words: Callable[[str], str]) -> str:
    """``text`` with every tool name ``names_a_tool`` would find replaced by ``words(name)``."""
    for n in tool_names:
        if "_" in n:
            text = _named(n).sub(words(n), text)
    return text


def _named(name: str) -> re.Pattern[str]:
    """A tool's name as a whole word, not part of a file name or a longer identifier."""
    return re.compile(rf"(?<![\w.]){re.escape(name)}(?!\w)")


# A template slot where a value should be: "[Customer Name]", "[Total Units]", "[customer name]", "[Name]".
# Two or more capitalised words, or words ending in a slot word; "[Page 2]", "[REDACTED]" and Markdown
# links do not count.
_SLOT_WORDS = r"(?:name|value|number|amount|date|total|units?|location|address|price|count)"
_PLACEHOLDER = re.compile(
    r"\[(?:[A-Z][a-z']+(?: [A-Za-z][a-z']+){1,4}|(?:[A-Za-z][a-z']* ){0,3}(?i:" + _SLOT_WORDS + r"))\](?!\()")


# A slot copied from the reply format ("<your answer, in plain sentences>", "<tool name>"): two or more
# lower-case words in angle brackets. HTML tags (<br>, <a href="...">) and autolinks (<https://...>)
# do not match.
_ANGLE_SLOT = re.compile(r"<[a-z][a-z']*(?:,? [a-z][a-z']*)+>")
# The reply format's answer slots are "<your answer, ...>"; a copy of one stands where the answer belongs.
_ANSWER_SLOT = re.compile(r"<your answer\b[^<>]{0,40}>")
# What was meant as a call to a tool, written into the text and not read as one (cut-off or broken JSON):
# an object whose name key holds a tool's name. An answer quoting a JSON file has no reason to.
_WRITTEN_CALL = re.compile(r"""\{\s*["']?(?:name|tool|tool_name|function)["']?\s*:\s*["']([A-Za-z_][\w.-]*)["']""")


def placeholder(text: str) -> str | None:
    """The first template slot in ``text`` (``[Customer Name]``, ``<your answer, in plain sentences>``),
    or None. The model wrote the shape of an answer without the value: it has not read what holds it
    yet, or it copied the reply format instead of answering."""
    found = [m for m in (_PLACEHOLDER.search(text or ""), _ANGLE_SLOT.search(text or "")) if m]
    return min(found, key=lambda m: m.start()).group(0) if found else None


def answer_slot(text: str) -> str | None:
    """The reply format's answer slot copied into ``text`` (``<your answer, in plain sentences>``), or None."""
    m = _ANSWER_SLOT.search(text or "")
    return m.group(0) if m else None


def written_call(text: str, tool_names: Iterable[str]) -> str | None:
    """The tool a call written into ``text`` names (``{"name": "recall", "arguments": {...``), or None."""
    names = set(tool_names)
    return next((m.group(1) for m in _WRITTEN_CALL.finditer(text or "") if m.group(1) in names), None)


def not_an_answer(text: str, tool_names: Iterable[str]) -> bool:
    """A reply the user must not see as the answer: a call described in prose or written as unreadable
    JSON, or a template."""
    names = list(tool_names)
    return names_a_tool(text, names) or placeholder(text) is not None or written_call(text, names) is not None


def tools_named(message: str, tool_names: Iterable[str]) -> set[str]:
    """The tools ``message`` names as whole words, any case ("Remember that ..." names ``remember``),
    one-word names included: for deciding what the user asked for, not for spotting a narrated call."""
    words = set(re.findall(r"[a-z0-9_]+", (message or "").lower()))
    return {n for n in tool_names if n in words}


def bare_tool_name(text: str, tool_names: Iterable[str]) -> bool:
    """Is the whole reply just a tool's name (``list_recent_files``, `read_file()`)?"""
    core = (text or "").strip().strip("`'\".:").removesuffix("()").strip()
    return bool(core) and core in set(tool_names)
