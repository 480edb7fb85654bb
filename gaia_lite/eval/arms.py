"""The ``skip:NAME[+NAME...]`` arms of ``eval tasks``: the ``on`` arm with some of the judge's guards off.

An arm spelled ``skip:narrated+template`` runs exactly as ``on`` does, with the guards it names turned
off (``Settings.judge_skip``, as ``GAIA_JUDGE_SKIP`` would). Set beside ``on`` over the same tasks, it
measures what those guards earn: tasks they turn from fail to pass, tasks they break, and the seconds
their asking-again costs (``scripts/ablate_judge.py`` does this for every guard that fired).
"""

from __future__ import annotations

from typing import Sequence

from gaia_lite.agent.judge import unknown_guards

__all__ = ["SKIP", "is_skip_arm", "skipped_guards", "arm_problem", "arms_problem", "skip_arm", "task_folder",
           "live_folder"]

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


def task_folder(task_number: int, arm_number: int, run: int = 1, runs: int = 1) -> str:
    """A task's folder in a run: its number in the suite and its arm's letter ("07b", "07b-2" in a repeat), never the
    task's id or the arm's name. The working folder's path is in the prompt ("Working directory: .../07b/work"), and
    the small models copy its words: with ".../pf_wifi_password_followup-on/work" the 0.5B searched file contents
    for "wifi password followup-on" and saved memories under "rename_shop_name_on" (probe_files, f08c0a3); an arm
    whose path held tool-like words and a '+' passed 5 fewer of holdout3's tasks where its guards never acted. A
    task id tells the model what the task is about, which no user's folder does. ``tasks.tsv`` in the run maps
    each folder to its task, arm and run."""
    letter = "abcdefghijklmnopqrstuvwxyz"[arm_number % 26] * (1 + arm_number // 26)
    return f"{task_number:02d}{letter}" + ("" if runs == 1 else f"-{run}")


def live_folder(task_number: int) -> str:
    """Where every arm and run of a task works while it runs ("07", its place in the suite), before the folder takes
    its arm's letter and run: the working folder's path is in the prompt, so the arms of a run, or a run of a
    few of the suite's tasks, see the prompt the whole suite's run saw and, with ``--seed``, reply alike until a
    difference between them acts."""
    return f"{task_number:02d}"
