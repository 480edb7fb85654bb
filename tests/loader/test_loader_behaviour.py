"""The behaviours GAIA's loader guarantees, one named test each (GAIA preset)."""

from __future__ import annotations

import json
import logging

import pytest

from gaia_lite.loader.bundles import ToolBundle
from gaia_lite.loader.cache import DocEmbeddingCache
from gaia_lite.logline import parse_line
from gaia_lite.loader.presets import PRESETS
from gaia_lite.registry.render import render_native, render_text


def payloads(world, kind: str = "selection") -> list[dict]:
    recs = [parse_line(line) for line in world.lines]
    return [r.payload for r in recs if r is not None and r.kind == kind]


def test_01_threshold_is_inclusive(make_world) -> None:
    w = make_world({"at": {"q": 0.55}, "below": {"q": 0.5499}}, threshold=0.55)
    sel = w.select("q")
    assert sel.record.matched == ("at",)
    assert "at" in sel.loaded and "below" not in sel.loaded


def test_02_matched_member_pulls_bundle_and_mates_can_outrank_at_cap(make_world) -> None:
    scores = {"a1": {"q": 0.9}, "a2": {"q": 0.1}, "b1": {"q": 0.6}}
    bundles = [ToolBundle("a", frozenset({"a1", "a2", "a_absent"})), ToolBundle("b", frozenset({"b1"}))]
    w = make_world(scores, bundles=bundles, max_tools=2)
    sel = w.select("q")
    assert sel.record.bundle_pulled == ("a2",)  # the absent member is skipped silently
    assert sel.loaded == ("a1", "a2")  # a2 inherits 0.9 and beats b1 (0.6)
    assert sel.record.skipped_at_cap == ("b1",)
    assert sel.reasons == {"a1": "semantic", "a2": "bundle:a"}


def test_03_core_admitted_with_score_zero_and_never_evicted(make_world) -> None:
    scores = {"c1": {}, "x": {"q1": 0.9}, "y": {"q2": 0.9}}
    w = make_world(scores, queries=("q1", "q2"), core=["c1", "c_absent"], max_tools=2)
    first = w.select("q1")
    assert first.record.scores["c1"] == 0.0 and "c1" in first.loaded and first.reasons["c1"] == "core"
    second = w.select("q2")
    assert second.record.evicted == ("x",)
    assert second.loaded == ("c1", "y")


def test_04_monotonic_growth_and_identical_query_identical_list(make_world) -> None:
    scores = {"x": {"q1": 0.5}, "y": {"q2": 0.5}}
    w = make_world(scores, queries=("q1", "q2"))
    a = w.select("q1")
    b = w.select("q2")
    c = w.select("q2")
    assert a.loaded == ("x",)
    assert b.loaded == ("x", "y")  # x no longer matches but is not pruned
    assert c.loaded == b.loaded and c.record.admitted == ()


def test_05_at_cap_with_only_this_turn_admissions_extras_are_skipped(make_world) -> None:
    scores = {"a": {"q": 0.9}, "b": {"q": 0.8}, "c": {"q": 0.7}}
    w = make_world(scores, max_tools=2)
    sel = w.select("q")
    assert sel.loaded == ("a", "b")
    assert sel.record.skipped_at_cap == ("c",) and sel.record.evicted == ()


def test_06_lru_by_last_call_then_load_time_and_evicted_can_return(make_world) -> None:
    scores = {"a": {"q1": 0.9}, "b": {"q1": 0.8}, "c": {"q2": 0.9}, "d": {"q3": 0.9}}
    w = make_world(scores, queries=("q1", "q2", "q3"), max_tools=2)
    w.select("q1")  # a loaded before b
    w.loader.record_tool_use("a")  # a used, b never: b is least recently used
    assert w.select("q2").record.evicted == ("b",)
    # a (called at t) vs c (loaded after t, never called): a is older
    assert w.select("q3").record.evicted == ("a",)
    back = w.select("q1")
    assert "a" in back.record.admitted  # an evicted tool can come back


