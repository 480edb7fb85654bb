"""Learned picks: a tool whose past request the message nearly repeats is an *extra* pick, after the
direct matches and only into free room, so learning can add a tool but never take a pick from one
the turn matched directly (the Seal-Tools loss that a shared race caused)."""

from __future__ import annotations

from gaia_lite.loader.presets import LoaderSettings

# Two picks per turn; the "examples" view is what lets learned requests count at all.
TWO_PICKS = LoaderSettings(views=("summary", "examples"), per_turn=2, bundle_pull=False, sticky=True)
SCORES = {"c1": {}, "a": {"q": 0.9}, "b": {"q": 0.8}, "w": {"q": 0.1}}
# "q" is the very request the user made before when w served it: cosine 1.0, far over the gate.
LEARNED = {"w": ["q"]}


def test_a_learned_request_adds_its_tool_after_the_direct_matches(make_world) -> None:
    w = make_world(SCORES, core=["c1"], max_tools=8, settings=TWO_PICKS, learned_examples=LEARNED)
    sel = w.select("q")
    assert (sel.reasons["a"], sel.reasons["b"], sel.reasons["w"]) == ("semantic", "semantic", "learned")
    assert sel.record.matched == ("a", "b") and sel.record.learned == ("w",)
    assert sel.record.scores["w"] > 0.99  # reported at the cosine that brought it
    assert '"learned": ["w"]' in w.lines[-1]


def test_a_learned_pick_cannot_push_out_a_direct_match(make_world) -> None:
    # Room for CORE and the two direct matches only: the learned tool, though it scores 1.0, is skipped.
    w = make_world(SCORES, core=["c1"], max_tools=3, settings=TWO_PICKS, learned_examples=LEARNED)
    sel = w.select("q")
    assert sorted(sel.loaded) == ["a", "b", "c1"]
    assert "w" in sel.record.skipped_at_cap and sel.record.learned == () and sel.record.evicted == ()


def test_a_learned_request_below_the_gate_changes_nothing(make_world) -> None:
    plain = make_world(SCORES, core=["c1"], max_tools=8, settings=TWO_PICKS, perf_clock=lambda: 0.0)
    far = make_world(SCORES, core=["c1"], max_tools=8, settings=TWO_PICKS, perf_clock=lambda: 0.0,
                     learned_examples={"w": ["something else entirely"]})
    assert far.select("q").record.payload() == plain.select("q").record.payload()
    assert '"learned"' not in far.lines[-1]
