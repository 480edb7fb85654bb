"""The turn log: one JSON line per ``ask``/``chat`` turn, in the state dir (``turns.jsonl``).

The state log (``gaia-lite.log``) has the loader's ``TOOL_LOADER`` and the
agent's ``TOOL_CALLS`` lines, but not the question, the answer or the time to
first token, which is what ``gaia-lite logs`` shows. The front ends wrap the
agent's event stream in ``TurnRecorder.wrap``; the agent core knows nothing of
this file.

Crash safety: a record is one ``write`` of one line to a file opened for
appending, then fsync'd, so a crash can at worst leave a cut last line, which
``read_turns`` skips and counts. Text is masked as memory masks it
(credential-shaped runs become ``[REDACTED]``).

Each record keeps the turn's loader payloads (selection, ``load_tools``,
free recoveries) and its ``TOOL_CALLS`` payload, so ``log_lines`` rebuilds the
very lines ``gaia-lite eval log`` scores.
"""

from __future__ import annotations

import json
import logging
import os
import uuid
from collections import deque
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Iterator, Protocol

from gaia_lite.events import (Event, ToolCallFinished, ToolsLoaded, ToolsSelected, TurnFailed, TurnFinished,
                              TurnStarted)
from gaia_lite.memory.credentials import mask_credentials

__all__ = ["TurnRecorder", "read_turns", "log_lines", "well_formed", "MAX_TEXT_CHARS", "MAX_LAST"]

log = logging.getLogger(__name__)

MAX_TEXT_CHARS = 20_000  # a question or answer longer than this is cut in the log (never in the chat)
VERSION = 1


def _masked(text: str) -> str:
    return mask_credentials(text or "")[:MAX_TEXT_CHARS]


class ModelSource(Protocol):
    """The chat client, as the recorder reads it: the model id, resolved by the first model call."""

    model: str


class TurnRecorder:
    """Folds each turn's events into one record and appends it to ``path``."""

    def __init__(self, path: Path, *, frontend: str, client: ModelSource, session: str | None = None) -> None:
        self.path = Path(path)
        self.frontend = frontend
        self.client = client  # read when a turn ends: without --model the id is known only after a call
        self.session = session or uuid.uuid4().hex[:12]

    def wrap(self, events: Iterable[Event]) -> Iterator[Event]:
        """Pass ``events`` through; the turn's record is written when it finishes or fails."""
        rec = _Fold()
        for ev in events:
            rec.fold(ev)
            if isinstance(ev, (TurnFinished, TurnFailed)):
                self.append(rec.record(ev, self.frontend, self.client.model, self.session))
            yield ev

    def append(self, record: dict[str, Any]) -> None:
        line = json.dumps(record, ensure_ascii=False) + "\n"
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, line.encode("utf-8"))
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as exc:  # a full disk must not cost the user the answer
            log.warning("could not append to the turn log %s: %s", self.path, exc)


class _Fold:
    """What one turn's events say, gathered for its record."""

    def __init__(self) -> None:
        self.question = ""
        self.selection: dict[str, Any] | None = None
        self.load_tools: list[dict[str, Any]] = []
        self.escapes: list[str] = []
        self.loaded: tuple[str, ...] = ()

    def fold(self, ev: Event) -> None:
        if isinstance(ev, TurnStarted):
            self.question = ev.query
        elif isinstance(ev, ToolsSelected):
            self.loaded = tuple(ev.loaded)
            if ev.record is not None:
                self.selection = ev.record.payload()  # the TOOL_LOADER line's payload, as logged
        elif isinstance(ev, ToolsLoaded):
            self.loaded = tuple(ev.loaded)
            self.load_tools.append(ev.record.payload())
        elif isinstance(ev, ToolCallFinished) and ev.escape_hatch:
            self.escapes.append(ev.name)

    def record(self, end: TurnFinished | TurnFailed, frontend: str, model: str, session: str) -> dict[str, Any]:
        finished = isinstance(end, TurnFinished)
        loader_turn = int(self.selection["turn"]) if self.selection else 0
        called = list(end.tools_called) if finished else []
        return {
            "v": VERSION,
            "ts": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "session": session, "frontend": frontend, "model": model, "turn": end.turn,
            "status": "ok" if finished else "failed",
            "error": None if finished else end.error,
            "question": _masked(self.question),
            "answer": _masked(end.answer) if finished else "",
            "tools_called": called,
            "loaded": list(end.loaded_tools) if finished else list(self.loaded),
            "ttft_s": end.ttft_s if finished else None,
            "steps": end.steps if finished else None,
            "prompt_tokens": end.prompt_tokens if finished else None,
            "cached_tokens": end.cached_tokens if finished else None,
            "loader": {"selection": self.selection, "load_tools": self.load_tools, "escape_hatches": self.escapes},
            "tool_calls": {"turn": loader_turn, "session_turn": end.turn, "called": called} if finished else None,
        }


