"""MemoryStore against real SQLite files: schema, validation, hybrid recall, durability."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import pytest

from gaia_lite.embed.hashing import HashEmbedder
from gaia_lite.memory.migrations import MEMORY_MIGRATIONS, applied_migrations, sql_migration
from gaia_lite.memory.store import (MAX_FACT_CHARS, MemoryInputError, MemoryStore, VectorIndex,
                                    looks_like_credential, mask_credentials, parse_time)

from .conftest import SynonymEmbedder


# ---------------------------------------------------------------- schema and connection policy

def test_schema_is_migrated_once_and_connection_is_durable(tmp_path: Path, embedder) -> None:
    path = tmp_path / "memory.db"
    store = MemoryStore(path, embedder)
    with store.reading() as c:
        assert c.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert c.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        tables = {r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        assert applied_migrations(c) == [m.name for m in MEMORY_MIGRATIONS]
    assert {"knowledge", "knowledge_fts", "conversations", "conversations_fts", "tool_history", "meta"} <= tables
    store.close()
    store = MemoryStore(path, embedder)  # reopening applies nothing new
    with store.reading() as c:
        assert applied_migrations(c) == [m.name for m in MEMORY_MIGRATIONS]
    store.close()


def test_extra_migration_adds_a_table_once(store: MemoryStore) -> None:
    procedures = sql_migration("m100_procedures_test",
                               "CREATE TABLE procedures (id TEXT PRIMARY KEY, name TEXT NOT NULL)")
    assert store.apply_migrations([procedures]) == ["m100_procedures_test"]
    assert store.apply_migrations([procedures]) == []
    with store.transaction() as c:
        c.execute("INSERT INTO procedures VALUES ('p1', 'fix-build')")
    with store.reading() as c:
        assert c.execute("SELECT name FROM procedures").fetchall() == [("fix-build",)]


def test_failed_migration_rolls_back(store: MemoryStore) -> None:
    broken = sql_migration("m101_broken", "CREATE TABLE half (x)", "THIS IS NOT SQL")
    with pytest.raises(sqlite3.OperationalError):
        store.apply_migrations([broken])
    with store.reading() as c:
        assert c.execute("SELECT name FROM sqlite_master WHERE name='half'").fetchone() is None
        assert "m101_broken" not in applied_migrations(c)


# ---------------------------------------------------------------- remember: validation

def test_remember_validates_input(store: MemoryStore) -> None:
    with pytest.raises(MemoryInputError, match="empty"):
        store.remember("   ")
    with pytest.raises(MemoryInputError, match="unknown category"):
        store.remember("likes tea", category="hobby")
    with pytest.raises(MemoryInputError, match="ISO"):
        store.remember("dentist appointment", category="reminder", due_at="next tuesday")
    with pytest.raises(MemoryInputError, match="transient"):
        store.remember("the API call timed out", category="error")
    saved = store.remember("word " * 1000)
    assert len(store.get(saved.id).content) == MAX_FACT_CHARS


def test_remember_stores_all_fields(store: MemoryStore) -> None:
    saved = store.remember("Dentist appointment with Dr. Lee", category="Reminder", domain="health",
                           context="personal", entity="person:lee", sensitive=True,
                           due_at="2026-06-01T09:30:00+02:00")
    fact = store.get(saved.id)
    assert (fact.category, fact.domain, fact.context, fact.entity, fact.sensitive) == \
        ("reminder", "health", "personal", "person:lee", True)
    assert fact.due_at == "2026-06-01T07:30:00.000000+00:00"
    assert fact.confidence == 0.7 and fact.source == "tool" and fact.use_count == 0


SECRETS = [
    "my OpenAI key is sk-proj-abcdefghijklmnopqrstuvwxyz123456",
    "AWS id AKIAIOSFODNN7EXAMPLE for the backups",
    "github token ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    "password: hunter2",
    "my password is Tr0ub4dor&3",
    "the wifi passphrase is 'correcthorsebatterystaple'",
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU=\n-----END OPENSSH PRIVATE KEY-----",
    "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "session secret 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "aws secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345",
    "slack xoxb-123456789012-abcdefghijkl",
    "api_key=AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW",
    "the mirror is https://deploy:hunter2horse@git.example.com/team/app.git",
]
HARMLESS = [
    "my password is stored in the keychain",
    "I reset my password yesterday",
    "commit 3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39 fixed the crash",
    "the project lives in /home/alice/Projects2024/GaiaLite/src/memory",
    "Alice prefers tokens of appreciation over gifts",
    "the sk-8 skateboard is blue",
    "docs at https://example.com/a:b/page and mail alice@example.com",
]


@pytest.mark.parametrize("text", SECRETS)
def test_credentials_are_refused(store: MemoryStore, text: str) -> None:
    assert looks_like_credential(text)
    with pytest.raises(MemoryInputError, match="never store secrets"):
        store.remember(text)
    assert store.stats()["knowledge"] == 0


@pytest.mark.parametrize("text", HARMLESS)
def test_harmless_text_is_not_a_credential(text: str) -> None:
    assert looks_like_credential(text) is None


def test_update_refuses_credentials_and_turns_are_masked(store: MemoryStore) -> None:
    saved = store.remember("the staging server is db1")
    with pytest.raises(MemoryInputError):
        store.update(saved.id, content="staging password: s3cret!")
    store.add_turn("s1", "user", "use key sk-abcdefghijklmnopqrstuvwx1234 for staging")
    (turn,) = store.search_turns("staging")
    assert "sk-abc" not in turn["content"] and "[REDACTED]" in turn["content"]
    assert mask_credentials("ok AKIAIOSFODNN7EXAMPLE ok") == "ok [REDACTED] ok"
    assert mask_credentials("git clone https://me:t0ken@host.example/r.git") == \
        "git clone https://[REDACTED]@host.example/r.git"


# ---------------------------------------------------------------- dedup

def test_near_duplicate_in_same_category_refreshes_the_old_fact(store: MemoryStore) -> None:
    first = store.remember("I prefer dark mode in my code editor", category="preference")
    again = store.remember("I prefer dark mode in the code editor", category="preference")
    assert again.id == first.id and again.deduplicated
    assert store.get(first.id).content == "I prefer dark mode in the code editor"
    other_category = store.remember("I prefer dark mode in the code editor", category="note")
    assert other_category.id != first.id and not other_category.deduplicated
    different = store.remember("I prefer light mode in my terminal", category="preference")
    assert different.id != first.id
    assert store.stats()["knowledge"] == 3


# ---------------------------------------------------------------- recall

def test_hybrid_recall_finds_by_keyword_and_by_meaning(store: MemoryStore) -> None:
    car = store.remember("Alice has a blue sedan")
    valve = store.remember("Pump station uses valve model XQ-7731")
    store.remember("The quarterly report is due in June")
    store.remember("Bob likes hiking in the Alps")

    by_meaning = store.recall("which automobile is mine?")  # shares no word with the fact
    assert by_meaning.mode == "hybrid"
    assert by_meaning.facts[0].id == car.id

    by_keyword = store.recall("XQ-7731")
    assert by_keyword.facts[0].id == valve.id
    assert store.get(valve.id).use_count == 1


def test_rrf_prefers_facts_found_by_both_searches(store: MemoryStore) -> None:
    both = store.remember("my doctor is Dr. Okafor in Leeds")
    store.remember("the physician on call tonight is unknown")      # meaning only
    store.remember("Okafor street has a good bakery nearby")       # keyword only
    result = store.recall("doctor Okafor")
    assert result.facts[0].id == both.id
    assert result.facts[0].score > result.facts[1].score


def test_recall_filters_browse_and_paging(store: MemoryStore) -> None:
    ids = [store.remember(f"project alpha note number {i} topic{i}", category="note", context="alpha").id
           for i in range(7)]
    store.remember("project beta kickoff", category="note", context="beta")
    page1 = store.recall(context="alpha", limit=3)
    page2 = store.recall(context="ALPHA", limit=3, offset=3)  # filters ignore case
    page3 = store.recall(context="alpha", limit=3, offset=6)
    assert page1.mode == "browse" and page1.has_more and page2.has_more and not page3.has_more
    seen = [f.id for f in page1.facts + page2.facts + page3.facts]
    assert sorted(seen) == sorted(ids) and seen[0] == ids[-1]  # newest first
    found = store.recall("project", context="beta")
    assert [f.content for f in found.facts] == ["project beta kickoff"]
    with pytest.raises(MemoryInputError):
        store.recall("x", category="nonsense")


def test_recall_time_range(store: MemoryStore) -> None:
    old = store.remember("we migrated to postgres")
    new = store.remember("we migrated to sqlite")
    last_year = (datetime.now(timezone.utc) - timedelta(days=400)).isoformat(timespec="microseconds")
    with store.transaction() as c:
        c.execute("UPDATE knowledge SET created_at=? WHERE id=?", (last_year, old.id))
    recent = store.recall("migrated", time_from=(datetime.now() - timedelta(days=1)).date().isoformat())
    assert [f.id for f in recent.facts] == [new.id]
    early = store.recall("migrated", time_to=(datetime.now() - timedelta(days=300)).date().isoformat())
    assert [f.id for f in early.facts] == [old.id]
    with pytest.raises(MemoryInputError, match="ISO"):
        store.recall("migrated", time_from="last week")


def test_recall_without_embedder_is_keyword_only(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "m.db", None)
    store.remember("the backup job runs at 02:00")
    result = store.recall("backup")
    assert result.mode == "keyword" and len(result.facts) == 1
    store.close()


def test_update_and_forget(store: MemoryStore) -> None:
    saved = store.remember("Carol drinks espresso", category="preference", due_at="2026-01-01")
    fact = store.update(saved.id, content="Carol drives a sedan", reminded_at="now", due_at="")
    assert fact.content == "Carol drives a sedan" and fact.reminded_at and fact.due_at is None
    assert store.recall("which automobile").facts[0].id == saved.id  # re-embedded
    assert store.recall("beverage").facts == []                      # old meaning gone
    assert store.update("nope", content="x") is None
    assert store.forget(saved.id) and not store.forget(saved.id)
    assert store.recall("sedan").facts == [] and store.recall("automobile").facts == []


def test_embedder_change_reembeds_vectors(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    first = MemoryStore(path, SynonymEmbedder())
    saved = first.remember("Dana owns a sedan")
    first.close()
    other = SynonymEmbedder(dim=64)
    second = MemoryStore(path, other)
    with second.reading() as c:
        assert c.execute("SELECT embedding FROM knowledge").fetchone()[0] is None
        assert c.execute("SELECT value FROM meta WHERE key='embedder_id'").fetchone()[0] == other.id
    assert second.recall("automobile").facts[0].id == saved.id  # lazily re-embedded at 64 dims
    with second.reading() as c:
        assert len(c.execute("SELECT embedding FROM knowledge").fetchone()[0]) == 64 * 4
    second.close()


def test_failing_embedder_keeps_fact_and_backfills_later(tmp_path: Path) -> None:
    emb = SynonymEmbedder()
    store = MemoryStore(tmp_path / "m.db", emb)
    emb.fail = True
    saved = store.remember("Erin drives an automobile")
    assert store.recall("automobile").facts[0].id == saved.id  # FTS still works
    emb.fail = False
    store.close()
    store = MemoryStore(tmp_path / "m.db", emb)
    assert store.recall("which car").facts[0].id == saved.id   # backfilled vector
    store.close()


# ---------------------------------------------------------------- conversations and tool history

def test_search_turns(store: MemoryStore) -> None:
    store.add_turn("s1", "user", "Can you explain quantum tunnelling?")
    store.add_turn("s1", "assistant", "Quantum tunnelling lets particles cross barriers.")
    store.add_turn("s2", "user", "What's for lunch?")
    assert {t["role"] for t in store.search_turns("tunnelling")} == {"user", "assistant"}
    assert len(store.search_turns(days=1)) == 3
    assert store.search_turns(days=1, limit=1)[0]["content"] == "What's for lunch?"
    assert store.search_turns("lunch", session_id="s1") == []
    tomorrow = (datetime.now() + timedelta(days=1)).date().isoformat()
    assert store.search_turns(time_from=tomorrow) == []
    with pytest.raises(MemoryInputError):
        store.add_turn("s1", "", "x")
    store.record_tool_call("read_file", session_id="s1", args='{"path": "a"}', status="success", duration_ms=3.2)
    assert store.stats() == {"knowledge": 0, "conversations": 3, "tool_history": 1}


def test_long_turns_are_cut(store: MemoryStore) -> None:
    store.add_turn("s", "user", "zebra " * 2000)
    (turn,) = store.search_turns("zebra")
    assert len(turn["content"]) == 4000


# ---------------------------------------------------------------- concurrency

def test_threads_share_one_connection_safely(store: MemoryStore) -> None:
    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            for i in range(15):
                store.remember(f"thread{n} item{i} unique{n * 100 + i}")
                store.recall(f"item{i}")
                store.add_turn(f"t{n}", "user", f"hello {i}")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert store.stats()["knowledge"] == 60 and store.stats()["conversations"] == 60


# ---------------------------------------------------------------- durability

CHILD = textwrap.dedent("""
    import sys
    from pathlib import Path
    from gaia_lite.embed.hashing import HashEmbedder
    from gaia_lite.memory.store import MemoryStore

    store = MemoryStore(Path(sys.argv[1]), HashEmbedder())
    i = 0
    while True:
        saved = store.remember(f"burst fact {i} mentions topic{i} and code k{i}x{i * 7}")
        print(saved.id, flush=True)
        i += 1
