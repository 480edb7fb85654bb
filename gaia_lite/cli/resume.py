"""Continue an earlier conversation in a new process: ``ask -c``, ``ask --conversation ID``,
``chat --continue``.

After every turn the agent's prompt state is saved beside ``memory.db``
(memory/sessions.py). Continuing puts that state back: the history as it was
sent (tool calls and results included), the system prompt as composed, and the
loader's picks for the earlier messages (replayed quietly: no TOOL_LOADER line
for a turn that is not run again). The follow-up's request then starts with the
bytes of the previous one, so a kept-alive server prefills only what is new.
Without a saved state (or one from other settings), the turns stored in
``memory.db`` are the history.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

from gaia_lite.errors import GaiaError
from gaia_lite.loader.loader import LOGGER_NAME
from gaia_lite.memory.sessions import last_session, load_snapshot, save_snapshot, session_turns

__all__ = ["Resumed", "NoConversation", "resume", "save_state"]

SNAPSHOT_VERSION = 1


class NoConversation(GaiaError):
    """There is no conversation to continue."""

    exit_code = 2


@dataclass(frozen=True)
class Resumed:
    session_id: str
    turns: int  # earlier user turns
    exact: bool  # the prompt was restored byte for byte (else rebuilt from memory.db's text)


def resume(services: Any, conversation: str | None) -> Resumed:
    """Put conversation ``conversation`` (None: the latest) back into ``services.agent``."""
    memory = services.memory
    if memory is None:
        raise NoConversation("memory is disabled (GAIA_MEMORY_DISABLED), so there is no earlier conversation "
                             "to continue; drop -c / --conversation")
    sid = conversation or last_session(memory)
    if sid is None:
        raise NoConversation("there is no earlier conversation to continue yet; ask without -c first")
    agent = services.agent
    snap = load_snapshot(memory.path, sid)
    exact = snap is not None and _fits(snap, agent)
    if exact:
        assert snap is not None
        history, users = list(snap["history"]), [str(m) for m in snap["user_messages"]]
    else:
        turns = session_turns(memory, sid)
        if not turns:
            raise NoConversation(f"no conversation with id {sid!r}; `gaia-lite memory list -c` lists them")
        history = [{"role": t["role"], "content": t["content"]} for t in turns if t["role"] in ("user", "assistant")]
        users = [t["content"] for t in turns if t["role"] == "user"]
    agent.reset()
    _replay_selection(agent.selector, users)
    agent.history[:] = history
    agent.user_messages[:] = users
    agent.turn = len(users)
    agent.options.session_id = sid
    adopt = getattr(agent.layout, "adopt", None)
    if exact and snap.get("shown") and adopt is not None:
        adopt(snap["shown"])
    return Resumed(sid, len(users), exact)


def save_state(services: Any) -> None:
    """Keep the conversation's prompt state for a later ``-c`` (never fails the turn)."""
    memory = getattr(services, "memory", None)
    agent = services.agent
    if memory is None or not agent.user_messages:
        return
    snapshot = getattr(agent.layout, "snapshot", None)
    data = {"version": SNAPSHOT_VERSION, "session_id": agent.options.session_id, "saved": time.time(),
            "model": services.client.model, "native": agent.options.native_tools,
            "layout": agent.options.prompt_layout, "user_messages": list(agent.user_messages),
            "history": list(agent.history), "shown": snapshot() if snapshot is not None else None}
    try:
        save_snapshot(memory.path, agent.options.session_id, data)
    except (OSError, TypeError, ValueError) as exc:
        logging.getLogger("gaia_lite.cli").warning("could not save the conversation for a later -c: %s", exc)


def _fits(snap: dict[str, Any], agent: Any) -> bool:
    """Was the saved prompt made for this kind of prompt (same tool-call path and layout)?"""
    return (snap.get("version") == SNAPSHOT_VERSION and snap.get("native") == agent.options.native_tools
            and snap.get("layout") == agent.options.prompt_layout and isinstance(snap.get("user_messages"), list))


def _replay_selection(selector: Any, users: list[str]) -> None:
    """Select for each earlier message again, so the loaded set is what those turns left behind;
    quietly: those turns are not run again, and log readers count TOOL_LOADER lines as turns."""
    logger = logging.getLogger(LOGGER_NAME)
    was = logger.disabled
    logger.disabled = True
    try:
        for i, query in enumerate(users):
            selector.select(users[:i], query)
    finally:
        logger.disabled = was
