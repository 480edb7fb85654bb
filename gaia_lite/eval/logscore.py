"""Score a run log: was every tool the model called loaded in that turn's prompt?

This is GAIA's ``tool_recall`` benchmark for our own logs. The
log holds two kinds of structured lines, whatever handler prefix precedes
them:

* the loader's ``TOOL_LOADER`` lines (selection, ``load_tools`` events, free
  recoveries, session summaries), parsed with ``gaia_lite.logline``;
* the agent's ``TOOL_CALLS {"turn": <loader turn>, "session_turn": n,
  "called": [...]}`` line, written once per finished user turn.

Rules, in GAIA's words where they exist:

* a selection line with ``turn == 1`` opens a new session (scenario);
* a ``load_tools`` line is unioned into the loaded set of the current turn;
* a turn is satisfied when ``called ⊆ loaded``; ``load_tools`` itself always is;
* recall = satisfied turns / scored turns (a turn is scored when it has both a
  selection line and a ``TOOL_CALLS`` line);
* escape-hatch rate = (free recoveries + ``load_tools`` calls) / selection turns;
* ``tool_set_changes`` counts selection turns whose tool block differs from the
  one before it (by ``tools_hash``; by the loaded set on logs without hashes).

A ``TOOL_CALLS`` line with ``turn == 0`` comes from an agent whose loader was
off: every tool was shown, so it is counted as unfiltered and not scored.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from gaia_lite import logline

__all__ = ["TOOL_CALLS_PREFIX", "TurnScore", "LogScore", "score_lines", "score_file", "format_tool_calls"]

TOOL_CALLS_PREFIX = "TOOL_CALLS "
LOAD_TOOLS = "load_tools"
_TOOL_CALLS_RE = re.compile(r"TOOL_CALLS (\{.*\})\s*$")


def format_tool_calls(turn: int, session_turn: int, called: Iterable[str]) -> str:
    """The agent's line, for tests and for writers other than the agent."""
    return TOOL_CALLS_PREFIX + json.dumps({"turn": turn, "session_turn": session_turn, "called": list(called)})


@dataclass
class TurnScore:
    """One selection turn of one session."""

    session: int
    turn: int
    loaded: set[str]
    tools_hash: str | None
    called: list[str] | None = None
    escapes: list[str] = field(default_factory=list)
    load_tools: int = 0
    changed: bool = False

    @property
    def scored(self) -> bool:
        return self.called is not None

    @property
    def missing(self) -> list[str]:
        if self.called is None:
            return []
        return sorted({c for c in self.called if c != LOAD_TOOLS and c not in self.loaded})

    @property
    def satisfied(self) -> bool:
        return self.scored and not self.missing


@dataclass
class LogScore:
    turns: list[TurnScore]
    sessions: int
    unfiltered_turns: int
    reported_changes: int | None
    warnings: list[str]

    @property
    def scored(self) -> list[TurnScore]:
        return [t for t in self.turns if t.scored]

    @property
    def recall(self) -> float | None:
        scored = self.scored
        return sum(t.satisfied for t in scored) / len(scored) if scored else None

    @property
    def tool_turns(self) -> list[TurnScore]:
        """Scored turns that called at least one tool other than load_tools."""
        return [t for t in self.scored if any(c != LOAD_TOOLS for c in t.called or ())]

    @property
    def recall_tool_turns(self) -> float | None:
        turns = self.tool_turns
        return sum(t.satisfied for t in turns) / len(turns) if turns else None

    @property
    def escape_hatch_count(self) -> int:
        return sum(len(t.escapes) for t in self.turns)

    @property
    def load_tools_count(self) -> int:
        return sum(t.load_tools for t in self.turns)

    @property
    def escape_hatch_rate(self) -> float | None:
        if not self.turns:
            return None
        return logline.escape_hatch_rate(len(self.turns), self.escape_hatch_count, self.load_tools_count)

    @property
    def tool_set_changes(self) -> int:
        return sum(t.changed for t in self.turns)

    def to_dict(self) -> dict[str, Any]:
        misses = [{"session": t.session, "turn": t.turn, "called": t.called, "missing": t.missing}
                  for t in self.scored if not t.satisfied]
        return {
            "sessions": self.sessions,
            "turns": len(self.turns),
            "scored_turns": len(self.scored),
            "tool_turns": len(self.tool_turns),
            "recall": self.recall,
            "recall_tool_turns": self.recall_tool_turns,
            "misses": misses,
            "escape_hatch_count": self.escape_hatch_count,
            "load_tools_count": self.load_tools_count,
            "escape_hatch_rate": self.escape_hatch_rate,
            "tool_set_changes": self.tool_set_changes,
            "tool_set_changes_reported": self.reported_changes,
            "unfiltered_turns": self.unfiltered_turns,
            "warnings": list(self.warnings),
        }