""")


def test_every_acknowledged_fact_survives_kill_9(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(db)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    acknowledged: list[str] = []
    try:
        while len(acknowledged) < 40:
            line = child.stdout.readline()
            assert line, f"child died early: {child.stderr.read()}"
            acknowledged.append(line.strip())
        os.kill(child.pid, signal.SIGKILL)  # mid-burst: it is writing the next facts right now
        acknowledged += [ln.strip() for ln in child.stdout.read().splitlines() if ln.strip()]
    finally:
        child.kill()
        child.wait()
    assert child.returncode == -signal.SIGKILL

    with sqlite3.connect(db) as raw:
        assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        raw.execute("INSERT INTO knowledge_fts(knowledge_fts) VALUES ('integrity-check')")
    store = MemoryStore(db, HashEmbedder())
    missing = [key for key in acknowledged if store.get(key) is None]
    assert not missing, f"{len(missing)} of {len(acknowledged)} acknowledged facts were lost"
    assert store.recall("burst", limit=100).facts
    store.close()


# ---------------------------------------------------------------- pieces

def test_vector_index_add_replace_remove_and_restrict() -> None:
    idx = VectorIndex()
    eye = np.eye(4, dtype=np.float32)
    for i in range(4):
        assert idx.add(f"k{i}", eye[i])
    for i in range(4, 40):  # forces the matrix to grow
        idx.add(f"k{i}", eye[i % 4])
    assert not idx.add("bad", np.ones(3, dtype=np.float32))
    assert idx.search(eye[2], 1)[0][1] == pytest.approx(1.0)
    idx.remove("k2")
    idx.add("k1", eye[2])  # replace
    top = idx.search(eye[2], 50)
    assert top[0][1] == pytest.approx(1.0) and "k2" not in [k for k, _ in top]
    assert [k for k, _ in idx.search(eye[0], 2, among=["k0", "k3"])] == ["k0", "k3"]
    strong = idx.search(eye[0], 50, min_score=0.5)
    assert strong and all(score >= 0.5 for _, score in strong) and len(strong) < len(idx)
    assert len(idx) == 39


def test_parse_time() -> None:
    assert parse_time("2026-05-01T10:00:00Z") == "2026-05-01T10:00:00.000000+00:00"
    start, end = parse_time("2026-05-01"), parse_time("2026-05-01", end_of_day=True)
    assert start < end and (datetime.fromisoformat(end) - datetime.fromisoformat(start)) < timedelta(days=1)
    with pytest.raises(MemoryInputError):
        parse_time("tomorrow-ish")
