"""An MCP server's tools as registry ToolSpecs, and one server as one loader bundle.

Names: ``<server>__<tool>`` (``git__status``). The double underscore cannot occur
in a built-in's name or in a server name, so no MCP tool can shadow a built-in
or another server's tool. Characters a tool name may not carry here (``-``,
``.``, spaces) become ``_``; a tool name that repeats the server's name
(mcp-server-git's ``git_status``) drops it. The loader embeds the tool under
the name the server gave it (``ToolSpec.origin``), so its documents are the
server's own words.

Wire limits: OpenAI-style servers take function names of at most 64
characters of ``[A-Za-z0-9_-]``. A longer name is cut and ends with 8 hex
characters of a hash of the listed name, so it stays unique and the same on
every start; the call still goes out under the listed name. Descriptions are
capped for the prompt (``MAX_DESCRIPTION_CHARS`` for the tool, a shorter cap
for each parameter); ``gaia-lite mcp tools NAME --full`` shows them whole.

The schema is kept exactly as the server gives it (``ToolSpec.schema``): both
render paths show it as is, and the executor validates arguments against the
parameters read from it. The gate: a tool runs without confirmation only when
the server marks it read-only or the config trusts the server
(``trust = "always"``). Nothing the server returns can change that.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any, Callable, Iterable, Sequence

from gaia_lite.config import McpServer
from gaia_lite.loader.bundles import ToolBundle
from gaia_lite.registry.jsonspec import spec_from_json_schema
from gaia_lite.registry.spec import ToolSpec

from .connection import CallOutcome, ListedTool

__all__ = ["CALL_MARGIN_S", "MAX_NAME_CHARS", "MAX_DESCRIPTION_CHARS", "local_names", "tool_specs", "server_bundle",
           "outcome_payload", "CallFn"]

CALL_MARGIN_S = 5.0  # the executor waits this much longer than the server's timeout, so the clearer error wins
MAX_NAME_CHARS = 64  # OpenAI-style servers refuse longer function names
MAX_DESCRIPTION_CHARS = 1000  # a tool's description in the prompt; a server that sends 100 KB is not read whole
MAX_PARAM_DESCRIPTION_CHARS = 300
_HASH_CHARS = 8
CallFn = Callable[[str, str, dict[str, Any]], dict[str, Any]]  # (server, tool as listed, arguments) -> payload


def _clean(name: str) -> str:
    cleaned = re.sub(r"_+", "_", re.sub(r"[^A-Za-z0-9_]", "_", name)).strip("_")
    return cleaned or "tool"


def _fit(local: str, budget: int, listed: str) -> str:
    """``local`` within ``budget`` characters: cut, and marked with a hash of the listed name so two
    long names that share a beginning stay apart, the same on every start."""
    if len(local) <= budget:
        return local
    digest = hashlib.sha1(listed.encode("utf-8", "surrogatepass")).hexdigest()[:_HASH_CHARS]
    return f"{local[:budget - _HASH_CHARS - 1].rstrip('_')}_{digest}"


def local_names(server: str, tools: Iterable[str], budget: int | None = None) -> dict[str, str]:
    """Tool name as listed -> the part after ``<server>__``, unique within the server and at most
    ``budget`` characters (what the 64 the wire allows leaves after the prefix)."""
    budget = budget if budget is not None else MAX_NAME_CHARS - len(server) - 2
    listed = list(tools)
    out: dict[str, str] = {}
    taken: set[str] = set()
    cleaned = {t: _clean(t) for t in listed}
    plain = set(cleaned.values())
    for t in listed:
        local = cleaned[t]
        short = local[len(server) + 1:] if local.lower().startswith(server + "_") else ""
        if short and short not in plain:
            local = short
        local = base = _fit(local, budget, t)
        n = 2
        while local in taken:  # two listed names that clean to the same text
            local = _fit(f"{base}_{n}", budget, f"{t}\0{n}")
            n += 1
        taken.add(local)
        out[t] = local
    return out


def _capped(text: str, limit: int) -> str:
    text = (text or "").strip()
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


def _capped_schema(value: Any, depth: int = 0) -> Any:
    """The schema with every ``description`` string capped (nesting past 32 levels is left as is:
    the SDK's JSON parser has bounded it already)."""
    if depth > 32:
        return value
    if isinstance(value, dict):
        return {k: (_capped(v, MAX_PARAM_DESCRIPTION_CHARS) if k == "description" and isinstance(v, str)
                    else _capped_schema(v, depth + 1)) for k, v in value.items()}
    if isinstance(value, list):
        return [_capped_schema(v, depth + 1) for v in value]
    return value


def tool_specs(server: McpServer, tools: Sequence[ListedTool], call: CallFn, *,
               named_after: Sequence[str] = ()) -> list[ToolSpec]:
    """One ToolSpec per listed tool; running it calls ``call(server, listed name, arguments)``.
    Names are given over ``named_after`` (the tools listed before) and then ``tools``, so a tool
    that was listed before keeps its name when the list changes."""
    names = local_names(server.name, list(dict.fromkeys([*named_after, *(t.name for t in tools)])))
    specs: list[ToolSpec] = []
    for t in tools:
        schema = _capped_schema(_schema(t.input_schema))
        base = spec_from_json_schema(t.name, _capped(t.description or t.title, MAX_DESCRIPTION_CHARS), schema)
        gated = not (t.read_only or server.trust == "always")
        specs.append(ToolSpec(server.prefix + names[t.name], base.summary, base.description, base.params,
                              _caller(call, server.name, t.name), gated=gated, timeout=server.timeout + CALL_MARGIN_S, takes_context=False,
                              schema=schema, origin=t.name))
    return specs


def _caller(call: CallFn, server: str, tool: str) -> Callable[..., dict[str, Any]]:
    """The spec's ``fn``: the executor calls it with the validated arguments as keywords."""
    def fn(**arguments: Any) -> dict[str, Any]:
        return call(server, tool, arguments)
    return fn


def _schema(raw: dict[str, Any]) -> dict[str, Any]:
    """The input schema as given; only an empty one becomes the empty object schema."""
    return dict(raw) if raw else {"type": "object", "properties": {}}


def server_bundle(server: McpServer, specs: Sequence[ToolSpec], server_title: str = "") -> ToolBundle:
    """One server, one bundle: ``mcp_<server>``, described for the bundle menu."""
    what = server_title or f"MCP server {server.name}"
    return ToolBundle(server.bundle, frozenset(s.name for s in specs), f"{what} ({len(specs)} tools)")


def outcome_payload(outcome: CallOutcome) -> dict[str, Any]:
    """What the model gets back from a call: the server's text as data, with a status gaia-lite sets."""
    if outcome.is_error:
        return {"status": "error", "error": outcome.text or "the MCP tool reported an error"}
    payload: dict[str, Any] = {"status": "success", "result": outcome.text}
    if outcome.structured is not None:
        payload["result"] = outcome.structured
    if outcome.truncated:
        payload["truncated"] = True
    return payload
