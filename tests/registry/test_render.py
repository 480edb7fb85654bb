"""Both render paths read one selection; filter=None is the legacy output byte for byte."""

from __future__ import annotations

import json

from gaia_lite.registry import ToolRegistry, render_native, render_text, tool, tools_hash


def _registry() -> ToolRegistry:
    @tool
    def zeta(ctx, a: str) -> dict:
        """Zeta does z.

        Args:
            a: The a.
        """

    @tool
    def alpha(ctx, b: int = 1) -> dict:
        """Alpha does a.

        Args:
            b: The b.
        """

    @tool
    def mid(ctx) -> dict:
        """Mid does m."""

    return ToolRegistry([zeta.__tool_spec__, alpha.__tool_spec__, mid.__tool_spec__])


def test_unfiltered_text_is_registration_order():
    assert render_text(_registry()) == (
        "- zeta(a: string): Zeta does z.\n- alpha(b?: integer): Alpha does a.\n- mid(): Mid does m.")


def test_filter_none_equals_explicit_full_order_byte_for_byte():
    reg = _registry()
    assert render_text(reg, None) == render_text(reg, reg.names())
    assert json.dumps(render_native(reg, None)) == json.dumps(render_native(reg, reg.names()))


def test_filter_follows_given_order_and_skips_unknown_names():
    reg = _registry()
    assert [s["function"]["name"] for s in render_native(reg, ["mid", "nope", "zeta"])] == ["mid", "zeta"]
    assert render_text(reg, ["alpha", "ghost"]) == "- alpha(b?: integer): Alpha does a."


def test_native_schema_has_real_types_and_descriptions():
    schema = render_native(_registry(), ["alpha"])[0]
    assert schema == {"type": "function", "function": {
        "name": "alpha", "description": "Alpha does a.",
        "parameters": {"type": "object", "properties": {
            "b": {"type": "integer", "description": "The b.", "default": 1}}, "required": []}}}


def test_tools_hash_changes_with_the_tool_block_only():
    reg = _registry()
    h1 = tools_hash(render_text(reg, ["alpha"]), render_native(reg, ["alpha"]))
    h2 = tools_hash(render_text(reg, ["alpha"]), render_native(reg, ["alpha"]))
    h3 = tools_hash(render_text(reg, ["alpha", "mid"]), render_native(reg, ["alpha", "mid"]))
    assert h1 == h2 != h3 and len(h1) == 12


def test_compact_lines_name_the_arguments_only_non_string_types_and_the_summary_s_first_words():
    from gaia_lite.registry.render import render_compact, short_summary

    assert render_compact(_registry()) == "- zeta(a): Zeta does z\n- alpha(b?: integer): Alpha does a\n- mid(): Mid does m"
    assert render_compact(_registry(), ["mid", "ghost"]) == "- mid(): Mid does m"
    assert short_summary("Show this computer's operating system, CPU, memory and free disk space.") == (
        "Show this computer's operating system, CPU, memory and…")


def test_listed_lines_keep_the_whole_summary_and_show_only_non_string_types():
    from gaia_lite.registry.render import render_listed

    assert render_listed(_registry()) == "- zeta(a): Zeta does z.\n- alpha(b?: integer): Alpha does a.\n- mid(): Mid does m."
