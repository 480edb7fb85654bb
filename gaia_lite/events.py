"""Events the agent yields while it works on a turn.

The agent never prints; the chat UI, ``ask --json``, the evals and the tests
all consume this one stream. Events are frozen dataclasses with a ``kind``
discriminator and serialise with ``to_dict``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Literal, Union

from gaia_lite.logline import LoadToolsRecord, SelectionRecord  # the records the loader lines print

__all__ = [
    "Event", "TurnStarted", "ToolsSelected", "TextDelta", "ModelCallFinished", "ToolCallStarted",
    "ToolCallFinished", "ToolsLoaded", "TurnFinished", "TurnFailed", "Notice", "to_dict",
]


@dataclass(frozen=True)
class TurnStarted:
    turn: int
    query: str
    kind: Literal["turn_started"] = "turn_started"


@dataclass(frozen=True)
class ToolsSelected:
    """What the prompt shows this turn. ``off_state`` names why the full
    registry is shown (``loader_off``, ``memory_disabled``, ``embedder_failed``)
    and is None while the loader is active; ``record`` is the TOOL_LOADER
    record of this turn (None when no line was logged)."""
    turn: int
    loaded: tuple[str, ...]
    reasons: dict[str, str]
    off_state: str | None
    off_reason: str
    tools_hash: str
    changed: bool
    native_tokens_estimate: int
    record: SelectionRecord | None = None
    kind: Literal["tools_selected"] = "tools_selected"


@dataclass(frozen=True)
class TextDelta:
    text: str
    kind: Literal["text_delta"] = "text_delta"


@dataclass(frozen=True)
class ModelCallFinished:
    step: int
    ttft_s: float | None
    total_s: float | None
    prompt_tokens: int | None
    cached_tokens: int | None
    completion_tokens: int | None
    tool_calls: int
    kind: Literal["model_call_finished"] = "model_call_finished"


@dataclass(frozen=True)
class ToolCallStarted:
    call_id: str
    name: str
    arguments: dict[str, Any]
    source: str  # native | text
    kind: Literal["tool_call_started"] = "tool_call_started"


@dataclass(frozen=True)
class ToolCallFinished:
    call_id: str
    name: str  # resolved name, or what the model asked for when unresolved
    arguments: dict[str, Any]
    status: str
    result: dict[str, Any]
    duration_s: float
    escape_hatch: bool = False
    outcome: str = "ok"  # how the call ended for the loop: ok, error, invalid (never ran), refused, denied, timeout
    kind: Literal["tool_call_finished"] = "tool_call_finished"


@dataclass(frozen=True)
class ToolsLoaded:
    """``load_tools`` (or ``/load``) added tools mid-turn."""
    bundle: str
    admitted: tuple[str, ...]
    loaded: tuple[str, ...]
    tools_hash: str
    record: LoadToolsRecord
    kind: Literal["tools_loaded"] = "tools_loaded"


@dataclass(frozen=True)
class Notice:
    level: Literal["info", "warning"]
    message: str
    kind: Literal["notice"] = "notice"


@dataclass(frozen=True)
class TurnFinished:
    turn: int
    answer: str
    tools_called: tuple[str, ...]
    steps: int
    ttft_s: float | None
    prompt_tokens: int | None
    cached_tokens: int | None
    loaded_tools: tuple[str, ...]
    stats: dict[str, Any] = field(default_factory=dict)
    # The saved facts shown beside the message (evidence an answer may draw on: eval/grounding.py reads it)
    facts: tuple[str, ...] = ()
    # Where the answer came from: "model" (its reply as given), "amended" (its reply with lines the agent
    # added from the results) or "built" (the agent's, from the tool results); `eval tasks` counts each.
    origin: Literal["model", "amended", "built"] = "model"
    # The judge's guards that acted on a reply this turn (asked again, held, replaced or amended), in order;
    # `eval tasks` counts them per guard, which is what the judge's ablation measures.
    guards: tuple[str, ...] = ()
    kind: Literal["turn_finished"] = "turn_finished"


@dataclass(frozen=True)
class TurnFailed:
    turn: int
    error: str
    recoverable: bool
    exit_code: int = 1
    kind: Literal["turn_failed"] = "turn_failed"


Event = Union[TurnStarted, ToolsSelected, TextDelta, ModelCallFinished, ToolCallStarted,
              ToolCallFinished, ToolsLoaded, Notice, TurnFinished, TurnFailed]


def to_dict(event: Event) -> dict[str, Any]:
    """A JSON-ready dict of the event; a TOOL_LOADER record becomes the payload its line logs."""
    out = {}
    for f in dataclasses.fields(event):
        value = getattr(event, f.name)
        out[f.name] = value.payload() if f.name == "record" and value is not None else value
    return out
