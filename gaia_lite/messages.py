"""Plain values that cross module boundaries: chat messages, tool calls and per-call usage."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict, Union

__all__ = ["ToolCall", "new_call_id", "Usage", "ChatResult", "Message", "SystemMessage", "UserMessage", "AssistantMessage",
           "AssistantCallsMessage", "ToolMessage", "WireToolCall", "WireFunction"]


# ---- the OpenAI chat messages the agent keeps in its history and sends


class WireFunction(TypedDict):
    name: str
    arguments: str  # JSON text


class WireToolCall(TypedDict):
    id: str
    type: Literal["function"]
    function: WireFunction


class SystemMessage(TypedDict):
    role: Literal["system"]
    content: str


class UserMessage(TypedDict):
    role: Literal["user"]
    content: str


class AssistantMessage(TypedDict):
    role: Literal["assistant"]
    content: str | None


class AssistantCallsMessage(AssistantMessage):
    tool_calls: list[WireToolCall]


class ToolMessage(TypedDict):
    role: Literal["tool"]
    tool_call_id: str
    content: str


Message = Union[SystemMessage, UserMessage, AssistantMessage, AssistantCallsMessage, ToolMessage]


def new_call_id() -> str:
    """An id for a call the server did not number: one read from a reply's text, or the agent's own."""
    return "call_" + uuid.uuid4().hex[:12]


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: dict[str, Any]
    source: str = "native"  # native | text (lifted from message text) | agent (read before the first reply)

    def wire(self) -> WireToolCall:
        """The assistant ``tool_calls`` entry sent back to the server."""
        return {"id": self.id, "type": "function",
                "function": {"name": self.name, "arguments": json.dumps(self.arguments)}}


@dataclass(frozen=True)
class Usage:
    """What one model call cost, from the server's own numbers when it reports them."""
    ttft_s: float | None = None
    total_s: float | None = None
    prompt_tokens: int | None = None
    cached_tokens: int | None = None
    completion_tokens: int | None = None
    prompt_ms: float | None = None


@dataclass(frozen=True)
class ChatResult:
    content: str
    tool_calls: tuple[ToolCall, ...] = ()
    finish_reason: str | None = None
    usage: Usage = field(default_factory=Usage)
    reasoning: str = ""
