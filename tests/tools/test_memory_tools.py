"""The five memory tools, called as the agent calls them (through ToolExecutor) on a real store."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any, Iterator

import pytest

from gaia_lite.embed.hashing import HashEmbedder
from gaia_lite.memory.store import MemoryStore
from gaia_lite.registry.context import ToolContext
from gaia_lite.registry.execute import Decision, ToolExecutor
from gaia_lite.registry.registry import ToolRegistry
from gaia_lite.registry.spec import spec_of
from gaia_lite.tools import memory as memory_tools
from gaia_lite.tools.catalog import MEMORY_TOOLS
from gaia_lite.tools.sandbox import Sandbox


@pytest.fixture
def mem_ctx(tmp_path: Path) -> Iterator[ToolContext]:
    store = MemoryStore(tmp_path / "memory.db", HashEmbedder(dim=1024))
    yield ToolContext(workdir=tmp_path, sandbox=Sandbox([tmp_path]), data_dir=tmp_path / "data", memory=store)
    store.close()


@pytest.fixture
def call(mem_ctx: ToolContext):
    executor = ToolExecutor(ToolRegistry(spec_of(f) for f in memory_tools.TOOLS), mem_ctx)

    def run(name: str, **args: Any) -> dict[str, Any]:
        return executor.execute(name, args).payload

    return run


def test_tools_are_listed_in_catalog_order_with_short_docs() -> None:
    assert [f.__name__ for f in memory_tools.TOOLS] == list(MEMORY_TOOLS)
    for fn in memory_tools.TOOLS:
        spec = spec_of(fn)
        assert 0 < len(spec.summary) <= 90, spec.name
        assert all(len(p.description.split()) <= 12 for p in spec.params), spec.name
    params = {p.name: p for p in spec_of(memory_tools.remember).params}
    assert params["sensitive"].json_type == "boolean" and params["sensitive"].default is False
    assert list(inspect.signature(memory_tools.recall).parameters)[1:] == [
        "query", "category", "domain", "context", "entity", "limit", "offset", "time_from", "time_to"]


@pytest.mark.parametrize("name,args", [
    ("remember", {"fact": "x"}), ("recall", {"query": "x"}), ("update_memory", {"knowledge_id": "a", "content": "b"}),
    ("forget", {"knowledge_id": "a"}), ("search_past_conversations", {"query": "x"}),
])
def test_disabled_memory_is_one_clear_error(tmp_path: Path, name: str, args: dict[str, Any]) -> None:
    ctx = ToolContext(workdir=tmp_path, sandbox=Sandbox([tmp_path]), data_dir=tmp_path, memory=None)
    result = getattr(memory_tools, name)(ctx, **args)
    assert result["status"] == "error"
    assert result["error"].startswith("memory is disabled (GAIA_MEMORY_DISABLED=1)")


def test_remember_recall_update_forget_roundtrip(call) -> None:
    stored = call("remember", fact="Frank's favourite editor is Helix", category="preference",
                  entity="person:frank", sensitive="true")
    assert stored["status"] == "stored" and stored["message"] == "Remembered."
    kid = stored["knowledge_id"]

    found = call("recall", query="favourite editor", limit="3")
    assert found["status"] == "found" and found["count"] == 1 and found["has_more"] is False
    hit = found["results"][0]
    assert hit["id"] == kid and hit["category"] == "preference" and hit["sensitive"] is True
    assert hit["entity"] == "person:frank" and "domain" not in hit  # empty fields are left out

    updated = call("update_memory", knowledge_id=kid, content="Frank's favourite editor is Zed", sensitive="false")
    assert updated["status"] == "updated" and updated["memory"]["content"].endswith("Zed")
    assert "sensitive" not in updated["memory"]
    assert call("recall", query="Zed")["results"][0]["id"] == kid

    assert call("forget", knowledge_id=kid) == {"status": "removed", "knowledge_id": kid}
    assert call("forget", knowledge_id=kid)["status"] == "not_found"
    assert call("recall", query="Zed")["status"] == "empty"
    assert call("update_memory", knowledge_id=kid, content="x")["status"] == "not_found"


def test_remember_dedups_and_reminders(call) -> None:
    first = call("remember", fact="Standup is at 9:30 every weekday", category="note")
    again = call("remember", fact="Standup is at 9:30 every weekday!", category="note")
    assert again["knowledge_id"] == first["knowledge_id"] and "nearly identical" in again["message"]
    due = call("remember", fact="Renew the passport", category="reminder", due_at="2026-09-01")
    assert due["status"] == "stored"
    listed = call("recall", category="reminder")
    assert listed["results"][0]["due_at"].startswith("2026-0")
    cleared = call("update_memory", knowledge_id=due["knowledge_id"], reminded_at="now", due_at="none")
    assert "due_at" not in cleared["memory"] and cleared["memory"]["reminded_at"]


@pytest.mark.parametrize("args,fragment", [
    ({"fact": "my api_key=sk-abcdefghijklmnopqrstuvwx1234"}, "never store secrets"),
    ({"fact": "root password: hunter22"}, "never store secrets"),
    ({"fact": "call mum", "category": "reminder", "due_at": "soonish"}, "ISO"),
    ({"fact": "   "}, "empty"),
])
def test_remember_errors_are_one_line(call, args: dict[str, Any], fragment: str) -> None:
    result = call("remember", **args)
    assert result["status"] == "error" and fragment in result["error"] and "\n" not in result["error"]


def test_recall_needs_a_filter_and_checks_input(call) -> None:
    assert "at least one filter" in call("recall")["error"]
    assert "ISO" in call("recall", query="x", time_from="yesterday-ish")["error"]
    assert "at least one filter" in call("recall", category="stuff")["error"]  # an unknown category filters nothing
    assert call("recall", query="nothing stored yet")["status"] == "empty"


def test_recall_paging(call) -> None:
    for i in range(4):
        call("remember", fact=f"garden task {i}: plant species{i}", category="note", domain="garden")
    page = call("recall", domain="garden", limit=3)
    assert page["count"] == 3 and page["has_more"] is True
    rest = call("recall", domain="garden", limit=3, offset=3)
    assert rest["count"] == 1 and rest["has_more"] is False and rest["offset"] == 3


def test_update_memory_needs_a_field(call) -> None:
    kid = call("remember", fact="Grace works in Oslo")["knowledge_id"]
    assert "nothing to change" in call("update_memory", knowledge_id=kid)["error"]
    assert "never store secrets" in call("update_memory", knowledge_id=kid, content="token: abcdef123")["error"]


def test_search_past_conversations(call, mem_ctx: ToolContext) -> None:
    mem_ctx.memory.add_turn("s1", "user", "Let's plan the Lisbon trip for October")
    mem_ctx.memory.add_turn("s1", "assistant", "Sure: flights, hotel, and a day in Sintra.")
    assert "query, days" in call("search_past_conversations")["error"]
    found = call("search_past_conversations", query="Lisbon trip")
    assert found["status"] == "found" and found["results"][0]["role"] == "user"
    assert call("search_past_conversations", days="7", limit="1")["count"] == 1
    assert call("search_past_conversations", query="Sintra", time_to="2000-01-01")["status"] == "empty"
    assert call("search_past_conversations", days="lots")["status"] == "error"  # executor rejects it


def test_a_plain_fact_is_confirmed_with_its_text(call) -> None:
    stored = call("remember", fact="My dentist is Dr. Okafor.")
    assert stored == {"status": "stored", "knowledge_id": stored["knowledge_id"],
                      "message": "Remembered: My dentist is Dr. Okafor."}


def test_a_category_a_small_model_made_up_still_saves_the_fact(call) -> None:
    # the 0.5B model wrote these; failing the call lost the fact the user asked to keep
    plural = call("remember", fact="I prefer tea over coffee", category="Preferences")
    assert plural["status"] == "stored" and "note" not in plural
    invented = call("remember", fact="My car's plate is KX-4821", category="personal information")
    assert invented["status"] == "stored"
    assert invented["note"].startswith("category 'personal information' is not one of error, fact, note")
    assert invented["note"].endswith("used 'fact'")
    found = call("recall", query="tea or coffee", category="preferences")
    assert found["results"][0]["category"] == "preference"
    loose = call("recall", query="plate", category="car stuff")
    assert loose["count"] >= 1 and loose["note"].endswith("used no category filter")


def test_update_memory_with_a_made_up_category_updates_and_says_so(call) -> None:
    """The 0.5B called update_memory with category 'general knowledge' (dev run, alike_update_file): the
    update goes through under the closest category ('fact' when none is close) and the note says so."""
    kid = call("remember", fact="The team lunch is on Fridays")["knowledge_id"]
    made_up = call("update_memory", knowledge_id=kid, content="The team lunch is on Thursdays",
                   category="general knowledge")
    assert made_up["status"] == "updated" and made_up["memory"]["category"] == "fact"
    assert made_up["note"].endswith("used 'fact'")
    misspelt = call("update_memory", knowledge_id=kid, category="Reminderr")
    assert misspelt["memory"]["category"] == "reminder" and "used 'reminder'" in misspelt["note"]
    assert "note" not in call("update_memory", knowledge_id=kid, category="preferences")


def test_update_memory_for_a_file_points_to_edit_file(mem_ctx: ToolContext, call) -> None:
    """The 0.5B's call for "Update notes/todo.md: change 'buy milk' to 'buy oat milk'." (dev run): the file
    is the id. The result names the file and edit_file instead of a bare 'no memory has this id'."""
    (mem_ctx.workdir / "notes").mkdir()
    (mem_ctx.workdir / "notes" / "todo.md").write_text("- buy milk\n", encoding="utf-8")
    got = call("update_memory", knowledge_id="notes/todo.md", content="change 'buy milk' to 'buy oat milk'",
               category="general knowledge", domain="alike_update_file-on/work")
    assert got["status"] == "not_found" and got["file_path"] == "notes/todo.md"
    assert "edit_file (file_path 'notes/todo.md')" in got["message"]
    # the id is a made-up one, but the user's message names the file
    mem_ctx.request.message = "setup.cfg - bump the version to 1.2.1"
    (mem_ctx.workdir / "setup.cfg").write_text("[metadata]\nversion = 1.2.0\n", encoding="utf-8")
    by_message = call("update_memory", knowledge_id="version", content="1.2.1")
    assert by_message["file_path"] == "setup.cfg" and "edit_file" in by_message["message"]
    # no file named anywhere, or one that does not exist, or one outside the allowed folders: the plain answer
    mem_ctx.request.message = "update /etc/hosts.txt and missing.md"
    for kid in ("abc123", "missing.md", "/etc/hosts.txt"):
        plain = call("update_memory", knowledge_id=kid, content="x")
        assert plain == {"status": "not_found", "knowledge_id": kid,
                         "message": "No memory has this id; use recall to find the right one."}


def _with_edit_file(ctx: ToolContext, approve: Any) -> ToolExecutor:
    from gaia_lite.tools.files import edit_file
    return ToolExecutor(ToolRegistry([*(spec_of(f) for f in memory_tools.TOOLS), spec_of(edit_file)]), ctx,
                        approve=approve)


def test_update_memory_of_a_files_setting_runs_edit_file_in_its_place(mem_ctx: ToolContext) -> None:
    """The 1.5B's call for "turn off debug in config/app.yaml" (probe42, 2 runs of 2): the file as the id, the
    new line as the content. edit_file runs in its place, asking for approval as edit_file."""
    (mem_ctx.workdir / "config").mkdir()
    app = mem_ctx.workdir / "config" / "app.yaml"
    app.write_text("name: shop\ndebug: true\nport: 8080\n", encoding="utf-8")
    asked: list[str] = []

    def approve(spec: Any, args: dict[str, Any]) -> Decision:
        asked.append(spec.name)
        return Decision.ALLOW

    result = _with_edit_file(mem_ctx, approve).execute(
        "update_memory", {"knowledge_id": "config/app.yaml", "content": "debug: false"})
    assert (result.requested, result.name, result.ok) == ("update_memory", "edit_file", True), result
    assert app.read_text(encoding="utf-8") == "name: shop\ndebug: false\nport: 8080\n"
    assert asked == ["edit_file"] and "is a file, not a saved memory" in result.payload["note"], result.payload


@pytest.mark.parametrize("name, before, after", [
    ("setup.cfg", "[metadata]\nname = demo\nversion = 2.0.3\n", "[metadata]\nname = demo\nversion = 2.1.0\n"),
    ("package.json", '{\n  "name": "demo",\n  "version": "2.0.3",\n  "private": true\n}\n',
     '{\n  "name": "demo",\n  "version": "2.1.0",\n  "private": true\n}\n'),
    ("app.yaml", "name: shop\nversion: '2.0.3'\n", "name: shop\nversion: '2.1.0'\n"),
])
def test_update_memory_with_a_key_of_the_named_file_as_its_id_sets_that_key(mem_ctx: ToolContext, name: str,
                                                                            before: str, after: str) -> None:
    """The 1.5B's call for "setup.cfg - bump the version to 2.1.0" (built-in test split): the key as the id,
    the value as the content, and the file only in the user's message. Its own line, in its own style."""
    (mem_ctx.workdir / name).write_text(before, encoding="utf-8")
    mem_ctx.request.message = f"{name} - bump the version to 2.1.0"
    result = _with_edit_file(mem_ctx, lambda spec, args: Decision.ALLOW).execute(
        "update_memory", {"knowledge_id": "version", "content": "2.1.0"})
    assert (result.requested, result.name, result.ok) == ("update_memory", "edit_file", True), result
    assert (mem_ctx.workdir / name).read_text(encoding="utf-8") == after