def test_07_record_tool_use_on_unloaded_tool_logs_escape_hatch_and_does_not_load(make_world) -> None:
    w = make_world({"a": {"q": 0.9}, "z": {"q": 0.0}})
    w.select("q")
    w.loader.record_tool_use("z")
    hatch = payloads(w, "escape_hatch")
    assert hatch == [{"event": "TOOL_LOADER_ESCAPE_HATCH", "tool": "z", "turn": 1, "note": hatch[0]["note"]}]
    assert "z" not in w.loader.loaded
    assert w.loader.stats.escape_hatch_count == 1


def test_08_skill_takes_last_free_slot_ahead_of_higher_semantic(make_world) -> None:
    scores = {"c1": {}, "s1": {"q": 0.0}, "hi": {"q": 0.95}}
    w = make_world(scores, core=["c1"], max_tools=2)
    sel = w.select("q", skill_tools=["c1", "unknown_tool", "s1", "s1"])
    assert sel.record.skill == ("s1",)  # CORE and unknown names dropped silently, duplicates once
    assert sel.loaded == ("c1", "s1")
    assert sel.record.skipped_at_cap == ("hi",)
    assert sel.reasons["s1"] == "skill"
    lines = payloads(w)
    assert lines[0]["skill"] == ["s1"]
    w2 = make_world(scores, core=["c1"], max_tools=2)
    w2.select("q", skill_tools=["c1"])
    assert "skill" not in payloads(w2)[0]


def test_09_load_bundle_by_bundle_or_tool_name_cap_aware_and_counted(make_world) -> None:
    scores = {"c1": {}, "a1": {}, "a2": {}, "b1": {}, "b2": {}, "x": {"q": 0.9}}
    bundles = [ToolBundle("a", frozenset({"a1", "a2"}), "A"), ToolBundle("b", frozenset({"b1", "b2"}), "B")]
    w = make_world(scores, core=["c1"], bundles=bundles, max_tools=4)
    w.select("q")  # c1, x
    assert w.loader.load_bundle("a", w.registry).loaded == ("a1", "a2", "c1", "x")
    # a tool name resolves to its bundle(s); at the cap LRU victims outside CORE+bundle make room
    assert w.loader.load_bundle("b1", w.registry).loaded == ("a2", "b1", "b2", "c1")
    with pytest.raises(KeyError):
        w.loader.load_bundle("nope", w.registry)
    events = payloads(w, "load_tools")
    assert [e["bundle"] for e in events] == ["a", "b"]
    assert [e["turn"] for e in events] == [1, 1]  # load_tools does not advance the turn
    assert events[1]["evicted"] == ["a1", "x"] and events[1]["admitted"] == ["b1", "b2"]
    w.loader.record_tool_use("x")  # evicted, so this is a free recovery
    w.loader.reset_session()
    assert payloads(w, "session")[0] == {"turns": 1, "escape_hatch_count": 1, "load_tools_count": 2,
                                         "escape_hatch_rate": 3.0, "tool_set_changes": 0}


