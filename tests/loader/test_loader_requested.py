"""The REQUESTED tier: a tool the user's message names is admitted right after CORE, even when
semantic matches alone would fill the cap; the record lists it under ``requested`` only then."""

from __future__ import annotations

import json

from gaia_lite.loader.bundles import ToolBundle, load_bundles
from gaia_lite.logline import SELECTION_PREFIX
from gaia_lite.loader.presets import PRESETS
from gaia_lite.loader.requested import build_request_index, requested_tools

ASK = "please run it with deep_tool"


def _crowded(make_world, settings=PRESETS["gaia"], **kw):
    """Six tools that all beat τ for ASK; deep_tool, the one the message names, scores lowest."""
    scores = {f"match_{i}": {ASK: 0.9 - i * 0.05} for i in range(6)}
    scores["deep_tool"] = {ASK: 0.05}
    return make_world(scores, queries=(ASK,), core=[], max_tools=3, settings=settings, **kw)


def test_a_named_tool_is_admitted_although_semantic_matches_fill_the_cap(make_world) -> None:
    sel = _crowded(make_world).select(ASK)
    assert "deep_tool" in sel.loaded
    assert sel.reasons["deep_tool"] == "requested"
    assert sel.record.requested == ("deep_tool",)
    assert "deep_tool" not in sel.record.skipped_at_cap
    assert len(sel.loaded) == 3  # the cap still holds: a semantic match gave way


def test_the_same_holds_for_the_sticky_default_preset(make_world) -> None:
    sel = _crowded(make_world, settings=PRESETS["default"].replace(views=("summary",), lexical_weight=0.0)).select(ASK)
    assert "deep_tool" in sel.loaded and sel.reasons["deep_tool"] == "requested"


def test_without_the_tier_the_named_tool_is_lost_at_the_cap(make_world) -> None:
    sel = _crowded(make_world, settings=PRESETS["gaia"].replace(requested=False)).select(ASK)
    assert "deep_tool" not in sel.loaded and sel.record.requested == ()


def test_the_requested_key_appears_only_when_the_tier_admitted_something(make_world) -> None:
    w = _crowded(make_world)
    w.select(ASK)
    payload = json.loads(w.lines[-1][len(SELECTION_PREFIX):])
    assert payload["requested"] == ["deep_tool"]
    keys = list(payload)
    assert keys.index("loaded") < keys.index("requested") < keys.index("tools_hash")
    w.select(ASK)  # already loaded: nothing new from the tier, so no key
    assert "requested" not in json.loads(w.lines[-1][len(SELECTION_PREFIX):])


def test_names_bundles_and_aliases_are_recognised_as_whole_words() -> None:
    bundles = [ToolBundle("file_browse", frozenset({"browse_directory", "get_file_info"})),
               ToolBundle("shell", frozenset({"run_shell_command"}))]
    names = ["browse_directory", "get_file_info", "run_shell_command", "github__create_issue", "fs__search",
             "a__list_items", "b__list_items"]
    index = build_request_index(names, bundles, {"the terminal": ["run_shell_command"]})
    assert requested_tools("use run_shell_command, then stop", index) == ["run_shell_command"]
    assert requested_tools("Use RUN_SHELL_COMMAND.", index) == ["run_shell_command"]
    assert requested_tools("my_run_shell_command_x is a file", index) == []
    assert requested_tools("load file_browse please", index) == ["browse_directory", "get_file_info"]
    assert requested_tools("the shell is slow", index) == []  # a one-word bundle name is a plain word ...
    assert requested_tools("give me the shell tools", index) == ["run_shell_command"]  # ... unless "<name> tools"
    assert requested_tools("open the terminal", index) == ["run_shell_command"]
    assert requested_tools("file a bug with create_issue", index) == ["github__create_issue"]  # MCP short name
    assert requested_tools("search for it", index) == []  # a plain-word short name never fires
    assert requested_tools("call list_items", index) == []  # ambiguous between two servers


def test_the_doc_profile_aliases_name_real_tools() -> None:
    from gaia_lite.tools.catalog import doc_tool_specs

    names = {s.name for s in doc_tool_specs()}
    config = load_bundles("doc")
    assert config.aliases, "doc.toml declares aliases"
    for alias, tools in config.aliases.items():
        assert set(tools) <= names, f"alias {alias!r} names unknown tools"


def test_golden_tool_loader_lines_with_and_without_the_requested_key(make_world) -> None:
    """The line shape is an interface: a turn the tier fed carries "requested" after "loaded"
    (and before "tools_hash"); the next turn, which it did not feed, has no such key. Named
    again, the tool is not evicted by GAIA's LRU for this turn's matches."""
    from pathlib import Path

    from tests.golden import check_golden

    w = _crowded(make_world, perf_clock=lambda: 0.0, tools_hash_fn=lambda registry, loaded: "0123456789ab")
    w.select(ASK)
    assert "deep_tool" in w.select(ASK).loaded
    check_golden(Path(__file__).parent / "golden" / "requested.log", "\n".join(w.lines) + "\n")
