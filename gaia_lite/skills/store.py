"""The procedures and tool spans, stored in the memory database.

Two tables, added to ``memory.db`` by this module's own migrations (the
memory store owns the file and its connection policy; we only borrow its
``transaction()`` / ``reading()`` context managers):

* ``procedures``: one learned or hand-written skill per row, with the
  float32 vector of its ``when_to_use`` text and the id of the embedder
  that produced it (a vector from another embedder is re-computed on use);
* ``tool_spans``: what each agent turn did, i.e. the goal (clean user text),
  the tools called with argument *shapes* and whether each call succeeded.
  Synthesis reads them; the turn only appends one row.

Search is exact: the enabled vectors are read and scored with one numpy
product per call. A user has tens of procedures, so this costs well under a
millisecond, and a skill added by another process (``gaia-lite skills add``
while a chat is open) is seen on the next turn.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from gaia_lite.errors import GaiaError
from gaia_lite.memory.migrations import Migration, sql_migration
from gaia_lite.memory.store import decode_vector, encode_vector, mask_credentials, now_iso

from .procedure import Procedure, ProcedureSpec, ToolStep, dedupe, is_valid_name, parse_skill_file

__all__ = [
    "ProcedureStore", "SpanRecord", "SkillStoreError", "SKILL_MIGRATIONS", "seed_procedures",
    "load_skill_dir", "MAX_GOAL_CHARS", "MAX_BODY_CHARS", "MAX_SPANS",
]

log = logging.getLogger(__name__)

MAX_GOAL_CHARS = 2000  # a stored goal; longer text is cut (only its meaning matters)
MAX_BODY_CHARS = 8000  # a stored procedure body (the prompt shows at most 1,500)
MAX_SPANS = 5000  # the newest spans kept; older ones are pruned on insert


class SkillStoreError(GaiaError, ValueError):
    """A procedure operation the user asked for cannot be done; the message says why."""


SKILL_MIGRATIONS: list[Migration] = [
    sql_migration(
        "skills_m001_procedures",
        """CREATE TABLE procedures (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            when_to_use TEXT NOT NULL,
            body TEXT NOT NULL,
            tools_required TEXT NOT NULL DEFAULT '[]',
            tool_sequence TEXT NOT NULL DEFAULT '[]',
            success_count INTEGER NOT NULL DEFAULT 0,
            attempt_count INTEGER NOT NULL DEFAULT 0,
            enabled INTEGER NOT NULL DEFAULT 1,
            provenance TEXT NOT NULL DEFAULT 'manual',
            created_at TEXT NOT NULL,
            last_used_at TEXT,
            embedding BLOB,
            embedder_id TEXT NOT NULL DEFAULT ''
        )""",
        "CREATE INDEX procedures_enabled ON procedures(enabled)",
    ),
    sql_migration(
        "skills_m002_tool_spans",
        """CREATE TABLE tool_spans (
            id INTEGER PRIMARY KEY,
            goal TEXT NOT NULL,
            calls TEXT NOT NULL,
            steps INTEGER NOT NULL,
            success INTEGER NOT NULL,
            answered INTEGER NOT NULL,
            recalled TEXT NOT NULL DEFAULT '[]',
            procedure_name TEXT,
            created_at TEXT NOT NULL,
            embedding BLOB,
            embedder_id TEXT NOT NULL DEFAULT ''
        )""",
        "CREATE INDEX tool_spans_open ON tool_spans(procedure_name, steps)",
    ),
]

_PROC_COLS = ("id, name, when_to_use, body, tools_required, tool_sequence, success_count, attempt_count, "
              "enabled, provenance, created_at, last_used_at")


def _procedure(row: Sequence[Any]) -> Procedure:
    return Procedure(
        id=row[0], name=row[1], when_to_use=row[2], body=row[3],
        tools_required=tuple(json.loads(row[4] or "[]")),
        tool_sequence=tuple(ToolStep.from_json(s) for s in json.loads(row[5] or "[]")),
        success_count=row[6], attempt_count=row[7], enabled=bool(row[8]), provenance=row[9],
        created_at=row[10], last_used_at=row[11])


@dataclass(frozen=True)
class SpanRecord:
    """One recorded turn: the goal and its tool calls (name, argument shapes, ok)."""

    id: int
    goal: str
    calls: tuple[tuple[str, dict[str, str], bool], ...]
    success: bool
    answered: bool
    created_at: str
    vector: np.ndarray | None = None

    @property
    def steps(self) -> int:
        return len(self.calls)

    @property
    def tools(self) -> list[str]:
        return [c[0] for c in self.calls]


def _embedder_id(embedder: Any) -> str:
    return str(getattr(embedder, "id", type(embedder).__name__))


class ProcedureStore:
    """Procedures and tool spans over a ``MemoryStore``'s connection (see module doc)."""

    def __init__(self, memory: Any, embedder: Any = None) -> None:
        self.memory = memory
        self.embedder = embedder
        memory.apply_migrations(SKILL_MIGRATIONS)

    # ------------------------------------------------------------------ embedding
    def _vectors(self, texts: list[str]) -> np.ndarray:
        """One L2-normalised row per text. Triggers and goals are both requests,
        so both go through ``embed_query``: the same space and, for the goal,
        the very vector the loader computes for the turn's first message."""
        if self.embedder is None:
            raise SkillStoreError("no embedder is configured, so procedures cannot be matched")
        return np.stack([np.asarray(self.embedder.embed_query(t), dtype=np.float32) for t in texts])

    def embed_goal(self, text: str) -> np.ndarray:
        return self._vectors([text])[0]

    # ------------------------------------------------------------------ procedures
    def add(self, spec: ProcedureSpec, *, provenance: str = "manual", tool_sequence: Iterable[ToolStep] = (),
            replace: bool = False, embed: bool = True) -> Procedure:
        """Store ``spec``. An existing name raises unless ``replace`` (counts are kept then).

        With ``embed`` the trigger is embedded now; if that fails the row is
        stored without a vector and embedded on first use.
        """
        if not is_valid_name(spec.name):
            raise SkillStoreError(f"procedure name {spec.name!r} must be kebab-case, at most 64 characters")
        if not spec.when_to_use.strip():
            raise SkillStoreError("when_to_use must not be empty: it is what a goal is matched against")
        blob, emb_id = None, ""
        if embed and self.embedder is not None:
            try:
                blob, emb_id = encode_vector(self.embed_goal(spec.when_to_use)), _embedder_id(self.embedder)
            except Exception as exc:  # stored anyway; re-embedded when recall first needs it
                log.warning("skills: could not embed %r now (%s); it will be embedded on first use", spec.name, exc)
        values = (spec.when_to_use.strip(), spec.body.strip()[:MAX_BODY_CHARS],
                  json.dumps(dedupe(spec.tools_required)),
                  json.dumps([s.to_json() for s in tool_sequence]), provenance, blob, emb_id)
        with self.memory.transaction() as c:
            exists = c.execute("SELECT 1 FROM procedures WHERE name=?", (spec.name,)).fetchone()
            if exists and not replace:
                raise SkillStoreError(f"a procedure named {spec.name!r} already exists")
            if exists:
                c.execute("UPDATE procedures SET when_to_use=?, body=?, tools_required=?, tool_sequence=?, "
                          "provenance=?, embedding=?, embedder_id=?, enabled=1 WHERE name=?", (*values, spec.name))
            else:
                c.execute("INSERT INTO procedures(name, when_to_use, body, tools_required, tool_sequence, "
                          "provenance, embedding, embedder_id, created_at) VALUES (?,?,?,?,?,?,?,?,?)",
                          (spec.name, *values, now_iso()))
        got = self.get(spec.name)
        assert got is not None
        return got

    def get(self, name: str) -> Procedure | None:
        with self.memory.reading() as c:
            row = c.execute(f"SELECT {_PROC_COLS} FROM procedures WHERE name=?", (name,)).fetchone()
        return _procedure(row) if row else None

    def all(self, *, enabled_only: bool = False) -> list[Procedure]:
        where = "WHERE enabled=1" if enabled_only else ""
        with self.memory.reading() as c:
            rows = c.execute(f"SELECT {_PROC_COLS} FROM procedures {where} ORDER BY name").fetchall()
        return [_procedure(r) for r in rows]

    def count(self, *, enabled_only: bool = True) -> int:
        where = "WHERE enabled=1" if enabled_only else ""
        with self.memory.reading() as c:
            return int(c.execute(f"SELECT COUNT(*) FROM procedures {where}").fetchone()[0])

    def set_enabled(self, name: str, enabled: bool) -> bool:
        """False when no procedure has that name."""
        with self.memory.transaction() as c:
            return c.execute("UPDATE procedures SET enabled=? WHERE name=?", (int(enabled), name)).rowcount > 0

    def delete(self, name: str) -> bool:
        """False when no procedure has that name.

        The spans it was distilled from stay claimed, so the next synthesis
        pass does not bring back a procedure the user deleted.
        """
        with self.memory.transaction() as c:
            return c.execute("DELETE FROM procedures WHERE name=?", (name,)).rowcount > 0

    def unique_name(self, base: str) -> str:
        """``base``, or ``base-2``, ``base-3``… if taken."""
        with self.memory.reading() as c:
            taken = {r[0] for r in c.execute("SELECT name FROM procedures WHERE name = ? OR name LIKE ?",
                                             (base, base + "-%"))}
        if base not in taken:
            return base
        n = 2
        while f"{base[:60]}-{n}" in taken:
            n += 1
        return f"{base[:60]}-{n}"

    def search(self, query_vec: np.ndarray, *, top_k: int = 2, tau: float = 0.70) -> list[tuple[Procedure, float]]:
        """The ``top_k`` enabled procedures whose trigger has cosine ≥ ``tau`` with the query, best first."""
        if top_k <= 0:
            return []
        emb_id = _embedder_id(self.embedder)
        with self.memory.reading() as c:
            rows = c.execute("SELECT id, when_to_use, embedding, embedder_id FROM procedures "
                             "WHERE enabled=1 ORDER BY id").fetchall()
        if not rows:
            return []
        stale = [(r[0], r[1]) for r in rows if r[2] is None or r[3] != emb_id]
        fresh = {r[0]: decode_vector(r[2]) for r in rows if r[2] is not None and r[3] == emb_id}
        if stale:
            fresh.update(self._backfill(stale, emb_id))
        q = np.asarray(query_vec, dtype=np.float32).ravel()
        ids = [i for i in fresh if fresh[i].shape[0] == q.shape[0]]
        if not ids:
            return []
        scores = np.stack([fresh[i] for i in ids]) @ q
        order = sorted(range(len(ids)), key=lambda j: (-float(scores[j]), ids[j]))
        hits = [(ids[j], float(scores[j])) for j in order if float(scores[j]) >= tau][:top_k]
        if not hits:
            return []
        with self.memory.reading() as c:
            by_id = {r[0]: _procedure(r) for r in c.execute(
                f"SELECT {_PROC_COLS} FROM procedures WHERE id IN ({','.join('?' * len(hits))})",
                [h[0] for h in hits])}
        return [(by_id[i], s) for i, s in hits if i in by_id]

    def _backfill(self, rows: list[tuple[int, str]], emb_id: str) -> dict[int, np.ndarray]:
        """Embed triggers that have no vector, or one from another embedder."""
        try:
            vecs = self._vectors([text for _, text in rows])
        except Exception as exc:
            log.warning("skills: could not embed %d procedure trigger(s): %s", len(rows), exc)
            return {}
        with self.memory.transaction() as c:
            c.executemany("UPDATE procedures SET embedding=?, embedder_id=? WHERE id=?",
                          [(encode_vector(v), emb_id, pid) for (pid, _), v in zip(rows, vecs)])
        return {pid: v for (pid, _), v in zip(rows, vecs)}

    def record_turn(self, goal: str, calls: Sequence[tuple[str, dict[str, str], bool]], *, success: bool,
                    answered: bool, recalled: Sequence[str] = ()) -> int | None:
        """One finished turn, in one transaction: append its span (when it called tools;
        the goal is stored with secrets masked) and credit the procedures recalled for it
        (an attempt, a success if ``success``, ``last_used_at``). Returns the span id."""
        span_id = None
        with self.memory.transaction() as c:
            if calls:
                payload = [{"tool": t, "args": dict(shape), "ok": bool(ok)} for t, shape, ok in calls]
                span_id = int(c.execute(
                    "INSERT INTO tool_spans(goal, calls, steps, success, answered, recalled, created_at) "
                    "VALUES (?,?,?,?,?,?,?)",
                    (mask_credentials(goal.strip())[:MAX_GOAL_CHARS], json.dumps(payload), len(payload),
                     int(success), int(answered), json.dumps(list(recalled)), now_iso())).lastrowid)
                if span_id > MAX_SPANS and span_id % 100 == 0:
                    c.execute("DELETE FROM tool_spans WHERE id <= ?", (span_id - MAX_SPANS,))
            if recalled:
                now = now_iso()
                c.executemany("UPDATE procedures SET attempt_count=attempt_count+1, "
                              "success_count=success_count+?, last_used_at=? WHERE name=?",
                              [(int(success), now, n) for n in recalled])
        return span_id

    def open_spans(self, *, min_steps: int = 1) -> list[SpanRecord]:
        """Spans not yet turned into a procedure, oldest first, with their cached goal vectors."""
        emb_id = _embedder_id(self.embedder)
        with self.memory.reading() as c:
            rows = c.execute("SELECT id, goal, calls, success, answered, created_at, embedding, embedder_id "
                             "FROM tool_spans WHERE procedure_name IS NULL AND steps >= ? ORDER BY id",
                             (min_steps,)).fetchall()
        out = []
        for r in rows:
            calls = tuple((str(x["tool"]), dict(x.get("args") or {}), bool(x.get("ok"))) for x in json.loads(r[2]))
            vec = decode_vector(r[6]) if r[6] is not None and r[7] == emb_id else None
            out.append(SpanRecord(r[0], r[1], calls, bool(r[3]), bool(r[4]), r[5], vec))
        return out

    def cache_span_vectors(self, vectors: dict[int, np.ndarray]) -> None:
        emb_id = _embedder_id(self.embedder)
        with self.memory.transaction() as c:
            c.executemany("UPDATE tool_spans SET embedding=?, embedder_id=? WHERE id=?",
                          [(encode_vector(v), emb_id, sid) for sid, v in vectors.items()])

    def claim_spans(self, span_ids: Iterable[int], procedure: str) -> None:
        """Mark spans as distilled into ``procedure`` so later passes skip them."""
        with self.memory.transaction() as c:
            c.executemany("UPDATE tool_spans SET procedure_name=? WHERE id=?", [(procedure, i) for i in span_ids])

    def span_count(self) -> int:
        with self.memory.reading() as c:
            return int(c.execute("SELECT COUNT(*) FROM tool_spans").fetchone()[0])


# ----------------------------------------------------------------------------- seeds

def load_skill_dir(directory: Path) -> list[ProcedureSpec]:
    """Every ``*.md`` skill file under ``directory`` (sorted by file name)."""
    specs = []
    for path in sorted(Path(directory).glob("*.md")):
        try:
            specs.append(parse_skill_file(path.read_text(encoding="utf-8"), default_name=path.stem))
        except ValueError as exc:
            raise SkillStoreError(f"{path}: {exc}") from None
    return specs


def seed_procedures(memory_store: Any, embedder: Any, seeds_dir: Path, *,
                    provenance: str = "seed") -> list[Procedure]:
    """Add (or replace) the procedures of every skill file in ``seeds_dir``; returns them.

    For benchmarks and demos: e.g. seed a fresh memory DB, then run
    ``gaia-lite eval tasks`` against it to compare skills off vs on.
    """
    store = ProcedureStore(memory_store, embedder)
    return [store.add(spec, provenance=provenance, replace=True) for spec in load_skill_dir(seeds_dir)]
