"""Does this server constrain replies to a JSON schema, or to a GBNF grammar? Asked once per server and
model, then cached.

llama-server and Lemonade's llamacpp backend honour ``response_format`` with a
JSON schema; an NPU/OGA backend or an older server rejects the field or
ignores it. The probe sends one tiny request whose schema admits only
``{"ok": true|false}``, and counts the server as capable only when the reply is
exactly that: a server that ignores the field answers in prose and fails.

llama-server also honours a ``grammar`` field (GBNF), which lets the agent send
its schema without the optional newlines and indents of the server's own
conversion; a proxy in front of it may drop the unknown field and leave replies
free. So a server that holds replies to a schema is asked a second question: a
grammar that admits one word the model would never write unprompted, capable
only when the reply is exactly that word.

The answers are kept in ``capabilities.json`` in the state dir, keyed by server
and model, so each probe costs one short request per server and model, ever (a
file written before the grammar probe existed just gets that probe).
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

from gaia_lite.errors import ServerTooSlow

__all__ = ["TOOL_CALL_MODES", "PROBE_TIMEOUT_S", "Capabilities", "CapabilityCache", "probe_response_format",
           "probe_grammar", "supports_response_format", "server_capabilities"]

log = logging.getLogger("gaia_lite.llm.structured")

TOOL_CALL_MODES = ("auto", "constrained", "free")
PROBE_TIMEOUT_S = 60.0  # a first request may load the model; past this the probe gives up, uncached
_PROBE_SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"],
                 "additionalProperties": False}
_PROBE_WORD = "zebra-quartz-42"  # what only a grammar makes the model write (a handful of tokens)
_PROBE_GRAMMAR = f'root ::= "{_PROBE_WORD}"'
_PROBE_ASK = [{"role": "user", "content": "Is water wet? Reply in JSON."}]

Capability = Literal["response_format", "grammar"]


@dataclass(frozen=True)
class Capabilities:
    """What a server holds replies to: a JSON schema (``response_format``) and a GBNF ``grammar``."""

    response_format: bool = False
    grammar: bool = False


class _Chat(Protocol):
    def chat(self, messages: list[dict[str, Any]], **kwargs: Any) -> Any: ...


def _probe(client: _Chat, what: Capability, timeout: float, **extra: Any) -> str | None:
    """The probe's reply text ("" when the server refused the request); None when it did not answer
    within ``timeout`` seconds (slow, not refused: worth asking again another time)."""
    timeout = min(timeout, getattr(client, "first_byte_timeout", timeout))  # never longer than a real request
    try:
        result = client.chat(_PROBE_ASK, max_tokens=16, temperature=0.0, timeout=timeout, **extra)
    except Exception as exc:  # a 400 for the unknown field, or any other refusal: not capable
        if isinstance(exc, ServerTooSlow):  # slow, not a refusal
            log.warning("the model server did not answer the %s probe within %g s; %s this session (asked again "
                        "next time)", what, timeout, "replies are not constrained" if what == "response_format"
                        else "replies are held by response_format")
            return None
        log.info("%s probe failed: %s", what, str(exc)[:200])
        return ""
    return result.content if isinstance(result.content, str) else ""


def probe_response_format(client: _Chat, timeout: float = PROBE_TIMEOUT_S) -> bool | None:
    """One short request: does the server hold the reply to a JSON schema? None when it did not
    answer within ``timeout`` seconds (slow, not refused: worth asking again another time)."""
    fmt = {"type": "json_schema", "json_schema": {"name": "probe", "strict": True, "schema": _PROBE_SCHEMA}}
    reply = _probe(client, "response_format", timeout, response_format=fmt)
    if reply is None:
        return None
    try:
        value = json.loads(reply)
    except (ValueError, RecursionError):
        return False
    return isinstance(value, dict) and set(value) == {"ok"} and isinstance(value["ok"], bool)


def probe_grammar(client: _Chat, timeout: float = PROBE_TIMEOUT_S) -> bool | None:
    """One short request: does the server hold the reply to a GBNF ``grammar``? Only a reply that is
    exactly the one word the grammar admits says yes. None as for ``probe_response_format``."""
    reply = _probe(client, "grammar", timeout, grammar=_PROBE_GRAMMAR)
    return reply if reply is None else reply == _PROBE_WORD


@dataclass(frozen=True)
class CapabilityCache:
    """``{key: {"response_format": bool, "grammar": bool, "checked": unix time}}`` in one JSON file; an
    answer not asked yet is missing from its entry."""

    path: Path

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def get(self, key: str, what: Capability = "response_format") -> bool | None:
        entry = self._read().get(key)
        value = entry.get(what) if isinstance(entry, dict) else None
        return value if isinstance(value, bool) else None

    def put(self, key: str, value: bool, what: Capability = "response_format") -> None:
        data = self._read()
        entry = data.get(key) if isinstance(data.get(key), dict) else {}
        data[key] = {**entry, what: value, "checked": round(time.time())}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".capabilities-")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(data, fh, indent=1, sort_keys=True)
            os.replace(tmp, self.path)
        except OSError as exc:  # an unwritable state dir costs a probe next time, nothing more
            log.warning("could not cache the server's capabilities in %s: %s", self.path, exc)


def _supports(what: Capability, client: _Chat, cache: CapabilityCache, key: str) -> tuple[bool, bool]:
    known = cache.get(key, what)
    if known is not None:
        return known, False
    capable = (probe_response_format if what == "response_format" else probe_grammar)(client)
    if capable is None:  # too slow to tell: not cached, so the next start asks again
        return False, True
    cache.put(key, capable, what)
    return capable, True


def supports_response_format(client: _Chat, cache: CapabilityCache, key: str) -> tuple[bool, bool]:
    """(capable, probed now). Probes only when ``key`` (server + model) is not cached yet."""
    return _supports("response_format", client, cache, key)


def server_capabilities(client: _Chat, cache: CapabilityCache, key: str) -> Capabilities:
    """What ``key`` (server + model) holds replies to, each probe asked only while its answer is not cached;
    ``grammar`` only where replies are held to a schema (the agent sends a grammar only in its place)."""
    schema = supports_response_format(client, cache, key)[0]
    return Capabilities(schema, schema and _supports("grammar", client, cache, key)[0])
