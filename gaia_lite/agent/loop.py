"""The agent loop: one user turn in, a stream of events out.

    input -> select tools (loader) -> system prompt -> model -> tool calls
          -> execute against the FULL registry -> ... -> answer

``Agent.run(query)`` is a generator of ``gaia_lite.events`` values; it never
prints and never reads stdin (approval and user questions are injected
callables). Native models exchange real ``tool_calls`` / ``role: tool``
messages; text-path models get their calls lifted out of the message text,
and those calls travel the same way on the wire.
"""

from __future__ import annotations

import json
import logging
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generator, Iterator

from gaia_lite.errors import Cancelled, GaiaError, ModelError
from gaia_lite.events import (
    Event, ModelCallFinished, Notice, TextDelta, ToolCallFinished, ToolCallStarted, ToolsLoaded,
    TurnFailed, TurnFinished, TurnStarted,
)
from gaia_lite.llm.client import ChatClient
from gaia_lite.llm.textcalls import parse_text_calls, strip_think
from gaia_lite.messages import ChatResult
from gaia_lite.registry.execute import ToolExecutor, ToolStatus
from gaia_lite.registry.registry import ToolRegistry

from .fallback import answer_from_result
from .prefix import make_layout
from .window import TokenMeter, fit_history, is_context_overflow, split_turns
from .selection import SelectionState, ToolSelector

__all__ = ["Agent", "AgentOptions"]

log = logging.getLogger("gaia_lite.agent")

RESULT_CHAR_CAP = 6000  # tool results beyond this are cut before going back to a small-context model
REPEAT_LIMIT = 2  # the same call (name + args) may run this many times per turn
# Small text-path models tend to echo tool results as JSON; one short line after
# each result steers them to either answer in prose or call the next tool.
TEXT_PATH_NEXT = "\n(Now answer the user in plain sentences, or call another tool if needed.)"
_HOLD_PREFIXES = ("{", "[", "(", "```", "<tool_call", "<think", "<")


@dataclass
class AgentOptions:
    native_tools: bool
    max_steps: int = 50
    max_tokens: int = 1024
    temperature: float = 0.1
    workdir: Path = field(default_factory=Path.cwd)
    session_id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    prompt_layout: str = "stable"  # "stable" keeps the KV-cache prefix; "rewrite" is GAIA's (see prefix.py)
    context_tokens: int | None = None  # the model's window; None = unknown, send the whole history (window.py)


