"""`eval cost`: per-tool arithmetic and the slope, on the real doc registry."""

from __future__ import annotations

import json
import statistics

import pytest
from typer.testing import CliRunner

from gaia_lite.embed import HashEmbedder
from gaia_lite.eval import cost
from gaia_lite.eval.recall import doc_registry
from gaia_lite.eval.tokens import CharTokenCounter
from gaia_lite.registry.render import native_json, render_native, render_text


def test_slope_is_tokens_per_added_tool_between_the_extremes() -> None:
    assert cost.slope([(0, 1000), (10, 1500), (100, 6000)]) == pytest.approx(50.0)
    assert cost.slope([(1000, 2000), (0, 2000), (10, 2600)]) == 0.0  # order does not matter; ends do
    assert cost.slope([(0, 5)]) is None
    assert cost.slope([]) is None


def test_distribution() -> None:
    assert cost.distribution([3, 1, 2, 10]) == {"min": 1, "median": 2.5, "max": 10, "mean": 4.0}
    assert cost.distribution([])["median"] == 0


def test_clones_are_distinct_tools_of_the_same_size_with_their_own_bundles() -> None:
    registry = doc_registry()[0]
    base = registry["read_file"]
    clones, bundles = cost.clone_tools(base, 12, bundle_size=5)
    names = [c.name for c in clones]
    assert len(set(names)) == 12 and all(n.startswith("read_file_v") for n in names)
    assert len({c.summary for c in clones}) == 12
    assert [len(b.members) for b in bundles] == [5, 5, 2]
    assert set().union(*(b.members for b in bundles)) == set(names)
    assert all(c.params == base.params for c in clones)
    base_chars = len(native_json(render_native(registry, [base.name])))
    from gaia_lite.registry.registry import ToolRegistry

    clone_reg = ToolRegistry(clones)
    for c in clones:  # the name suffix and "(variant NNNN)" add 21 characters, nothing else differs
        assert len(native_json(render_native(clone_reg, [c.name]))) - base_chars == 21


@pytest.fixture(scope="module")
def hashed_report() -> dict:
    return cost.run_cost(embedder=HashEmbedder(dim=64), counter=CharTokenCounter(), sizes=(0, 4, 20),
                         matching_query=None, typical_queries=(("rag", "what does the handbook say?"),))


def test_report_keys_and_baseline_arithmetic(hashed_report: dict) -> None:
    r = hashed_report
    assert r["tokenizer"] == "chars/4" and r["tools"] == 37
    for path in ("text", "native"):
        assert {"baseline_tokens", "per_tool_median", "per_tool_min", "per_tool_max"} <= set(r[path])
    assert set(r["slope"]) >= {"unfiltered_native", "loaded_native", "unfiltered_text", "loaded_text"}
    registry, _core, _bundles, baseline = doc_registry()
    counter = CharTokenCounter()
    assert r["text"]["baseline_tokens"] == counter.count(render_text(registry, baseline))
    assert r["native"]["baseline_tokens"] == counter.count(native_json(render_native(registry, baseline)))
    per_native = [v["native"] for v in r["per_tool"].values()]
    assert r["native"]["per_tool_median"] == statistics.median(per_native)
    assert r["native"]["per_tool_min"] == min(per_native) and r["native"]["per_tool_max"] == max(per_native)
    # the clone source is the median-sized real tool
    assert r["slope"]["clone_native_tokens"] == sorted(per_native)[(len(per_native) - 1) // 2]


def test_core_and_loaded_sets(hashed_report: dict) -> None:
    r = hashed_report
    # the default preset's CORE: GAIA's 11 without the two loop-control tools
    assert len(r["core"]["names"]) == 9 and "load_tools" in r["core"]["names"]
    assert not {"set_loop_state", "request_user_input"} & set(r["core"]["names"])
    assert 0 < r["core"]["native_share"] < 1
    labels = [s["label"] for s in r["loaded_sets"]]
    assert labels[0].startswith("CORE") and labels[-1].endswith("(worst case)")
    for s in r["loaded_sets"]:
        assert s["n"] <= r["max_tools"]


def test_unfiltered_grows_by_one_clone_per_tool(hashed_report: dict) -> None:
    r = hashed_report
    rows = {x["k"]: x for x in r["series"]}
    assert rows[20]["tools_registered"] == 57
    per_clone = r["slope"]["unfiltered_native"]
    # each clone costs what the median tool costs plus ~5 tokens of renamed name and summary
    assert 0 <= per_clone - r["slope"]["clone_native_tokens"] <= 8
    assert all(x["loaded_n"] <= r["max_tools"] for x in r["series"])
    # the menu gains one line per bundle of 5 clones
    assert rows[20]["menu_tokens"] > rows[0]["menu_tokens"]


def test_cli_cost_json_with_the_real_embedder() -> None:
    """The issue's target on the real embedder: loader-on cost stays flat while clones are added."""
    from gaia_lite.cli.app import app

    res = CliRunner().invoke(app, ["eval", "cost", "--sizes", "0,10", "--json", "--tokenizer", "chars"])
    assert res.exit_code == 0, res.output
    r = json.loads(res.stdout)
    assert r["slope"]["loaded_native"] == 0.0 and r["slope"]["loaded_text"] == 0.0
    assert r["slope"]["unfiltered_native"] > 50
    assert all(x["clones_loaded"] == 0 for x in r["series"])
    # the honest variant, where the query is about the cloned tool: reported, whatever the loader does with it
    assert r["matching"]["query"] == cost.MATCHING_QUERY
    assert [x["k"] for x in r["matching"]["series"]] == [0, 10]
    assert all(x["loaded_n"] <= r["max_tools"] for x in r["matching"]["series"])


def test_cli_cost_rejects_bad_sizes() -> None:
    from gaia_lite.cli.app import app
    from gaia_lite.errors import ConfigError

    res = CliRunner().invoke(app, ["eval", "cost", "--sizes", "10"])
    assert isinstance(res.exception, ConfigError)


def test_plot_writes_a_png(hashed_report: dict, tmp_path) -> None:
    pytest.importorskip("matplotlib")
    from gaia_lite.cli.eval_cmd import _plot_cost

    out = tmp_path / "cost.png"
    _plot_cost(hashed_report, out)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_terminal_chart_needs_no_plotting_library(hashed_report: dict) -> None:
    from rich.console import Console

    from gaia_lite.cli.eval_cmd import _cost_chart

    console = Console(width=100, record=True, color_system=None)
    console.print(_cost_chart(hashed_report))
    text = console.export_text()
    assert "native path" in text and "K=20" in text