def test_10_embedder_exception_disables_for_the_session_with_warning(make_world, caplog) -> None:
    w = make_world({"a": {"q": 0.9}})
    w.embedder.fail = True
    assert w.select("q") is None
    warnings = [r for r in w.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "disabled" in warnings[0].getMessage()
    w.embedder.fail = False
    assert w.select("q") is None  # still off for the rest of the session
    assert len([r for r in w.records if r.levelno == logging.WARNING]) == 1  # loud once
    assert payloads(w) == []  # no TOOL_LOADER line for a failed turn
    w.loader.reset_session()
    assert w.select("q") is not None


def test_11_reset_session_clears_state_keeps_cache_and_summarises_only_after_a_turn(make_world) -> None:
    w = make_world({"a": {"q": 0.9}})
    w.loader.reset_session()
    assert payloads(w, "session") == []  # no turn yet, no summary
    w.select("q")
    calls = w.embedder.calls
    w.loader.reset_session()
    assert w.loader.loaded == () and w.loader.turn == 0
    assert payloads(w, "session") == [{"turns": 1, "escape_hatch_count": 0, "load_tools_count": 0,
                                       "escape_hatch_rate": 0.0, "tool_set_changes": 0}]
    w.embedder._cache.clear()  # defeat the embedder's own LRU: only the loader cache may help
    w.select("q")
    assert w.embedder.calls == calls + 1  # the query alone; tool documents were kept


def test_12_validate_registry_names_missing_core_and_bundle_members(make_world) -> None:
    w = make_world({"a": {}}, core=["a", "core_gone"], bundles=[ToolBundle("b", frozenset({"a", "mate_gone"}))])
    with pytest.raises(ValueError) as err:
        w.loader.validate_registry(w.registry)
    assert "core_gone" in str(err.value) and "mate_gone" in str(err.value)
    ok = make_world({"a": {}}, core=["a"], bundles=[ToolBundle("b", frozenset({"a"}))])
    ok.loader.validate_registry(ok.registry)


def test_13_renderers_follow_the_selection(make_world) -> None:
    w = make_world({"b": {"q": 0.9}, "a": {"q": 0.8}, "z": {}})
    sel = w.select("q")
    assert render_text(w.registry, None) == render_text(w.registry)
    assert render_native(w.registry, None) == render_native(w.registry)
    text = render_text(w.registry, [*sel.loaded, "not_registered"])
    assert [ln.split("(")[0] for ln in text.splitlines()] == ["- a", "- b"]
    # the prompt recomposition rule (only when the filter changes) lives in the agent


def test_14_doc_profile_recall_is_core_and_data_tool_needs_a_data_query(make_world) -> None:
    from gaia_lite.loader.bundles import load_bundles
    from tools.catalog import DOC_ORDER

    config = load_bundles("doc")
    scores = {n: {} for n in (*DOC_ORDER, "load_tools")}
    scores["analyze_data_file"] = {"sum the revenue column in sales.csv": 0.31}
    w = make_world(scores, queries=("what did I tell you about my sister?", "sum the revenue column in sales.csv"),
                   core=config.core, bundles=config.bundles, settings=PRESETS["gaia"])
    chat = w.select("what did I tell you about my sister?")
    assert "recall" in chat.loaded and chat.reasons["recall"] == "core"
    assert "analyze_data_file" not in chat.loaded
    data = w.select("sum the revenue column in sales.csv")
    assert "analyze_data_file" in data.record.admitted


def test_gaia_preset_reproduces_tie_break_by_name(make_world) -> None:
    # a match in a 4-member bundle at 1 free slot: GAIA admits the alphabetically first
    # mate, not necessarily the tool that matched (GAIA ranks candidates by (-score, name))
    scores = {"c": {}, "rag_status": {"q": 0.5}, "add_watch": {}, "index_dir": {}}
    bundles = [ToolBundle("rag_index", frozenset({"rag_status", "add_watch", "index_dir"}))]
    w = make_world(scores, core=["c"], bundles=bundles, max_tools=2, settings=PRESETS["gaia"])
    sel = w.select("q")
    assert sel.record.admitted == ("add_watch", "c")
    assert "rag_status" in sel.record.skipped_at_cap


def test_doc_embeddings_persist_on_disk(make_world, tmp_path) -> None:
    scores = {"a": {"q": 0.9}, "b": {"q": 0.1}}
    first = make_world(scores, cache=DocEmbeddingCache(tmp_path))
    first.select("q")
    first.loader.close()
    assert list(tmp_path.glob("tool-docs-*.npz"))
    second = make_world(scores, cache=DocEmbeddingCache(tmp_path))
    second.select("q")
    assert second.embedder.calls == 1  # the query only: every tool document came from disk
    assert json.loads(json.dumps(second.loader.loaded)) == ["a"]
