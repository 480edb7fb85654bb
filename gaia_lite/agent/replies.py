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
from dataclasses import dataclass
from typing import Any, Callable, Protocol

from gaia_lite.llm.textcalls import parse_text_calls, strip_think
from gaia_lite.messages import AssistantCallsMessage, ChatResult, ToolCall

__all__ = ["Reply", "ReplyMode", "FreeReplies", "is_result_echo"]

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
    def request_extra(self, tools: list[dict[str, Any]] | None) -> dict[str, Any]:
        """Extra request fields this mode sends with every model call ({} for none)."""

    def holds(self, head: str) -> bool:
        """May a reply starting with ``head`` still turn into a call (so it is not streamed yet)?"""

    def parse(self, result: ChatResult) -> Reply:
        """The calls and text of a finished reply."""


class FreeReplies:
    """Native ``tool_calls``, or calls the model wrote into its text; anything else is the answer."""

    def __init__(self, tool_names: Callable[[], list[str]]) -> None:
        self._names = tool_names

    def request_extra(self, tools: list[dict[str, Any]] | None) -> dict[str, Any]:
        return {}

    def holds(self, head: str) -> bool:
        return any(head.startswith(p) or p.startswith(head) for p in _HOLD_PREFIXES)

    def parse(self, result: ChatResult) -> Reply:
        if result.tool_calls:
            return Reply(tuple(result.tool_calls), strip_think(result.content))
        parsed = parse_text_calls(result.content, self._names())
        if parsed.calls:
            return Reply(parsed.calls, parsed.text)
        return Reply((), parsed.answer if parsed.answer is not None else strip_think(result.content))


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
