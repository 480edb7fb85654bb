"""Scoring one selection query against every registry tool.

``QueryScorer`` owns the tool index (built once per registry, tool documents
embedded through the persistent cache) and turns a query into the texts it
scores: the whole selection query, maybe the current message on its own, maybe
its clauses. The loader decides what the scores admit.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from gaia_lite.embed.base import Embedder
from gaia_lite.registry.registry import ToolRegistry
from gaia_lite.registry.spec import ToolSpec

from .cache import DocEmbeddingCache
from .presets import LoaderSettings
from .query import split_clauses, without_answer_form
from .scoring import ToolIndex, build_index, learned_nearest, score_matrix

__all__ = ["QueryScorer"]


class QueryScorer:
    def __init__(self, settings: LoaderSettings, embedder: Embedder, examples: Mapping[str, Sequence[str]],
                 cache: DocEmbeddingCache, learned: Mapping[str, Sequence[str]] | None = None) -> None:
        self.settings = settings
        self.embedder = embedder
        self._examples = dict(examples)
        self._learned = dict(learned or {})
        self._cache = cache
        self._index_key: tuple[int, int] | None = None
        self._index_registry: ToolRegistry | None = None
        self._index: ToolIndex | None = None

    def index(self, registry: ToolRegistry) -> ToolIndex:
        # A ToolRegistry's identity and revision name its contents; the reference kept
        # below stops the id being reused.
        key = (id(registry), registry.revision)
        if self._index is None or key != self._index_key:
            st = self.settings
            index = build_index(list(registry), st.views, self._examples, self.embedder, self._cache,
                                combine=st.combine, lexical=st.lexical_weight > 0,
                                learned=self._learned if "examples" in st.views else None)
            self._cache.flush()  # persist right away: a crash must not cost the next run a re-embed
            self._index, self._index_key, self._index_registry = index, key, registry
        return self._index

    def prepare(self, specs: Sequence[ToolSpec]) -> None:
        """Embed (through the cache) every document ``index`` will need for these tools, and persist."""
        st = self.settings
        build_index(list(specs), st.views, self._examples, self.embedder, self._cache, combine=st.combine)
        self._cache.flush()

    def query_texts(self, query: str) -> tuple[list[str], int]:
        """Texts to score: the selection query, maybe the current message, maybe its clauses.

        Returns the texts and the index where the clause texts start.
        """
        limit = self.settings.embed_chars
        joined = without_answer_form(str(query))  # "in one sentence" says how to answer, not what to do
        texts = [joined if limit is None else joined[-limit:]]
        current = getattr(query, "current", None)
        current = without_answer_form(current if current is not None else str(query))
        if self.settings.score_current and current and current != texts[0]:
            texts.append(current)
        first_clause = len(texts)
        if self.settings.split_clauses:
            texts.extend(c for c in split_clauses(current) if c not in texts)
        return texts, first_clause

    def message_vector(self, query: str) -> np.ndarray:
        """The current message's own vector (the embedder's LRU already holds it when ``score_current``
        scored it). Raises EmbedderError."""
        current = getattr(query, "current", None)
        return self.embedder.embed_query(without_answer_form(current if current is not None else str(query)))

    def _embed_queries(self, texts: list[str]) -> np.ndarray:
        # One call per text, not one padded batch: the texts differ a lot in length
        # (a joined history vs a short clause) and padding made a batch slower.
        return np.stack([self.embedder.embed_query(t) for t in texts])

    def score_all(self, query: str, registry: ToolRegistry) -> tuple[ToolIndex, np.ndarray, int, np.ndarray]:
        """(index, tools x texts score matrix, index of the first clause text, per-tool cosine of
        the nearest learned request over those texts, -1 where none). Raises EmbedderError."""
        index = self.index(registry)
        texts, first_clause = self.query_texts(query)
        vectors = self._embed_queries(texts)
        matrix = score_matrix(index, vectors, texts, self.settings.lexical_weight)
        return index, matrix, first_clause, learned_nearest(index, vectors)

    def score(self, query: str, registry: ToolRegistry) -> dict[str, float]:
        """Semantic score of every registry tool (registry order). Raises EmbedderError."""
        index, matrix, _, _ = self.score_all(query, registry)
        best = matrix.max(axis=1) if matrix.size else np.zeros(len(index.names))
        return dict(zip(index.names, best.tolist()))
