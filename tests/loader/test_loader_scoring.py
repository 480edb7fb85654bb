"""The default preset's scoring levers: clauses, per-turn picks, channels, BM25, the doc cache."""

from __future__ import annotations

import numpy as np
import pytest

from gaia_lite.embed.hashing import FixedEmbedder
from gaia_lite.loader.cache import DocEmbeddingCache
from gaia_lite.loader.lexical import Bm25Index, tokenize
from gaia_lite.loader.loader import split_clauses
from gaia_lite.loader.presets import LoaderSettings
from gaia_lite.loader.scoring import build_index, score_matrix
from gaia_lite.registry.spec import ParamSpec, ToolSpec


def test_split_clauses_on_conjunctions_and_punctuation() -> None:
    assert split_clauses("find the file called q4 and then index it for me please") == [
        "find the file called q4", "index it for me please"]
    assert split_clauses("what is in my downloads folder, how big is the zip file") == [
        "what is in my downloads folder", "how big is the zip file"]


def test_split_clauses_ignores_short_fragments_and_single_clauses() -> None:
    assert split_clauses("read and summarize report.pdf") == []  # "read" is too short to be an intent
    assert split_clauses("show me the files in this folder") == []


def test_per_turn_limits_matches_and_core_does_not_use_a_pick(make_world) -> None:
    scores = {"c": {"q": 0.99}, "a": {"q": 0.9}, "b": {"q": 0.8}, "d": {"q": 0.7}}
    w = make_world(scores, core=["c"], settings=LoaderSettings(per_turn=2, bundle_pull=False))
    sel = w.select("q")
    assert sel.record.matched == ("a", "b")
    assert sel.loaded == ("a", "b", "c")


def test_each_clause_gets_its_best_tool(make_world) -> None:
    query = "find the budget spreadsheet somewhere and then read it out loud to me"
    clause_a, clause_b = split_clauses(query)
    scores = {"finder": {query: 0.6, clause_a: 0.7, clause_b: 0.1},
              "other": {query: 0.55, clause_a: 0.2, clause_b: 0.1},
              "speaker": {query: 0.3, clause_a: 0.0, clause_b: 0.5}}
    settings = LoaderSettings(per_turn=1, split_clauses=True, bundle_pull=False, ranking="matched_first")
    w = make_world(scores, queries=(query, clause_a, clause_b), settings=settings)
    sel = w.select(query)
    assert sel.record.matched == ("finder", "speaker")  # "other" is second overall but no clause's best
    assert sel.record.scores["speaker"] == pytest.approx(0.5)  # a tool's score is its best over the query texts


def test_gaia_settings_embed_one_text_per_turn(make_world) -> None:
    query = "find the budget spreadsheet somewhere and then read it out loud to me"
    w = make_world({"a": {query: 0.5}}, queries=(query,))
    w.select(query)
    assert w.embedder.calls == 2  # the tool documents once, the query once


def _spec(name: str, summary: str, params: tuple[str, ...] = ()) -> ToolSpec:
    return ToolSpec(name, summary, summary, tuple(ParamSpec(p, "string", True, "") for p in params), lambda: None)


def test_channels_average_doc_best_example_and_centroid() -> None:
    table = {"q": [1.0, 0.0, 0.0], "t: doc": [0.2, 0.98, 0.0], "ex one": [0.8, 0.6, 0.0], "ex two": [0.0, 0.0, 1.0]}
    emb = FixedEmbedder(table, 3)
    spec = _spec("t", "doc")
    index = build_index([spec], ("summary", "examples"), {"t": ["ex one", "ex two"]}, emb, DocEmbeddingCache(),
                        combine="channels")
    q = emb.embed_query("q")[None, :]
    doc = 0.2 / np.linalg.norm([0.2, 0.98])
    centroid = np.array([0.8, 0.6, 1.0]) / np.linalg.norm([0.8, 0.6, 1.0])
    expected = (doc + 0.8 + centroid[0]) / 3
    assert score_matrix(index, q)[0, 0] == pytest.approx(expected, abs=1e-5)
    as_max = build_index([spec], ("summary", "examples"), {"t": ["ex one", "ex two"]}, emb, DocEmbeddingCache())
    assert score_matrix(as_max, q)[0, 0] == pytest.approx(0.8, abs=1e-5)


