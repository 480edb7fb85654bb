"""Log-line shapes: exact key order (the interface) and the parser."""

from __future__ import annotations

import json

from gaia_lite import logline

SELECTION_KEYS = ["turn", "query_sha", "threshold", "max_tools", "scores", "matched", "bundle_pulled",
                  "admitted", "evicted", "skipped_at_cap", "loaded"]


def _selection(**over):
    args = dict(turn=1, query_sha="abc123abc123", threshold=0.2, max_tools=14,
                scores={"b": 0.123456, "a": 0.5}, matched=["a"], bundle_pulled=[], admitted=["a"],
                evicted=[], skipped_at_cap=[], loaded=["a"], skill=None, tools_hash="0123456789ab",
                selection_ms=1.23456)
    args.update(over)
    return logline.selection_payload(**args)


def test_selection_keys_in_order_without_skill() -> None:
    p = _selection()
    assert list(p) == SELECTION_KEYS + ["tools_hash", "selection_ms"]
    assert list(p["scores"]) == ["b", "a"] and p["scores"]["b"] == 0.1235  # registry order, 4 dp
    assert p["selection_ms"] == 1.235


def test_selection_keys_with_skill_sit_between_loaded_and_our_additions() -> None:
    p = _selection(skill=["z", "s"])
    assert list(p) == SELECTION_KEYS + ["skill", "tools_hash", "selection_ms"]
    assert p["skill"] == ["s", "z"]


def test_lists_are_sorted() -> None:
    p = _selection(matched=["b", "a"], loaded=["z", "a"], admitted=["q", "c"])
    assert p["matched"] == ["a", "b"] and p["loaded"] == ["a", "z"] and p["admitted"] == ["c", "q"]


def test_selection_line_format_is_prefix_plus_default_json_dumps() -> None:
    p = _selection()
    line = logline.format_selection(p)
    assert line == "TOOL_LOADER " + json.dumps(p)
    assert ", " in line and '": ' in line


def test_load_tools_payload_keys() -> None:
    p = logline.load_tools_payload(turn=2, bundle="a+b", admitted=["y", "x"], evicted=[], skipped_at_cap=[],
                                   loaded=["x", "y"], tools_hash="h", selection_ms=0.5)
    assert list(p) == ["turn", "event", "bundle", "admitted", "evicted", "skipped_at_cap", "loaded",
                       "tools_hash", "selection_ms"]
    assert p["event"] == "load_tools" and p["admitted"] == ["x", "y"]


def test_escape_hatch_line_is_bare_json() -> None:
    line = logline.format_escape_hatch(logline.escape_hatch_payload("search_file", 3))
    obj = json.loads(line)
    assert list(obj) == ["event", "tool", "turn", "note"]
    assert obj["event"] == "TOOL_LOADER_ESCAPE_HATCH" and obj["tool"] == "search_file" and obj["turn"] == 3


def test_session_payload_keys_and_rate() -> None:
    p = logline.session_payload(turns=4, escape_hatch_count=1, load_tools_count=1, tool_set_changes=2)
    assert list(p) == ["turns", "escape_hatch_count", "load_tools_count", "escape_hatch_rate", "tool_set_changes"]
    assert p["escape_hatch_rate"] == 0.5
    assert logline.session_payload(turns=0, escape_hatch_count=2, load_tools_count=0,
                                   tool_set_changes=0)["escape_hatch_rate"] == 2.0


def test_query_sha_is_twelve_hex_chars_of_sha256() -> None:
    import hashlib
    assert logline.query_sha("hi") == hashlib.sha256(b"hi").hexdigest()[:12]


def test_parser_reads_all_four_kinds_through_a_handler_prefix() -> None:
    prefix = "2026-01-01 10:00:00 | INFO | gaia_lite.loader.select | loader.py:1 | "
    lines = [
        prefix + logline.format_selection(_selection()),
        prefix + logline.format_selection(logline.load_tools_payload(
            turn=1, bundle="b", admitted=[], evicted=[], skipped_at_cap=[], loaded=["a"], tools_hash="h",
            selection_ms=0.1)),
        prefix + logline.format_escape_hatch(logline.escape_hatch_payload("x", 1)),
        prefix + logline.format_session(logline.session_payload(
            turns=1, escape_hatch_count=1, load_tools_count=1, tool_set_changes=0)),
        prefix + "something else entirely",
        "TOOL_LOADER {not json}",
        'TOOL_LOADER {"event": "load_tools"}',  # no turn/loaded: ignored, as GAIA's reader does
    ]
    recs = list(logline.parse_lines(lines))
    assert [r.kind for r in recs] == ["selection", "load_tools", "escape_hatch", "session"]
    assert recs[0].payload == _selection()
