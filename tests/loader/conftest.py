"""Fixtures for loader tests: synthetic tools with exact, hand-picked cosine scores.

Each query string gets its own axis; a tool's vector carries the wanted score
on every query axis plus a residual component that makes it unit length. With
FixedEmbedder the loader then sees exactly the scores a test writes down.
"""

from __future__ import annotations

import itertools
import logging
import math
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping

import pytest

from gaia_lite.embed.hashing import FixedEmbedder
from gaia_lite.loader.bundles import ToolBundle
from gaia_lite.loader.cache import DocEmbeddingCache
from gaia_lite.loader.loader import ToolLoader
from gaia_lite.loader.presets import LoaderSettings
from gaia_lite.registry.registry import ToolRegistry
from gaia_lite.registry.spec import ParamSpec, ToolSpec


def _noop(**_: object) -> None:
    return None


def make_spec(name: str, summary: str = "", params: Iterable[str] = ()) -> ToolSpec:
    summary = summary or f"Does {name.replace('_', ' ')}."
    ps = tuple(ParamSpec(p, "string", True, f"the {p}") for p in params)
    return ToolSpec(name, summary, summary, ps, _noop)


def scored_embedder(scores: Mapping[str, Mapping[str, float]], queries: Iterable[str]) -> FixedEmbedder:
    """``scores[tool][query]`` becomes the exact cosine between the two (missing = 0)."""
    queries = list(queries)
    dim = len(queries) + 1
    table: dict[str, list[float]] = {}
    for i, q in enumerate(queries):
        vec = [0.0] * dim
        vec[i] = 1.0
        table[q] = vec
    for tool, per_query in scores.items():
        vec = [float(per_query.get(q, 0.0)) for q in queries] + [0.0]
        residual = 1.0 - sum(x * x for x in vec)
        assert residual >= -1e-9, f"scores of {tool} do not fit on a unit vector"
        vec[-1] = math.sqrt(max(residual, 0.0))
        table[f"{tool}:"] = vec
    return FixedEmbedder(table, dim)


class FakeClock:
    """Strictly increasing wall clock, so LRU order is deterministic."""

    def __init__(self) -> None:
        self._ticks = itertools.count(1000)

    def __call__(self) -> float:
        return float(next(self._ticks))


@dataclass
class World:
    loader: ToolLoader
    registry: ToolRegistry
    embedder: FixedEmbedder
    records: list[logging.LogRecord] = field(default_factory=list)

    @property
    def lines(self) -> list[str]:
        return [r.getMessage() for r in self.records]

    def select(self, query: str, **kw: object):  # noqa: ANN201 - Selection | None
        return self.loader.select(query, self.registry, **kw)  # type: ignore[arg-type]


class _ListHandler(logging.Handler):
    def __init__(self, sink: list[logging.LogRecord]) -> None:
        super().__init__(logging.DEBUG)
        self.sink = sink

    def emit(self, record: logging.LogRecord) -> None:
        self.sink.append(record)


@pytest.fixture
def make_world(request: pytest.FixtureRequest) -> Callable[..., World]:
    """Build a loader over synthetic tools.

    ``scores``: {tool: {query: cosine}}; every tool named there (plus ``extra``)
    is registered in the given order. ``core`` and ``bundles`` configure the loader.
    """
    counter = itertools.count()

    def build(scores: Mapping[str, Mapping[str, float]], *, queries: Iterable[str] = ("q",),
              core: Iterable[str] = (), bundles: Iterable[ToolBundle] = (), extra: Iterable[str] = (),
              settings: LoaderSettings | None = None, cache: DocEmbeddingCache | None = None,
              embedder: FixedEmbedder | None = None, **kw: object) -> World:
        names = list(dict.fromkeys([*scores, *extra]))
        registry = ToolRegistry(make_spec(n) for n in names)
        emb = embedder or scored_embedder(scores, queries)
        logger = logging.getLogger(f"test.loader.{request.node.name}.{next(counter)}")
        logger.setLevel(logging.INFO)
        logger.propagate = False
        records: list[logging.LogRecord] = []
        logger.addHandler(_ListHandler(records))
        loader = ToolLoader(core, list(bundles), emb, settings=settings, doc_cache=cache,
                            clock=FakeClock(), logger=logger, **kw)  # type: ignore[arg-type]
        return World(loader, registry, emb, records)

    return build
