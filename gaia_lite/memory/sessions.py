"""Past conversations in ``memory.db``, one session at a time.

The agent stores each user turn and answer in ``conversations`` under the
session id of its chat or ask run; the tool calls of that run carry the same
id in ``tool_history``. These functions borrow the store's ``reading()`` and
``transaction()``, as the skills store does, so the store keeps one
connection policy.

A conversation can be continued by a later process (``ask -c``, ``chat
--continue``). The text of its turns is in ``conversations``; what the model
was sent, byte for byte (tool calls and results, the system prompt as
composed), is kept beside ``memory.db`` in ``conversations/ID.json``, so the
continued conversation's prompt starts with the bytes a kept-alive server
still has cached. That file is a cache: when it is missing or unreadable, the
turns in ``memory.db`` are the history.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from .store import MemoryStore

__all__ = ["SessionInfo", "list_sessions", "session_turns", "forget_session", "last_session", "save_snapshot",
           "load_snapshot", "snapshot_path"]

_SESSION_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")  # a file name: never a path


@dataclass(frozen=True)
class SessionInfo:
    session_id: str
    turns: int
    first_ts: str
    last_ts: str
    first_question: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def list_sessions(store: MemoryStore, *, limit: int = 20) -> list[SessionInfo]:
    """Sessions, the most recently active first, with their first user message."""
    with store.reading() as conn:
        rows = conn.execute(
            "SELECT session_id, COUNT(*), MIN(ts), MAX(ts), MAX(id) FROM conversations "
            "GROUP BY session_id ORDER BY MAX(id) DESC LIMIT ?", (max(1, limit),)).fetchall()
        out = []
        for sid, count, first, last, _ in rows:
            q = conn.execute("SELECT content FROM conversations WHERE session_id=? AND role='user' "
                             "ORDER BY id LIMIT 1", (sid,)).fetchone()
            out.append(SessionInfo(sid, count, first, last, q[0] if q else ""))
    return out


def session_turns(store: MemoryStore, session_id: str) -> list[dict[str, Any]]:
    """Every stored message of one session, oldest first (empty when there is no such session)."""
    with store.reading() as conn:
        rows = conn.execute("SELECT id, role, content, ts FROM conversations WHERE session_id=? ORDER BY id",
                            (session_id,)).fetchall()
    return [dict(zip(("id", "role", "content", "ts"), r)) for r in rows]


def forget_session(store: MemoryStore, session_id: str) -> int:
    """Delete a session's messages, tool history and saved prompt; returns how many messages went."""
    with store.transaction() as conn:
        gone = conn.execute("DELETE FROM conversations WHERE session_id=?", (session_id,)).rowcount
        conn.execute("DELETE FROM tool_history WHERE session_id=?", (session_id,))
    path = snapshot_path(store.path, session_id)
    if path is not None:
        try:
            path.unlink()
        except OSError:
            pass
    return gone


def last_session(store: MemoryStore) -> str | None:
    """The most recently active conversation's id (ask or chat), or None."""
    with store.reading() as conn:
        row = conn.execute("SELECT session_id FROM conversations ORDER BY id DESC LIMIT 1").fetchone()
    return str(row[0]) if row else None


def snapshot_path(memory_db: Path, session_id: str) -> Path | None:
    """Where a conversation's prompt is kept (None for an id that cannot be a file name)."""
    if not _SESSION_ID.fullmatch(session_id):
        return None
    return Path(memory_db).parent / "conversations" / f"{session_id}.json"


def save_snapshot(memory_db: Path, session_id: str, data: dict[str, Any]) -> None:
    """Write a conversation's prompt state atomically (0600: it holds the conversation)."""
    path = snapshot_path(memory_db, session_id)
    if path is None:
        return
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(data, fh, ensure_ascii=False)
    os.replace(tmp, path)


def load_snapshot(memory_db: Path, session_id: str) -> dict[str, Any] | None:
    """A conversation's saved prompt state, or None (missing, unreadable or not a snapshot)."""
    path = snapshot_path(memory_db, session_id)
    try:
        data = json.loads(path.read_text(encoding="utf-8")) if path is not None else None
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("session_id") != session_id or not isinstance(data.get("history"), list):
        return None
    return data
