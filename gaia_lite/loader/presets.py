"""Loader settings and the named presets.

``gaia`` reproduces GAIA's released loader, amd-gaia 0.25.1 (τ 0.20 inclusive,
cap 14 counting CORE, one ``name: summary`` document per tool, candidates
ranked by ``(-score, name)``, the loaded set in admission order, LRU eviction
only at a turn boundary). ``LoaderSettings()`` itself is GAIA's loader as on
its main branch at commit 78bbc3076 (2026-08-21, after the 0.25.1 release): the
loaded set sorted by name, and eviction whenever a tool meets the cap.
``default`` is what the calibration on our judged set and the public sets
favours for the in-process MiniLM embedder; the numbers behind it are in
docs/loader-calibration.md.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Literal

from .documents import View
from .scoring import Combine

__all__ = ["LoaderSettings", "Confidence", "PRESETS", "DEFAULT_THRESHOLD", "DEFAULT_MAX_TOOLS", "preset", "layout_for"]

DEFAULT_THRESHOLD = 0.20
DEFAULT_MAX_TOOLS = 14

Ranking = Literal["gaia", "matched_first"]
Order = Literal["sorted", "admission"]
Evict = Literal["at_cap", "turn_boundary"]


@dataclass(frozen=True)
class Confidence:
    """When one tool clearly wins a turn, match fewer tools (``picks`` instead of ``per_turn``).

    Clear = the best non-CORE score is at least ``min_score`` and leads the
    runner-up by at least ``min_gap``.
    """

    picks: int = 2
    min_score: float = 0.40
    min_gap: float = 0.08


@dataclass(frozen=True)
class LoaderSettings:
    """Everything that changes what the loader selects.

    * ``threshold``: inclusive cosine threshold τ for a semantic match.
    * ``max_tools``: cap on the loaded set, CORE included (CORE may exceed it).
    * ``views``: which documents are embedded per tool (see documents.py).
    * ``ranking``: ``gaia`` orders new candidates by (-score, name), so pulled
      bundle-mates tie with the member that matched and win alphabetically;
      ``matched_first`` puts every tool that matched on its own ahead of
      unmatched mates, then orders by score, then name.
    * ``score_current``: also score the current user message on its own (the
      joined history query can drown a change of topic).
    * ``split_clauses``: also score each clause of a multi-part request ("find
      X and then index it"); each clause's best tool is matched. One mean-pooled
      vector of a two-intent sentence often sits near neither intent.
    * ``combine`` / ``lexical_weight``: how a tool's views are combined (see
      scoring.py) and the weight of the BM25 score added to the cosine.
    * ``per_turn``: at most this many non-CORE tools match per turn (best
      first, plus one per clause); ``None`` = every tool at or above τ (GAIA).
    * ``bundle_pull``: matched tools pull in their bundle-mates (GAIA).
    * ``confident``: fewer picks on turns where one tool clearly wins (see Confidence).
    * ``embed_chars``: score only the last N chars of the selection query
      (``None`` = all of it, as GAIA). MiniLM reads the first 256 tokens of a
      text, so a long history would push the current message out of view.
    * ``sticky``: a loaded tool stays loaded until the conversation is reset
      (no LRU eviction). ``max_tools`` then caps the first turn as usual and,
      on later turns, the *new* tools one turn may add (``max_tools`` minus
      the CORE tools). The model has already read an evicted tool's
      description, and taking it out of the prompt costs the server its cached
      prefix (agent/prefix.py), so keeping it is both cheaper and more honest.
      GAIA evicts (``False``).
    * ``requested``: admit the tools the current message names, right after
      CORE (the REQUESTED tier, ``requested.py``; GAIA 0.25.1 has it too).
    * ``learned_gate``: a learned request (the user's own wording of a past
      turn) raises its tool's score to their cosine when that is at least
      this (scoring.py); only with the ``examples`` view.
    * ``order``: ``sorted`` returns the loaded set sorted by name (GAIA's main branch);
      ``admission`` returns it in the order tools were admitted (CORE in
      registry order first, then each admission appended), never re-sorted,
      so a prompt rendered from it only grows at its end (GAIA 0.25.1).
    * ``evict``: with ``sticky`` off, ``at_cap`` evicts the least recently used
      tool whenever a new one meets the cap, a mid-turn ``load_tools`` too (GAIA's
      main branch); ``turn_boundary`` keeps mid-turn loads add-only (they may
      overshoot the cap) and trims back to the cap at the next ``select``
      before admitting (GAIA 0.25.1).
    * ``worked``: at most this many worked examples (a request and the call that served it,
      ``worked.py``) that score ``>= worked_threshold`` for the message (their request's cosine and
      their tool's score, half each) are shown beside the message, and their tools admitted into free
      room; 0 = none (GAIA).
    * ``later_worked``: ``worked`` on a session's later turns (``None``: the same). An example a later
      turn adds is text the server prefills on that turn and the loader-off prompt never has (on the
      text path later turns cost x1.26 of loader-off). Fewer later semantic picks were tried too (2 or 3
      instead of ``per_turn``'s 4) and lost two drift cases of the judged set (strict recall 0.963 <
      0.97), so they stay as ``per_turn`` says.
    * ``later_threshold``: the score a *new* semantic pick needs on a session's later turns (``None``: ``threshold``).
      The first turn casts a wide net at τ; a later turn adds a tool only for a clear new need, because each
      tool it adds is text the server prefills on that turn and the loader-off prompt never has. On ``eval
      ttft``'s script the default added 7 tools on later turns, 5 never called (get_system_info at 0.37 for
      "who was the top salesperson in that file?"); at 0.40 it adds 4, and judged recall stays 97.5 %
      (drift 100 %; 0.45 loses a drift case).
    * ``show_worked``: show the turn's worked examples to the model (False: they only admit their tools).
      Shown, Qwen2.5-Coder-0.5B copied them: the example's file and query as its call, its request as a
      recall query, its facts into the answer (built-in test split 20/32 with them, 24/32 without), so
      ``default`` and ``lean`` keep them to selection and the ``examples`` preset shows them.
    * ``not_core``: tools of the profile's CORE this preset leaves to selection (they come when the
      message or an example calls for them). Loop control sat in every prompt as CORE, and both
      Qwen2.5-Coder models called ``set_loop_state`` to change a setting in a file.
    * ``first_call``: a worked example's request this close to the message (cosine), and nearer by
      ``first_call_margin`` than any other tool's, whose call takes nothing from its request
      (``WorkedExample.takes_nothing``), is the call the agent may make before the model's first reply
      (``Selection.sure``); ``None``: never (GAIA). The model then answers from its result, or calls on.
      Written by the model, "list the files in this folder"'s call was ~0.4 s of decoding.
    """

    threshold: float = DEFAULT_THRESHOLD
    max_tools: int = DEFAULT_MAX_TOOLS
    views: tuple[View, ...] = ("summary",)
    ranking: Ranking = "gaia"
    score_current: bool = False
    split_clauses: bool = False
    combine: Combine = "max"
    lexical_weight: float = 0.0
    per_turn: int | None = None
    bundle_pull: bool = True
    embed_chars: int | None = None
    confident: Confidence | None = None
    sticky: bool = False
    requested: bool = True
    learned_gate: float = 0.70
    order: Order = "sorted"
    evict: Evict = "at_cap"
    worked: int = 0
    worked_threshold: float = 0.33
    not_core: tuple[str, ...] = ()
    later_worked: int | None = None
    later_threshold: float | None = None
    show_worked: bool = True
    first_call: float | None = None
    first_call_margin: float = 0.07

    def __post_init__(self) -> None:
        if self.max_tools < 1:
            raise ValueError(f"max_tools must be >= 1, got {self.max_tools}")
        if not self.views:
            raise ValueError("at least one view is required")
        if self.per_turn is not None and self.per_turn < 0:
            raise ValueError(f"per_turn must be >= 0 or None, got {self.per_turn}")

    def replace(self, **changes: object) -> "LoaderSettings":
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]


# GAIA's CORE keeps loop control in every prompt; our presets leave it to the message or an example.
LOOP_CONTROL = ("set_loop_state", "request_user_input")

PRESETS: dict[str, LoaderSettings] = {
    # GAIA's released loader (amd-gaia 0.25.1): LoaderSettings()'s scoring, admission order, eviction at turn start.
    "gaia": LoaderSettings(order="admission", evict="turn_boundary"),
    # Calibrated for the in-process MiniLM on tests/data/judged_doc.json (docs/loader-calibration.md):
    # examples + BM25 + clause matching; 4 picks per turn; cap 16. With the trimmed CORE schemas it
    # meets both targets (recall 97.5 % at 44.6 % of the all-tools native cost).
    "default": LoaderSettings(threshold=0.20, max_tools=16, views=("summary", "params", "examples"),
                              ranking="matched_first", score_current=True, split_clauses=True,
                              combine="channels", lexical_weight=0.02, per_turn=4, bundle_pull=False,
                              embed_chars=1000, sticky=True, worked=2, not_core=LOOP_CONTROL,
                              later_worked=1, later_threshold=0.40, show_worked=False,
                              first_call=0.55),
    # Same scorer, 2 picks when one tool clearly wins: about -2 points of recall for -2.5 points of cost.
    "lean": LoaderSettings(threshold=0.20, max_tools=16, views=("summary", "params", "examples"),
                           ranking="matched_first", score_current=True, split_clauses=True,
                           combine="channels", lexical_weight=0.02, per_turn=4, bundle_pull=False,
                           embed_chars=1000, confident=Confidence(picks=2, min_score=0.40, min_gap=0.08),
                           sticky=True, worked=2, not_core=LOOP_CONTROL, later_worked=1, later_threshold=0.40,
                           show_worked=False, first_call=0.55),
}
# The default with its worked examples shown beside the message: for models that adapt an example rather
# than copy it (issue 42; the 0.5B copied them, see ``show_worked``).
PRESETS["examples"] = PRESETS["default"].replace(show_worked=True)


def preset(name: str) -> LoaderSettings:
    try:
        return PRESETS[name]
    except KeyError:
        raise KeyError(f"unknown loader preset {name!r}; choose one of {sorted(PRESETS)}") from None


def layout_for(prompt_layout: str, preset_name: str) -> str:
    """The prompt layout in effect: ``auto`` follows the preset (a sticky loader keeps the prefix
    stable; GAIA's evicting preset rewrites); any other value is taken as given."""
    if prompt_layout != "auto":
        return prompt_layout
    chosen = PRESETS.get(preset_name)
    return "stable" if chosen is not None and chosen.sticky else "rewrite"
