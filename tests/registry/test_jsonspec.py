"""ToolSpecs built from the public sets' JSON tool descriptions."""

from __future__ import annotations

import pytest

from gaia_lite.registry.jsonspec import spec_from_json_schema


def test_types_are_mapped_leniently_and_required_kept() -> None:
    spec = spec_from_json_schema("get_weather", "Weather now.\nMore text.", {
        "type": "object",
        "properties": {"city": {"type": "str", "description": "City name"},
                       "days": {"type": "int", "default": 1},
                       "units": {"type": "String", "enum": ["c", "f"]},
                       "tags": {"type": "list", "items": {"type": "float"}},
                       "opts": {"type": "dict"},
                       "who": {"type": ["string", "null"]},
                       "weird": {"type": "any"}},
        "required": ["city"]})
    assert spec.summary == "Weather now."
    types = {p.name: p.json_type for p in spec.params}
    assert types == {"city": "string", "days": "integer", "units": "string", "tags": "array",
                     "opts": "object", "who": "string", "weird": "string"}
    assert spec.required == ("city",)
    schema = spec.openai_schema()["function"]["parameters"]
    assert schema["properties"]["tags"]["items"] == {"type": "number"}
    assert schema["properties"]["units"]["enum"] == ["c", "f"]
    assert schema["properties"]["days"]["default"] == 1


def test_empty_description_and_parameters() -> None:
    spec = spec_from_json_schema("noop", "", None)
    assert spec.summary == "" and spec.params == ()
    with pytest.raises(NotImplementedError):
        spec.fn()
