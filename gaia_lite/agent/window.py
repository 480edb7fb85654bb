"""Fitting a long conversation into the model's context window.

GAIA keeps the whole history and sends it every turn, so a long chat ends in
"request exceeds the available context size" on every later turn. Here the
agent drops whole turns, oldest first, before a request would not fit. The
facts are not lost: every turn is also stored in the memory database, where
``search_past_conversations`` finds it.

Token counts are estimated from characters. ``TokenMeter`` starts at a
cautious 3 characters per token and then learns the real ratio from the
prompt sizes the server reports, so the estimate follows the model's
tokenizer after the first request.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from gaia_lite.messages import Message, SystemMessage

__all__ = ["TokenMeter", "split_turns", "fit_history", "Trim", "is_context_overflow"]

DEFAULT_CHARS_PER_TOKEN = 3.0
HEADROOM = 1.1  # estimates are rough; keep a tenth of the window spare
# Once a trim is needed, trim down to this share of the budget: dropping the oldest turn changes the
# start of the history, so the server's prompt cache is lost; trimming in one larger step keeps the
# following turns cached instead of losing the cache on every turn at the edge of the window.
REFILL = 0.6


class TokenMeter:
    """Characters -> tokens, calibrated on what the server counted."""

    def __init__(self, chars_per_token: float = DEFAULT_CHARS_PER_TOKEN) -> None:
        self.chars_per_token = chars_per_token

    @staticmethod
    def chars(messages: Sequence[Mapping[str, Any]], tools: Any = None) -> int:
        return sum(len(json.dumps(m, ensure_ascii=False)) for m in messages) + (
            len(json.dumps(tools, ensure_ascii=False)) if tools else 0)

    def estimate(self, messages: Sequence[Mapping[str, Any]], tools: Any = None) -> int:
        return int(self.chars(messages, tools) / self.chars_per_token) + 1

    def observe(self, chars: int, prompt_tokens: int | None) -> None:
        """Learn from one request: ``chars`` sent, ``prompt_tokens`` the server counted."""
        if not prompt_tokens or prompt_tokens <= 50 or chars <= 0:
            return
        ratio = chars / prompt_tokens
        if ratio > 8.0:  # no tokenizer packs 8 characters into a token: the count is not of this request
            return
        self.chars_per_token = max(2.0, min(ratio, 5.0))


def split_turns(history: Sequence[Message]) -> list[list[Message]]:
    """Group messages into turns: each starts at a user message (tool results stay with their call)."""
    turns: list[list[Message]] = []
    for msg in history:
        if msg["role"] == "user" or not turns:
            turns.append([])
        turns[-1].append(msg)
    return turns


@dataclass(frozen=True)
class Trim:
    history: list[Message]
    dropped_turns: int
    estimate: int  # tokens of the request after trimming


def fit_history(system: SystemMessage, history: Sequence[Message], tools: Any, *, budget: int,
                meter: TokenMeter, keep_last: int = 1, refill: float = REFILL) -> Trim:
    """When system + history + tools do not fit ``budget`` tokens, drop the oldest turns until they
    fit ``refill`` × ``budget``.

    The newest ``keep_last`` turns are never dropped (the current question must
    reach the model); if they alone do not fit, the result is still over budget
    and the server's error says so.
    """
    turns = split_turns(history)
    fixed = meter.estimate([system], tools)
    sizes = [meter.estimate(t) for t in turns]
    total = fixed + sum(sizes)
    dropped = 0
    if total * HEADROOM <= budget:
        return Trim(list(history), 0, total)
    while total * HEADROOM > budget * refill and len(turns) - dropped > keep_last:
        total -= sizes[dropped]
        dropped += 1
    kept = [m for t in turns[dropped:] for m in t]
    return Trim(kept, dropped, total)


def is_context_overflow(message: str) -> bool:
    """Does a server error say the request did not fit its context? (llama-server, vLLM, Ollama wording)"""
    text = message.lower()
    return ("context" in text and any(k in text for k in ("exceed", "too long", "maximum", "overflow"))) \
        or "context_length_exceeded" in text
