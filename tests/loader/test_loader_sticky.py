"""Sticky sessions (the default and lean presets): nothing is evicted, the first turn is capped as
before, and each later turn may add up to the cap minus CORE."""

from __future__ import annotations

from gaia_lite.loader.bundles import ToolBundle
from gaia_lite.loader.presets import PRESETS, LoaderSettings


def test_default_and_lean_are_sticky_and_gaia_evicts() -> None:
    assert PRESETS["default"].sticky and PRESETS["lean"].sticky and not PRESETS["gaia"].sticky


def test_first_turn_is_capped_exactly_as_with_eviction(make_world) -> None:
    scores = {"c1": {}, "a": {"q1": 0.9}, "b": {"q1": 0.8}, "c": {"q1": 0.7}}
    sticky = make_world(scores, queries=("q1",), core=["c1"], max_tools=3,
                        settings=LoaderSettings(sticky=True)).select("q1")
    evicting = make_world(scores, queries=("q1",), core=["c1"], max_tools=3).select("q1")
    assert sticky.loaded == evicting.loaded == ("a", "b", "c1")
    assert sticky.record.skipped_at_cap == evicting.record.skipped_at_cap == ("c",)


def test_later_turns_add_without_evicting_up_to_cap_minus_core(make_world) -> None:
    scores = {"c1": {}, "a": {"q1": 0.9}, "b": {"q1": 0.8},
              "x": {"q2": 0.9}, "y": {"q2": 0.8}, "z": {"q2": 0.7}}
    w = make_world(scores, queries=("q1", "q2"), core=["c1"], max_tools=3,
                   settings=LoaderSettings(sticky=True))
    w.select("q1")
    second = w.select("q2")
    assert second.record.evicted == ()
    assert second.record.admitted == ("x", "y")  # 3 - 1 CORE = 2 new tools this turn
    assert second.record.skipped_at_cap == ("z",)
    assert second.loaded == ("a", "b", "c1", "x", "y")  # a and b stay: the model has read them


def test_load_tools_always_adds_in_a_sticky_session(make_world) -> None:
    scores = {"a": {"q": 0.9}, "b": {"q": 0.8}, "m1": {}, "m2": {}, "m3": {}}
    w = make_world(scores, max_tools=2, bundles=[ToolBundle("more", frozenset({"m1", "m2", "m3"}))],
                   settings=LoaderSettings(sticky=True))
    w.select("q")
    loaded = w.loader.load_bundle("more", w.registry).loaded
    assert loaded == ("a", "b", "m1", "m2", "m3")


def test_reset_starts_a_new_sticky_session(make_world) -> None:
    scores = {"a": {"q1": 0.9}, "x": {"q2": 0.9}}
    w = make_world(scores, queries=("q1", "q2"), max_tools=1, settings=LoaderSettings(sticky=True))
    w.select("q1")
    assert w.select("q2").loaded == ("a", "x")
    w.loader.reset_session()
    assert w.select("q2").loaded == ("x",)
