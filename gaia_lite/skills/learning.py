"""What the loader learns from use, kept in the memory database.

Two things, both from turns that called tools successfully:

* **the user's own wording**: the user message of such a turn becomes an
  example request for each tool the turn called successfully (table
  ``learned_examples``). Bounded: at most ``MAX_EXAMPLES_PER_TOOL`` per tool,
  the newest kept; a near-duplicate of a stored example replaces it. The
  loader embeds them in the same examples channel as the hand-written ones,
  so MCP tools and new tools, which have none, gain examples this way.
* **workflow companions**: which tools turns call together. They are counted
  from the ``tool_spans`` table the skills store already appends one row to
  per turn (``store.py``), so nothing new is written for them.

``LearnedTools`` is the plain-data snapshot the loader is built with; with an
empty database it is empty and the loader selects exactly as without it.
Learning takes effect from the next loader built (the next ``chat``/``ask``
or ``tools select``), not within the conversation that taught it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from gaia_lite.loader.companions import CompanionGraph, learn_companions
from gaia_lite.loader.worked import WorkedExample
from gaia_lite.memory.migrations import Migration, sql_migration
from gaia_lite.memory.store import mask_credentials, now_iso

from .store import SKILL_MIGRATIONS

__all__ = ["LearningStore", "LearnedTools", "LearnedExample", "LEARNING_MIGRATIONS", "MAX_EXAMPLES_PER_TOOL",
           "near_duplicate", "NOT_LEARNED"]

MAX_EXAMPLES_PER_TOOL = 8
MAX_EXAMPLE_CHARS = 300  # the embedder reads ~256 tokens; a long message is mostly context, not wording
MIN_EXAMPLE_WORDS = 2
NEAR_DUPLICATE = 0.8  # word-set Jaccard at or above this = the same request
NOT_LEARNED = frozenset({"load_tools"})  # the escape hatch says nothing about the request
MAX_CALL_CHARS = 400  # a learned call's arguments as JSON; longer ones are kept as wording only

LEARNING_MIGRATIONS: list[Migration] = [
    sql_migration(
        "learning_m001_examples",
        """CREATE TABLE learned_examples (
            id INTEGER PRIMARY KEY,
            tool TEXT NOT NULL,
            text TEXT NOT NULL,
            created_at TEXT NOT NULL
        )""",
        "CREATE INDEX learned_examples_tool ON learned_examples(tool, id)",
    ),
    # the call that served the request (JSON arguments), so it can be shown as a worked example
    sql_migration("learning_m002_example_calls", "ALTER TABLE learned_examples ADD COLUMN arguments TEXT"),
]

_WORD = re.compile(r"\w+")


def _words(text: str) -> frozenset[str]:
    return frozenset(w.lower() for w in _WORD.findall(text))


def near_duplicate(a: str, b: str) -> bool:
    """Same request in other words order or with a word changed (word-set Jaccard ≥ 0.8)."""
    wa, wb = _words(a), _words(b)
    if not wa or not wb:
        return wa == wb
    return len(wa & wb) / len(wa | wb) >= NEAR_DUPLICATE


@dataclass(frozen=True)
class LearnedExample:
    id: int
    tool: str
    text: str
    created_at: str
    arguments: str | None = None  # the call that served it, as JSON (None: learned before calls were kept)


@dataclass(frozen=True)
class LearnedTools:
    """The loader's snapshot of what was learned: example requests per tool, companion edges."""

    examples: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    companions: CompanionGraph = field(default_factory=CompanionGraph)
    worked: tuple[WorkedExample, ...] = ()  # the requests that carry the call that served them

    @property
    def empty(self) -> bool:
        return not self.examples and self.companions.empty


def _call_json(arguments: Mapping[str, Any] | None) -> str | None:
    """A call's arguments as stored: JSON, credentials masked, None when there are none or they are long
    (a written file's whole text teaches less than it costs every turn it is shown)."""
    if not arguments:
        return None
    raw = mask_credentials(json.dumps(dict(arguments), ensure_ascii=False, default=str))
    return raw if len(raw) <= MAX_CALL_CHARS else None


def _successful_tools(calls: Iterable[Any]) -> list[str]:
    """Tools whose last call in the turn succeeded (a failed call retried successfully counts)."""
    last: dict[str, bool] = {}
    for call in calls:
        tool, ok = (call["tool"], call.get("ok")) if isinstance(call, Mapping) else (call[0], call[-1])
        last[str(tool)] = bool(ok)
    return [t for t, ok in last.items() if ok and t not in NOT_LEARNED]


