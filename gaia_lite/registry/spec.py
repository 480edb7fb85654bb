"""Tool specs derived from typed Python functions.

A tool is a plain function whose first parameter is ``ctx`` (a ToolContext,
hidden from the model) followed by typed parameters. ``@tool`` attaches a
frozen ToolSpec to the function; it never registers anything globally, so two
agents in one process can never overwrite each other's tools (a GAIA flaw).

Docstring format (Google style)::

    First line: what the tool is *for*. The loader embeds this line.

    Optional longer description.

    Args:
        path: What the parameter means.
        limit: Maximum number of results.
"""

from __future__ import annotations

import inspect
import re
import types
import typing
from dataclasses import dataclass, field
from typing import Any, Callable, Literal, get_args, get_origin

from gaia_lite.errors import GaiaError

__all__ = ["ParamSpec", "ToolSpec", "Redirect", "tool", "spec_from_function", "ToolDefinitionError"]

JsonType = Literal["string", "integer", "number", "boolean", "array", "object"]


class ToolDefinitionError(GaiaError, TypeError):
    """A tool function cannot be turned into a schema (raised at definition time)."""


@dataclass(frozen=True)
class Redirect:
    """The call a tool's ``redirect(ctx, **arguments)`` says a call to it stands for, and why (the result's
    note). The executor runs it in the call's place, through its own checks and approval."""

    name: str
    arguments: dict[str, Any]
    reason: str
    stands: bool = False  # its result stands when it fails too: the call it replaces could not do better


@dataclass(frozen=True)
class ParamSpec:
    name: str
    json_type: JsonType
    required: bool
    description: str = ""
    default: Any = None
    nullable: bool = False
    items_type: JsonType | None = None
    enum: tuple[str, ...] | None = None

    def schema(self) -> dict[str, Any]:
        """The JSON-schema property for this parameter."""
        out: dict[str, Any] = {"type": self.json_type}
        if self.items_type:
            out["items"] = {"type": self.items_type}
        if self.enum:
            out["enum"] = list(self.enum)
        if self.description:
            out["description"] = self.description
        # An empty-string default says nothing the "optional" status does not;
        # leaving it out keeps every turn's schemas shorter.
        if not self.required and self.default is not None and self.default != "":
            out["default"] = self.default
        return out


@dataclass(frozen=True)
class ToolSpec:
    name: str
    summary: str
    description: str
    params: tuple[ParamSpec, ...]
    fn: Callable[..., Any] = field(compare=False, repr=False)
    gated: bool = False
    timeout: float | None = None
    takes_context: bool = True
    # A tool from outside (an MCP server) keeps its JSON schema exactly as given, and the loader
    # embeds it under the name its provider gave it (``origin``), not the prefixed registry name.
    schema: dict[str, Any] | None = field(default=None, compare=False, repr=False)
    origin: str = ""

    @property
    def doc_name(self) -> str:
        """The name the loader embeds: the provider's own name of the tool, else the registry name."""
        return self.origin or self.name

    @property
    def param_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params)

    @property
    def required(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params if p.required)

    def parameters_schema(self) -> dict[str, Any]:
        if self.schema is not None:
            return self.schema
        return {
            "type": "object",
            "properties": {p.name: p.schema() for p in self.params},
            "required": list(self.required),
        }

    def openai_schema(self) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters_schema(),
            },
        }

    def signature_text(self) -> str:
        """`name(p: type, q?: type)` as the text render path writes it."""
        parts = [f"{p.name}{'' if p.required else '?'}: {p.json_type}" for p in self.params]
        return f"{self.name}({', '.join(parts)})"

    def with_fn(self, fn: Callable[..., Any]) -> "ToolSpec":
        """The same spec bound to another callable (e.g. a closure over an agent)."""
        return ToolSpec(self.name, self.summary, self.description, self.params, fn,
                        self.gated, self.timeout, self.takes_context, self.schema, self.origin)


_SCALARS: dict[Any, JsonType] = {
    str: "string", int: "integer", float: "number", bool: "boolean",
    list: "array", tuple: "array", set: "array", dict: "object",
}


def _json_type(annotation: Any, where: str) -> tuple[JsonType, bool, JsonType | None, tuple[str, ...] | None]:
    """Map an annotation to (json type, nullable, items type, enum)."""
    origin = get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in get_args(annotation) if a is not type(None)]
        if len(args) != 1:
            raise ToolDefinitionError(f"{where}: unions other than Optional[X] are not supported")
        jt, _, items, enum = _json_type(args[0], where)
        return jt, True, items, enum
    if origin is Literal:
        values = get_args(annotation)
        if not all(isinstance(v, str) for v in values):
            raise ToolDefinitionError(f"{where}: Literal values must be strings")
        return "string", False, None, tuple(values)
    if origin in (list, tuple, set, typing.List, typing.Tuple, typing.Set):
        args = get_args(annotation)
        items = _SCALARS.get(args[0]) if args else None
        return "array", False, items, None
    if origin in (dict, typing.Dict):
        return "object", False, None, None
    if annotation in _SCALARS:
        return _SCALARS[annotation], False, None, None
    raise ToolDefinitionError(f"{where}: unsupported type annotation {annotation!r}")


