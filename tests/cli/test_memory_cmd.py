"""`gaia-lite memory ...` on a real memory.db written by the real MemoryStore (and skills store)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gaia_lite.config import load_settings
from gaia_lite.embed.hashing import HashEmbedder
from gaia_lite.memory.store import MemoryStore
from gaia_lite.skills.procedure import ProcedureSpec
from gaia_lite.skills.store import ProcedureStore

from .conftest import one_line_error


def _fill(home_db: Path) -> dict[str, str]:
    """Facts of several categories, two conversations, tool history and one learned procedure."""
    with MemoryStore(home_db, HashEmbedder()) as m:
        ids = {
            "coffee": m.remember("User prefers dark roast coffee, no sugar", category="preference").id,
            "deadline": m.remember("The grant report is due Friday at 3 pm", category="reminder",
                                   due_at="2031-05-02T15:00:00", domain="work", entity="grant").id,
            "unicode": m.remember("Réunion hebdomadaire le lundi à 10h ☕ — salle B", category="note").id,
        }
        m.add_turn("s-notes", "user", "what is in notes.md?")
        m.add_turn("s-notes", "assistant", "It lists three tasks: taxes, dentist, garden.")
        m.add_turn("s-budget", "user", "sum the budget column of q3.csv")
        m.add_turn("s-budget", "assistant", "The total is 48,210.")
        m.record_tool_call("read_file", session_id="s-notes", args='{"path": "notes.md"}', status="success",
                           duration_ms=3.25)
        m.record_tool_call("analyze_data_file", session_id="s-budget", args="{}", status="error",
                           error="no such column", duration_ms=None)
        ProcedureStore(m, HashEmbedder()).add(ProcedureSpec(
            name="csv-report", when_to_use="Summarise a CSV file by region",
            tools_required=("analyze_data_file", "write_file"), body="1. analyze\n2. write"))
    return ids


def test_export_import_round_trips_byte_identically(cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fill(load_settings().paths.memory_db)
    first = tmp_path / "first.jsonl"
    result = cli("memory", "export", str(first))
    assert result.exit_code == 0, result.output
    assert result.stdout == f"Exported 10 records to {first}.\n"
    kinds = [json.loads(line)["type"] for line in first.read_text(encoding="utf-8").splitlines()]
    assert kinds == ["gaia-lite-memory"] + ["fact"] * 3 + ["turn"] * 4 + ["tool_call"] * 2 + ["procedure"]

    fresh = tmp_path / "fresh-home"
    monkeypatch.setenv("GAIA_HOME", str(fresh))
    imported = cli("memory", "import", str(first), "--json")
    assert imported.exit_code == 0, imported.output
    assert json.loads(imported.stdout)["added"] == {"fact": 3, "turn": 4, "tool_call": 2, "procedure": 1}
    second = tmp_path / "second.jsonl"
    assert cli("memory", "export", str(second)).exit_code == 0
    assert second.read_bytes() == first.read_bytes()

    again = json.loads(cli("memory", "import", str(first), "--json").stdout)
    assert again["added"] == {} and again["already_there"] == {"fact": 3, "turn": 4, "tool_call": 2, "procedure": 1}
    assert cli("memory", "export", "-").stdout.encode() == first.read_bytes()  # stdout export, same bytes


def test_imported_facts_are_found_by_meaning_after_vectors_are_rebuilt(cli: Any, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    ids = _fill(load_settings().paths.memory_db)
    export = tmp_path / "m.jsonl"
    assert cli("memory", "export", str(export)).exit_code == 0
    monkeypatch.setenv("GAIA_HOME", str(tmp_path / "other"))
    assert cli("memory", "import", str(export)).exit_code == 0
    with MemoryStore(load_settings().paths.memory_db, HashEmbedder()) as m:
        found = m.recall("dark roast coffee")
    assert found.mode == "hybrid" and found.facts[0].id == ids["coffee"]


def test_list_search_show_and_forget(cli: Any) -> None:
    ids = _fill(load_settings().paths.memory_db)
    listed = cli("memory", "list")
    assert listed.exit_code == 0
    assert listed.stdout.splitlines()[0].split() == ["ID", "CATEGORY", "UPDATED", "USES", "CONTENT"]
    assert ids["coffee"] in listed.stdout and "Réunion hebdomadaire" in listed.stdout
    prefs = json.loads(cli("memory", "list", "--category", "preference", "--json").stdout)
    assert [f["id"] for f in prefs] == [ids["coffee"]]
    sessions = json.loads(cli("memory", "list", "--conversations", "--json").stdout)
    assert [(s["session_id"], s["turns"], s["first_question"]) for s in sessions] == \
        [("s-budget", 2, "sum the budget column of q3.csv"), ("s-notes", 2, "what is in notes.md?")]

    hits = json.loads(cli("memory", "search", "coffee roast", "--json").stdout)
    assert hits[0]["id"] == ids["coffee"] and hits[0]["use_count"] == 0  # browsing is not the agent using it
    turns = json.loads(cli("memory", "search", "budget", "--conversations", "--json").stdout)
    assert {t["session_id"] for t in turns} == {"s-budget"}

    fact = json.loads(cli("memory", "show", ids["deadline"], "--json").stdout)["fact"]
    assert (fact["category"], fact["entity"], fact["due_at"][:10]) == ("reminder", "grant", "2031-05-02")
    shown = cli("memory", "show", "s-notes")
    assert shown.exit_code == 0 and "conversation s-notes: 2 messages" in shown.stdout
    assert "It lists three tasks" in shown.stdout

    gone = cli("memory", "forget", ids["coffee"], "--yes")
    assert gone.exit_code == 0 and gone.stdout.startswith(f"Forgot fact {ids['coffee']} (User prefers")
    assert cli("memory", "forget", "s-notes", "--json", "--yes").exit_code == 0
    with MemoryStore(load_settings().paths.memory_db) as m:
        assert m.get(ids["coffee"]) is None
        assert m.stats() == {"knowledge": 2, "conversations": 2, "tool_history": 1}


@pytest.mark.parametrize("args, code, wanted", [
    (("show", "nope"), 1, "no fact or conversation with id 'nope'"),
    (("forget", "nope", "--yes"), 1, "no fact or conversation with id 'nope'"),
    (("list", "--category", "gossip"), 2, "unknown category 'gossip'"),
    (("list", "-n", "0"), 2, "-n 0 is invalid"),
    (("search", "  "), 2, "the query is empty"),
    (("import", "/no/such/file.jsonl"), 2, "cannot read /no/such/file.jsonl"),
])
def test_bad_input_is_one_line(cli: Any, args: tuple[str, ...], code: int, wanted: str) -> None:
    _fill(load_settings().paths.memory_db)
    result = cli("memory", *args)
    assert result.exit_code == code
    assert wanted in one_line_error(result)


def test_an_empty_home_lists_nothing_and_creates_no_database(cli: Any) -> None:
    assert cli("memory", "list").stdout == "Nothing remembered yet.\n"
    assert json.loads(cli("memory", "list", "-c", "--json").stdout) == []
    assert cli("memory", "export").stdout == '{"type": "gaia-lite-memory", "version": 1}\n'
    assert not load_settings().paths.memory_db.exists()


def test_a_bad_import_file_changes_nothing(cli: Any, tmp_path: Path) -> None:
    _fill(load_settings().paths.memory_db)
    good = tmp_path / "good.jsonl"
    assert cli("memory", "export", str(good)).exit_code == 0
    with MemoryStore(load_settings().paths.memory_db) as m:
        before = m.stats()
    lines = good.read_text(encoding="utf-8").splitlines()
    new_fact = json.loads(lines[1]) | {"id": "brandnew0001"}
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([lines[0], json.dumps(new_fact), '{"type": "fact", "id": 3}']) + "\n", encoding="utf-8")
    result = cli("memory", "import", str(bad))
    assert result.exit_code == 2
    assert one_line_error(result) == (f"gaia-lite: error: {bad}: line 3: fact id must be text, not 3; "
                                      "nothing was imported")
    not_ours = tmp_path / "other.jsonl"
    not_ours.write_text('{"hello": 1}\n', encoding="utf-8")
    assert "not a gaia-lite memory export" in one_line_error(cli("memory", "import", str(not_ours)))
    with MemoryStore(load_settings().paths.memory_db) as m:
        assert m.stats() == before and m.get("brandnew0001") is None


def test_facts_that_look_like_secrets_are_not_imported(cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fill(load_settings().paths.memory_db)
    export = tmp_path / "m.jsonl"
    assert cli("memory", "export", str(export)).exit_code == 0
    lines = export.read_text(encoding="utf-8").splitlines()
    secret = json.loads(lines[1]) | {"id": "leaky0000001", "content": "my api_key = sk-abcdefghijklmnopqrstuvwxyz123"}
    export.write_text("\n".join(lines + [json.dumps(secret)]) + "\n", encoding="utf-8")
    monkeypatch.setenv("GAIA_HOME", str(tmp_path / "fresh"))
    result = cli("memory", "import", str(export))
    assert result.exit_code == 0
    assert "Skipped 1 fact(s) that look like secrets: leaky0000001." in result.stdout
    with MemoryStore(load_settings().paths.memory_db) as m:
        assert m.get("leaky0000001") is None and m.stats()["knowledge"] == 3
