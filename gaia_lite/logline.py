"""The loader's log lines: typed records, their exact payload shapes, and a parser.

Key order is the interface: log readers written for GAIA's lines keep working
on ours, so GAIA's keys come in GAIA's order. Our additions (``tools_hash``,
``selection_ms`` on every ``TOOL_LOADER`` line, ``tool_set_changes`` on the
session line) are appended after GAIA's keys, never interleaved.

``SelectionRecord`` and ``LoadToolsRecord`` are what the loader hands the
agent and the UI; they become a payload dict and a line only when logged.
Everything here is a pure function of its arguments; ``json.dumps`` with its
defaults is the serialisation (``", "`` / ``": "``, ASCII escapes).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Literal, Mapping

__all__ = [
    "SelectionRecord", "LoadToolsRecord",
    "SELECTION_PREFIX", "SESSION_PREFIX", "ESCAPE_HATCH_EVENT", "ESCAPE_HATCH_NOTE",
    "query_sha", "selection_payload", "load_tools_payload", "escape_hatch_payload", "session_payload",
    "escape_hatch_rate", "format_selection", "format_escape_hatch", "format_session",
    "LogRecord", "parse_line", "parse_lines",
]

SELECTION_PREFIX = "TOOL_LOADER "
SESSION_PREFIX = "TOOL_LOADER_SESSION "
ESCAPE_HATCH_EVENT = "TOOL_LOADER_ESCAPE_HATCH"
ESCAPE_HATCH_NOTE = "tool was not in the loaded set; it ran from the full registry (free recovery)"


def query_sha(query: str) -> str:
    """First 12 hex chars of SHA-256 of the selection query (never the text itself)."""
    return hashlib.sha256(query.encode("utf-8")).hexdigest()[:12]


def _names(items: Iterable[str]) -> list[str]:
    return sorted(items)


def selection_payload(
    *,
    turn: int,
    query_sha: str,
    threshold: float,
    max_tools: int,
    scores: Mapping[str, float],
    matched: Iterable[str],
    bundle_pulled: Iterable[str],
    admitted: Iterable[str],
    evicted: Iterable[str],
    skipped_at_cap: Iterable[str],
    loaded: Iterable[str],
    skill: Iterable[str] | None,
    tools_hash: str,
    selection_ms: float,
    requested: Iterable[str] | None = None,
    companion: Iterable[str] | None = None,
    learned: Iterable[str] | None = None,
    example: Iterable[str] | None = None,
) -> dict[str, Any]:
    """Per-turn ``TOOL_LOADER`` payload. ``scores`` keeps the caller's (registry) order.

    ``requested``, ``skill``, ``learned`` and ``companion`` are omitted unless that tier
    contributed this turn, so a session without them logs exactly GAIA's keys
    plus our two additions. They sit in tier order after ``loaded``.
    """
    payload: dict[str, Any] = {
        "turn": turn,
        "query_sha": query_sha,
        "threshold": float(threshold),
        "max_tools": int(max_tools),
        "scores": {name: round(float(s), 4) for name, s in scores.items()},
        "matched": _names(matched),
        "bundle_pulled": _names(bundle_pulled),
        "admitted": _names(admitted),
        "evicted": _names(evicted),
        "skipped_at_cap": _names(skipped_at_cap),
        "loaded": _names(loaded),
    }
    for key, names in (("requested", requested), ("skill", skill), ("learned", learned), ("example", example),
                       ("companion", companion)):
        listed = _names(names or ())
        if listed:
            payload[key] = listed
    payload["tools_hash"] = tools_hash
    payload["selection_ms"] = round(float(selection_ms), 3)
    return payload


def load_tools_payload(
    *,
    turn: int,
    bundle: str,
    admitted: Iterable[str],
    evicted: Iterable[str],
    skipped_at_cap: Iterable[str],
    loaded: Iterable[str],
    tools_hash: str,
    selection_ms: float,
) -> dict[str, Any]:
    """Mid-loop ``load_tools`` event payload (``bundle`` is the resolved name)."""
    return {
        "turn": turn,
        "event": "load_tools",
        "bundle": bundle,
        "admitted": _names(admitted),
        "evicted": _names(evicted),
        "skipped_at_cap": _names(skipped_at_cap),
        "loaded": _names(loaded),
        "tools_hash": tools_hash,
        "selection_ms": round(float(selection_ms), 3),
    }


@dataclass(frozen=True)
class SelectionRecord:
    """One turn's selection, as its ``TOOL_LOADER`` line reports it. Name tuples are sorted;
    ``scores`` keeps registry order; ``requested``, ``skill``, ``learned`` and ``companion`` are
    empty unless that tier contributed."""

    turn: int
    query_sha: str
    threshold: float
    max_tools: int
    scores: Mapping[str, float]
    matched: tuple[str, ...]
    bundle_pulled: tuple[str, ...]
    admitted: tuple[str, ...]
    evicted: tuple[str, ...]
    skipped_at_cap: tuple[str, ...]
    loaded: tuple[str, ...]
    skill: tuple[str, ...]
    tools_hash: str
    selection_ms: float
    requested: tuple[str, ...] = ()
    companion: tuple[str, ...] = ()
    learned: tuple[str, ...] = ()
    example: tuple[str, ...] = ()

    def payload(self) -> dict[str, Any]:
        return selection_payload(
            turn=self.turn, query_sha=self.query_sha, threshold=self.threshold, max_tools=self.max_tools,
            scores=self.scores, matched=self.matched, bundle_pulled=self.bundle_pulled, admitted=self.admitted,
            evicted=self.evicted, skipped_at_cap=self.skipped_at_cap, loaded=self.loaded, skill=self.skill,
            tools_hash=self.tools_hash, selection_ms=self.selection_ms, requested=self.requested,
            companion=self.companion, learned=self.learned, example=self.example)

    def line(self) -> str:
        return format_selection(self.payload())


@dataclass(frozen=True)
class LoadToolsRecord:
    """One ``load_tools`` (or ``/load``): ``bundle`` is the resolved name (``a+b`` for a tool in two)."""

    turn: int
    bundle: str
    admitted: tuple[str, ...]
    evicted: tuple[str, ...]
    skipped_at_cap: tuple[str, ...]
    loaded: tuple[str, ...]
    tools_hash: str
    selection_ms: float

    def payload(self) -> dict[str, Any]:
        return load_tools_payload(turn=self.turn, bundle=self.bundle, admitted=self.admitted, evicted=self.evicted,
                                  skipped_at_cap=self.skipped_at_cap, loaded=self.loaded,
                                  tools_hash=self.tools_hash, selection_ms=self.selection_ms)

    def line(self) -> str:
        return format_selection(self.payload())


def escape_hatch_payload(tool: str, turn: int) -> dict[str, Any]:
    return {"event": ESCAPE_HATCH_EVENT, "tool": tool, "turn": turn, "note": ESCAPE_HATCH_NOTE}


def escape_hatch_rate(turns: int, escape_hatch_count: int, load_tools_count: int) -> float:
    """(free recoveries + load_tools calls) per selection turn."""
    return (escape_hatch_count + load_tools_count) / max(turns, 1)


def session_payload(*, turns: int, escape_hatch_count: int, load_tools_count: int,
                    tool_set_changes: int) -> dict[str, Any]:
    return {
        "turns": turns,
        "escape_hatch_count": escape_hatch_count,
        "load_tools_count": load_tools_count,
        "escape_hatch_rate": escape_hatch_rate(turns, escape_hatch_count, load_tools_count),
        "tool_set_changes": tool_set_changes,
    }


def format_selection(payload: Mapping[str, Any]) -> str:
    """A selection or ``load_tools`` line: ``TOOL_LOADER {json}``."""
    return SELECTION_PREFIX + json.dumps(payload)


def format_escape_hatch(payload: Mapping[str, Any]) -> str:
    """The free-recovery line is a bare JSON object (no prefix), as in GAIA."""
    return json.dumps(payload)


def format_session(payload: Mapping[str, Any]) -> str:
    return SESSION_PREFIX + json.dumps(payload)


# -- parsing -----------------------------------------------------------------

RecordKind = Literal["selection", "load_tools", "escape_hatch", "session"]


@dataclass(frozen=True)
class LogRecord:
    """One parsed loader line. ``payload`` is the JSON object as logged."""

    kind: RecordKind
    payload: dict[str, Any]


# The JSON object is the tail of the line, so any handler prefix (time, level,
# logger name) is tolerated. A space after TOOL_LOADER keeps the session line out.
_SELECTION_RE = re.compile(r"TOOL_LOADER (\{.*\})\s*$")
_SESSION_RE = re.compile(r"TOOL_LOADER_SESSION (\{.*\})\s*$")
_ESCAPE_RE = re.compile(r"(\{\"event\": \"" + ESCAPE_HATCH_EVENT + r"\".*\})\s*$")


def _load(text: str) -> dict[str, Any] | None:
    try:
        obj = json.loads(text)
    except json.JSONDecodeError:
        return None
    return obj if isinstance(obj, dict) else None


def parse_line(line: str) -> LogRecord | None:
    """Parse one log line; anything that is not a loader line gives ``None``."""
    m = _SESSION_RE.search(line)
    if m and (obj := _load(m.group(1))) is not None:
        return LogRecord("session", obj)
    m = _SELECTION_RE.search(line)
    if m and (obj := _load(m.group(1))) is not None:
        if "turn" not in obj or "loaded" not in obj:
            return None  # same rule as GAIA's reader: partial lines are ignored
        return LogRecord("load_tools" if obj.get("event") == "load_tools" else "selection", obj)
    m = _ESCAPE_RE.search(line)
    if m and (obj := _load(m.group(1))) is not None:
        return LogRecord("escape_hatch", obj)
    return None


def parse_lines(lines: Iterable[str]) -> Iterator[LogRecord]:
    for line in lines:
        rec = parse_line(line)
        if rec is not None:
            yield rec
