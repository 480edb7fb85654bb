"""The ``skip:NAME[+NAME...]`` arms of ``eval tasks``: the ``on`` arm with some of the judge's guards off.

An arm spelled ``skip:narrated+template`` runs exactly as ``on`` does, with the guards it names turned
off (``Settings.judge_skip``, as ``GAIA_JUDGE_SKIP`` would). Set beside ``on`` over the same tasks, it
measures what those guards earn: tasks they turn from fail to pass, tasks they break, and the seconds
their asking-again costs (``scripts/ablate_judge.py`` does this for every guard that fired).
"""

from __future__ import annotations

import hashlib
from typing import Sequence

from gaia_lite.agent.judge import unknown_guards

__all__ = ["SKIP", "is_skip_arm", "skipped_guards", "arm_problem", "arms_problem", "skip_arm", "arm_folder"]

SKIP = "skip:"


def is_skip_arm(arm: str) -> bool:
    return arm.startswith(SKIP)


def skipped_guards(arm: str) -> tuple[str, ...]:
    """The guards a ``skip:`` arm turns off, in the order written; () for any other arm."""
    if not is_skip_arm(arm):
        return ()
    return tuple(n.strip() for n in arm[len(SKIP):].split("+") if n.strip())


def skip_arm(guards: Sequence[str]) -> str:
    """The arm that runs ``on`` with ``guards`` off (the inverse of ``skipped_guards``)."""
    return SKIP + "+".join(guards)


def arm_problem(arm: str, known: Sequence[str]) -> str | None:
    """What is wrong with one arm name (None: nothing). ``known`` are the plain arms."""
    if not is_skip_arm(arm):
        return None if arm in known else f"no arm is called {arm!r}"
    names = skipped_guards(arm)
    if not names:
        return f"{arm!r} names no guard; spell it skip:NAME[+NAME...]"
    wrong = unknown_guards(names)
    if wrong:
        return (f"{arm!r}: no guard is called {', '.join(wrong)} (the guards are the judge's table in "
                "docs/architecture.md)")
    if len(set(names)) != len(names):
        return f"{arm!r} names a guard twice"
    return None


def arms_problem(arms: Sequence[str], known: Sequence[str]) -> str | None:
    """What is wrong with a list of arms: none given, one given twice, or the first bad name."""
    if not arms:
        return "no arm given"
    if len(set(arms)) != len(arms):
        return "an arm is given twice"
    return next((p for p in (arm_problem(a, known) for a in arms) if p is not None), None)


ARM_FOLDER_CHARS = 48  # a folder name holds at most 255 bytes, and the task id and run come beside the arm


def arm_folder(arm: str) -> str:
    """The arm as part of a folder name: no ':' ("skip:x+y" -> "skip-x+y"), and a long list of skipped guards
    as its count and a digest ("skip-16-guards-3f2a9c1b"): sixteen names made a name past the 255-byte limit."""
    flat = arm.replace(":", "-")
    if len(flat) <= ARM_FOLDER_CHARS:
        return flat
    head, _, rest = flat.partition("-")
    return f"{head}-{rest.count('+') + 1}-guards-{hashlib.sha256(arm.encode()).hexdigest()[:8]}"
