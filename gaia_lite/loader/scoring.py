"""Scoring tools against a query: a precomputed view matrix, one matmul per query.

``build_index`` embeds every view of every tool once (through the on-disk
``DocEmbeddingCache``); ``dense_scores`` is then a matrix product plus a
segmented max, so scoring 4,000 tools costs well under a millisecond.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from gaia_lite.embed.base import Embedder, EmbedderError
from gaia_lite.registry.spec import ToolSpec

from .cache import DocEmbeddingCache, doc_key
from .documents import View, doc_text, tool_views

__all__ = ["ToolIndex", "build_index", "dense_scores"]

_BATCH = 256  # bounds the padded ONNX batch when thousands of documents are new


@dataclass(frozen=True)
class ToolIndex:
    """Every view of every tool as rows of one matrix.

    Rows are grouped by tool in registry order; ``starts[i]`` is the first row
    of tool ``i`` (every tool has at least one row), which is the layout
    ``np.maximum.reduceat`` needs for the per-tool max.
    """

    names: tuple[str, ...]
    starts: np.ndarray
    matrix: np.ndarray
    texts: tuple[str, ...]

    def position(self) -> dict[str, int]:
        return {n: i for i, n in enumerate(self.names)}


def build_index(specs: Sequence[ToolSpec], views: Sequence[View], examples: Mapping[str, Sequence[str]],
                embedder: Embedder, cache: DocEmbeddingCache) -> ToolIndex:
    """Embed what is missing from ``cache`` and stack all view vectors.

    Raises EmbedderError when the embedder fails or answers with the wrong
    number of vectors.
    """
    texts: list[str] = []
    starts: list[int] = []
    for spec in specs:
        starts.append(len(texts))
        # a tool with no usable view still gets GAIA's document, so it can be scored
        texts.extend(tool_views(spec, views, examples.get(spec.name, ())) or [doc_text(spec)])
    keys = [doc_key(t) for t in texts]
    found = cache.lookup(embedder.id, keys)
    missing = sorted({i for i, row in enumerate(found) if row is None}, key=lambda i: keys[i])
    # de-duplicate identical texts before embedding (examples can repeat across tools)
    todo: dict[str, int] = {}
    for i in missing:
        todo.setdefault(keys[i], i)
    todo_idx = list(todo.values())
    for lo in range(0, len(todo_idx), _BATCH):
        chunk = todo_idx[lo:lo + _BATCH]
        vecs = np.asarray(embedder.embed_documents([texts[i] for i in chunk]), dtype=np.float32)
        if vecs.ndim != 2 or vecs.shape[0] != len(chunk):
            raise EmbedderError(f"embedder returned {vecs.shape[0] if vecs.ndim else 0} vectors for {len(chunk)} texts")
        cache.store(embedder.id, [keys[i] for i in chunk], vecs)
    if todo_idx:
        found = cache.lookup(embedder.id, keys)
    dims = {row.shape[0] for row in found if row is not None}
    if len(dims) > 1:
        raise EmbedderError(f"tool vectors disagree on dimension: {sorted(dims)}")
    matrix = np.stack(found) if found else np.zeros((0, 0), np.float32)  # type: ignore[arg-type]
    return ToolIndex(tuple(s.name for s in specs), np.asarray(starts, dtype=np.intp),
                     matrix.astype(np.float32, copy=False), tuple(texts))


def dense_scores(index: ToolIndex, queries: Sequence[np.ndarray]) -> np.ndarray:
    """Per tool: max over query vectors and over the tool's views of the dot product.

    Vectors are L2-normalised by the embedder, so this is cosine; no
    re-normalisation here (GAIA does none either).
    """
    if not index.names:
        return np.zeros(0, dtype=np.float32)
    q = np.stack([np.asarray(v, dtype=np.float32).ravel() for v in queries])
    if q.shape[1] != index.matrix.shape[1]:
        raise EmbedderError(f"query dimension {q.shape[1]} != tool dimension {index.matrix.shape[1]}")
    per_view = (index.matrix @ q.T).max(axis=1)
    return np.maximum.reduceat(per_view, index.starts)