_ARGS_HEADER = re.compile(r"^\s*(Args|Arguments|Parameters)\s*:\s*$")
_SECTION_HEADER = re.compile(r"^\s*(Returns|Raises|Yields|Examples?|Notes?)\s*:\s*$")
_ARG_LINE = re.compile(r"^\s*(\w+)\s*(\([^)]*\))?\s*:\s*(.*)$")


def _parse_docstring(doc: str) -> tuple[str, str, dict[str, str]]:
    """Split a docstring into (summary line, description without Args, arg docs)."""
    lines = inspect.cleandoc(doc).splitlines()
    body: list[str] = []
    args: dict[str, str] = {}
    current: str | None = None
    in_args = False
    arg_indent: int | None = None
    for line in lines:
        if _ARGS_HEADER.match(line):
            in_args, current, arg_indent = True, None, None
            continue
        if in_args and _SECTION_HEADER.match(line):
            in_args = False
        if in_args:
            if not line.strip():
                continue
            indent = len(line) - len(line.lstrip())
            m = _ARG_LINE.match(line)
            if m and (arg_indent is None or indent <= arg_indent):
                arg_indent = indent
                current = m.group(1)
                args[current] = m.group(3).strip()
            elif current is not None:
                args[current] = (args[current] + " " + line.strip()).strip()
            continue
        body.append(line)
    description = "\n".join(body).strip()
    summary = next((ln.strip() for ln in body if ln.strip()), "")
    return summary, description, args


def spec_from_function(fn: Callable[..., Any], *, name: str | None = None,
                       gated: bool = False, timeout: float | None = None) -> ToolSpec:
    """Derive a ToolSpec from a function's signature, type hints and docstring."""
    tool_name = name or fn.__name__
    if not re.fullmatch(r"[a-z][a-z0-9_]*", tool_name):
        raise ToolDefinitionError(f"tool name {tool_name!r} must be snake_case")
    doc = inspect.getdoc(fn) or ""
    if not doc.strip():
        raise ToolDefinitionError(f"tool {tool_name}: a docstring is required (its first line is what the loader embeds)")
    summary, description, arg_docs = _parse_docstring(doc)
    hints = typing.get_type_hints(fn)
    sig = inspect.signature(fn)
    params: list[ParamSpec] = []
    takes_context = False
    for i, (pname, p) in enumerate(sig.parameters.items()):
        if i == 0 and pname == "ctx":
            takes_context = True
            continue
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise ToolDefinitionError(f"tool {tool_name}: *args/**kwargs are not allowed")
        if pname not in hints:
            raise ToolDefinitionError(f"tool {tool_name}: parameter {pname!r} needs a type hint")
        jt, nullable, items, enum = _json_type(hints[pname], f"tool {tool_name}, parameter {pname!r}")
        required = p.default is inspect.Parameter.empty
        default = None if required else p.default
        if pname not in arg_docs:
            raise ToolDefinitionError(f"tool {tool_name}: parameter {pname!r} is not documented under Args:")
        params.append(ParamSpec(pname, jt, required, arg_docs[pname], default,
                                nullable or (not required and default is None), items, enum))
    unknown = set(arg_docs) - {p.name for p in params}
    if unknown:
        raise ToolDefinitionError(f"tool {tool_name}: Args: documents unknown parameter(s) {sorted(unknown)}")
    return ToolSpec(tool_name, summary, description, tuple(params), fn, gated, timeout, takes_context)


def tool(fn: Callable[..., Any] | None = None, *, name: str | None = None,
         gated: bool = False, timeout: float | None = None) -> Any:
    """Mark a function as a tool. Usable bare (``@tool``) or with options.

    The spec is stored on the function as ``__tool_spec__``; nothing global
    is touched. Registries collect specs explicitly.
    """
    def wrap(f: Callable[..., Any]) -> Callable[..., Any]:
        f.__tool_spec__ = spec_from_function(f, name=name, gated=gated, timeout=timeout)  # type: ignore[attr-defined]
        return f
    return wrap(fn) if fn is not None else wrap


def spec_of(fn: Callable[..., Any]) -> ToolSpec:
    spec = getattr(fn, "__tool_spec__", None)
    if spec is None:
        raise ToolDefinitionError(f"{getattr(fn, '__name__', fn)!r} is not decorated with @tool")
    return spec
