"""Scoring tools against a query: precomputed matrices, one matmul per query batch.

Each tool has up to three dense *channels*:

* ``doc``: its document views (``name: summary``, parameter names,
  description), best view wins;
* ``ex_max``: the best of its example requests (nearest neighbour);
* ``ex_centroid``: the mean of its example vectors (Tool2Vec-style);
* ``learned``: the user's own past requests that this tool served
  (``skills/learning.py``), embedded as example views too. They are kept out
  of the scores above and out of the channel average: ``learned_nearest``
  gives each tool the cosine of its nearest learned request, and the loader
  (``matching.learned_picks``) adds a tool whose learned request is close
  enough (``learned_gate``: the user says nearly what they said before) as an
  *extra* pick after the direct matches. A learned request can thus bring a
  tool, but never takes a pick from one the turn matched directly.

``combine="max"`` scores a tool by its best view overall (GAIA's rule when the
only view is ``name: summary``); ``combine="channels"`` averages the channels a
tool has, which is steadier than a max over many examples (one stray example
no longer decides). An optional BM25 score is added with a small weight.

``build_index`` embeds every text once (through the on-disk
``DocEmbeddingCache``); scoring 4,000 tools then costs about a millisecond.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Mapping, Sequence

import numpy as np

from gaia_lite.embed.base import Embedder, EmbedderError
from gaia_lite.registry.spec import ToolSpec

from .cache import DocEmbeddingCache, doc_key
from .documents import View, doc_text, tool_views
from .lexical import Bm25Index, tool_lexical_text

__all__ = ["ToolIndex", "build_index", "score_matrix", "learned_nearest", "embed_cached", "Combine"]

Combine = Literal["max", "channels"]
_BATCH = 256  # bounds the padded ONNX batch when thousands of documents are new
_DOC_VIEWS = ("summary", "params", "description")


@dataclass(frozen=True)
class ToolIndex:
    """Every view of every tool, stacked per channel.

    ``doc_starts[i]`` is the first ``doc_matrix`` row of tool ``i`` (each tool
    has at least one), the layout ``np.maximum.reduceat`` needs. Tools with
    examples are listed in ``ex_tools``; their rows follow the same layout in
    ``ex_matrix`` / ``ex_starts``, and ``centroids`` holds one row each.
    """

    names: tuple[str, ...]
    doc_starts: np.ndarray
    doc_matrix: np.ndarray
    ex_tools: np.ndarray
    ex_starts: np.ndarray
    ex_matrix: np.ndarray
    centroids: np.ndarray
    lexical: Bm25Index | None
    combine: Combine
    learned_tools: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.intp))
    learned_starts: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.intp))
    learned_matrix: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.float32))

    @property
    def dim(self) -> int:
        return int(self.doc_matrix.shape[1]) if self.doc_matrix.size else 0


def _embed_all(texts: list[str], embedder: Embedder, cache: DocEmbeddingCache) -> np.ndarray:
    """Vectors for ``texts`` in order, embedding only what the cache lacks (each text once)."""
    keys = [doc_key(t) for t in texts]
    found = cache.lookup(embedder.id, keys)
    todo: dict[str, int] = {}
    for i, row in enumerate(found):
        if row is None:
            todo.setdefault(keys[i], i)
    pending = list(todo.values())
    for lo in range(0, len(pending), _BATCH):
        chunk = pending[lo:lo + _BATCH]
        vecs = np.asarray(embedder.embed_documents([texts[i] for i in chunk]), dtype=np.float32)
        if vecs.ndim != 2 or vecs.shape[0] != len(chunk):
            raise EmbedderError(f"embedder returned {vecs.shape[0] if vecs.ndim else 0} vectors for {len(chunk)} texts")
        cache.store(embedder.id, [keys[i] for i in chunk], vecs)
    if pending:
        found = cache.lookup(embedder.id, keys)
    dims = {row.shape[0] for row in found if row is not None}
    if len(dims) > 1:
        raise EmbedderError(f"tool vectors disagree on dimension: {sorted(dims)}")
    if not found:
        return np.zeros((0, 0), np.float32)
    return np.stack(found).astype(np.float32, copy=False)  # type: ignore[arg-type]


embed_cached = _embed_all  # the worked examples (worked.py) share the tool documents' cache


def build_index(specs: Sequence[ToolSpec], views: Sequence[View], examples: Mapping[str, Sequence[str]],
                embedder: Embedder, cache: DocEmbeddingCache, *, combine: Combine = "max",
                lexical: bool = False, learned: Mapping[str, Sequence[str]] | None = None) -> ToolIndex:
    """Embed what is missing from ``cache`` and stack the channel matrices.

    Raises EmbedderError when the embedder fails or answers with the wrong
    number or size of vectors.
    """
    doc_views = [v for v in views if v in _DOC_VIEWS]
    use_examples = "examples" in views
    texts: list[str] = []
    doc_starts: list[int] = []
    for spec in specs:
        doc_starts.append(len(texts))
        # a tool with no usable view still gets GAIA's document, so it can be scored
        texts.extend(tool_views(spec, doc_views) or [doc_text(spec)])
    n_doc = len(texts)
    ex_tools: list[int] = []
    ex_starts: list[int] = []
    if use_examples:
        for i, spec in enumerate(specs):
            items = tool_views(spec, ["examples"], examples.get(spec.name, ()))
            if items:
                ex_tools.append(i)
                ex_starts.append(len(texts) - n_doc)
                texts.extend(items)
    n_written = len(texts)
    learned_tools: list[int] = []
    learned_starts: list[int] = []
    for i, spec in enumerate(specs):
        items = tool_views(spec, ["examples"], (learned or {}).get(spec.name, ()))
        if items:
            learned_tools.append(i)
            learned_starts.append(len(texts) - n_written)
            texts.extend(items)
    vectors = _embed_all(texts, embedder, cache)
    dim = vectors.shape[1] if vectors.size else 0
    doc_matrix, ex_matrix, learned_matrix = vectors[:n_doc], vectors[n_doc:n_written], vectors[n_written:]
    if ex_tools:
        bounds = [*ex_starts, len(ex_matrix)]
        cents = np.stack([ex_matrix[a:b].mean(axis=0) for a, b in zip(bounds, bounds[1:])])
        norms = np.linalg.norm(cents, axis=1, keepdims=True)
        centroids = (cents / np.where(norms == 0, 1.0, norms)).astype(np.float32)
    else:
        centroids = np.zeros((0, dim), np.float32)
    lex = None
    if lexical:
        lex = Bm25Index.build([tool_lexical_text(s, examples.get(s.name, ()) if use_examples else ())
                               for s in specs])
    return ToolIndex(tuple(s.name for s in specs), np.asarray(doc_starts, dtype=np.intp), doc_matrix,
                     np.asarray(ex_tools, dtype=np.intp), np.asarray(ex_starts, dtype=np.intp),
                     ex_matrix.reshape(-1, dim) if dim else ex_matrix, centroids, lex, combine,
                     np.asarray(learned_tools, dtype=np.intp), np.asarray(learned_starts, dtype=np.intp),
                     learned_matrix.reshape(-1, dim) if dim else learned_matrix)


_ROW_BLOCK = 256


def _dot_rows(matrix: np.ndarray, queries_t: np.ndarray) -> np.ndarray:
    """``matrix @ queries_t`` in row blocks.

    A block this small stays under OpenBLAS's threading threshold. On a busy
    2-core machine (the chat model's llama-server next door) a threaded GEMM of
    this size was measured at 8 ms and single-threaded blocks at 0.04 ms.
    """
    if len(matrix) <= _ROW_BLOCK:
        return matrix @ queries_t
    return np.concatenate([matrix[i:i + _ROW_BLOCK] @ queries_t for i in range(0, len(matrix), _ROW_BLOCK)])


def score_matrix(index: ToolIndex, queries: np.ndarray, texts: Sequence[str] | None = None,
                 lexical_weight: float = 0.0) -> np.ndarray:
    """Scores as a (tools, queries) matrix: dense channels, plus ``lexical_weight`` × BM25.

    ``queries`` holds L2-normalised rows (the embedder's contract), so dot
    products are cosines; nothing is re-normalised here (GAIA does none either).
    ``texts`` are the query strings for the lexical score, row-aligned.
    Learned requests play no part here (``learned_nearest``).
    """
    n = len(index.names)
    q = np.atleast_2d(np.asarray(queries, dtype=np.float32))
    if n == 0:
        return np.zeros((0, q.shape[0]), np.float32)
    if q.shape[1] != index.dim:
        raise EmbedderError(f"query dimension {q.shape[1]} != tool dimension {index.dim}")
    doc = np.maximum.reduceat(_dot_rows(index.doc_matrix, q.T), index.doc_starts, axis=0)
    scores = doc
    if len(index.ex_tools):
        ex_max = np.maximum.reduceat(_dot_rows(index.ex_matrix, q.T), index.ex_starts, axis=0)
        scores = doc.copy()
        if index.combine == "channels":
            scores[index.ex_tools] = (doc[index.ex_tools] + ex_max + _dot_rows(index.centroids, q.T)) / 3.0
        else:
            scores[index.ex_tools] = np.maximum(doc[index.ex_tools], ex_max)
    if index.lexical is not None and lexical_weight and texts is not None:
        lex = np.stack([index.lexical.score(t) for t in texts], axis=1)
        scores = scores + lexical_weight * lex
    return scores


def learned_nearest(index: ToolIndex, queries: np.ndarray) -> np.ndarray:
    """Per tool, the cosine of its nearest learned request to any of ``queries`` (-1 for a tool
    that has none): what the loader compares with ``learned_gate``."""
    near = np.full(len(index.names), -1.0, dtype=np.float32)
    if len(index.learned_tools):
        q = np.atleast_2d(np.asarray(queries, dtype=np.float32))
        per_text = np.maximum.reduceat(_dot_rows(index.learned_matrix, q.T), index.learned_starts, axis=0)
        near[index.learned_tools] = per_text.max(axis=1)
    return near
