"""Workflow companions: tools that past turns used together.

No embedding of "what is the remote work policy?" points at
``list_indexed_documents``, yet the agent lists the indexed documents before
it queries one. Such discovery steps are about how tools are *used together*,
and the user's own history records exactly that: B is a companion of A when
the turns that called A successfully usually called B in the same turn.

* ``support``: turns that called both A and B (successfully);
* ``confidence``: support / turns that called A.

An edge is *strong* at ``support >= MIN_SUPPORT`` and ``confidence >=
MIN_CONFIDENCE``. The edges shipped in ``bundles/<profile>.toml``
(``[companions]``) are a prior: each adds ``PRIOR_WEIGHT`` pseudo-turns that
called both tools. That is one turn short of ``MIN_SUPPORT`` on purpose: a
prior alone never fires, so a fresh install selects exactly as before (cold
start changes nothing), and one observed turn that uses a known pair confirms
it, where an unknown pair needs three.

Everything here is a pure function of turn records (the tools each turn
called successfully) and the prior; the memory database keeps the records.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

__all__ = ["CompanionEdge", "CompanionGraph", "learn_companions", "MIN_SUPPORT", "MIN_CONFIDENCE",
           "PRIOR_WEIGHT", "MAX_COMPANIONS"]

MIN_SUPPORT = 3
MIN_CONFIDENCE = 2 / 3  # a companion costs prompt tokens on every turn that selects its tool: needed in most
PRIOR_WEIGHT = 2  # pseudo-turns per shipped edge: MIN_SUPPORT - 1, so a prior alone never fires
MAX_COMPANIONS = 2  # per trigger tool, strongest first: each one costs prompt tokens


@dataclass(frozen=True)
class CompanionEdge:
    """B (``companion``) comes with A (``tool``): counts in turns, ``prior`` pseudo-turns included."""

    tool: str
    companion: str
    support: int
    tool_turns: int
    prior: int = 0

    @property
    def confidence(self) -> float:
        return self.support / self.tool_turns if self.tool_turns else 0.0

    @property
    def strong(self) -> bool:
        return self.support >= MIN_SUPPORT and self.confidence >= MIN_CONFIDENCE

    @property
    def learned(self) -> int:
        """Turns actually observed using both (the prior left out)."""
        return self.support - self.prior


@dataclass(frozen=True)
class CompanionGraph:
    """Every edge with support, and for each tool its strong companions, strongest first."""

    edges: tuple[CompanionEdge, ...] = ()
    _strong: Mapping[str, tuple[CompanionEdge, ...]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        strong: dict[str, list[CompanionEdge]] = {}
        for e in self.edges:
            if e.strong:
                strong.setdefault(e.tool, []).append(e)
        table = {t: tuple(sorted(es, key=lambda e: (-e.confidence, -e.support, e.companion))[:MAX_COMPANIONS])
                 for t, es in strong.items()}
        object.__setattr__(self, "_strong", table)

    @property
    def empty(self) -> bool:
        return not self._strong

    def companions_of(self, tool: str) -> tuple[CompanionEdge, ...]:
        return self._strong.get(tool, ())


def learn_companions(turns: Iterable[Sequence[str]],
                     prior: Mapping[str, Sequence[str]] | None = None) -> CompanionGraph:
    """Edges from turn records (each: the tools one turn called successfully) plus the prior."""
    tool_turns: Counter[str] = Counter()
    pairs: Counter[tuple[str, str]] = Counter()
    for turn in turns:
        tools = sorted(set(turn))
        tool_turns.update(tools)
        for a in tools:
            for b in tools:
                if a != b:
                    pairs[(a, b)] += 1
    prior_pairs = {(a, b) for a, bs in (prior or {}).items() for b in bs if a != b}
    for a, b in prior_pairs:
        pairs[(a, b)] += PRIOR_WEIGHT
    prior_tools = {a for a, _ in prior_pairs}  # one pseudo-turn set per tool, however many edges it has
    edges = [CompanionEdge(a, b, n, tool_turns[a] + (PRIOR_WEIGHT if a in prior_tools else 0),
                           PRIOR_WEIGHT if (a, b) in prior_pairs else 0)
             for (a, b), n in sorted(pairs.items())]
    return CompanionGraph(tuple(edges))
