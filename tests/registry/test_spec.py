"""Schema derivation: real JSON types, Optional/defaults, per-parameter docs."""

from __future__ import annotations

from typing import Literal, Optional

import pytest

from gaia_lite.registry.spec import ToolDefinitionError, spec_from_function, tool


def sample(ctx, path: str, limit: int = 10, ratio: float = 0.5, deep: bool = False,
           tags: Optional[list[str]] = None, meta: Optional[dict] = None,
           mode: Literal["fast", "full"] = "fast") -> dict:
    """Find things in a folder.

    Longer explanation that is not the summary.

    Args:
        path: Folder to search.
        limit: Most results to return.
        ratio: A fraction between 0 and 1.
        deep: Also look inside
            nested folders.
        tags: Labels to match.
        meta: Extra filters.
        mode: How hard to look.
    """
    return {}


def test_types_required_and_defaults_are_derived():
    spec = spec_from_function(sample)
    props = spec.parameters_schema()["properties"]
    assert {k: v["type"] for k, v in props.items()} == {
        "path": "string", "limit": "integer", "ratio": "number", "deep": "boolean",
        "tags": "array", "meta": "object", "mode": "string"}
    assert spec.required == ("path",)
    assert props["limit"]["default"] == 10
    assert props["tags"]["items"] == {"type": "string"}
    assert props["mode"]["enum"] == ["fast", "full"]
    assert spec.takes_context


def test_parameter_descriptions_survive_including_continuation_lines():
    props = spec_from_function(sample).parameters_schema()["properties"]
    assert props["path"]["description"] == "Folder to search."
    assert props["deep"]["description"] == "Also look inside nested folders."


def test_summary_is_first_line_and_description_omits_args():
    spec = spec_from_function(sample)
    assert spec.summary == "Find things in a folder."
    assert "Args" not in spec.description and "Longer explanation" in spec.description


def test_text_signature_marks_optionals():
    assert spec_from_function(sample).signature_text() == (
        "sample(path: string, limit?: integer, ratio?: number, deep?: boolean, tags?: array, "
        "meta?: object, mode?: string)")


def test_decorator_attaches_spec_without_global_registry():
    @tool(gated=True, timeout=5)
    def write_thing(ctx, text: str) -> dict:
        """Write a thing.

        Args:
            text: What to write.
        """
        return {}

    spec = write_thing.__tool_spec__
    assert spec.gated and spec.timeout == 5 and spec.name == "write_thing"


@pytest.mark.parametrize("src, message", [
    ("def f(ctx, x): \n    '''Do.\n\n    Args:\n        x: y\n    '''", "needs a type hint"),
    ("def f(ctx, x: int):\n    '''Do.'''", "not documented"),
    ("def f(ctx, x: int):\n    pass", "docstring is required"),
    ("def f(ctx, *a: int):\n    '''Do.'''", "*args"),
    ("def f(ctx, x: set | int):\n    '''Do.\n\n    Args:\n        x: y\n    '''", "unions"),
    ("def f(ctx, x: int):\n    '''Do.\n\n    Args:\n        x: y\n        z: nope\n    '''", "unknown parameter"),
])
def test_bad_definitions_fail_at_definition_time(src, message):
    ns: dict = {}
    exec(src, ns)
    with pytest.raises(ToolDefinitionError, match=message.replace("*", r"\*")):
        spec_from_function(ns["f"])
