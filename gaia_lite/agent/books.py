"""What one turn keeps track of: what it did (``TurnStats``), which calls it already made (``CallBook``), and
what the judge's verdicts ask of its next model call (``Steer``)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace

from gaia_lite.events import TurnFinished
from gaia_lite.messages import Message, ToolCall, Usage
from gaia_lite.registry.execute import ToolResult, ToolStatus

from .judge import AskAgain, HoldToCall, Stage, Verdict
from .opening import Opening
from .held_call import HeldCall

__all__ = ["TurnStats", "CallBook", "Steer", "REPEAT_LIMIT"]

REPEAT_LIMIT = 2  # the same call (name + arguments) may run this many times per turn
FAILED_CALLS_LIMIT = 2  # failed calls per turn before the next model call must answer
SAME_TOOL_LIMIT = 3  # successful calls of one tool per turn before the next model call must answer


@dataclass
class TurnStats:
    """What a turn did: for TurnFinished, the TOOL_CALLS line, skills and the JSON-echo fallback."""

    steps: int = 0  # model calls that returned (a call retried after a context overflow counts once)
    first_usage: Usage | None = None
    called: list[str] = field(default_factory=list)  # resolved calls the user did not deny
    span: list[tuple[str, dict[str, str], bool]] = field(default_factory=list)  # (tool, argument types, ok)
    last_result: ToolResult | None = None  # the latest successful tool result, else any
    results: list[ToolResult] = field(default_factory=list)  # every result of the turn, oldest first
    overflow_retried: bool = False  # the once-per-turn retry after a context overflow was used
    shown: str = ""  # what the latest reply's view put on the screen
    failed_calls: int = 0  # calls that did not succeed (denied ones included)
    must_answer: bool = False  # a denial, or too many failures or runs of one tool: the next model call must answer
    runs: dict[str, int] = field(default_factory=dict)  # successful calls per tool this turn
    opening: Opening = Opening.TOOL_FIRST  # how the first constrained reply may begin (opening.py)
    facts: tuple[str, ...] = ()  # the saved facts shown beside the question
    saved: tuple[str, ...] = ()  # those facts' own texts, closest first
    closest: float = 0.0  # the closest one's cosine to the question
    named: tuple[str, ...] = ()  # files and folders the question names that exist (named.named_in_message)
    held: HeldCall | None = None  # the call the first reply is held to (held_call.py)
    origin: str = "model"  # where the answer came from: model, amended (the model's, with lines added) or built
    guards: list[str] = field(default_factory=list)  # the judge's guards that acted on a reply this turn, in order

    def model_called(self, usage: Usage) -> None:
        self.steps += 1
        self.first_usage = self.first_usage or usage

    def tool_ran(self, result: ToolResult) -> None:
        if result.ok and result.name:
            self.runs[result.name] = self.runs.get(result.name, 0) + 1
            # the same tool again and again with new arguments is a loop too: answer with what it gave
            self.must_answer = self.must_answer or self.runs[result.name] >= SAME_TOOL_LIMIT
        if not result.ok:
            self.failed_calls += 1
            # the user said no, or the tools keep failing: the model hears it once, then answers
            self.must_answer = self.must_answer or result.status is ToolStatus.DENIED \
                or self.failed_calls >= FAILED_CALLS_LIMIT
        if result.name and result.status is not ToolStatus.DENIED:
            self.called.append(result.name)
            self.span.append((result.name, {k: type(v).__name__ for k, v in result.arguments.items()}, result.ok))
        if result.ok or self.last_result is None:
            self.last_result = result
        self.results.append(result)

    def finished(self, turn: int, answer: str, loaded: tuple[str, ...], skills: list[str]) -> TurnFinished:
        u = self.first_usage
        return TurnFinished(turn, answer, tuple(self.called), self.steps, u.ttft_s if u else None,
                            u.prompt_tokens if u else None, u.cached_tokens if u else None, loaded,
                            {"skills": skills} if skills else {}, facts=self.facts, origin=self.origin,
                            guards=tuple(self.guards))


@dataclass(frozen=True)
class Steer:
    """What the judge's verdicts so far ask of the turn's next model call. A turn starts with ``Steer()``; each
    step takes the current one and the verdict on its reply gives the next (``after``)."""

    redone: bool = False  # a reply was sent back once this turn (asked again, or held to a call): no more drafts
    transient: tuple[Message, ...] = ()  # the next request's off-the-record messages: the reply, and the ask about it
    calls_only: bool = False  # the next reply is held to a call (a constrained reply named a tool instead)

    def stage(self, forced: bool) -> Stage:
        """How the reply this steer asked for is judged: ``forced`` is a reply told to answer without tools."""
        return Stage.FORCED if forced else Stage.FINAL if self.redone else Stage.DRAFT

    def after(self, verdict: Verdict, reply_text: str) -> Steer:
        """The steer for the next model call, once ``verdict`` was given on a reply that said ``reply_text``."""
        match verdict:
            case AskAgain(request=request):
                return replace(self, redone=True, transient=({"role": "assistant", "content": reply_text},
                                                             {"role": "user", "content": request}))
            case HoldToCall():
                return replace(self, redone=True, calls_only=True)
            case _:  # calls ran, or the turn ends
                return replace(self, transient=(), calls_only=False)


class CallBook:
    """The calls a turn made, by signature (name + arguments). A call that failed is not run again,
    and the same call runs at most REPEAT_LIMIT times; refusing one too often sets ``stop``, and the
    next model call is told to answer."""

    def __init__(self) -> None:
        self.seen: dict[str, int] = {}
        self.failed: dict[str, str] = {}  # signature -> its error
        self.stop = False

    def refusal(self, call: ToolCall) -> ToolResult | None:
        """Count the call; the refusal to hand back instead of running it, or None to run it."""
        sig = _signature(call)
        n = self.seen[sig] = self.seen.get(sig, 0) + 1
        if sig in self.failed:
            self.stop = self.stop or n > REPEAT_LIMIT
            return _refused(call, f"This exact call already failed: {self.failed[sig]} "
                                  "Use a different tool or different arguments.")
        if n > REPEAT_LIMIT:
            self.stop = self.stop or n > REPEAT_LIMIT + 1
            return _refused(call, f"You already called {call.name} with these arguments {n - 1} times. "
                                  "Use the result above and answer.")
        return None

    def ran(self, call: ToolCall, result: ToolResult) -> None:
        if not result.ok:
            self.failed[_signature(call)] = str(result.payload.get("error", result.shown_status))


def _signature(call: ToolCall) -> str:
    return call.name + json.dumps(call.arguments, sort_keys=True, default=str)


def _refused(call: ToolCall, error: str) -> ToolResult:
    return ToolResult(call.name, call.name, call.arguments, {"status": "error", "error": error},
                      ToolStatus.REFUSED, 0.0)
