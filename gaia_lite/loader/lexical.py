"""A small BM25 index over tool documents, fused with the dense score.

Users name things the embedder blurs: file extensions (``.csv``, ``.png``),
"clipboard", "window", "git". A lexical score catches those exact words. The
document of a tool is its name words (twice: names are the most specific
text), summary, description, parameter names and descriptions, and its
example requests when the preset uses them.

Scoring is an inverted index plus numpy accumulation, so a query costs
microseconds per matching posting, not a loop over every tool.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from gaia_lite.registry.spec import ToolSpec

from .documents import name_words

__all__ = ["Bm25Index", "tokenize", "tool_lexical_text"]

# Function words and request boilerplate ("can you please show me ...") carry no tool signal.
_STOP = frozenset("""
a an the and or of to in on for with my me i im i'm you your is are was were be been it its this that
these those what which who whom how do does did can could would should will please show tell find get
give from at by into as all any some there here about so now then up out just also want need like let
make sure ok okay hey hi thanks thank whats where when why
""".split())
_WORD = re.compile(r"[a-z0-9]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


@functools.lru_cache(maxsize=65536)  # a pure function of one word; tool documents repeat their words a lot
def _stem(word: str) -> str:
    """A deliberately light suffix strip: joins "files"/"file", "indexed"/"index", "copied"/"copy"."""
    if len(word) <= 3:
        return word
    if word.endswith(("ies", "ied")) and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith(("sses", "xes", "ches", "shes", "zes")):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    elif word.endswith("ing") and len(word) > 5:
        word = word[:-3]
    elif word.endswith("ed") and len(word) > 4:
        word = word[:-2]
    # a final "e" is dropped so "save"/"saved" and "file"/"files" meet
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    return word


def tokenize(text: str) -> list[str]:
    words = _WORD.findall(_CAMEL.sub(" ", text).lower())
    return [_stem(w) for w in words if w not in _STOP]


def tool_lexical_text(spec: ToolSpec, examples: Sequence[str] = ()) -> str:
    parts = [name_words(spec.doc_name), name_words(spec.doc_name), spec.summary, spec.description]
    parts += [f"{name_words(p.name)} {p.description}" for p in spec.params]
    parts += list(examples)
    return "\n".join(parts)


@dataclass(frozen=True)
class Bm25Index:
    """Okapi BM25 (k1=1.2, b=0.75) over one document per tool, in registry order."""

    n_docs: int
    postings: Mapping[str, tuple[np.ndarray, np.ndarray]]  # term -> (doc ids, tf-weight)

    @classmethod
    def build(cls, documents: Sequence[str], k1: float = 1.2, b: float = 0.75) -> "Bm25Index":
        counts = [Counter(tokenize(d)) for d in documents]
        lengths = np.array([sum(c.values()) for c in counts], dtype=np.float32)
        avg = float(lengths.mean()) if len(lengths) and lengths.mean() > 0 else 1.0
        ids: dict[str, list[int]] = {}
        tfs: dict[str, list[float]] = {}
        for i, c in enumerate(counts):
            for term, tf in c.items():
                ids.setdefault(term, []).append(i)
                tfs.setdefault(term, []).append(float(tf))
        n = len(documents)
        # BM25's per-document term weight, precomputed once for every posting in one pass over
        # flat arrays (the same float32 operations, in the same order, as one term at a time)
        terms = list(ids)
        sizes = np.fromiter((len(ids[t]) for t in terms), dtype=np.intp, count=len(terms))
        d_all = np.fromiter((i for t in terms for i in ids[t]), dtype=np.intp, count=int(sizes.sum()))
        tf = np.fromiter((x for t in terms for x in tfs[t]), dtype=np.float32, count=len(d_all))
        idf = np.asarray([math.log(1.0 + (n - m + 0.5) / (m + 0.5)) for m in sizes.tolist()],
                         dtype=np.float32)
        weight = (np.repeat(idf, sizes) * tf * np.float32(k1 + 1.0)
                  / (tf + np.float32(k1) * (np.float32(1.0 - b) + np.float32(b) * lengths[d_all] / np.float32(avg))))
        bounds = np.cumsum(sizes)[:-1]
        postings = dict(zip(terms, zip(np.split(d_all, bounds), np.split(weight.astype(np.float32), bounds))))
        return cls(n, postings)

    def score(self, query: str) -> np.ndarray:
        out = np.zeros(self.n_docs, dtype=np.float32)
        for term in set(tokenize(query)):
            hit = self.postings.get(term)
            if hit is not None:
                out[hit[0]] += hit[1]  # doc ids are unique within one posting list
        return out
