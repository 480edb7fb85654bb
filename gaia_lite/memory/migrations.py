"""Opening the SQLite files and evolving their schema.

Each schema change is a named ``Migration`` applied once, in list order, inside
its own transaction; the names already applied live in ``schema_migrations``.
Two ordered lists exist, one per file:

* ``MEMORY_MIGRATIONS`` for ``memory.db`` (facts, turns, tool history, meta);
* ``RAG_MIGRATIONS`` for the document index.

Adding a table later (the ``procedures`` table of learned skills, say) means
appending a ``Migration`` with a new name: either here, or at run time with
``MemoryStore.apply_migrations([...])``. A name is never reused or edited once
released, because databases in the field remember it.

Durability: every connection runs in WAL mode. ``synchronous`` is chosen per
file by the caller (see ``MemoryStore`` for why memory uses FULL).
"""

from __future__ import annotations

import sqlite3
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterable, Iterator, Literal, Sequence

from gaia_lite.errors import GaiaError


class DatabaseFileError(GaiaError):
    """A SQLite file cannot be opened or is damaged; the message names it and the way out."""

    exit_code = 1

__all__ = [
    "DatabaseFileError", "Migration", "sql_migration", "MEMORY_MIGRATIONS", "RAG_MIGRATIONS",
    "open_database", "apply_migrations", "applied_migrations", "locked_transaction",
]


@dataclass(frozen=True)
class Migration:
    """One schema change. ``apply`` runs inside a transaction; it must not commit."""

    name: str
    apply: Callable[[sqlite3.Connection], None]


def sql_migration(name: str, *statements: str) -> Migration:
    """A migration made of plain SQL statements, executed one by one."""
    def run(conn: sqlite3.Connection) -> None:
        for stmt in statements:
            conn.execute(stmt)
    return Migration(name, run)


def _fts_for(table: str, column: str, key: str) -> list[str]:
    """An external-content FTS5 index over ``table.column`` kept in sync by triggers.

    The triggers run inside the writer's transaction, so the index can never
    disagree with the table after a crash.
    """
    fts = f"{table}_fts"
    drop_old = f"INSERT INTO {fts}({fts}, rowid, {column}) VALUES ('delete', old.{key}, old.{column});"
    add_new = f"INSERT INTO {fts}(rowid, {column}) VALUES (new.{key}, new.{column});"
    return [
        f"CREATE VIRTUAL TABLE {fts} USING fts5({column}, content='{table}', "
        f"content_rowid='{key}', tokenize='porter unicode61')",
        f"CREATE TRIGGER {fts}_insert AFTER INSERT ON {table} BEGIN {add_new} END",
        f"CREATE TRIGGER {fts}_delete AFTER DELETE ON {table} BEGIN {drop_old} END",
        f"CREATE TRIGGER {fts}_update AFTER UPDATE OF {column} ON {table} BEGIN {drop_old} {add_new} END",
    ]


_M001_MEMORY = sql_migration(
    "m001_memory_core",
    """CREATE TABLE knowledge (
        row_id INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        category TEXT NOT NULL,
        content TEXT NOT NULL,
        domain TEXT NOT NULL DEFAULT '',
        context TEXT NOT NULL DEFAULT '',
        entity TEXT NOT NULL DEFAULT '',
        sensitive INTEGER NOT NULL DEFAULT 0,
        due_at TEXT,
        reminded_at TEXT,
        confidence REAL NOT NULL DEFAULT 0.7,
        source TEXT NOT NULL DEFAULT 'tool',
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        use_count INTEGER NOT NULL DEFAULT 0,
        embedding BLOB
    )""",
    "CREATE INDEX knowledge_category ON knowledge(category)",
    "CREATE INDEX knowledge_created ON knowledge(created_at)",
    "CREATE INDEX knowledge_due ON knowledge(due_at) WHERE due_at IS NOT NULL",
    *_fts_for("knowledge", "content", "row_id"),
    """CREATE TABLE conversations (
        id INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL,
        role TEXT NOT NULL,
        content TEXT NOT NULL,
        ts TEXT NOT NULL
    )""",
    "CREATE INDEX conversations_ts ON conversations(ts)",
    "CREATE INDEX conversations_session ON conversations(session_id, id)",
    *_fts_for("conversations", "content", "id"),
    """CREATE TABLE tool_history (
        id INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL DEFAULT '',
        tool TEXT NOT NULL,
        args TEXT NOT NULL DEFAULT '{}',
        status TEXT NOT NULL DEFAULT '',
        error TEXT NOT NULL DEFAULT '',
        duration_ms REAL,
        ts TEXT NOT NULL
    )""",
    "CREATE INDEX tool_history_ts ON tool_history(ts)",
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
)

