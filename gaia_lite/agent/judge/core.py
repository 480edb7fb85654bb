"""The guards in priority order, and the one verdict a reply gets from them. Nothing here reads a file or the
clock: what a guard needs besides the reply comes in ``Evidence``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from gaia_lite.messages import ToolCall

from ..reply import Reply, without_own_lines
from ..results import lines_to_the_model
from .form import FORM_GUARDS
from .guard import Evidence, Guard, OnDraft, OnFinal, Stage
from .substance import CALL_GUARDS, SHORTFALL_GUARDS


@dataclass(frozen=True)
class RunCalls:
    calls: tuple[ToolCall, ...]


@dataclass(frozen=True)
class AskAgain:
    guard: str
    request: str  # sent after the reply, both off the record


@dataclass(frozen=True)
class HoldToCall:
    guard: str


@dataclass(frozen=True)
class FromResults:
    guard: str


@dataclass(frozen=True)
class Accept:
    answer: str
    guard: str = ""  # the guard that amended the answer, if one did


Verdict = RunCalls | AskAgain | HoldToCall | FromResults | Accept

# The calls' guards first, then the reply's form, then its substance against the evidence; within each, a row's
# ``after`` names the guards it must follow (tests/agent/test_judge_order.py holds the order to them)
GUARDS: tuple[Guard, ...] = (*CALL_GUARDS, *FORM_GUARDS, *SHORTFALL_GUARDS)


def judge(reply: Reply, ev: Evidence, stage: Stage, *, can_hold: bool = False) -> Verdict:
    """What to do with ``reply``: a draft, by the first guard with a draft action that detects something; a final
    reply, by the first whose final action applies. ``can_hold``: the reply mode can hold a reply to a call."""
    guards = active(ev.skip)
    if reply.calls and stage is not Stage.FORCED:  # a call guard asks again about a draft; a final call runs
        for guard in (g for g in guards if g.on_calls and stage is Stage.DRAFT):
            if (found := guard.detect(reply, ev)) is not None:
                return AskAgain(guard.name, guard.ask.format(slot=found, query=ev.query))
        return RunCalls(reply.calls)
    # our own after-result lines (whole, or cut off by the token limit) are not the answer, nor are a result's lines
    # for the model unless nothing else is left (the 0.5B's answer was a query_documents result, "note:" and all)
    text = without_own_lines(reply.text.strip(), ev.copied_lines)
    text = without_own_lines(text, [ln for r in ev.seen_results for ln in lines_to_the_model(r)]) or text
    seen = Reply(reply.calls, text)
    if stage is Stage.DRAFT:
        for guard in (g for g in guards if g.on_draft is not OnDraft.PASS):
            if (found := guard.detect(seen, ev)) is None:
                continue
            if guard.on_draft is OnDraft.END:
                break
            if guard.on_draft is OnDraft.HOLD and can_hold:
                return HoldToCall(guard.name)
            return AskAgain(guard.name, guard.ask.format(slot=found, query=ev.query))
    replaces = {OnFinal.REPLACE} | ({OnFinal.REPLACE_AFTER_RESULT} if ev.last_result is not None else set())
    for guard in (g for g in guards if g.amend is not None or g.on_final in replaces):
        if guard.detect(seen, ev) is not None:
            return Accept(guard.amend(seen, ev), guard.name) if guard.amend else FromResults(guard.name)
    return Accept(text)


def active(skip: frozenset[str]) -> tuple[Guard, ...]:
    """The guards in force: all of them but those ``skip`` names."""
    return GUARDS if not skip else tuple(g for g in GUARDS if g.name not in skip)


def unknown_guards(names: Iterable[str]) -> list[str]:
    """The names among ``names`` that no guard has (a GAIA_JUDGE_SKIP typo must not pass silently)."""
    return [n for n in names if n not in {g.name for g in GUARDS}]


def hiding_guard(text: str, ev: Evidence) -> str | None:
    """The first guard that keeps ``text`` (a reply as it streams) off the screen, or None."""
    seen = Reply((), text)
    return next((g.name for g in active(ev.skip) if g.on_screen and g.on_screen(seen, ev) is not None), None)