MAX_LAST = 1_000_000  # ``-n`` beyond this reads the whole log anyway; a deque cannot hold 10**20


def _is(value: Any, kind: type | tuple[type, ...], optional: bool = True) -> bool:
    return (optional and value is None) or (isinstance(value, kind) and not isinstance(value, bool))


def _str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def well_formed(rec: Any) -> bool:
    """Does ``rec`` have the shape ``logs`` and ``eval log`` read? A record written by hand or by a
    broken tool (a number for the question, a string for the tool list) is skipped, not shown."""
    if not isinstance(rec, dict) or not isinstance(rec.get("question"), str):
        return False
    if not (_is(rec.get("answer"), str) and _is(rec.get("error"), str) and _is(rec.get("ttft_s"), (int, float))
            and _is(rec.get("turn"), int) and _is(rec.get("status"), str) and _is(rec.get("model"), str)):
        return False
    if not all(rec.get(k) is None or _str_list(rec.get(k)) for k in ("tools_called", "loaded")):
        return False
    loader, calls = rec.get("loader"), rec.get("tool_calls")
    if loader is not None:
        if not isinstance(loader, dict):
            return False
        sel, loads = loader.get("selection"), loader.get("load_tools")
        if sel and not (isinstance(sel, dict) and _is(sel.get("turn"), int, optional=False)):
            return False
        if not (loads is None or (isinstance(loads, list) and all(isinstance(p, dict) for p in loads))):
            return False
        if not (loader.get("escape_hatches") is None or _str_list(loader.get("escape_hatches"))):
            return False
    if calls is not None and not (isinstance(calls, dict) and _is(calls.get("turn"), int, optional=False)
                                  and _is(calls.get("session_turn"), int, optional=False)
                                  and _str_list(calls.get("called"))):
        return False
    return True


def read_turns(path: Path, last: int | None = None) -> tuple[list[dict[str, Any]], int]:
    """(the last ``last`` records, or all, oldest first; how many lines were unreadable: cut by a
    crash, not JSON, or not shaped like a turn record)."""
    kept: deque[dict[str, Any]] = deque(maxlen=min(last, MAX_LAST) if last and last > 0 else None)
    bad = 0
    if not path.is_file():
        return [], 0
    with open(path, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except (ValueError, RecursionError):
                bad += 1  # a line cut by a crash, or not JSON at all
                continue
            if well_formed(obj):
                kept.append(obj)
            else:
                bad += 1
    return list(kept), bad


def log_lines(records: Iterable[dict[str, Any]]) -> Iterator[str]:
    """The ``TOOL_LOADER`` / ``TOOL_CALLS`` lines these turns logged, in order (for ``eval log``)."""
    # kept lazy: the loader package loads numpy; ask and chat import this module only to record turns
    from gaia_lite.eval.logscore import format_tool_calls
    from gaia_lite import logline

    for rec in records:
        loader = rec.get("loader") or {}
        if loader.get("selection"):
            yield logline.format_selection(loader["selection"])
        turn = int(loader["selection"]["turn"]) if loader.get("selection") else 0
        for payload in loader.get("load_tools") or ():
            yield logline.format_selection(payload)
        for tool in loader.get("escape_hatches") or ():
            yield logline.format_escape_hatch(logline.escape_hatch_payload(tool, turn))
        calls = rec.get("tool_calls")
        if calls:
            yield format_tool_calls(calls["turn"], calls["session_turn"], calls["called"])