class LearningStore:
    """Learned examples and companion counts over a ``MemoryStore``'s connection."""

    def __init__(self, memory: Any) -> None:
        self.memory = memory
        memory.apply_migrations(SKILL_MIGRATIONS)  # tool_spans, which companions are counted from
        memory.apply_migrations(LEARNING_MIGRATIONS)

    # ------------------------------------------------------------------ examples
    def learn_turn(self, message: str, calls: Sequence[Any],
                   arguments: Mapping[str, Mapping[str, Any]] | None = None) -> list[str]:
        """Keep ``message`` as an example request of each tool the turn called successfully, with the
        arguments of its successful call when ``arguments`` has them (a worked example). Returns those tools."""
        text = mask_credentials(" ".join(message.split()))[:MAX_EXAMPLE_CHARS]
        tools = _successful_tools(calls)
        if len(_WORD.findall(text)) < MIN_EXAMPLE_WORDS or not tools:
            return []
        now = now_iso()
        with self.memory.transaction() as c:
            for tool in tools:
                rows = c.execute("SELECT id, text FROM learned_examples WHERE tool=? ORDER BY id", (tool,)).fetchall()
                stale = [r[0] for r in rows if near_duplicate(r[1], text)]
                kept = len(rows) - len(stale)
                overflow = [r[0] for r in rows if r[0] not in stale][:max(0, kept + 1 - MAX_EXAMPLES_PER_TOOL)]
                drop = stale + overflow
                if drop:
                    c.execute(f"DELETE FROM learned_examples WHERE id IN ({','.join('?' * len(drop))})", drop)
                args = _call_json((arguments or {}).get(tool))
                c.execute("INSERT INTO learned_examples(tool, text, created_at, arguments) VALUES (?,?,?,?)",
                          (tool, text, now, args))
        return tools

    def list_examples(self, tool: str | None = None) -> list[LearnedExample]:
        """Newest first, per tool in name order."""
        where, args = ("WHERE tool=?", (tool,)) if tool else ("", ())
        with self.memory.reading() as c:
            rows = c.execute(f"SELECT id, tool, text, created_at, arguments FROM learned_examples {where} "
                             "ORDER BY tool, id DESC", args).fetchall()
        return [LearnedExample(*r) for r in rows]

    def forget_examples(self, tool: str | None = None) -> int:
        """Delete the learned examples of ``tool`` (every tool's for ``None``); returns how many."""
        where, args = ("WHERE tool=?", (tool,)) if tool else ("", ())
        with self.memory.transaction() as c:
            return c.execute(f"DELETE FROM learned_examples {where}", args).rowcount

    def examples(self) -> dict[str, tuple[str, ...]]:
        """Example requests per tool, oldest first (a stable order for the loader's cache keys)."""
        out: dict[str, list[str]] = {}
        with self.memory.reading() as c:
            for tool, text in c.execute("SELECT tool, text FROM learned_examples ORDER BY tool, id"):
                out.setdefault(tool, []).append(text)
        return {t: tuple(v) for t, v in out.items()}

    # ------------------------------------------------------------------ companions
    def turn_tools(self) -> list[list[str]]:
        """The tools each recorded turn called successfully (turns that called at least one)."""
        with self.memory.reading() as c:
            rows = c.execute("SELECT calls FROM tool_spans ORDER BY id").fetchall()
        turns = []
        for (raw,) in rows:
            try:
                tools = _successful_tools(json.loads(raw))
            except (ValueError, KeyError, TypeError):
                continue  # a damaged row teaches nothing
            if tools:
                turns.append(tools)
        return turns

    def companions(self, prior: Mapping[str, Sequence[str]] | None = None) -> CompanionGraph:
        return learn_companions(self.turn_tools(), prior)

    def worked(self) -> tuple[WorkedExample, ...]:
        """The learned requests stored with their call, oldest first."""
        out = []
        with self.memory.reading() as c:
            for tool, text, raw in c.execute("SELECT tool, text, arguments FROM learned_examples "
                                             "WHERE arguments IS NOT NULL ORDER BY id"):
                try:
                    args = json.loads(raw)
                except ValueError:
                    continue  # a damaged row teaches nothing
                if isinstance(args, dict):
                    out.append(WorkedExample(text, tool, args, learned=True))
        return tuple(out)

    def snapshot(self, prior: Mapping[str, Sequence[str]] | None = None) -> LearnedTools:
        return LearnedTools(self.examples(), self.companions(prior), self.worked())
