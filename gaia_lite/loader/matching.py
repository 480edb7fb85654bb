"""The semantic tier as pure functions: which tools match, bundle pull-in, admission order."""

from __future__ import annotations

from typing import Callable, Collection, Iterable, Mapping, Sequence

import numpy as np

from gaia_lite.registry.registry import ToolRegistry

from .bundles import ToolBundle
from .presets import LoaderSettings, Ranking

__all__ = ["match_tools", "learned_picks", "pull_bundles", "rank_key"]


def match_tools(names: Sequence[str], matrix: np.ndarray, first_clause: int, core: Collection[str],
                settings: LoaderSettings) -> set[str]:
    """Tools the semantic tier matches this turn.

    ``matrix`` is (tools, query texts); columns from ``first_clause`` on are the
    clauses of the current message. GAIA (``per_turn=None``): every tool whose
    best score is at or above τ, CORE included. Otherwise the best
    ``per_turn`` non-CORE tools at or above τ (fewer when one clearly wins),
    plus the best tool of each clause.
    """
    best = matrix.max(axis=1) if matrix.size else np.zeros(len(names), dtype=np.float32)
    threshold = settings.threshold
    per_turn = settings.per_turn
    if per_turn is None:
        return {names[i] for i in np.flatnonzero(best >= threshold)}

    # Only the best few rows can be picked: CORE is skipped, so look at k + |CORE| rows.
    # argpartition keeps this linear in the number of tools (4,000 on the public sets).
    reach = per_turn + len(core) + 1

    def leaders(column: np.ndarray, n: int) -> np.ndarray:
        if n >= len(column):
            return np.lexsort((-best, -column))
        part = np.argpartition(-column, n)[:n]
        return part[np.lexsort((-best[part], -column[part]))]  # by this column, then by best score

    def top(column: np.ndarray, k: int) -> list[str]:
        picked: list[str] = []
        for i in leaders(column, reach):
            if len(picked) >= k or column[i] < threshold:
                break
            if names[i] not in core:  # CORE is loaded anyway; it must not use up a pick
                picked.append(names[i])
        return picked

    confident = settings.confident
    if confident is not None:
        ranked = [float(best[i]) for i in leaders(best, reach) if names[i] not in core][:2]
        if len(ranked) == 2 and ranked[0] >= confident.min_score and ranked[0] - ranked[1] >= confident.min_gap:
            per_turn = min(per_turn, confident.picks)
    matched = set(top(best, per_turn))
    for col in range(first_clause, matrix.shape[1]):
        matched.update(top(matrix[:, col], 1))
    return matched


def learned_picks(names: Sequence[str], nearest: np.ndarray, gate: float, skip: Collection[str],
                  limit: int | None) -> list[str]:
    """Tools a learned request brings this turn: those whose nearest learned request has cosine
    ``>= gate`` (``scoring.learned_nearest``), best first, outside ``skip`` (CORE and the turn's
    direct matches), at most ``limit`` (``None``: all).

    They are extra picks, admitted after the direct matches into free room only: scored into the
    same race, a learned request of another task could lift a wrong tool over the gate and take
    one of the turn's picks from the right one (Seal-Tools, docs/loader-calibration.md)."""
    hits = [i for i in np.flatnonzero(nearest >= gate) if names[i] not in skip]
    hits.sort(key=lambda i: (-float(nearest[i]), names[i]))
    return [names[i] for i in hits[:limit]] if limit is not None else [names[i] for i in hits]


def pull_bundles(bundles: Iterable[ToolBundle], scores: Mapping[str, float], matched: Collection[str],
                 registry: ToolRegistry) -> tuple[dict[str, float], dict[str, str]]:
    """GAIA's pull-in: candidate scores after it, and which bundle pulled each mate.

    Every bundle with a matched member lends its best matched score to all its
    members present in the registry (CORE and loaded ones included).
    """
    candidates = {n: scores[n] for n in scores if n in matched}
    pulled_by: dict[str, str] = {}
    for bundle in bundles:
        hits = [m for m in bundle.members if m in matched]
        if not hits:
            continue
        bundle_score = max(scores[m] for m in hits)
        for m in sorted(bundle.members):
            if m not in registry:
                continue
            inherited = max(scores.get(m, 0.0), bundle_score)
            if m not in candidates:
                pulled_by[m] = bundle.name
            candidates[m] = max(candidates.get(m, 0.0), inherited)
    return candidates, pulled_by


def rank_key(ranking: Ranking, scores: Mapping[str, float], candidates: Mapping[str, float],
             matched: Collection[str]) -> Callable[[str], tuple]:
    """Sort key for new candidates (smallest first is admitted first)."""
    if ranking == "matched_first":
        # a tool that matched on its own never loses its slot to a mate that only inherited
        return lambda n: (0, -scores[n], n) if n in matched else (1, -candidates[n], n)
    return lambda n: (-candidates[n], n)
