"""Embedders: the in-process ONNX default, the HTTP client, and test embedders.

``make_embedder`` is the one place that turns config values into an Embedder.
The heavy imports (onnxruntime, tokenizers) happen on first use, not here.
"""

from __future__ import annotations

from .base import Embedder, EmbedderError, EmbedderSpec, normalize_rows
from .hashing import FixedEmbedder, HashEmbedder
from .http import LEMONADE_EMBED_MODEL, HttpEmbedder
from .onnx import MINILM_DIM, MINILM_MODEL, OnnxEmbedder

__all__ = [
    "Embedder",
    "EmbedderError",
    "EmbedderSpec",
    "normalize_rows",
    "OnnxEmbedder",
    "HttpEmbedder",
    "HashEmbedder",
    "FixedEmbedder",
    "make_embedder",
    "EMBEDDER_KINDS",
    "MINILM_MODEL",
    "MINILM_DIM",
    "LEMONADE_EMBED_MODEL",
]

EMBEDDER_KINDS = ("onnx", "http", "hash")

# Models whose card asks for task prefixes; used only when config gives none.
# (substring of the model id, query prefix, document prefix, dim)
_KNOWN_MODELS: tuple[tuple[str, str, str, int], ...] = (
    ("embeddinggemma", "task: search result | query: ", "title: none | text: ", 768),
    ("nomic-embed-text", "search_query: ", "search_document: ", 768),
    ("minilm-l6", "", "", MINILM_DIM),
)


def _known(model: str) -> tuple[str, str, int] | None:
    low = model.lower()
    for needle, qp, dp, dim in _KNOWN_MODELS:
        if needle in low:
            return qp, dp, dim
    return None


def make_embedder(
    kind: str,
    *,
    model: str | None = None,
    dim: int | None = None,
    query_prefix: str | None = None,
    document_prefix: str | None = None,
    base_url: str | None = None,
    api_key: str | None = None,
) -> Embedder:
    """Build the embedder config asks for.

    ``None`` means "config is silent": onnx defaults to all-MiniLM-L6-v2 (384-d,
    no prefixes); http defaults to Lemonade's embeddinggemma with its card's
    prefixes. An explicit ``""`` prefix is kept as given.
    """
    kind = kind.strip().lower()
    if kind == "onnx":
        model = model or MINILM_MODEL
    elif kind == "http":
        model = model or LEMONADE_EMBED_MODEL
        if not base_url:
            raise EmbedderError("the http embedder needs a base_url: set it, e.g. http://127.0.0.1:13305/api/v1")
    elif kind == "hash":
        # The deterministic test embedder: never a default, only asked for by name.
        return HashEmbedder(dim=dim or 256)
    else:
        raise EmbedderError(f"unknown embedder kind {kind!r}: use one of {', '.join(EMBEDDER_KINDS)}")

    known = _known(model)
    if known is not None:
        qp, dp, known_dim = known
        query_prefix = qp if query_prefix is None else query_prefix
        document_prefix = dp if document_prefix is None else document_prefix
        dim = known_dim if dim is None else dim
    spec = EmbedderSpec(model=model, dim=dim, query_prefix=query_prefix or "", document_prefix=document_prefix or "")
    if kind == "onnx":
        return OnnxEmbedder(spec)
    assert base_url is not None
    return HttpEmbedder(spec, base_url=base_url, api_key=api_key)
