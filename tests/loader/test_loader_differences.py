"""Where gaia-lite's loader differs from GAIA on purpose; the tests are named after the difference:

a. the selection query is the previous clean user message and the current one (last 4,000 chars),
   and a preset may also score the current message on its own;
b. a tool that matched on its own ranks ahead of the bundle-mates pulled in with it;
c. ``load_bundle`` before any selection still shows CORE; an inactive loader offers no menu;
d. every loader line carries ``tools_hash`` and ``selection_ms``; the session line counts changes;
e. presets: ``gaia`` is GAIA's algorithm, ``default`` ranks matches first, explicit τ and cap win;
f. free recoveries count only while a filter is in effect.
"""

from __future__ import annotations

from gaia_lite.loader.bundles import ToolBundle
from gaia_lite.loader.loader import SELECTION_QUERY_CHARS, selection_query
from gaia_lite.logline import parse_line
from gaia_lite.loader.presets import PRESETS, LoaderSettings


def records(world, kind: str) -> list[dict]:
    out = [parse_line(line) for line in world.lines]
    return [r.payload for r in out if r is not None and r.kind == kind]


# (a) the selection query is built from clean user messages ------------------------

def test_a_selection_query_joins_previous_and_current_clean_messages() -> None:
    q = selection_query(["first", "second"], "third")
    assert q == "second\nthird" and q.current == "third"
    assert selection_query([], "only") == "only"
    assert selection_query(["", "  "], "only") == "only"  # blank turns are not "previous"


def test_a_selection_query_keeps_the_last_4000_chars() -> None:
    q = selection_query(["x" * 5000], "tail")
    assert len(q) == SELECTION_QUERY_CHARS and q.endswith("\ntail") and q.current == "tail"


def test_a_current_message_is_scored_on_its_own_when_the_preset_asks(make_world) -> None:
    joined = "old topic\nnew topic"
    scores = {"old_tool": {joined: 0.6, "new topic": 0.0}, "new_tool": {joined: 0.1, "new topic": 0.7}}
    on = make_world(scores, queries=(joined, "new topic"),
                    settings=LoaderSettings(score_current=True, ranking="matched_first"))
    sel = on.select(selection_query(["old topic"], "new topic"))
    assert abs(sel.record.scores["new_tool"] - 0.7) < 1e-6 and "new_tool" in sel.loaded
    off = make_world(scores, queries=(joined, "new topic"), settings=PRESETS["gaia"])
    assert "new_tool" not in off.select(selection_query(["old topic"], "new topic")).loaded


# (b) at the cap, the member that matched outranks its bundle-mates -------------------

def test_b_matched_member_keeps_its_slot_over_alphabetically_earlier_mates(make_world) -> None:
    scores = {"c": {}, "rag_status": {"q": 0.5}, "add_watch": {}, "index_dir": {}}
    bundles = [ToolBundle("rag_index", frozenset({"rag_status", "add_watch", "index_dir"}))]
    w = make_world(scores, core=["c"], bundles=bundles, max_tools=3,
                   settings=LoaderSettings(ranking="matched_first"))
    sel = w.select("q")
    assert sel.record.admitted == ("add_watch", "c", "rag_status")  # the match first, then mates by name
    assert sel.record.skipped_at_cap == ("index_dir",)


def test_b_independent_match_precedes_unmatched_mates_then_score_then_name(make_world) -> None:
    scores = {"a1": {"q": 0.9}, "a2": {"q": 0.1}, "b1": {"q": 0.3}}
    bundles = [ToolBundle("a", frozenset({"a1", "a2"})), ToolBundle("b", frozenset({"b1"}))]
    w = make_world(scores, bundles=bundles, max_tools=2, settings=LoaderSettings(ranking="matched_first"))
    sel = w.select("q")
    assert sel.loaded == ("a1", "b1") and sel.record.skipped_at_cap == ("a2",)


# (c) load_tools / the menu only while active; CORE can never be hidden -------------------

def test_c_load_bundle_before_any_selection_still_shows_core(make_world) -> None:
    w = make_world({"c": {}, "m": {}}, core=["c"], bundles=[ToolBundle("b", frozenset({"m"}), "Mates")])
    assert w.loader.load_bundle("b", w.registry).loaded == ("c", "m")


