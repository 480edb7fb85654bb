"""run_recall and select_report on small synthetic data (deterministic test embedder)."""

from __future__ import annotations

import json
import logging

import pytest

from gaia_lite.embed.hashing import HashEmbedder
from gaia_lite.eval.recall import case_kind, dataset_registry, run_recall, select_report
from gaia_lite.loader.loader import ToolLoader

REPORT_KEYS = {"cases", "scored_cases", "skipped_cases", "recall", "recall_by_kind", "mean_loaded",
               "mean_native_tokens", "baseline_native_tokens", "mean_text_tokens", "baseline_text_tokens",
               "no_tool_mean_loaded", "r_at_1", "r_at_5", "r_at_10", "mrr", "selection_ms_p50",
               "selection_ms_p95", "tokenizer"}

TOOLS = [
    {"name": "read_clipboard", "description": "read clipboard text", "parameters": {"type": "object", "properties": {}},
     "group": "clip"},
    {"name": "write_clipboard", "description": "write clipboard text",
     "parameters": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
     "group": "clip"},
    {"name": "weather_now", "description": "current weather for a city", "parameters": {"type": "object",
     "properties": {"city": {"type": "string"}}}},
    {"name": "stock_price", "description": "latest stock price for a ticker", "parameters": {}},
]
CASES = [
    {"id": "c1", "query": "read the clipboard text", "expected_tools": ["read_clipboard"]},
    {"id": "c2", "query": "current weather in a city and the latest stock price", "expected_tools":
     ["weather_now", "stock_price"]},
    {"id": "c3", "query": "weather", "expected_tools": ["weather_now", "stock_price"], "match": "any",
     "history": ["clipboard text please"]},
    {"id": "c4", "query": "hello there", "expected_tools": []},
    {"id": "c5", "query": "x", "expected_tools": ["not_a_tool"]},
]


@pytest.fixture
def dataset(tmp_path):
    path = tmp_path / "set.json"
    path.write_text(json.dumps({"meta": {}, "tools": TOOLS, "cases": CASES}))
    return path


def test_report_has_the_issue_keys_and_sane_values(dataset) -> None:
    r = run_recall(dataset, registry_mode="dataset", preset="gaia", threshold=0.3, embedder=HashEmbedder())
    assert REPORT_KEYS <= set(r)
    assert (r["cases"], r["scored_cases"], r["skipped_cases"], r["no_tool_cases"]) == (5, 3, 2, 1)
    assert 0.0 <= r["recall"] <= 1.0 and r["r_at_1"] <= r["r_at_5"] <= r["r_at_10"]
    assert r["baseline_native_tokens"] > r["mean_native_tokens"] > 0
    assert set(r["recall_by_kind"]) <= {"single", "multi", "drift"}
    assert r["tokenizer"] == "chars/4"


def test_everything_loaded_means_full_recall(dataset) -> None:
    r = run_recall(dataset, registry_mode="dataset", preset="gaia", threshold=-1.0, max_tools=99,
                   embedder=HashEmbedder())
    assert r["recall"] == 1.0 and r["mean_loaded"] == 4


def test_limit_samples_deterministically(dataset) -> None:
    a = run_recall(dataset, registry_mode="dataset", preset="gaia", embedder=HashEmbedder(), limit=2)
    b = run_recall(dataset, registry_mode="dataset", preset="gaia", embedder=HashEmbedder(), limit=2)
    assert a["cases"] == 2 and a["recall"] == b["recall"]


def test_dataset_bundles_come_from_small_groups() -> None:
    registry, core, bundles = dataset_registry(TOOLS)
    assert core == frozenset() and len(registry) == 4
    assert {b.name: set(b.members) for b in bundles}["group:clip"] == {"read_clipboard", "write_clipboard"}
    assert {b.name for b in bundles} == {"group:clip", "weather_now", "stock_price"}
    with pytest.raises(ValueError):
        dataset_registry([])