def test_bm25_prefers_the_rare_matching_word() -> None:
    index = Bm25Index.build(["read clipboard text", "read a file", "write a file"])
    s = index.score("what is on my clipboard")
    assert s.argmax() == 0 and s[1] == s[2] == 0.0
    assert tokenize("Searching the indexed Files") == tokenize("search index file")
    assert tokenize("copied") == tokenize("copy") and tokenize("saved") == tokenize("save")


def test_lexical_weight_adds_bm25_to_the_cosine() -> None:
    emb = FixedEmbedder({"q clipboard": [1.0, 0.0]}, 2)  # tools get zero vectors: dense score 0
    specs = [_spec("read_clipboard", "Get the clipboard text."), _spec("read_file", "Read a file.")]
    index = build_index(specs, ("summary",), {}, emb, DocEmbeddingCache(), lexical=True)
    q = emb.embed_query("q clipboard")[None, :]
    with_lex = score_matrix(index, q, ["q clipboard"], lexical_weight=0.1)
    assert with_lex[0, 0] > 0 and with_lex[1, 0] == 0
    assert score_matrix(index, q, ["q clipboard"], lexical_weight=0.0)[0, 0] == 0


def test_unreadable_cache_file_is_treated_as_empty(tmp_path) -> None:
    cache = DocEmbeddingCache(tmp_path)
    cache.store("emb", ["k"], np.ones((1, 2), np.float32))
    cache.flush()
    path = next(tmp_path.glob("tool-docs-*.npz"))
    path.write_bytes(b"not an npz")
    assert DocEmbeddingCache(tmp_path).lookup("emb", ["k"]) == [None]


def test_cache_keys_include_the_embedder_id(tmp_path) -> None:
    cache = DocEmbeddingCache(tmp_path)
    cache.store("emb-a", ["k"], np.ones((1, 2), np.float32))
    cache.flush()
    fresh = DocEmbeddingCache(tmp_path)
    assert fresh.lookup("emb-b", ["k"]) == [None]
    assert fresh.lookup("emb-a", ["k"])[0].tolist() == [1.0, 1.0]


def test_split_clauses_keeps_at_most_four_parts() -> None:
    text = ", ".join(f"do the thing number {i}" for i in range(7))
    parts = split_clauses(text)
    assert len(parts) == 4 and parts[-1].startswith("do the thing number 3")


def test_a_clear_winner_gets_fewer_picks(make_world) -> None:
    from gaia_lite.loader.presets import Confidence

    settings = LoaderSettings(per_turn=3, bundle_pull=False, confident=Confidence(picks=1, min_score=0.5, min_gap=0.1))
    clear = make_world({"a": {"q": 0.9}, "b": {"q": 0.6}, "c": {"q": 0.5}}, settings=settings)
    assert clear.select("q").record.matched == ("a",)
    close = make_world({"a": {"q": 0.9}, "b": {"q": 0.85}, "c": {"q": 0.5}}, settings=settings)
    assert close.select("q").record.matched == ("a", "b", "c")


def test_embed_chars_scores_only_the_tail_of_a_long_query(make_world) -> None:
    from gaia_lite.loader.loader import selection_query

    q = selection_query(["x" * 3000], "tail words here")
    w = make_world({"a": {str(q)[-50:]: 0.9}}, queries=(str(q)[-50:], "tail words here"),
                   settings=LoaderSettings(embed_chars=50, per_turn=1, bundle_pull=False))
    sel = w.select(q)
    assert sel.record.matched == ("a",) and sel.record.query_sha  # the sha still covers the whole query
