"""The judge's table keeps its order: the same guards in the same priority, each after the guards it names."""

from __future__ import annotations

from dataclasses import replace
from graphlib import CycleError, TopologicalSorter
from typing import Sequence

from gaia_lite.agent.judge import GUARDS
from gaia_lite.agent.judge.form import FORM_GUARDS
from gaia_lite.agent.judge.guard import Guard
from gaia_lite.agent.judge.substance import CALL_GUARDS, SHORTFALL_GUARDS

# The order the guards were measured in (issue 43); a change here is a change of behaviour, made on purpose.
ORDER = [
    "invented_file", "called_after_stop", "result_echo", "bare_tool_name", "empty_answer", "menu_copy", "narrated",
    "format_only", "copied_format", "template", "written_call", "unknown_call", "declined_fact", "claimed_change",
    "compared_unseen", "unread_file",
]


def misordered(guards: Sequence[Guard]) -> list[str]:
    """Where ``guards`` (a table in priority order) breaks an ``after``: a guard before one it must follow, a
    name no guard has, or a ring of guards that each must follow the next. Empty when the order holds."""
    at = {g.name: i for i, g in enumerate(guards)}
    found = [f"{g.name} names {name} in after, and no guard is called that" if name not in at
             else f"{g.name} must come after {name}" for g in guards for name in g.after
             if name not in at or at[name] > at[g.name]]
    try:
        TopologicalSorter({g.name: g.after for g in guards}).prepare()
    except CycleError as ring:  # its nodes each come before the next: read backwards, each must follow the next
        found.append(f"the afters go round in a ring: {' -> '.join(reversed(ring.args[1]))}")
    return found


def test_the_guards_keep_their_priority() -> None:
    assert [g.name for g in GUARDS] == ORDER


def test_every_guard_written_is_in_the_table_once() -> None:
    written = [g.name for g in (*CALL_GUARDS, *FORM_GUARDS, *SHORTFALL_GUARDS)]
    assert sorted(written) == sorted(ORDER)


def test_the_table_puts_each_guard_after_the_guards_it_names() -> None:
    assert misordered(GUARDS) == []
    assert sum(len(g.after) for g in GUARDS) >= 4  # the dependencies are written down, not left to the order


def test_the_order_check_finds_a_guard_too_early_a_name_nobody_has_and_a_ring() -> None:
    by_name = {g.name: g for g in GUARDS}
    swapped = [by_name["copied_format"], by_name["format_only"]]
    assert misordered(swapped) == ["copied_format must come after format_only"]
    typo = [replace(by_name["format_only"], after=("format_olny",))]
    assert misordered(typo) == ["format_only names format_olny in after, and no guard is called that"]
    ring = [replace(by_name["format_only"], after=("template",)), by_name["copied_format"], by_name["template"]]
    problems = misordered(ring)
    assert "format_only must come after template" in problems
    assert problems[-1] == ("the afters go round in a ring: format_only -> template -> copied_format -> format_only")
