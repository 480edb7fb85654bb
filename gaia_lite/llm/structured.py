"""Does this server constrain replies to a JSON schema? Asked once per server and model, then cached.

llama-server and Lemonade's llamacpp backend honour ``response_format`` with a
JSON schema; an NPU/OGA backend or an older server rejects the field or
ignores it. The probe sends one tiny request whose schema admits only
``{"ok": true|false}``, and counts the server as capable only when the reply is
exactly that: a server that ignores the field answers in prose and fails.

The answer is kept in ``capabilities.json`` in the state dir, keyed by server
and model, so the probe costs one short request per server and model, ever.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from gaia_lite.errors import ServerTooSlow

__all__ = ["TOOL_CALL_MODES", "PROBE_TIMEOUT_S", "CapabilityCache", "probe_response_format", "supports_response_format"]

log = logging.getLogger("gaia_lite.llm.structured")

TOOL_CALL_MODES = ("auto", "constrained", "free")
PROBE_TIMEOUT_S = 60.0  # a first request may load the model; past this the probe gives up, uncached
_PROBE_SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"],
                 "additionalProperties": False}


class _Chat(Protocol):
    def chat(self, messages: list[dict[str, Any]], **kwargs: Any) -> Any: ...


def probe_response_format(client: _Chat, timeout: float = PROBE_TIMEOUT_S) -> bool | None:
    """One short request: does the server hold the reply to a JSON schema? None when it did not
    answer within ``timeout`` seconds (slow, not refused: worth asking again another time)."""
    fmt = {"type": "json_schema", "json_schema": {"name": "probe", "strict": True, "schema": _PROBE_SCHEMA}}
    timeout = min(timeout, getattr(client, "first_byte_timeout", timeout))  # never longer than a real request
    try:
        result = client.chat([{"role": "user", "content": "Is water wet? Reply in JSON."}], max_tokens=16,
                             temperature=0.0, response_format=fmt, timeout=timeout)
    except Exception as exc:  # a 400 for the unknown field, or any other refusal: not capable
        if isinstance(exc, ServerTooSlow):  # slow, not a refusal
            log.warning("the model server did not answer the reply-format probe within %g s; replies are not "
                        "constrained this session (asked again next time)", timeout)
            return None
        log.info("response_format probe failed: %s", str(exc)[:200])
        return False
    try:
        value = json.loads(result.content)
    except (TypeError, ValueError, RecursionError):
        return False
    return isinstance(value, dict) and set(value) == {"ok"} and isinstance(value["ok"], bool)


@dataclass(frozen=True)
class CapabilityCache:
    """``{key: {"response_format": bool, "checked": unix time}}`` in one JSON file."""

    path: Path

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def get(self, key: str) -> bool | None:
        entry = self._read().get(key)
        value = entry.get("response_format") if isinstance(entry, dict) else None
        return value if isinstance(value, bool) else None

    def put(self, key: str, value: bool) -> None:
        data = self._read()
        data[key] = {"response_format": value, "checked": round(time.time())}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".capabilities-")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(data, fh, indent=1, sort_keys=True)
            os.replace(tmp, self.path)
        except OSError as exc:  # an unwritable state dir costs a probe next time, nothing more
            log.warning("could not cache the server's capabilities in %s: %s", self.path, exc)


def supports_response_format(client: _Chat, cache: CapabilityCache, key: str) -> tuple[bool, bool]:
    """(capable, probed now). Probes only when ``key`` (server + model) is not cached yet."""
    known = cache.get(key)
    if known is not None:
        return known, False
    capable = probe_response_format(client)
    if capable is None:  # too slow to tell: not cached, so the next start asks again
        return False, True
    cache.put(key, capable)
    return capable, True