def test_a_key_the_file_sets_twice_or_not_at_all_is_no_edit(mem_ctx: ToolContext) -> None:
    (mem_ctx.workdir / "setup.cfg").write_text("[a]\nversion = 1\n[b]\nversion = 2\n", encoding="utf-8")
    mem_ctx.request.message = "setup.cfg - bump the version to 3"
    ex = _with_edit_file(mem_ctx, lambda spec, args: Decision.ALLOW)
    assert ex.execute("update_memory", {"knowledge_id": "version", "content": "3"}).name == "update_memory"
    assert ex.execute("update_memory", {"knowledge_id": "owner", "content": "me"}).name == "update_memory"
    assert (mem_ctx.workdir / "setup.cfg").read_text(encoding="utf-8") == "[a]\nversion = 1\n[b]\nversion = 2\n"


def test_update_memory_keeps_its_own_answer_when_no_edit_is_meant(mem_ctx: ToolContext) -> None:
    (mem_ctx.workdir / "todo.md").write_text("- buy milk\n", encoding="utf-8")
    (mem_ctx.workdir / "app.yaml").write_text("debug: true\n", encoding="utf-8")
    ex = _with_edit_file(mem_ctx, lambda spec, args: Decision.ALLOW)
    # content that sets no line of the file, and a file the user refuses to have changed
    prose = ex.execute("update_memory", {"knowledge_id": "todo.md", "content": "buy oat milk instead"})
    assert prose.name == "update_memory" and prose.payload["status"] == "not_found", prose
    denied = _with_edit_file(mem_ctx, lambda spec, args: Decision.DENY).execute(
        "update_memory", {"knowledge_id": "app.yaml", "content": "debug: false"})
    assert denied.name == "update_memory" and (mem_ctx.workdir / "app.yaml").read_text() == "debug: true\n"
    # a real memory is updated, even with a file of the same name beside it
    kid = ex.execute("remember", {"fact": "debug: on for the demo"}).payload["knowledge_id"]
    kept = ex.execute("update_memory", {"knowledge_id": kid, "content": "debug: false"})
    assert kept.name == "update_memory" and kept.payload["status"] == "updated", kept