class _Scorer:
    """Folds the lines of one log, in order, into TurnScores."""

    def __init__(self) -> None:
        self.turns: list[TurnScore] = []
        self.session = 0
        self.current: dict[int, TurnScore] = {}  # loader turn -> score, this session
        self.last_block: Any = None
        self.unfiltered = 0
        self.reported: int | None = None
        self.warnings: list[str] = []

    @staticmethod
    def _block(payload: dict[str, Any]) -> Any:
        h = payload.get("tools_hash")
        return h if h else tuple(sorted(payload.get("loaded", ())))

    def selection(self, p: dict[str, Any], lineno: int) -> None:
        turn = int(p["turn"])
        if turn == 1 or not self.turns:
            if turn != 1:
                self.warnings.append(f"line {lineno}: first selection line has turn {turn}, not 1")
            self.session += 1
            self.current = {}
            self.last_block = None
        block = self._block(p)
        changed = self.last_block is not None and block != self.last_block
        self.last_block = block
        t = TurnScore(self.session, turn, set(p.get("loaded", ())), p.get("tools_hash"), changed=changed)
        if turn in self.current:
            self.warnings.append(f"line {lineno}: session {self.session} repeats turn {turn}")
        self.current[turn] = t
        self.turns.append(t)

    def _turn(self, turn: Any, what: str, lineno: int) -> TurnScore | None:
        t = self.current.get(turn) if isinstance(turn, int) else None
        if t is None:
            self.warnings.append(f"line {lineno}: {what} for turn {turn!r} has no selection line before it")
        return t

    def load_tools(self, p: dict[str, Any], lineno: int) -> None:
        t = self._turn(p.get("turn"), "load_tools event", lineno)
        if t is None:
            return
        t.loaded |= set(p.get("loaded", ()))
        t.load_tools += 1
        self.last_block = self._block(p)  # the next selection compares against what was shown last

    def escape(self, p: dict[str, Any], lineno: int) -> None:
        t = self._turn(p.get("turn"), "free recovery", lineno)
        if t is not None:
            t.escapes.append(str(p.get("tool")))

    def session_summary(self, p: dict[str, Any]) -> None:
        changes = p.get("tool_set_changes")
        if isinstance(changes, int):
            self.reported = (self.reported or 0) + changes

    def tool_calls(self, p: dict[str, Any], lineno: int) -> None:
        turn = p.get("turn")
        called = p.get("called")
        if not isinstance(called, list):
            self.warnings.append(f"line {lineno}: TOOL_CALLS without a called list")
            return
        if turn == 0:
            self.unfiltered += 1
            return
        t = self._turn(turn, "TOOL_CALLS", lineno)
        if t is None:
            return
        if t.called is not None:
            self.warnings.append(f"line {lineno}: second TOOL_CALLS line for session {t.session} turn {turn}")
        t.called = [str(c) for c in called]

    def finish(self) -> LogScore:
        for t in self.turns:
            if t.called is None:
                self.warnings.append(f"session {t.session} turn {t.turn}: no TOOL_CALLS line (turn failed or log cut); "
                                     "not scored")
        return LogScore(self.turns, self.session, self.unfiltered, self.reported, self.warnings)


def score_lines(lines: Iterable[str]) -> LogScore:
    s = _Scorer()
    for lineno, line in enumerate(lines, 1):
        m = _TOOL_CALLS_RE.search(line)
        if m is not None:
            try:
                payload = json.loads(m.group(1))
            except json.JSONDecodeError:
                s.warnings.append(f"line {lineno}: TOOL_CALLS line is not valid JSON")
                continue
            if isinstance(payload, dict):
                s.tool_calls(payload, lineno)
            continue
        rec = logline.parse_line(line)
        if rec is None:
            continue
        if rec.kind == "selection":
            s.selection(rec.payload, lineno)
        elif rec.kind == "load_tools":
            s.load_tools(rec.payload, lineno)
        elif rec.kind == "escape_hatch":
            s.escape(rec.payload, lineno)
        elif rec.kind == "session":
            s.session_summary(rec.payload)
    return s.finish()


def score_file(path: Path | str) -> LogScore:
    with open(path, encoding="utf-8", errors="replace") as fh:
        return score_lines(fh)
