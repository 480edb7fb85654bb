"""Loader settings and the named presets.

``gaia`` reproduces GAIA's algorithm exactly (τ 0.20 inclusive, cap 14 counting
CORE, one ``name: summary`` document per tool, candidates ranked by
``(-score, name)``). ``default`` is what the calibration on our judged set and
the public sets favours for the in-process MiniLM embedder; the numbers behind
it are in docs/loader-calibration.md.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Literal

from .documents import View

__all__ = ["LoaderSettings", "PRESETS", "DEFAULT_THRESHOLD", "DEFAULT_MAX_TOOLS", "preset"]

DEFAULT_THRESHOLD = 0.20
DEFAULT_MAX_TOOLS = 14

Ranking = Literal["gaia", "matched_first"]


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
    """

    threshold: float = DEFAULT_THRESHOLD
    max_tools: int = DEFAULT_MAX_TOOLS
    views: tuple[View, ...] = ("summary",)
    ranking: Ranking = "gaia"
    score_current: bool = False

    def __post_init__(self) -> None:
        if self.max_tools < 1:
            raise ValueError(f"max_tools must be >= 1, got {self.max_tools}")
        if not self.views:
            raise ValueError("at least one view is required")

    def replace(self, **changes: object) -> "LoaderSettings":
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]


PRESETS: dict[str, LoaderSettings] = {
    "gaia": LoaderSettings(),
    # Provisional until calibrated (docs/loader-calibration.md).
    "default": LoaderSettings(threshold=0.20, max_tools=14, views=("summary", "params", "examples"),
                              ranking="matched_first", score_current=True),
}


def preset(name: str) -> LoaderSettings:
    try:
        return PRESETS[name]
    except KeyError:
        raise KeyError(f"unknown loader preset {name!r}; choose one of {sorted(PRESETS)}") from None
