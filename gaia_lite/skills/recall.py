"""The per-turn side of skills: recall procedures for a goal, record what the turn did.

The agent calls ``recall_for_turn(goal)`` once per user turn, before tool
selection. One embedding of the clean goal feeds one search; the result is
used twice: its ``tools`` go to the loader as ``skill_tools`` (the SKILL tier,
admitted after CORE and before SEMANTIC) and its ``prompt_block`` becomes the
"recalled procedures" part of the system prompt.

With no enabled procedure stored, nothing is embedded, logged or returned,
so selection, the ``TOOL_LOADER`` line and the prompt are exactly those of
a build without skills.

After the answer, ``record_turn`` appends the turn's tool span (for
synthesis and workflow companions), counts an attempt, and a success, for
each recalled procedure, and keeps the user's wording as an example request
of each tool the turn called successfully (``learning.py``).
"""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from .learning import LearningStore
from .procedure import Procedure, dedupe
from .store import ProcedureStore

__all__ = ["SkillService", "RecalledSkills", "RecalledProcedure", "format_prompt_block", "span_succeeded",
           "DEFAULT_TAU", "DEFAULT_TOP_K", "BODY_CAP", "LOGGER_NAME"]

LOGGER_NAME = "gaia_lite.skills"
DEFAULT_TAU = 0.70  # for MiniLM, from the held-out curve in docs/skills.md (GAIA: 0.82, for EmbeddingGemma)
DEFAULT_TOP_K = 2
BODY_CAP = 1500  # characters of each procedure body shown in the prompt

log = logging.getLogger(LOGGER_NAME)

Span = Sequence[tuple[str, dict[str, str], bool]]


@dataclass(frozen=True)
class RecalledProcedure:
    procedure: Procedure
    score: float


@dataclass(frozen=True)
class RecalledSkills:
    """One turn's recall: the procedures, the SKILL-tier tools and the prompt block."""

    procedures: tuple[RecalledProcedure, ...] = ()
    tools: list[str] = field(default_factory=list)
    prompt_block: str = ""

    @property
    def names(self) -> list[str]:
        return [r.procedure.name for r in self.procedures]


_EMPTY = RecalledSkills()


def format_prompt_block(procedures: Sequence[Procedure], known_tools: Any = None, *, body_cap: int = BODY_CAP) -> str:
    """The "recalled procedures" block ("" for none; where it goes is the prompt layout's call). Bodies are cut at ``body_cap``."""
    if not procedures:
        return ""
    parts = ["## Recalled procedures",
             "These procedures worked for similar requests before. If one fits this request, carry it "
             "out yourself with tool calls, one call at a time: wait for each result and use the real "
             "file names it returns. Do not describe the steps to the user; answer with the facts you "
             "found. Ignore a procedure that does not fit."]
    for proc in procedures:
        tools = [t for t in proc.tools_required if known_tools is None or t in known_tools]
        body = proc.body.strip()
        if len(body) > body_cap:
            body = body[:body_cap].rstrip() + " …"
        lines = [f"### {proc.name}", f"When to use: {proc.when_to_use}"]
        if tools:
            lines.append(f"Tools: {', '.join(tools)}")
        lines.append(body)
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def span_succeeded(span: Span, answered: bool) -> bool:
    """A turn succeeded when it answered and the last call of every tool it used succeeded
    (a failed call that was retried successfully counts as recovered)."""
    if not answered:
        return False
    last: dict[str, bool] = {}
    for tool, _shape, ok in span:
        last[tool] = bool(ok)
    return all(last.values())


class SkillService:
    """Procedural memory for the agent: recall before selection, recording after the answer."""

    def __init__(self, memory_store: Any, embedder: Any, registry: Any, *, tau: float = DEFAULT_TAU,
                 top_k: int = DEFAULT_TOP_K, body_cap: int = BODY_CAP) -> None:
        self.store = ProcedureStore(memory_store, embedder)
        self.learning = LearningStore(memory_store)
        self.embedder = embedder
        self.registry = registry
        self.tau = float(tau)
        self.top_k = int(top_k)
        self.body_cap = int(body_cap)
        self._last = _EMPTY
        self._lock = threading.Lock()

    def recall(self, goal: str) -> list[RecalledProcedure]:
        """The ``top_k`` enabled procedures matching ``goal`` at cosine ≥ τ (no embedding when none exist)."""
        goal = goal.strip()
        if not goal or self.top_k <= 0 or self.store.count(enabled_only=True) == 0:
            return []
        vec = self.store.embed_goal(goal)
        return [RecalledProcedure(p, s) for p, s in self.store.search(vec, top_k=self.top_k, tau=self.tau)]

    def recall_for_turn(self, goal: str) -> RecalledSkills:
        """Run once per user turn with the clean user text; see the module doc."""
        with self._lock:
            self._last = _EMPTY
        hits = self.recall(goal)
        if not hits:
            return _EMPTY
        procs = [h.procedure for h in hits]
        tools = [t for t in dedupe(t for p in procs for t in p.tools_required) if t in self.registry]
        result = RecalledSkills(tuple(hits), tools, format_prompt_block(procs, self.registry, body_cap=self.body_cap))
        with self._lock:
            self._last = result
        log.info("SKILL_RECALL %s", json.dumps({
            "procedures": [h.procedure.name for h in hits], "scores": [round(h.score, 4) for h in hits],
            "tau": self.tau, "tools": tools}))
        return result

    def record_turn(self, goal: str, span: Span, answered: bool,
                    calls: Sequence[tuple[str, Mapping[str, Any]]] = ()) -> None:
        """Store the turn's tool span and credit the procedures recalled for it; ``calls`` (the turn's
        successful calls with their arguments) make the learned examples worked ones."""
        with self._lock:
            recalled, self._last = self._last.names, _EMPTY
        if span or recalled:
            self.store.record_turn(goal, span, success=span_succeeded(span, answered), answered=answered,
                                   recalled=recalled)
        if span and answered:  # the user's wording becomes an example of each tool that worked
            first: dict[str, Mapping[str, Any]] = {}
            for tool, arguments in calls:
                first.setdefault(tool, arguments)
            self.learning.learn_turn(goal, span, first)