def test_c_inactive_loader_offers_no_menu_and_load_bundle_is_a_no_op(make_world) -> None:
    w = make_world({"c": {}, "m": {}}, core=["c"], bundles=[ToolBundle("b", frozenset({"m"}), "Mates")])
    assert w.loader.format_bundle_menu() == "- b: Mates"
    w.embedder.fail = True
    assert w.select("q") is None
    assert not w.loader.active
    assert w.loader.format_bundle_menu() == ""
    assert w.loader.load_bundle("b", w.registry) is None  # the full registry is already visible


# (d) tools_hash + selection_ms on every line, tool_set_changes, summary on close ---------------

def test_d_every_loader_line_has_tools_hash_and_selection_ms(make_world) -> None:
    w = make_world({"c": {}, "x": {"q1": 0.9}, "m": {}}, queries=("q1", "q2"), core=["c"],
                   bundles=[ToolBundle("b", frozenset({"m"}))])
    sel = w.select("q1")
    w.loader.load_bundle("b", w.registry)
    lines = [parse_line(x) for x in w.lines]
    assert [r.kind for r in lines] == ["selection", "load_tools"]
    for r in lines:
        assert list(r.payload)[-2:] == ["tools_hash", "selection_ms"]
        assert len(r.payload["tools_hash"]) == 12 and r.payload["selection_ms"] >= 0
    assert lines[0].payload["tools_hash"] == sel.tools_hash
    assert lines[1].payload["tools_hash"] != sel.tools_hash


def test_d_tool_set_changes_counts_turns_whose_hash_changed(make_world) -> None:
    w = make_world({"x": {"q1": 0.9}, "y": {"q2": 0.9}}, queries=("q1", "q2"))
    w.select("q1")  # first turn: nothing to compare with
    w.select("q1")  # same set
    w.select("q2")  # y joins: a change
    w.select("q2")
    assert w.loader.stats.tool_set_changes == 1


def test_d_close_writes_the_session_summary(make_world) -> None:
    w = make_world({"x": {"q": 0.9}})
    w.select("q")
    w.loader.close()
    assert records(w, "session") == [{"turns": 1, "escape_hatch_count": 0, "load_tools_count": 0,
                                      "escape_hatch_rate": 0.0, "tool_set_changes": 0}]
    w.loader.close()  # a second close has no turns to report
    assert len(records(w, "session")) == 1


def test_d_custom_tools_hash_fn_is_used(make_world) -> None:
    w = make_world({"x": {"q": 0.9}}, tools_hash_fn=lambda registry, loaded: "h:" + ",".join(loaded))
    assert w.select("q").tools_hash == "h:x"


# (e) presets: gaia is exact, default is the calibrated one ---------------------------

def test_e_gaia_preset_is_exactly_gaias_algorithm() -> None:
    g = PRESETS["gaia"]
    assert (g.threshold, g.max_tools, g.views, g.ranking, g.score_current) == (0.20, 14, ("summary",), "gaia", False)


def test_e_default_preset_exists_and_ranks_matches_first() -> None:
    d = PRESETS["default"]
    assert d.ranking == "matched_first" and d.max_tools >= 14 and "lean" in PRESETS


def test_e_explicit_threshold_and_cap_override_the_preset(make_world) -> None:
    w = make_world({"x": {"q": 0.3}}, settings=PRESETS["default"], threshold=0.5, max_tools=20)
    assert (w.loader.threshold, w.loader.max_tools) == (0.5, 20)
    assert w.loader.settings.views == PRESETS["default"].views


# (f) escape-hatch accounting, whatever the render path ----------------------------------

def test_f_free_recoveries_count_only_while_a_filter_is_in_effect(make_world) -> None:
    w = make_world({"x": {"q": 0.9}, "z": {}})
    w.loader.record_tool_use("z")  # before the first selection nothing is hidden
    assert w.loader.stats.escape_hatch_count == 0
    w.select("q")
    w.loader.record_tool_use("z")  # text-path or native: the agent reports every execution
    w.loader.record_tool_use("x")
    assert w.loader.stats.escape_hatch_count == 1
    w.embedder.fail = True
    w.loader.reset_session()
    assert w.select("a query the embedder has not cached") is None
    w.loader.record_tool_use("z")  # inactive loader: the full registry was shown
    assert w.loader.stats.escape_hatch_count == 0


def test_reason_is_public_for_the_agent(make_world) -> None:
    w = make_world({"c": {}, "m": {}, "x": {"q": 0.9}}, core=["c"], bundles=[ToolBundle("b", frozenset({"m"}))])
    w.select("q")
    w.loader.load_bundle("m", w.registry)
    assert [w.loader.reason(n) for n in ("c", "x", "m", "nope")] == ["core", "semantic", "load_tools:b", None]
