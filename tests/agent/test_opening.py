"""How a constrained turn's first reply may begin (real MiniLM loader, real SQLite memory, the scripted
fake server records each request's schema): tool first as a rule; an answer when no tool resembles the
message or a saved fact plainly answers it; a choice when saved facts sit beside a message that names a
memory tool."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gaia_lite.agent.constrained import TOOL_FIRST, ConstrainedReplies
from gaia_lite.agent.loop import Agent, AgentOptions
from gaia_lite.agent.replies import FreeReplies
from gaia_lite.llm.client import ChatClient
from gaia_lite.loader.bundles import load_bundles
from gaia_lite.loader.documents import load_examples
from gaia_lite.loader.loader import ToolLoader
from gaia_lite.loader.presets import PRESETS
from gaia_lite.memory.store import MemoryStore
from tests.agent.wiring import doc_stack
from tests.fakes.openai_server import FakeOpenAIServer, text_chunks

pytest.importorskip("onnxruntime", reason="onnxruntime is not installed: pip install onnxruntime")


@pytest.fixture(scope="module")
def loader(minilm):
    config = load_bundles("doc")
    return ToolLoader(config.core, config.bundles, minilm, settings=PRESETS["default"], examples=load_examples("doc"))


def _first_schema(tmp_path: Path, loader: ToolLoader, message: str, *, facts: tuple[str, ...] = ()) -> dict:
    loader.reset_session()
    minilm = loader.embedder
    stack = doc_stack(loader, tmp_path, native=False)
    memory = MemoryStore(tmp_path / "memory.db", minilm)
    for fact in facts:
        memory.remember(fact)
    replies = ConstrainedReplies(stack.registry, FreeReplies(stack.registry.names).parse, shape=TOOL_FIRST)
    try:
        with FakeOpenAIServer() as srv:
            srv.script += [text_chunks('{"answer": "ok"}')]
            agent = Agent(ChatClient(srv.base_url), stack.registry, stack.executor, stack.selector,
                          AgentOptions(native_tools=False, workdir=tmp_path, max_steps=4), memory=memory,
                          replies=replies)
            list(agent.run(message))
            request = srv.requests[0]
    finally:
        memory.close()
    assert "Stop calling tools" not in json.dumps(request["messages"])  # held by the schema, not by words
    return request["response_format"]["json_schema"]["schema"]


def _branches(schema: dict) -> list[list[str]]:
    return [list(b["properties"]) for b in schema.get("anyOf", [schema])]


def test_a_message_unlike_every_tool_is_answered_at_once(tmp_path: Path, loader) -> None:
    assert _branches(_first_schema(tmp_path, loader, "what is 12 times 12?")) == [["tool", "answer"]]


def test_a_file_request_starts_with_the_tool_choice(tmp_path: Path, loader) -> None:
    branches = _branches(_first_schema(tmp_path, loader, "list the files in this folder"))
    assert branches[0] == ["tool", "answer"] and len(branches) > 30  # "none" or any tool of the registry


def test_a_question_a_saved_fact_answers_is_answered_from_it(tmp_path: Path, loader) -> None:
    schema = _first_schema(tmp_path, loader, "Who is my dentist?", facts=("My dentist is Dr. Okafor",))
    assert _branches(schema) == [["tool", "answer"]]


def test_a_message_naming_a_memory_tool_may_still_call_it(tmp_path: Path, loader) -> None:
    schema = _first_schema(tmp_path, loader, "Remember that my dentist is now Dr. Smith",
                           facts=("My dentist is Dr. Okafor",))
    branches = _branches(schema)
    assert branches[0] == ["answer"] and ["tool", "arguments"] in branches  # answer, or call remember


def _second_schema(tmp_path: Path, loader: ToolLoader, message: str) -> dict:
    """The schema of the first reply to ``message``, asked after a turn that read todo.txt."""
    loader.reset_session()
    (tmp_path / "todo.txt").write_text("Friday: renew passport\n")
    stack = doc_stack(loader, tmp_path, native=False)
    replies = ConstrainedReplies(stack.registry, FreeReplies(stack.registry.names).parse, shape=TOOL_FIRST)
    with FakeOpenAIServer() as srv:
        srv.script += [text_chunks('{"tool": "read_file", "arguments": {"file_path": "todo.txt"}}'),
                       text_chunks('{"answer": "Renew your passport."}'), text_chunks('{"answer": "ok"}')]
        agent = Agent(ChatClient(srv.base_url), stack.registry, stack.executor, stack.selector,
                      AgentOptions(native_tools=False, workdir=tmp_path, max_steps=4), replies=replies)
        list(agent.run("What does todo.txt say I must do on Friday?"))
        list(agent.run(message))
        return srv.requests[-1]["response_format"]["json_schema"]["schema"]


def test_small_talk_after_a_tool_turn_may_be_answered_at_once(tmp_path: Path, loader) -> None:
    branches = _branches(_second_schema(tmp_path, loader, "Thanks! How many days are there in a week?"))
    assert branches[0] == ["answer"] and ["tool", "arguments"] in branches  # answer, or call a tool


@pytest.mark.parametrize("message", ["And what does notes.md say?",     # names a file
                                     "Which is bigger, big.log or small.log?"])
def test_a_later_turn_that_names_a_file_starts_with_the_tool_choice(tmp_path: Path, loader, message) -> None:
    assert _branches(_second_schema(tmp_path, loader, message))[0] == ["tool", "answer"]
