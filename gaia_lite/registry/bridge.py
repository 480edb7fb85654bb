"""``call_tool(name, arguments)``: one stable tool through which a native model calls tools
admitted after the first turn.

Chat templates put the ``tools`` array before the conversation, so a tool added
to it on a later turn changes the bytes in front of the whole history and the
server prefills all of it again. The stable layout (agent/prefix.py) therefore
fixes the array after the first turn and adds this bridge to it: ``name`` names
a tool disclosed later in the conversation, ``arguments`` are that tool's.

``name`` is a plain string there, not an enum of the registry: the enum (which
a server that constrains calls to their schema would enforce) costs about as
many tokens again as the rest of the bridge on every first turn, the turn the
loader exists to make cheap (docs/benchmarks.md), and the executor checks the
name as it checks a direct call's (with a "did you mean" for near misses).

The bridge is plumbing, not a tool: ``unwrap`` turns a bridged call back into
the direct call it stands for before anything looks at it, so the executor
validates its arguments exactly as a direct call's (same repair messages), and
the panel, ``TOOL_CALLS``, escape-hatch counting and ``eval log`` all name the
real tool.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any, Sequence

from gaia_lite.messages import ToolCall

__all__ = ["BRIDGE", "Unwrapped", "bridge_schema", "is_bridge", "unwrap", "unwrap_call"]

BRIDGE = "call_tool"
_NAME_KEYS = ("name", "tool", "tool_name")
_ARG_KEYS = ("arguments", "args", "parameters")
USAGE = f'Use {BRIDGE}(name="<tool>", arguments={{...the tool\'s arguments...}}).'


def bridge_schema(names: Sequence[str] | None = None) -> dict[str, Any]:
    """The OpenAI function schema of the bridge; ``names``, when given, become the enum of ``name``."""
    name: dict[str, Any] = {"type": "string", "description": "The tool's name, as listed under More tools."}
    if names is not None:
        name["enum"] = list(names)
    return {"type": "function", "function": {
        "name": BRIDGE,
        "description": "Call a tool listed later in the conversation under More tools.",
        "parameters": {"type": "object", "properties": {
            "name": name, "arguments": {"type": "object", "description": "The tool's arguments."},
        }, "required": ["name", "arguments"]},
    }}


def is_bridge(name: str) -> bool:
    return name.strip().strip("`'\"").lower() == BRIDGE


@dataclass(frozen=True)
class Unwrapped:
    """The direct call a (possibly bridged) call stands for; ``error`` when a bridged call is malformed."""

    name: str
    arguments: dict[str, Any]
    bridged: bool = False
    error: str | None = None


def unwrap(name: str, arguments: dict[str, Any] | None) -> Unwrapped:
    """``call_tool(name=X, arguments=A)`` as ``X(**A)``; any other call unchanged.

    Small models vary the shape, so ``tool``/``tool_name`` are read as the name,
    ``args``/``parameters`` as the arguments, arguments sent as a JSON string are
    parsed, and arguments spread beside the name (``call_tool(name=X, path=…)``)
    are gathered.
    """
    args = dict(arguments or {})
    if not is_bridge(name):
        return Unwrapped(name, args)
    inner = next((args[k] for k in _NAME_KEYS if isinstance(args.get(k), str) and args[k].strip()), None)
    if inner is None:
        return Unwrapped(name, args, True, f"{BRIDGE}: the tool's name is missing. {USAGE}")
    if is_bridge(inner):
        return Unwrapped(name, args, True, f"{BRIDGE} cannot call itself. {USAGE}")
    key = next((k for k in _ARG_KEYS if k in args), None)
    if key is None:  # spread beside the name
        spread = {k: v for k, v in args.items() if k not in _NAME_KEYS}
        return Unwrapped(inner, spread, True)
    value = args[key]
    if value is None:
        value = {}
    if isinstance(value, str):
        try:
            value = json.loads(value) if value.strip() else {}
        except ValueError:
            return Unwrapped(inner, args, True, f"{BRIDGE}: 'arguments' is not a JSON object. {USAGE}")
    if not isinstance(value, dict):
        return Unwrapped(inner, args, True, f"{BRIDGE}: 'arguments' must be an object, got {value!r}. {USAGE}")
    return Unwrapped(inner, value, True)


def unwrap_call(call: ToolCall) -> ToolCall:
    """The call as the user and the books see it: a well-formed bridged call becomes the direct call
    (same id, so its result still answers the model's call); anything else is returned as is."""
    u = unwrap(call.name, call.arguments)
    if not u.bridged or u.error is not None:
        return call
    return replace(call, name=u.name, arguments=u.arguments)
