"""Loop control: tell the autonomous loop what to do next, or ask the user.

Both are CORE tools (sent every turn), so their docstrings stay short.
``set_loop_state`` only records a directive in ``ctx.loop`` for an autonomous
loop to read. ``request_user_input`` goes through ``ctx.ask_user``, the chat's
own input layer, and never reads stdin itself.
"""

from __future__ import annotations

import time
from typing import Optional

from gaia_lite.registry.context import LoopDirective, ToolContext
from gaia_lite.registry.spec import tool
from gaia_lite.registry.failure import error_payload

__all__ = ["TOOLS", "set_loop_state", "request_user_input", "LOOP_STATES"]

LOOP_STATES = ("idle", "scheduled", "paused")
MIN_WAKE, MAX_WAKE = 30, 86_400


@tool
def set_loop_state(ctx: ToolContext, state: str, reason: str = "", wake_in_seconds: int = 0) -> dict:
    """Tell the autonomous loop what to do next: idle, scheduled (wake later) or paused.

    Args:
        state: idle, scheduled or paused.
        reason: Why, briefly.
        wake_in_seconds: Seconds until waking (scheduled).
    """
    name = (state or "").strip().lower() if isinstance(state, str) else ""
    if name not in LOOP_STATES:
        return error_payload(f"state must be one of {', '.join(LOOP_STATES)}; got {state!r}")
    try:
        wake = int(wake_in_seconds or 0)
    except (TypeError, ValueError):
        return error_payload(f"wake_in_seconds must be a whole number, got {wake_in_seconds!r}")
    clamped = False
    if name == "scheduled":
        bounded = max(MIN_WAKE, min(MAX_WAKE, wake))
        clamped, wake = bounded != wake, bounded
    else:
        wake = 0
    directive = LoopDirective(name, str(reason or "")[:500], wake, time.time() + wake if wake else None)
    ctx.loop.directive = directive
    result = {"status": "success", "state": name, "reason": directive.reason, "wake_in_seconds": wake}
    if clamped:
        result["note"] = f"wake_in_seconds was clamped to {MIN_WAKE}..{MAX_WAKE}"
    return result


def _match_choice(answer: str, choices: list[str]) -> str | None:
    """The choice the answer names: by text (any case) or by its 1-based number."""
    folded = answer.strip().casefold()
    for choice in choices:
        if choice.casefold() == folded:
            return choice
    if folded.isdigit() and 1 <= int(folded) <= len(choices):
        return choices[int(folded) - 1]
    return None


MIN_WAIT_SECONDS, MAX_WAIT_SECONDS = 5, 3600


# The executor's per-tool timeout would cut a question off while the prompt is still on the
# terminal; the tool enforces timeout_seconds itself, so the executor gets a longer leash.
@tool(timeout=MAX_WAIT_SECONDS + 60)
def request_user_input(ctx: ToolContext, message: str, choices: Optional[list[str]] = None,
                       default_if_no_response: Optional[str] = None, timeout_seconds: int = 300,
                       continue_if_no_response: bool = True) -> dict:
    """Ask the user a question and wait for the answer.

    Args:
        message: The question.
        choices: Allowed answers.
        default_if_no_response: Answer if none is given.
        timeout_seconds: How long to wait.
        continue_if_no_response: Go on without an answer.
    """
    if not isinstance(message, str) or not message.strip():
        return error_payload("message is empty: write the question to ask")
    if isinstance(choices, str):
        choices = [c.strip() for c in choices.split(",")]
    options = [str(c).strip() for c in (choices or []) if str(c).strip()]
    try:
        wait = min(max(float(timeout_seconds), MIN_WAIT_SECONDS), MAX_WAIT_SECONDS)
    except (TypeError, ValueError):
        return error_payload(f"timeout_seconds must be a number of seconds; got {timeout_seconds!r}")
    try:
        answer = ctx.ask_user(message.strip(), options or None, timeout=wait)
    except EOFError:
        answer = None
    if answer is None or not str(answer).strip():
        result = {"status": "no_response", "response": default_if_no_response,
                  "used_default": default_if_no_response is not None,
                  "continue": bool(continue_if_no_response)}
        if not continue_if_no_response:
            result["note"] = "the user did not answer; stop and wait for them"
        return result
    answer = str(answer).strip()
    result = {"status": "answered", "response": answer}
    if options:
        chosen = _match_choice(answer, options)
        result.update(response=chosen or answer, matched_choice=chosen is not None)
    return result


TOOLS = [set_loop_state, request_user_input]
