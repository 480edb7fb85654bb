"""The ``gaia`` preset follows GAIA's released loader (amd-gaia 0.25.1), not its later main branch
(78bbc3076, 2026-08-21, which ``LoaderSettings()`` reproduces): the loaded set comes in admission order and is never re-sorted, below the cap it only
grows, and LRU eviction happens only at the cap and only at a turn boundary."""

from __future__ import annotations

from gaia_lite.loader.bundles import ToolBundle
from gaia_lite.loader.presets import PRESETS, LoaderSettings

GAIA = PRESETS["gaia"]


def test_the_gaia_preset_is_the_released_loader_and_the_defaults_are_the_spec() -> None:
    assert (GAIA.order, GAIA.evict, GAIA.sticky) == ("admission", "turn_boundary", False)
    assert (LoaderSettings().order, LoaderSettings().evict) == ("sorted", "at_cap")


def test_core_comes_first_in_registry_order_then_admissions_by_rank(make_world) -> None:
    # registry order: z_core, a_core, low, high; the set is not sorted by name
    scores = {"z_core": {}, "a_core": {}, "low": {"q": 0.5}, "high": {"q": 0.9}}
    w = make_world(scores, core=["a_core", "z_core"], settings=GAIA)
    assert w.select("q").loaded == ("z_core", "a_core", "high", "low")


def test_a_later_admission_only_appends(make_world) -> None:
    scores = {"c": {}, "b_tool": {"q1": 0.9}, "a_tool": {"q2": 0.9}}
    w = make_world(scores, queries=("q1", "q2"), core=["c"], settings=GAIA)
    first = w.select("q1").loaded
    second = w.select("q2").loaded
    assert second[:len(first)] == first and second == ("c", "b_tool", "a_tool")
    spec = make_world(scores, queries=("q1", "q2"), core=["c"])  # the main branch sorts: a_tool jumps ahead
    spec.select("q1")
    assert spec.select("q2").loaded == ("a_tool", "b_tool", "c")


def test_load_tools_appends_a_bundles_tools_in_registry_order(make_world) -> None:
    scores = {"c": {}, "m_zeta": {}, "m_alpha": {}, "x": {"q": 0.9}}
    w = make_world(scores, core=["c"], bundles=[ToolBundle("m", frozenset({"m_alpha", "m_zeta"}))],
                   settings=GAIA)
    w.select("q")
    assert w.loader.load_bundle("m", w.registry).loaded == ("c", "x", "m_zeta", "m_alpha")


def test_below_the_cap_nothing_is_evicted(make_world) -> None:
    scores = {"a": {"q1": 0.9}, "b": {"q2": 0.9}, "c": {"q3": 0.9}}
    w = make_world(scores, queries=("q1", "q2", "q3"), max_tools=3, settings=GAIA)
    for q in ("q1", "q2", "q3"):
        assert w.select(q).record.evicted == ()
    assert w.loader.loaded == ("a", "b", "c")


def test_at_the_cap_a_turn_evicts_the_least_recently_used_tool(make_world) -> None:
    scores = {"a": {"q1": 0.9}, "b": {"q1": 0.8}, "c": {"q2": 0.9}}
    w = make_world(scores, queries=("q1", "q2"), max_tools=2, settings=GAIA)
    w.select("q1")
    w.loader.record_tool_use("a")
    sel = w.select("q2")
    assert sel.record.evicted == ("b",) and sel.loaded == ("a", "c")  # survivors keep their places


def test_mid_turn_load_tools_never_evicts_and_the_next_turn_trims_to_the_cap(make_world) -> None:
    scores = {"c1": {}, "a1": {}, "a2": {}, "x": {"q": 0.9}, "y": {"q": 0.8}}
    w = make_world(scores, queries=("q", "other"), core=["c1"], bundles=[ToolBundle("a", frozenset({"a1", "a2"}))],
                   max_tools=3, settings=GAIA)
    w.select("q")  # c1, x, y: at the cap
    load = w.loader.load_bundle("a", w.registry)
    assert load.record.evicted == () and load.loaded == ("c1", "x", "y", "a1", "a2")  # over the cap, add-only
    w.loader.record_tool_use("x")
    w.loader.record_tool_use("a2")
    nxt = w.select("other")  # the turn boundary: back to 3, least recently used first (y, then a1)
    assert nxt.record.evicted == ("a1", "y") and nxt.loaded == ("c1", "x", "a2")


def test_the_spec_evicts_mid_turn_at_the_cap(make_world) -> None:
    scores = {"c1": {}, "a1": {}, "x": {"q": 0.9}, "y": {"q": 0.8}}
    w = make_world(scores, core=["c1"], bundles=[ToolBundle("a", frozenset({"a1"}))], max_tools=3)
    w.select("q")
    assert w.loader.load_bundle("a", w.registry).record.evicted == ("x",)


def test_core_alone_over_the_cap_is_never_trimmed(make_world) -> None:
    scores = {"c1": {}, "c2": {}, "m": {}}
    w = make_world(scores, core=["c1", "c2"], bundles=[ToolBundle("b", frozenset({"m"}))], max_tools=1,
                   settings=GAIA)
    w.select("q")
    w.loader.load_bundle("b", w.registry)
    assert w.select("q").loaded == ("c1", "c2")  # m trimmed; CORE stays though it exceeds the cap