_M001_RAG = sql_migration(
    "m001_rag_core",
    """CREATE TABLE documents (
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL UNIQUE,
        sha256 TEXT NOT NULL,
        mtime REAL NOT NULL,
        size INTEGER NOT NULL,
        pages INTEGER NOT NULL,
        chunks INTEGER NOT NULL,
        indexed_at TEXT NOT NULL
    )""",
    """CREATE TABLE document_text (
        doc_id INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
        text TEXT NOT NULL
    )""",
    """CREATE TABLE chunks (
        id INTEGER PRIMARY KEY,
        doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        idx INTEGER NOT NULL,
        page INTEGER NOT NULL,
        text TEXT NOT NULL,
        embedding BLOB
    )""",
    "CREATE INDEX chunks_doc ON chunks(doc_id, idx)",
    *_fts_for("chunks", "text", "id"),
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
)

#: Ordered schema of memory.db. Append only; never rename a released entry.
MEMORY_MIGRATIONS: list[Migration] = [_M001_MEMORY]

#: Ordered schema of the document index. Append only.
RAG_MIGRATIONS: list[Migration] = [_M001_RAG]


def applied_migrations(conn: sqlite3.Connection) -> list[str]:
    """Names of the migrations already applied, in the order they ran."""
    conn.execute("CREATE TABLE IF NOT EXISTS schema_migrations "
                 "(name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    return [r[0] for r in conn.execute("SELECT name FROM schema_migrations ORDER BY rowid")]


def apply_migrations(conn: sqlite3.Connection, migrations: Iterable[Migration]) -> list[str]:
    """Apply, in order, each migration not yet recorded; return the names applied now.

    The connection must be in autocommit mode (``isolation_level=None``):
    each migration gets its own ``BEGIN IMMEDIATE`` … ``COMMIT``.
    """
    done = set(applied_migrations(conn))
    ran: list[str] = []
    seen: set[str] = set()
    for m in migrations:
        if m.name in seen:
            raise ValueError(f"migration {m.name!r} is listed twice")
        seen.add(m.name)
        if m.name in done:
            continue
        conn.execute("BEGIN IMMEDIATE")
        # Another process may have migrated between our read and the write lock
        # (two first starts at once): re-check under the lock.
        if conn.execute("SELECT 1 FROM schema_migrations WHERE name = ?", (m.name,)).fetchone():
            conn.execute("COMMIT")
            continue
        try:
            m.apply(conn)
            conn.execute("INSERT INTO schema_migrations(name, applied_at) VALUES (?, ?)",
                         (m.name, datetime.now(timezone.utc).isoformat(timespec="seconds")))
        except BaseException:
            if conn.in_transaction:  # SQLite itself rolls back on a full disk; a second ROLLBACK would hide why
                conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        ran.append(m.name)
    return ran


def open_database(path: Path, migrations: Sequence[Migration], *,
                  synchronous: Literal["FULL", "NORMAL"] = "FULL") -> sqlite3.Connection:
    """Open (creating if needed) a WAL-mode SQLite file and bring its schema up to date.

    The connection may be used from any thread (``check_same_thread=False``);
    callers serialise access with their own lock.
    """
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None, timeout=30)
    except (OSError, sqlite3.Error) as exc:
        raise DatabaseFileError(f"cannot open {path}: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        _open_retrying(conn, path, migrations, synchronous)
    except sqlite3.DatabaseError as exc:
        conn.close()
        if isinstance(exc, sqlite3.OperationalError) and "malformed" not in str(exc):
            raise DatabaseFileError(f"cannot open {path}: {exc}") from None
        raise DatabaseFileError(
            f"{path} is damaged or not a gaia-lite database ({exc}); move it aside "
            f"(mv '{path}' '{path}.broken') and gaia-lite starts an empty one; keep the moved file to "
            "recover from it") from None
    except BaseException:
        conn.close()
        raise
    return conn


def _open_retrying(conn: sqlite3.Connection, path: Path, migrations: Sequence[Migration], synchronous: str,
                   *, attempts: int = 60) -> None:
    """``_open``, retried while another process is creating the same file: SQLite
    reports SQLITE_BUSY without waiting while a fresh WAL file is being set up."""
    for attempt in range(attempts):
        try:
            _open(conn, path, migrations, synchronous)
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or attempt == attempts - 1:
                raise
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            time.sleep(0.05 + 0.01 * attempt)


def _open(conn: sqlite3.Connection, path: Path, migrations: Sequence[Migration], synchronous: str) -> None:
    """Pragmas and schema on a fresh connection; sqlite3 errors propagate."""
    conn.execute("PRAGMA busy_timeout=30000")  # first: a concurrent first start holds locks
    mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
    if str(mode).lower() != "wal":
        raise sqlite3.OperationalError(f"{path}: could not switch to WAL mode (got {mode})")
    conn.execute(f"PRAGMA synchronous={synchronous}")
    conn.execute("PRAGMA foreign_keys=ON")
    apply_migrations(conn, migrations)


@contextmanager
def locked_transaction(conn: sqlite3.Connection, lock: threading.RLock) -> Iterator[sqlite3.Connection]:
    """``conn`` inside ``BEGIN IMMEDIATE`` … ``COMMIT`` while holding ``lock`` (rollback on error)."""
    with lock:
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            if conn.in_transaction:  # SQLite itself rolls back on a full disk; a second ROLLBACK would hide why
                conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
