"""Saved facts shown beside a user message: the ones that answer it, and no others (real MiniLM, real
SQLite). The agent puts them next to the question so a small model answers from memory."""

from __future__ import annotations

from pathlib import Path

import pytest

from gaia_lite.agent.loop import SAVED_FACTS_ABOUT_USER, SAVED_FACTS_HEADER, Agent, AgentOptions
from gaia_lite.agent.selection import ToolSelector
from gaia_lite.llm.client import ChatClient
from gaia_lite.memory.store import MemoryStore
from gaia_lite.registry.context import ToolContext
from gaia_lite.registry.execute import ToolExecutor
from gaia_lite.registry.registry import ToolRegistry
from tests.agent.wiring import OpenSandbox
from tests.fakes.openai_server import FakeOpenAIServer, text_chunks
from tools.files import read_file

pytest.importorskip("onnxruntime", reason="onnxruntime is not installed: pip install onnxruntime")


@pytest.fixture
def memory(tmp_path: Path, minilm):
    store = MemoryStore(tmp_path / "memory.db", minilm)
    for fact, sensitive in (("My dentist is Dr. Okafor", False), ("I prefer tea over coffee", False),
                            ("My car's licence plate is KX-4821", False), ("My bank PIN hint is the cat", True)):
        store.remember(fact, sensitive=sensitive)
    yield store
    store.close()


@pytest.mark.parametrize("question,fact", [
    ("Who is my dentist?", "My dentist is Dr. Okafor"),
    ("Do I prefer tea or coffee?", "I prefer tea over coffee"),
    ("What is my car's licence plate?", "My car's licence plate is KX-4821"),
])
def test_the_fact_that_answers_a_question_is_found_first(memory: MemoryStore, question: str, fact: str) -> None:
    assert [f.content for f in memory.relevant_facts(question)][:1] == [fact]


@pytest.mark.parametrize("question", ["What is the capital of France?", "list the files in this folder",
                                      "What port is set in config.ini?"])
def test_unrelated_questions_get_no_facts(memory: MemoryStore, question: str) -> None:
    assert memory.relevant_facts(question) == []


def test_sensitive_facts_are_never_shown_and_a_lookup_is_not_a_use(memory: MemoryStore) -> None:
    assert memory.relevant_facts("what is my bank PIN hint?", min_similarity=0.0, limit=10)
    assert all(not f.sensitive for f in memory.relevant_facts("what is my bank PIN hint?", min_similarity=0.0,
                                                               limit=10))
    assert all(f.use_count == 0 for f in memory.recall("", count_use=False).facts)


def test_the_agent_shows_saved_facts_beside_the_question_only_when_they_match(tmp_path: Path,
                                                                             memory: MemoryStore) -> None:
    registry = ToolRegistry([read_file])
    selector = ToolSelector(registry)
    executor = ToolExecutor(registry, ToolContext(workdir=tmp_path, sandbox=OpenSandbox(), data_dir=tmp_path))
    with FakeOpenAIServer() as srv:
        srv.script += [text_chunks("Dr. Okafor."), text_chunks("Paris.")]
        agent = Agent(ChatClient(srv.base_url), registry, executor, selector,
                      AgentOptions(native_tools=False, workdir=tmp_path), memory=memory)
        list(agent.run("Who is my dentist?"))
        list(agent.run("What is the capital of France?"))
        first, second = (r["messages"][-1]["content"] for r in srv.requests)
    # a question about the user: its closest facts, a few at most, the one that answers it first
    assert first.startswith(f"Who is my dentist?\n\n{SAVED_FACTS_HEADER}\n- My dentist is Dr. Okafor\n- ")
    assert first.count("\n- ") == SAVED_FACTS_ABOUT_USER
    assert second == "What is the capital of France?"


def test_a_fact_saved_later_about_the_same_thing_comes_first(tmp_path: Path, minilm) -> None:
    # "update: they moved me, my parking spot is now C7" after "My parking spot at work is B12": asked "Which parking
    # spot do I have at work?", both models answered B12, the closer in words (probe55)
    store = MemoryStore(tmp_path / "memory.db", minilm)
    try:
        store.remember("My parking spot at work is B12")
        store.remember("My dentist is Dr. Okafor")
        store.remember("They moved me, my parking spot is now C7")
        facts = [f.content for f in store.relevant_facts("Which parking spot do I have at work?", min_similarity=0.3)]
        assert facts[:2] == ["They moved me, my parking spot is now C7", "My parking spot at work is B12"], facts
    finally:
        store.close()


def test_facts_of_different_things_keep_their_order() -> None:
    from gaia_lite.memory.records import Fact, current_first

    def fact(content: str, at: str) -> Fact:
        return Fact("id-" + at, "fact", content, "", "", "", False, None, None, 1.0, "user", at, at, 0, 0.9)

    older, newer = fact("My dentist is Dr. Okafor", "2025-01-01"), fact("My doctor is Dr. Lee", "2025-06-01")
    assert current_first([older, newer]) == [older, newer]
