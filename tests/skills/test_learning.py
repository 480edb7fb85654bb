"""Learning from use in the memory database: the user's wording as example requests (bounded,
near-duplicates merged, newest kept, forgettable) and the turn records companions are counted from."""

from __future__ import annotations

from pathlib import Path

from gaia_lite.memory.store import MemoryStore
from gaia_lite.skills.learning import MAX_EXAMPLES_PER_TOOL, LearningStore, near_duplicate
from gaia_lite.skills.store import ProcedureStore


def _store(tmp_path: Path) -> tuple[MemoryStore, LearningStore]:
    memory = MemoryStore(tmp_path / "memory.db")
    return memory, LearningStore(memory)


def test_only_tools_whose_last_call_succeeded_learn_the_message(tmp_path: Path) -> None:
    memory, store = _store(tmp_path)
    calls = [("search_file", {}, False), ("search_file", {}, True), ("index_document", {}, False),
             ("load_tools", {}, True)]
    assert store.learn_turn("find my lease pdf and index it", calls) == ["search_file"]
    assert store.examples() == {"search_file": ("find my lease pdf and index it",)}
    memory.close()


def test_examples_are_bounded_per_tool_and_the_newest_are_kept(tmp_path: Path) -> None:
    memory, store = _store(tmp_path)
    for i in range(MAX_EXAMPLES_PER_TOOL + 3):
        store.learn_turn(f"total of column {i} in file{i}.csv please", [("analyze_data_file", {}, True)])
    kept = store.examples()["analyze_data_file"]
    assert len(kept) == MAX_EXAMPLES_PER_TOOL
    assert kept[-1] == f"total of column {MAX_EXAMPLES_PER_TOOL + 2} in file{MAX_EXAMPLES_PER_TOOL + 2}.csv please"
    assert "total of column 0 in file0.csv please" not in kept
    memory.close()


def test_a_near_duplicate_replaces_the_older_wording(tmp_path: Path) -> None:
    memory, store = _store(tmp_path)
    assert near_duplicate("what is in my clipboard right now", "what is in my clipboard now")
    assert not near_duplicate("what is in my clipboard", "copy this to my clipboard")
    store.learn_turn("what is in my clipboard right now", [("read_clipboard", {}, True)])
    store.learn_turn("What is in my clipboard now?", [("read_clipboard", {}, True)])
    assert store.examples() == {"read_clipboard": ("What is in my clipboard now?",)}
    memory.close()


def test_examples_can_be_listed_and_forgotten_per_tool_or_all(tmp_path: Path) -> None:
    memory, store = _store(tmp_path)
    store.learn_turn("show the files in downloads", [("browse_directory", {}, True)])
    store.learn_turn("ring a notification when done", [("notify_desktop", {}, True)])
    assert [e.tool for e in store.list_examples()] == ["browse_directory", "notify_desktop"]
    assert store.forget_examples("notify_desktop") == 1
    assert list(store.examples()) == ["browse_directory"]
    assert store.forget_examples() == 1 and store.examples() == {}
    memory.close()


def test_companions_are_counted_from_the_recorded_turns(tmp_path: Path) -> None:
    memory, store = _store(tmp_path)
    spans = ProcedureStore(memory)
    for _ in range(3):
        spans.record_turn("what does the policy say", [("list_indexed_documents", {}, True),
                                                       ("query_specific_file", {"file": "str"}, True)],
                          success=True, answered=True)
    spans.record_turn("broken", [("search_file", {}, False)], success=False, answered=True)
    assert store.turn_tools() == [["list_indexed_documents", "query_specific_file"]] * 3
    (edge,) = store.companions().companions_of("query_specific_file")
    assert (edge.companion, edge.support) == ("list_indexed_documents", 3)
    memory.close()


def test_a_chat_turn_teaches_the_loader_the_users_wording(tmp_path: Path) -> None:
    """SkillService.record_turn (what the agent calls after each answer) stores the wording; a loader
    built from that memory then matches the same request to the tool it needed."""
    from gaia_lite.cli.wiring import read_learning
    from gaia_lite.embed.hashing import HashEmbedder
    from gaia_lite.eval.recall import doc_registry
    from gaia_lite.loader.loader import ToolLoader, selection_query
    from gaia_lite.loader.presets import PRESETS
    from gaia_lite.skills.recall import SkillService

    embedder = HashEmbedder(dim=256)
    registry, core, bundles, _ = doc_registry()
    memory = MemoryStore(tmp_path / "memory.db", embedder)
    wording = "ping me on the desk when the export is through"

    def loader() -> ToolLoader:
        learned = read_learning(memory)
        return ToolLoader(core, bundles, embedder, settings=PRESETS["default"],
                          learned_examples=learned.examples, companions=learned.companions)

    before = loader().select(selection_query([], wording), registry)
    SkillService(memory, embedder, registry).record_turn(wording, [("notify_desktop", {"message": "str"}, True)], True)
    after = loader().select(selection_query([], wording), registry)
    assert "notify_desktop" not in before.record.matched
    assert after.reasons["notify_desktop"] == "learned" and after.record.scores["notify_desktop"] > 0.99
    memory.close()
