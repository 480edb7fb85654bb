"""What the memory store and the document index hand back, and the error the store raises for bad input."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Sequence

from gaia_lite.errors import InputError

from .credentials import mask_credentials

__all__ = ["MemoryInputError", "CATEGORIES", "Fact", "Remembered", "RecallResult", "FACT_COLUMNS", "fact_from_row",
           "current_first", "IndexResult"]

CATEGORIES = frozenset({"fact", "preference", "error", "skill", "note", "reminder",
                        "system", "profile", "permission"})


class MemoryInputError(InputError, ValueError):
    """Bad input for a memory operation; the message says what to fix."""


@dataclass(frozen=True)
class Fact:
    id: str
    category: str
    content: str
    domain: str
    context: str
    entity: str
    sensitive: bool
    due_at: str | None
    reminded_at: str | None
    confidence: float
    source: str
    created_at: str
    updated_at: str
    use_count: int
    score: float | None = None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        if d["score"] is None:
            del d["score"]
        else:
            d["score"] = round(d["score"], 4)
        return d


@dataclass(frozen=True)
class Remembered:
    id: str
    deduplicated: bool  # True: an existing near-identical fact was refreshed instead


@dataclass(frozen=True)
class RecallResult:
    facts: list[Fact]
    has_more: bool
    mode: str  # "hybrid", "keyword" (no vectors available) or "browse" (no query)


FACT_COLUMNS = ("id, category, content, domain, context, entity, sensitive, due_at, reminded_at, "
                "confidence, source, created_at, updated_at, use_count")


def fact_from_row(row: Sequence[Any], score: float | None = None) -> Fact:
    r = list(row)
    r[2] = mask_credentials(r[2])  # never hand a stored secret back
    r[6] = bool(r[6])
    return Fact(*r, score=score)


@dataclass(frozen=True)
class IndexResult:
    """One file through the document index (``RagIndex.index_file``)."""

    path: str
    status: str  # "indexed" (new), "updated" (content changed) or "unchanged"
    pages: int
    chunks: int
    size: int
    seconds: float = 0.0
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v != ""}


def current_first(facts: Sequence[Fact]) -> list[Fact]:
    """``facts`` (best first) with a fact saved later about the same thing as the best one (two words in a row in
    common) before it: "update: they moved me, my parking spot is now C7" is the current answer to "which parking
    spot do I have?" though "My parking spot at work is B12" is closer in words (probe55, both models)."""
    from .keywords import shares_phrase

    if len(facts) < 2:
        return list(facts)
    best = facts[0]
    same = [f for f in facts if f is best or shares_phrase(f.content, best.content)]
    newest = max(same, key=lambda f: f.updated_at or f.created_at)
    return [newest, *(f for f in facts if f is not newest)]
