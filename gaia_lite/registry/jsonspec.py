"""ToolSpecs from plain JSON tool descriptions (the public evaluation sets).

Those tools are data, not functions: the spec's callable refuses to run. The
JSON types in the wild are loose (``"dict"``, ``"float"``, ``"String"``,
``"any"``, unions as lists), so they are mapped leniently; anything unknown
becomes ``"string"``, which is what a model would send anyway.
"""

from __future__ import annotations

from typing import Any, Mapping

from .spec import JsonType, ParamSpec, ToolSpec

__all__ = ["spec_from_json_schema"]

_TYPES: dict[str, JsonType] = {
    "string": "string", "str": "string", "text": "string",
    "integer": "integer", "int": "integer", "long": "integer",
    "number": "number", "float": "number", "double": "number",
    "boolean": "boolean", "bool": "boolean",
    "array": "array", "list": "array", "tuple": "array",
    "object": "object", "dict": "object", "map": "object",
}


def _json_type(raw: Any) -> JsonType:
    if isinstance(raw, list):  # ["string", "null"]
        raw = next((t for t in raw if t != "null"), "string")
    return _TYPES.get(str(raw).lower(), "string")


def _not_callable(**_: Any) -> Any:
    raise NotImplementedError("tools built from JSON schemas are for selection and cost only")


def spec_from_json_schema(name: str, description: str, parameters: Mapping[str, Any] | None) -> ToolSpec:
    """A ToolSpec whose summary is the first non-empty line of ``description``."""
    description = (description or "").strip()
    summary = next((ln.strip() for ln in description.splitlines() if ln.strip()), "")
    params_schema = parameters or {}
    props = params_schema.get("properties") or {}
    required = set(params_schema.get("required") or [])
    params: list[ParamSpec] = []
    for pname, prop in props.items():
        prop = prop if isinstance(prop, Mapping) else {}
        jt = _json_type(prop.get("type", "string"))
        items = prop.get("items")
        items_type = _json_type(items.get("type", "string")) if isinstance(items, Mapping) else None
        enum = prop.get("enum")
        is_required = pname in required
        params.append(ParamSpec(
            name=str(pname), json_type=jt, required=is_required,
            description=str(prop.get("description", "") or ""),
            default=None if is_required else prop.get("default"),
            nullable=not is_required and prop.get("default") is None,
            items_type=items_type if jt == "array" else None,
            enum=tuple(str(v) for v in enum) if isinstance(enum, list) and enum else None,
        ))
    return ToolSpec(name, summary, description, tuple(params), _not_callable, takes_context=False)
