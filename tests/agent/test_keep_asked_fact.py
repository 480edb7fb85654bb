"""A fact the user asks to keep is saved even when the model answers without calling ``remember``
(issue 28, class 6): the real remember tool and a real SQLite memory, the model played by the scripted
fake OpenAI server."""

from __future__ import annotations

from pathlib import Path

import pytest

from gaia_lite.agent.facts import asked_to_keep
from gaia_lite.agent.loop import Agent, AgentOptions
from gaia_lite.agent.selection import ToolSelector
from gaia_lite.embed.hashing import HashEmbedder
from gaia_lite.events import ToolCallStarted, TurnFinished
from gaia_lite.llm.client import ChatClient
from gaia_lite.memory.store import MemoryStore
from gaia_lite.registry.context import ToolContext
from gaia_lite.registry.execute import ToolExecutor
from gaia_lite.registry.registry import ToolRegistry
from gaia_lite.registry.spec import spec_of
from gaia_lite.tools import files, memory as memory_tools
from gaia_lite.tools.sandbox import Sandbox
from tests.fakes.openai_server import FakeOpenAIServer, text_chunks, tool_call_chunks


@pytest.mark.parametrize("message, fact", [
    ("Keep in mind that my daughter's school ends at 15:30 on weekdays.", "My daughter's school ends at 15:30 on weekdays"),
    ("note that my gym membership number is GM-55-0912", "My gym membership number is GM-55-0912"),
    ("fyi i like my summaries as bullet points, keep that in mind", "I like my summaries as bullet points"),
    ("remember my sister Ana's birthday is 4 October", "My sister Ana's birthday is 4 October"),
    ("Keep in mind that I'm vegetarian.", "I'm vegetarian"),
    ("note down my flight to lisbon: TP 1357 on 9 november", "My flight to lisbon: TP 1357 on 9 november"),
    ("jot down that the spare key is under the blue pot", "The spare key is under the blue pot"),
    ("Can you note: plate KX-4821 is my car.", "Plate KX-4821 is my car"),  # "note:" after "can you", not alone
    # told without a call, the 0.5B answered "My parking spot at work is now C7" and kept B12 (probe55)
    ("update: they moved me, my parking spot is now C7", "They moved me, my parking spot is now C7"),
    ("correction: my dentist is Dr Lee", "My dentist is Dr Lee"),
])
def test_an_ask_to_keep_a_fact_gives_the_fact_in_the_users_words(message: str, fact: str) -> None:
    assert asked_to_keep(message) == fact


@pytest.mark.parametrize("message", [
    "do you remember my locker code?", "remember to buy milk", "Save the summary to notes.md",
    "Note: the build failed", "what is in the notes folder", "stick 'call Sam at 5' into calls.txt",
    "update the readme with the new port",
])
def test_a_question_an_errand_or_a_file_request_is_no_fact_to_keep(message: str) -> None:
    assert asked_to_keep(message) is None


def _run(tmp_path: Path, script: list, message: str) -> tuple[list, MemoryStore]:
    store = MemoryStore(tmp_path / "memory.db", HashEmbedder(dim=1024))
    registry = ToolRegistry([spec_of(memory_tools.remember), spec_of(files.read_file)])
    ctx = ToolContext(workdir=tmp_path, sandbox=Sandbox([tmp_path]), data_dir=tmp_path / "data", memory=store)
    with FakeOpenAIServer() as srv:
        srv.script += script
        agent = Agent(ChatClient(srv.base_url), registry, ToolExecutor(registry, ctx), ToolSelector(registry),
                      AgentOptions(native_tools=True, workdir=tmp_path))
        events = list(agent.run(message))
    return events, store


def test_a_fact_the_model_did_not_save_is_saved_and_confirmed(tmp_path: Path) -> None:
    events, store = _run(tmp_path, [text_chunks("I'm sorry, I don't have enough information.")],
                         "note that my gym membership number is GM-55-0912")
    try:
        saved = [f.content for f in store.recall(count_use=False).facts]
        assert saved == ["My gym membership number is GM-55-0912"]
        finished = next(e for e in events if isinstance(e, TurnFinished))
        assert finished.answer == "Remembered: My gym membership number is GM-55-0912"
        assert finished.tools_called == ("remember",)   # the panel and the eval see the call
    finally:
        store.close()


def test_a_fact_the_model_saved_is_not_saved_twice(tmp_path: Path) -> None:
    events, store = _run(tmp_path, [tool_call_chunks("remember", {"fact": "My gym number is GM-55-0912"}),
                                    text_chunks("Noted.")], "note that my gym number is GM-55-0912")
    try:
        assert [f.content for f in store.recall(count_use=False).facts] == ["My gym number is GM-55-0912"]
        assert len([e for e in events if isinstance(e, ToolCallStarted)]) == 1
        assert next(e for e in events if isinstance(e, TurnFinished)).answer == "Noted."
    finally:
        store.close()
