"""Is a gaia-lite SQLite file healthy? For ``gaia-lite doctor``.

The check opens the file without creating it or changing its schema, runs
SQLite's ``integrity_check``, asks every FTS5 index to verify itself against
its table (inside a transaction that is rolled back), and lists the schema
migrations not yet applied (those run at the next normal start).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from .migrations import Migration

__all__ = ["DatabaseHealth", "check_database"]


@dataclass(frozen=True)
class DatabaseHealth:
    ok: bool
    problems: list[str] = field(default_factory=list)
    pending_migrations: list[str] = field(default_factory=list)
    rows: dict[str, int] = field(default_factory=dict)


def check_database(path: Path, migrations: Sequence[Migration], count_tables: Sequence[str] = ()) -> DatabaseHealth:
    """Integrity of an existing database file (FileNotFoundError when there is none)."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(path)
    try:
        conn = sqlite3.connect(f"file:{path}?mode=rw", uri=True, isolation_level=None, timeout=10)
    except sqlite3.Error as exc:
        return DatabaseHealth(False, [f"cannot open: {exc}"])
    try:
        return _check(conn, migrations, count_tables)
    except sqlite3.DatabaseError as exc:  # "file is not a database", a torn page…
        return DatabaseHealth(False, [str(exc)])
    finally:
        conn.close()


def _check(conn: sqlite3.Connection, migrations: Sequence[Migration], count_tables: Sequence[str]) -> DatabaseHealth:
    problems = [r[0] for r in conn.execute("PRAGMA integrity_check").fetchall() if r[0] != "ok"]
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    conn.execute("BEGIN")
    try:
        for fts in sorted(t for t in tables if t.endswith("_fts")):
            try:
                conn.execute(f"INSERT INTO {fts}({fts}) VALUES ('integrity-check')")
            except sqlite3.DatabaseError as exc:
                problems.append(f"full-text index {fts}: {exc}")
    finally:
        conn.execute("ROLLBACK")
    applied = set()
    if "schema_migrations" in tables:
        applied = {r[0] for r in conn.execute("SELECT name FROM schema_migrations")}
    pending = [m.name for m in migrations if m.name not in applied]
    rows = {t: conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in count_tables if t in tables}
    return DatabaseHealth(not problems, problems, pending, rows)
