"""Saved facts shown beside the user's message (real MiniLM, real SQLite memory, the scripted fake server
records what the model was sent): a question about what the user told the agent gets the fact it asks for
(issue 28, principle 6: "What did I tell you about my diet?" after "Keep in mind that I'm vegetarian" went
to files and the clipboard), and ordinary questions still get no unrelated fact."""

from __future__ import annotations

from pathlib import Path

import pytest

from gaia_lite.agent.grounding import asks_what_user_said
from gaia_lite.agent.loop import SAVED_FACTS_HEADER, Agent, AgentOptions
from gaia_lite.llm.client import ChatClient
from gaia_lite.memory.store import MemoryStore
from tests.agent.wiring import doc_stack
from tests.fakes.openai_server import FakeOpenAIServer, text_chunks

pytest.importorskip("onnxruntime", reason="onnxruntime is not installed: pip install onnxruntime")

FACTS = ("Keep in mind that I'm vegetarian", "My car's licence plate is KX-4821", "I work from home on Fridays",
         "My favourite colour is green", "I am allergic to peanuts")


def _shown(tmp_path: Path, minilm, question: str) -> str:
    """The user message the model was sent for ``question``, saved facts and all."""
    stack = doc_stack(None, tmp_path, native=False)
    memory = MemoryStore(tmp_path / "memory.db", minilm)
    for fact in FACTS:
        memory.remember(fact)
    try:
        with FakeOpenAIServer() as srv:
            srv.script += [text_chunks("ok")]
            agent = Agent(ChatClient(srv.base_url), stack.registry, stack.executor, stack.selector,
                          AgentOptions(native_tools=False, workdir=tmp_path, max_steps=2), memory=memory)
            list(agent.run(question))
            return srv.requests[0]["messages"][-1]["content"]
    finally:
        memory.close()


@pytest.mark.parametrize("question, fact", [
    ("What did I tell you about my diet?", "Keep in mind that I'm vegetarian"),
    ("What did I ask you to remember about my car?", "My car's licence plate is KX-4821"),
])
def test_a_question_about_what_the_user_said_is_shown_the_fact(tmp_path: Path, minilm, question: str,
                                                                fact: str) -> None:
    shown = _shown(tmp_path, minilm, question)
    assert SAVED_FACTS_HEADER in shown and fact in shown
    assert "peanuts" not in shown and "colour" not in shown  # the others stay out


@pytest.mark.parametrize("question", [
    "What does todo.txt say I must do on Friday?",  # 0.40 to "I work from home on Fridays"
    "in one sentence - why do leaves turn red in autumn?",  # 0.33 to "My favourite colour is green"
    "What is the capital of Italy?",
])
def test_ordinary_questions_are_shown_no_unrelated_fact(tmp_path: Path, minilm, question: str) -> None:
    assert SAVED_FACTS_HEADER not in _shown(tmp_path, minilm, question)


@pytest.mark.parametrize("message, asks", [
    ("What did I tell you about my diet?", True),
    ("what do you remember about my food?", True),
    ("Did I mention my sister?", True),
    ("Do you know why the sky is blue?", False),
    ("What did I do yesterday?", False),
    ("what did the report say?", False),
])
def test_what_counts_as_asking_what_the_user_said(message: str, asks: bool) -> None:
    assert asks_what_user_said(message) is asks
