"""The procedure store, span recording and the skill-file format (real DB and embedder)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from gaia_lite.memory.store import MemoryStore
from gaia_lite.skills.procedure import (ProcedureSpec, SkillFormatError, is_valid_name, parse_skill_file,
                                        render_skill_file, slugify)
from gaia_lite.skills.recall import SkillService
from gaia_lite.skills.store import ProcedureStore, SkillStoreError, load_skill_dir, seed_procedures

from .conftest import SEEDS

SPEC = ProcedureSpec("csv-report", "Summarize a CSV file by region and save a report", "1. analyze\n2. write",
                     ("analyze_data_file", "write_file"))


def test_migrations_add_both_tables_once(tmp_path: Path, embedder: Any) -> None:
    mem = MemoryStore(tmp_path / "m.db", embedder)
    ProcedureStore(mem, embedder)
    ProcedureStore(mem, embedder)  # idempotent
    mem.close()
    conn = sqlite3.connect(tmp_path / "m.db")
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    applied = [r[0] for r in conn.execute("SELECT name FROM schema_migrations")]
    conn.close()
    assert {"procedures", "tool_spans"} <= tables
    assert applied.count("skills_m001_procedures") == 1 and applied.count("skills_m002_tool_spans") == 1


def test_add_get_enable_delete_and_duplicate_names(memory: Any, embedder: Any) -> None:
    store = ProcedureStore(memory, embedder)
    proc = store.add(SPEC)
    assert proc.tools_required == SPEC.tools_required and proc.enabled and proc.provenance == "manual"
    with pytest.raises(SkillStoreError, match="already exists"):
        store.add(SPEC)
    store.record_turn("a goal", [], success=True, answered=True, recalled=["csv-report"])
    replaced = store.add(ProcedureSpec(SPEC.name, "New trigger text", "1. new", ("write_file",)), replace=True)
    assert replaced.when_to_use == "New trigger text" and replaced.success_count == 1  # counters kept
    assert store.set_enabled("csv-report", False) and store.count() == 0 and store.count(enabled_only=False) == 1
    assert not store.set_enabled("nope", True)
    assert store.delete("csv-report") and store.get("csv-report") is None and not store.delete("csv-report")
    with pytest.raises(SkillStoreError, match="kebab-case"):
        store.add(ProcedureSpec("Bad Name", "x", "y", ()))


def test_unique_name(memory: Any, embedder: Any) -> None:
    store = ProcedureStore(memory, embedder)
    assert store.unique_name("csv-report") == "csv-report"
    store.add(SPEC)
    assert store.unique_name("csv-report") == "csv-report-2"


def test_a_vector_from_another_embedder_is_recomputed_on_use(tmp_path: Path, embedder: Any) -> None:
    from gaia_lite.embed import HashEmbedder

    mem = MemoryStore(tmp_path / "m.db")
    ProcedureStore(mem, HashEmbedder(dim=384)).add(SPEC)  # stored with a different embedder
    store = ProcedureStore(mem, embedder)
    hits = store.search(store.embed_goal("Summarize a CSV file by region and save a report"), tau=0.82)
    assert [p.name for p, _ in hits] == ["csv-report"] and hits[0][1] > 0.99
    with mem.reading() as c:
        assert c.execute("SELECT embedder_id FROM procedures").fetchone()[0] == embedder.id
    mem.close()


def test_record_turn_stores_the_span_and_credits_recalled_procedures(memory: Any, embedder: Any) -> None:
    skills = SkillService(memory, embedder, {"analyze_data_file", "write_file"})
    skills.store.add(SPEC)
    goal = "Summarize a CSV file by region and save a report"
    assert skills.recall_for_turn(goal).names == ["csv-report"]
    goal += ", my api_key: sk-abcdefghijklmnopqrstuvwx"
    span = [("analyze_data_file", {"path": "str", "group_by": "str"}, True), ("write_file", {"path": "str"}, False)]
    skills.record_turn(goal, span, True)
    (rec,) = skills.store.open_spans()
    assert rec.calls == tuple(span) and not rec.success and rec.answered
    assert "sk-abcdefgh" not in rec.goal and "[REDACTED]" in rec.goal
    proc = skills.store.get("csv-report")
    assert proc is not None and (proc.attempt_count, proc.success_count) == (1, 0) and proc.last_used_at
    skills.record_turn("hello", [], True)  # no recall this turn, no tools: nothing stored or credited
    proc = skills.store.get("csv-report")
    assert proc is not None and proc.attempt_count == 1 and skills.store.span_count() == 1


def test_seed_procedures_loads_every_seed_file(memory: Any, embedder: Any) -> None:
    seeded = seed_procedures(memory, embedder, SEEDS)
    names = sorted(p.stem for p in SEEDS.glob("*.md"))
    assert sorted(p.name for p in seeded) == names and all(p.provenance == "seed" for p in seeded)
    assert len(seed_procedures(memory, embedder, SEEDS)) == len(names)  # re-seeding replaces


def test_seed_files_name_only_doc_tools() -> None:
    from tools.catalog import DOC_ORDER

    for spec in load_skill_dir(SEEDS):
        assert set(spec.tools_required) <= set(DOC_ORDER), spec.name


# ----------------------------------------------------------------------------- the file format

def test_skill_file_round_trip() -> None:
    text = render_skill_file(SPEC)
    assert parse_skill_file(text) == SPEC


@pytest.mark.parametrize("tools_line", [
    "tools_required: [analyze_data_file, write_file]",
    'tools_required: ["analyze_data_file", "write_file"]',
    "tools_required: analyze_data_file, write_file",
    "tools_required:\n  - analyze_data_file\n  - 'write_file'",
])
def test_front_matter_list_spellings(tools_line: str) -> None:
    text = f"---\nname: csv-report\nwhen_to_use: >\n  Summarize a CSV\n  by region\n{tools_line}\n---\n1. go\n"
    spec = parse_skill_file(text)
    assert spec.tools_required == ("analyze_data_file", "write_file")
    assert spec.when_to_use == "Summarize a CSV by region"


@pytest.mark.parametrize("text, message", [
    ("no front matter", "front matter"),
    ("---\nname: x\n---\nsteps", "when_to_use, tools_required"),
    ("---\nname: Not Kebab\nwhen_to_use: y\ntools_required: [a]\n---\nsteps", "kebab-case"),
    ("---\nname: ok\nwhen_to_use: y\ntools_required: [a]\n---\n", "no steps"),
    ("---\nname: ok\nwhen_to_use: y\ntools_required: [a b/c]\n---\nsteps", "not tool names"),
])
def test_skill_file_errors_say_what_to_fix(text: str, message: str) -> None:
    with pytest.raises(SkillFormatError, match=message):
        parse_skill_file(text)


def test_names() -> None:
    assert is_valid_name("a-b-1") and not is_valid_name("a--b") and not is_valid_name("x" * 65)
    assert slugify("Find & Summarize: the REPORT!") == "find-summarize-the-report"
