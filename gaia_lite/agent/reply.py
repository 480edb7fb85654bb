"""A model's reply as the agent reads it: the calls it makes, and its text.

The reply modes (replies.py, constrained.py, grammar.py) turn a finished model call into a ``Reply``; the
judge says what to do with it; the loop puts a reply that calls tools into the history.
"""

from __future__ import annotations

from dataclasses import dataclass

from gaia_lite.messages import AssistantCallsMessage, ToolCall

__all__ = ["Reply"]


@dataclass(frozen=True)
class Reply:
    calls: tuple[ToolCall, ...]
    text: str  # the prose beside the calls, or the answer when there are none (think blocks removed)

    def assistant_message(self) -> AssistantCallsMessage:
        """The history entry for a reply that calls tools."""
        return {"role": "assistant", "content": self.text or None, "tool_calls": [c.wire() for c in self.calls]}