def test_a_search_of_past_chats_that_finds_nothing_names_the_files_the_request_points_to(
        call, mem_ctx: ToolContext, tmp_path: Path) -> None:
    # "where did I put my passport notes?" was searched in past chats (1.5B, built-in suite), and the turn ended
    (tmp_path / "admin" / "travel").mkdir(parents=True)
    (tmp_path / "admin" / "travel" / "passport-notes.md").write_text("# Passport\n\nExpires 2031.\n")
    (tmp_path / "admin" / "taxes.md").write_text("# Taxes\n\nFiled in April.\n")
    mem_ctx.request.message = "where did I put my passport notes?"
    empty = call("search_past_conversations", query="passport notes")
    assert empty["status"] == "success" and empty["files"] == [str(tmp_path / "admin" / "travel" / "passport-notes.md")]
    assert empty["message"].startswith("No earlier chat matches; the files here do. For the request: "
                                       "admin/travel/passport-notes.md")
    assert "count" not in empty, empty
    mem_ctx.request.message = "what did we say about zebras?"   # no file holds it: nothing more than before
    assert call("search_past_conversations", query="zebras") == {"status": "empty", "count": 0, "results": []}


def test_a_search_of_past_chats_for_a_count_of_a_folder_gives_the_folders_count(call, mem_ctx: ToolContext,
                                                                              tmp_path: Path) -> None:
    # asked to "count the csv files under data (all levels)", the 0.5B searched past chats (probe42)
    for sub in ("raw", "clean/2025"):
        (tmp_path / "data" / sub).mkdir(parents=True)
    for name in ("raw/jan.csv", "raw/feb.csv", "clean/2025/jan.csv", "raw/notes.txt"):
        (tmp_path / "data" / name).write_text("x\n")
    mem_ctx.request.message = "count the csv files under data (all levels)"
    counted = call("search_past_conversations", query="csv files under data")
    assert counted == {"status": "success", "message": "No earlier chat matches. Under data/, counting its "
                                                       "subfolders: 3 folders at any depth; "
                                                       "3 .csv files, 1 .txt file "
                                                       "(4 in all): data/clean/2025/jan.csv, data/raw/feb.csv, "
                                                       "data/raw/jan.csv, data/raw/notes.txt. 3 of them are "
                                                       ".csv files."}
    mem_ctx.request.message = "what did we say about the data folder?"   # no count asked: no count given
    assert "counting" not in str(call("search_past_conversations", query="data folder"))


def test_a_memory_look_up_that_finds_nothing_names_the_files_named_like_it(call, mem_ctx: ToolContext,
                                                                           tmp_path: Path) -> None:
    # "do i have a passport scan saved anywhere?" was asked of memory, and its empty result answered "no" (1.5B,
    # probe46)
    (tmp_path / "documents/id").mkdir(parents=True)
    for name in ("passport_scan.png", "licence.png"):
        (tmp_path / "documents/id" / name).write_text("png\n")
    mem_ctx.request.message = "do i have a passport scan saved anywhere?"
    found = call("recall", query="passport scan")
    assert found["message"] == ("No saved memory matches; files here are named like it: "
                                "documents/id/passport_scan.png"), found
    assert found["count"] == 0 and found["results"] == []
    assert call("recall", query="bike lock code") == {"status": "empty", "count": 0, "offset": 0,
                                                      "has_more": False, "results": []}