def test_case_kind_uses_group_or_shape() -> None:
    assert case_kind({"group": "ambiguous", "expected_tools": ["a"]}) == "ambiguous"
    assert case_kind({"group": "simple_python", "expected_tools": ["a", "b"]}) == "multi"
    assert case_kind({"expected_tools": ["a"], "history": ["x"]}) == "drift"
    assert case_kind({"expected_tools": []}) == "chitchat"


def test_select_report_shape() -> None:
    registry, core, bundles = dataset_registry(TOOLS)
    loader = ToolLoader(core, bundles, HashEmbedder(), threshold=0.3, logger=logging.Logger("t"))
    out = select_report("read the clipboard text", ["hello"], loader, registry)
    assert set(out) == {"loaded", "reasons", "matched", "scores"}
    assert "read_clipboard" in out["loaded"] and out["reasons"]["read_clipboard"] == "semantic"
    assert list(out["scores"].values()) == sorted(out["scores"].values(), reverse=True)


def test_doc_registry_run_on_the_judged_set_file_shape(tmp_path) -> None:
    pytest.importorskip("gaia_lite.tools.memory")
    path = tmp_path / "doc.json"
    path.write_text(json.dumps({"meta": {}, "tools": [], "cases": [
        {"id": "a", "query": "what is on my clipboard", "expected_tools": ["read_clipboard"]}]}))
    r = run_recall(path, registry_mode="doc", preset="default", embedder=HashEmbedder())
    assert r["tools"] == 38 and r["scored_cases"] == 1
    assert r["baseline_native_tokens"] > r["mean_native_tokens"]


TIMING = ("selection_ms_p50", "selection_ms_p95")


def _without_timing(report: dict) -> dict:
    return {k: v for k, v in report.items() if k not in TIMING and k != "learned"}


@pytest.mark.parametrize("mode", ["dataset", "doc"])
def test_cold_start_learning_changes_nothing(tmp_path, dataset, mode) -> None:
    """Learning from an empty history gives today's report exactly, case by case."""
    empty = tmp_path / "empty.json"
    empty.write_text(json.dumps({"meta": {}, "tools": [], "cases": []}))
    if mode == "doc":
        dataset = tmp_path / "doc.json"
        dataset.write_text(json.dumps({"meta": {}, "tools": [], "cases": [
            {"id": "d1", "query": "what is the remote work policy?", "expected_tools": ["query_documents"]},
            {"id": "d2", "query": "find budget.xlsx and total it", "expected_tools": ["search_file", "analyze_data_file"]},
            {"id": "d3", "query": "copy that to the clipboard", "expected_tools": ["write_clipboard"],
             "history": ["which documents have I indexed?"]}]}))
    kw = dict(registry_mode=mode, preset="default", embedder=HashEmbedder(), include_cases=True)
    today = run_recall(dataset, **kw)
    cold = run_recall(dataset, learn_from=empty, **kw)
    assert cold["learned"] == {"from": str(empty), "examples": 0, "tools_with_examples": 0, "companion_edges": 0}
    assert json.dumps(_without_timing(cold)) == json.dumps(_without_timing(today))


def test_learning_from_past_turns_teaches_the_users_wording(tmp_path, dataset) -> None:
    wording = "ping the ticker oracle for AMD"
    train, test = tmp_path / "train.json", tmp_path / "test.json"
    train.write_text(json.dumps({"meta": {}, "tools": TOOLS, "cases": [
        {"id": "t1", "query": wording, "expected_tools": ["stock_price"]}]}))
    test.write_text(json.dumps({"meta": {}, "tools": TOOLS, "cases": [
        {"id": "s1", "query": wording, "expected_tools": ["stock_price"]}]}))
    kw = dict(registry_mode="dataset", preset="default", embedder=HashEmbedder(), include_cases=True)
    before = run_recall(test, **kw)["case_results"][0]["ranks"]["stock_price"]
    report = run_recall(test, learn_from=train, **kw)
    assert report["learned"]["examples"] == 1
    assert report["case_results"][0]["ranks"]["stock_price"] == 1 <= before
