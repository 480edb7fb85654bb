"""Past conversations in ``memory.db``, one session at a time.

The agent stores each user turn and answer in ``conversations`` under the
session id of its chat or ask run; the tool calls of that run carry the same
id in ``tool_history``. These functions borrow the store's ``reading()`` and
``transaction()``, as the skills store does, so the store keeps one
connection policy.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from .store import MemoryStore

__all__ = ["SessionInfo", "list_sessions", "session_turns", "forget_session"]


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
    """Delete a session's messages and tool history; returns how many messages went."""
    with store.transaction() as conn:
        gone = conn.execute("DELETE FROM conversations WHERE session_id=?", (session_id,)).rowcount
        conn.execute("DELETE FROM tool_history WHERE session_id=?", (session_id,))
    return gone
