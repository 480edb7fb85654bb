"""Workflow companions: a tool selected this turn brings the tools past turns used with it, after
direct matches and only into free room, so CORE and direct matches are never pushed out."""

from __future__ import annotations

from gaia_lite.loader.companions import MIN_SUPPORT, PRIOR_WEIGHT, CompanionGraph, learn_companions
from gaia_lite.loader.presets import PRESETS

STICKY = PRESETS["gaia"].replace(sticky=True)


def test_an_edge_needs_support_and_confidence() -> None:
    turns = [["a", "b"]] * MIN_SUPPORT + [["a"]]
    edge = next(e for e in learn_companions(turns).edges if (e.tool, e.companion) == ("a", "b"))
    assert (edge.support, edge.tool_turns, edge.strong) == (3, 4, True)  # 3 of 4 turns with a used b
    assert learn_companions(turns).companions_of("a")[0].companion == "b"
    rare = learn_companions([["a", "b"]] * 2)
    assert rare.empty  # two turns are not enough support
    diluted = learn_companions([["a", "b"]] * 3 + [["a"]] * 2)
    assert diluted.companions_of("a") == ()  # 3 of 5: not enough of a's turns need b


def test_a_shipped_prior_alone_never_fires_and_one_observed_turn_confirms_it() -> None:
    prior = {"query_specific_file": ["list_indexed_documents"]}
    assert learn_companions([], prior).empty
    assert PRIOR_WEIGHT + 1 == MIN_SUPPORT
    once = learn_companions([["query_specific_file", "list_indexed_documents"]], prior)
    (edge,) = once.companions_of("query_specific_file")
    assert (edge.companion, edge.learned, edge.prior) == ("list_indexed_documents", 1, PRIOR_WEIGHT)


def _graph(edges: dict[str, list[str]]) -> CompanionGraph:
    return learn_companions([[a, b] for a, bs in edges.items() for b in bs for _ in range(MIN_SUPPORT)])


def test_a_companion_of_a_direct_match_is_admitted_below_it(make_world) -> None:
    scores = {"c1": {}, "a": {"q": 0.9}, "b": {"q": 0.1}, "other": {"q": 0.05}}
    w = make_world(scores, core=["c1"], max_tools=4, settings=STICKY, companions=_graph({"a": ["b"]}))
    sel = w.select("q")
    assert sel.reasons["a"] == "semantic" and sel.reasons["b"] == "companion:a"
    assert sel.record.companion == ("b",)
    assert '"companion": ["b"]' in w.lines[-1]


def test_a_companion_is_skipped_at_the_cap_and_pushes_nothing_out(make_world) -> None:
    scores = {"c1": {}, "a": {"q": 0.9}, "m": {"q": 0.8}, "b": {"q": 0.1}}
    for settings in (STICKY, PRESETS["gaia"]):
        w = make_world(scores, core=["c1"], max_tools=3, settings=settings, companions=_graph({"a": ["b"]}))
        sel = w.select("q")
        assert sorted(sel.loaded) == ["a", "c1", "m"]  # CORE and both direct matches stay (gaia: admission order)
        assert "b" in sel.record.skipped_at_cap and sel.record.companion == ()
        assert sel.record.evicted == ()


def test_an_evicting_session_never_evicts_for_a_companion(make_world) -> None:
    scores = {"old": {"q1": 0.9}, "a": {"q2": 0.9}, "b": {}}
    w = make_world(scores, queries=("q1", "q2"), max_tools=2, companions=_graph({"a": ["b"]}))
    w.select("q1")
    sel = w.select("q2")
    assert sel.loaded == ("a", "old") and sel.record.evicted == () and "b" in sel.record.skipped_at_cap


def test_a_core_tool_that_scored_this_turn_triggers_its_companions(make_world) -> None:
    scores = {"ask_docs": {"q": 0.7}, "x": {"q": 0.2}, "list_docs": {}}
    w = make_world(scores, core=["ask_docs"], max_tools=5, settings=STICKY,
                   companions=_graph({"ask_docs": ["list_docs"]}))
    assert w.select("q").reasons["list_docs"] == "companion:ask_docs"


def test_no_learned_edges_select_exactly_as_without_companions(make_world) -> None:
    scores = {"c1": {}, "a": {"q": 0.9}, "b": {"q": 0.3}, "z": {"q": 0.1}}
    plain = make_world(scores, core=["c1"], max_tools=3, perf_clock=lambda: 0.0).select("q").record
    empty = make_world(scores, core=["c1"], max_tools=3, perf_clock=lambda: 0.0,
                       companions=learn_companions([], {"a": ["z"]})).select("q").record
    assert empty.payload() == plain.payload()