class Agent:
    def __init__(self, client: ChatClient, registry: ToolRegistry, executor: ToolExecutor,
                 selector: ToolSelector, options: AgentOptions, *, memory: Any = None,
                 skills: Any = None) -> None:
        self.client = client
        self.registry = registry
        self.executor = executor
        self.selector = selector
        self.options = options
        self.memory = memory
        self.skills = skills
        self.history: list[dict[str, Any]] = []
        self.user_messages: list[str] = []
        self.turn = 0
        self.layout = make_layout(options.prompt_layout, registry, options.workdir, native=options.native_tools)
        self.meter = TokenMeter()

    # ------------------------------------------------------------------ prompt
    def _text_path(self) -> bool:
        return not self.options.native_tools

    def system_prompt(self, state: SelectionState) -> str:
        return self.layout.system(state)

    def tool_schemas(self, state: SelectionState) -> list[dict[str, Any]] | None:
        return self.layout.tools(state)

    # ------------------------------------------------------------------ public API
    def reset(self) -> None:
        """Forget the conversation AND the loader session (GAIA's /reset kept history)."""
        self.history.clear()
        self.user_messages.clear()
        self.turn = 0
        self.layout.reset()
        self.selector.reset()

    def close(self) -> None:
        self.selector.close()

    def load(self, bundle: str) -> ToolsLoaded | str:
        """``/load``: add a bundle or tool outside a turn. Returns the event or an error line."""
        return self.selector.load_bundle(bundle)

    def run(self, query: str) -> Iterator[Event]:
        """Run one user turn. Errors end the turn with TurnFailed; history stays consistent."""
        self._repair_history()
        self.turn += 1
        turn = self.turn
        yield TurnStarted(turn, query)
        try:
            yield from self._run_turn(turn, query)
        except (GaiaError, KeyboardInterrupt) as exc:  # GaiaError includes Cancelled
            self._repair_history()
            failure = exc if isinstance(exc, GaiaError) else Cancelled()
            yield TurnFailed(turn, str(failure), recoverable=True, exit_code=failure.exit_code)

    # ------------------------------------------------------------------ the turn
    def _run_turn(self, turn: int, query: str) -> Generator[Event, None, None]:
        skill_tools, extra_blocks, recalled = self._recall_skills(query)
        state = self.selector.select(self.user_messages, query, skill_tools=skill_tools)
        yield state.event(turn, self.registry)
        for ev in state.notices:
            yield ev
        self.user_messages.append(query)
        self.history.append({"role": "user", "content": self.layout.begin_turn(state, query, extra_blocks)})

        called: list[str] = []
        failed: dict[str, str] = {}  # call signature -> its error, so a failed call is not simply repeated
        last_result: tuple[str, dict[str, Any]] | None = None  # the latest tool outcome, for JSON echoes
        span: list[tuple[str, dict[str, str], bool]] = []  # (tool, argument shapes, ok) for skills
        seen: dict[str, int] = {}
        first_usage = None
        steps = 0
        answer = ""
        force_answer = False
        overflowed = False
        while True:
            steps += 1
            state = self.selector.state
            if steps > self.options.max_steps:
                force_answer = True
            system = self.system_prompt(state)
            tools = None if force_answer else self.tool_schemas(state)
            if (yield from self._fit_window(system, tools)):  # turns were dropped: the prompt is recomposed
                system = self.system_prompt(state)
                tools = None if force_answer else self.tool_schemas(state)
            messages = [{"role": "system", "content": system}, *self.history]
            if force_answer:
                messages.append({"role": "user", "content": "Stop calling tools now and answer my request "
                                                            "with what you already have, in plain text."})
            try:
                result = yield from self._stream(messages, tools)
            except ModelError as exc:
                # The estimate was too low (or the window unknown): drop half the earlier turns, once.
                if overflowed or not is_context_overflow(str(exc)) or not self._drop_older_half():
                    raise
                overflowed = True
                steps -= 1
                yield Notice("warning", "the conversation did not fit the model's context; dropped the "
                                        "older half of it (it stays searchable in memory) and retried")
                continue
            usage = result.usage
            self.meter.observe(TokenMeter.chars(messages, tools), usage.prompt_tokens)
            first_usage = first_usage or usage
            calls = list(result.tool_calls)
            parsed = None
            if not calls and not force_answer:
                parsed = parse_text_calls(result.content, self.registry.names())
                calls = list(parsed.calls)
            yield ModelCallFinished(steps, usage.ttft_s, usage.total_s, usage.prompt_tokens,
                                    usage.cached_tokens, usage.completion_tokens, len(calls))
            if not calls:
                if parsed is not None and parsed.answer is not None:
                    answer = parsed.answer
                else:
                    answer = strip_think(result.content)
                if force_answer and parse_text_calls(answer, self.registry.names()).calls:
                    # Told to stop, the model still wrote a tool call: answer from what the tools gave.
                    answer = (answer_from_result(*last_result) if last_result is not None
                              else "I could not finish this with the tools available.")
                    yield TextDelta(answer)
                if _is_result_echo(answer):
                    # A JSON echo of a tool result is not an answer: answer from the result itself.
                    if last_result is not None:
                        answer = answer_from_result(*last_result)
                    yield TextDelta(answer)
                self.history.append({"role": "assistant", "content": answer})
                break
            prose = parsed.text if parsed is not None else strip_think(result.content)
            self.history.append({"role": "assistant", "content": prose or None,
                                 "tool_calls": [c.wire() for c in calls]})
            stop = False
            for call in calls:
                sig = call.name + json.dumps(call.arguments, sort_keys=True, default=str)
                seen[sig] = seen.get(sig, 0) + 1
                yield ToolCallStarted(call.id, call.name, call.arguments, call.source)
                executed = False
                if sig in failed:
                    res = {"status": "error", "error": f"This exact call already failed: {failed[sig]} "
                                                       "Use a different tool or different arguments."}
                    stop = stop or seen[sig] > REPEAT_LIMIT
                    outcome_name, duration, escape, args = call.name, 0.0, False, call.arguments
                elif seen[sig] > REPEAT_LIMIT:
                    res = {"status": "error", "error": f"You already called {call.name} with these arguments "
                                                       f"{seen[sig] - 1} times. Use the result above and answer."}
                    stop = stop or seen[sig] > REPEAT_LIMIT + 1
                    outcome_name, duration, escape, args = call.name, 0.0, False, call.arguments
                else:
                    executed = True
                    escape = self.selector.is_escape(call.name)
                    outcome = self.executor.execute(call.name, call.arguments)
                    res, duration, args = outcome.payload, outcome.duration_s, outcome.arguments
                    outcome_name = outcome.name or call.name
                    escape = escape and outcome.invoked  # counted exactly when the loader counted it
                    if not outcome.ok:
                        failed[sig] = str(res.get("error", outcome.shown_status))
                    if outcome.name and outcome.status is not ToolStatus.DENIED:
                        called.append(outcome.name)
                        span.append((outcome.name, {k: type(v).__name__ for k, v in args.items()}, outcome.ok))
                yield ToolCallFinished(call.id, outcome_name, args, str(res.get("status", "success")), res,
                                       duration, escape)
                if executed and (outcome.ok or last_result is None):
                    last_result = (outcome_name, res)  # prefer the latest real, successful result
                content = _result_text(res)
                if executed and outcome.loaded is not None:
                    yield outcome.loaded
                    disclosed = self.layout.after_load(self.selector.state)  # tools this load_tools call added
                    if disclosed:
                        content += "\n\n" + disclosed
                if self._text_path():
                    content += TEXT_PATH_NEXT
                self.history.append({"role": "tool", "tool_call_id": call.id, "content": content})
            if stop:
                force_answer = True
            if force_answer and steps > self.options.max_steps + 1:
                break

        self._remember_turn(query, answer, span)
        log.info("TOOL_CALLS %s", json.dumps({"turn": self.selector.loader_turn(), "session_turn": turn,
                                               "called": called}))
        yield TurnFinished(turn, answer, tuple(called), steps,
                           first_usage.ttft_s if first_usage else None,
                           first_usage.prompt_tokens if first_usage else None,
                           first_usage.cached_tokens if first_usage else None,
                           tuple(self.selector.state.visible_names(self.registry)),
                           {"skills": recalled} if recalled else {})

    def _stream(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None
                ) -> Generator[Event, None, ChatResult]:
        """Stream one model call. Text that may be a tool call is held back
        until it is clearly prose, so JSON calls never flash up as an answer."""
        gen = self.client.stream_chat(messages, tools=tools, max_tokens=self.options.max_tokens,
                                      temperature=self.options.temperature,
                                      cancel=self.executor.ctx.cancel)
        held = ""
        holding = True
        while True:
            try:
                delta = next(gen)
            except StopIteration as stop:
                result: ChatResult = stop.value
                break
            if not holding:
                yield TextDelta(delta)
                continue
            held += delta
            head = held.lstrip()
            if not head:
                continue
            if any(head.startswith(p) or p.startswith(head) for p in _HOLD_PREFIXES):
                continue
            holding = False
            yield TextDelta(held)
            held = ""
        if held and not result.tool_calls:
            parsed = parse_text_calls(held, self.registry.names())
            if not parsed.calls:
                text = parsed.answer if parsed.answer is not None else strip_think(held)
                if text and not _is_result_echo(text):  # the loop answers a JSON echo itself
                    yield TextDelta(text)
        return result

    # ------------------------------------------------------------------ helpers
    def _recall_skills(self, query: str) -> tuple[list[str] | None, tuple[str, ...], list[str]]:
        """(SKILL-tier tools, prompt blocks, recalled procedure names) for this turn."""
        if self.skills is None:
            return None, (), []
        try:
            recalled = self.skills.recall_for_turn(query)
        except Exception as exc:  # skills must never break a turn
            log.warning("skill recall failed: %s", exc)
            return None, (), []
        blocks = (recalled.prompt_block,) if recalled.prompt_block else ()
        return recalled.tools or None, blocks, recalled.names

    def _remember_turn(self, query: str, answer: str, span: list[tuple[str, dict[str, str], bool]]) -> None:
        if self.memory is not None:
            try:
                self.memory.add_turn(self.options.session_id, "user", query)
                self.memory.add_turn(self.options.session_id, "assistant", answer)
            except Exception as exc:  # storage trouble must not lose the answer
                log.warning("could not store the turn in memory: %s", exc)
        if self.skills is not None:
            try:
                self.skills.record_turn(query, span, bool(answer.strip()))
            except Exception as exc:
                log.warning("could not record the tool span: %s", exc)

    def _fit_window(self, system: str, tools: list[dict[str, Any]] | None) -> Generator[Event, None, bool]:
        """Drop the oldest turns when the next request would not fit the model's context (True if it did)."""
        window = self.options.context_tokens
        if not window:
            return False
        budget = window - self.options.max_tokens - 64
        trim = fit_history({"role": "system", "content": system}, self.history, tools, budget=budget,
                           meter=self.meter)
        if not trim.dropped_turns:
            return False
        self.history[:] = trim.history
        self.layout.reset()  # tools disclosed in the dropped turns must be shown again
        yield Notice("info", f"dropped the {trim.dropped_turns} oldest turn(s) to fit the model's "
                             f"{window:,}-token context; they stay searchable in memory")
        return True

    def _drop_older_half(self) -> int:
        """Drop the older half of the earlier turns (never the current one); returns how many."""
        turns = split_turns(self.history)
        n = len(turns) // 2  # half of the len - 1 earlier turns, rounded up
        if n <= 0:
            return 0
        self.history[:] = [m for t in turns[n:] for m in t]
        self.layout.reset()
        return n

    def _repair_history(self) -> None:
        """Make every assistant tool call have a tool result (after Ctrl-C or an error)."""
        answered = {m.get("tool_call_id") for m in self.history if m.get("role") == "tool"}
        repaired: list[dict[str, Any]] = []
        for msg in self.history:
            repaired.append(msg)
            for tc in msg.get("tool_calls") or []:
                if tc["id"] not in answered:
                    repaired.append({"role": "tool", "tool_call_id": tc["id"],
                                     "content": json.dumps({"status": "cancelled"})})
                    answered.add(tc["id"])
        if repaired and repaired[-1].get("role") == "tool":
            repaired.append({"role": "assistant", "content": "(cancelled)"})
        self.history[:] = repaired


def _is_result_echo(text: str) -> bool:
    """Does the model's reply look like a tool result (a JSON object with a status)?"""
    t = text.strip()
    if not t.startswith("{"):
        return False
    try:
        value, _ = json.JSONDecoder().raw_decode(t)
    except ValueError:
        return False
    return isinstance(value, dict) and "status" in value


def _result_text(result: dict[str, Any]) -> str:
    text = json.dumps(result, ensure_ascii=False, default=str)
    if len(text) > RESULT_CHAR_CAP:
        text = text[:RESULT_CHAR_CAP] + f'... [truncated {len(text) - RESULT_CHAR_CAP} chars]'
    return text
