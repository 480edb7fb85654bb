"""Saved facts shown beside the user's message (real MiniLM, real SQLite memory, the scripted fake server
records what the model was sent): a question about what the user told the agent gets the fact it asks for
(issue 28, principle 6: "What did I tell you about my diet?" after "Keep in mind that I'm vegetarian" went
to files and the clipboard), and ordinary questions still get no unrelated fact."""

from __future__ import annotations

from pathlib import Path

import pytest

from gaia_lite.agent.facts import asks_about_user, asks_in_first_person
from gaia_lite.agent.loop import SAVED_FACTS_ABOUT_USER, SAVED_FACTS_HEADER, Agent, AgentOptions
from gaia_lite.events import TurnFinished
from gaia_lite.llm.client import ChatClient
from gaia_lite.memory.store import MemoryStore
from tests.agent.wiring import doc_stack
from tests.fakes.openai_server import FakeOpenAIServer, text_chunks

pytest.importorskip("onnxruntime", reason="onnxruntime is not installed: pip install onnxruntime")

FACTS = ("Keep in mind that I'm vegetarian", "My car's licence plate is KX-4821", "I work from home on Fridays",
         "My favourite colour is green", "I am allergic to peanuts")
LOCKER = (*FACTS, "My locker code is 4471")


def _run(tmp_path: Path, minilm, question: str, replies: list[str],
         facts: tuple[str, ...] = FACTS) -> tuple[str, list[dict]]:
    """The turn's answer to ``question`` with ``facts`` saved, when the (scripted) model gives ``replies``,
    and the requests it was sent."""
    stack = doc_stack(None, tmp_path, native=False)
    memory = MemoryStore(tmp_path / "memory.db", minilm)
    for fact in facts:
        memory.remember(fact)
    try:
        with FakeOpenAIServer() as srv:
            srv.script += [text_chunks(r) for r in replies]
            agent = Agent(ChatClient(srv.base_url), stack.registry, stack.executor, stack.selector,
                          AgentOptions(native_tools=False, workdir=tmp_path, max_steps=4), memory=memory)
            done = [e for e in agent.run(question) if isinstance(e, TurnFinished)]
            return done[-1].answer, srv.requests
    finally:
        memory.close()


def _shown(tmp_path: Path, minilm, question: str, facts: tuple[str, ...] = FACTS) -> str:
    """The user message the model was sent for ``question``, saved facts and all."""
    return _run(tmp_path, minilm, question, ["ok"], facts)[1][0]["messages"][-1]["content"]


@pytest.mark.parametrize("question, fact", [
    ("What did I tell you about my diet?", "Keep in mind that I'm vegetarian"),
    ("What did I ask you to remember about my car?", "My car's licence plate is KX-4821"),
])
def test_a_question_about_what_the_user_said_is_shown_the_fact(tmp_path: Path, minilm, question: str,
                                                                fact: str) -> None:
    shown = _shown(tmp_path, minilm, question)
    assert SAVED_FACTS_HEADER in shown and fact in shown
    lines = [line for line in shown.splitlines() if line.startswith("- ")]
    assert lines[0] == f"- {fact}" and len(lines) == SAVED_FACTS_ABOUT_USER  # the closest first, a few at most


# The second turns of the dev suite's memory tasks the 0.5B failed (read notes.txt; "I can't assist with that"),
# each with the fact its first turn saved among others
@pytest.mark.parametrize("question, fact", [
    ("how do I like my summaries?", "I like my summaries as bullet points"),
    ("what's my locker code again?", "My locker code is 4471"),
    ("who's my accountant?", "My accountant is Priya Shah"),
])
def test_a_question_about_the_user_is_shown_the_fact_first(tmp_path: Path, minilm, question: str, fact: str) -> None:
    shown = _shown(tmp_path, minilm, question, (*FACTS, fact))
    lines = [line for line in shown.splitlines() if line.startswith("- ")]
    assert lines[0] == f"- {fact}" and len(lines) == SAVED_FACTS_ABOUT_USER


def test_with_an_empty_memory_a_question_about_the_user_is_sent_as_it_is(tmp_path: Path, minilm) -> None:
    assert _shown(tmp_path, minilm, "what's my locker code again?", ()).endswith("what's my locker code again?")


@pytest.mark.parametrize("question", [
    "What does todo.txt say I must do on Friday?",  # 0.40 to "I work from home on Fridays"
    "in one sentence - why do leaves turn red in autumn?",  # 0.33 to "My favourite colour is green"
    "What is the capital of Italy?",
])
def test_ordinary_questions_are_shown_no_unrelated_fact(tmp_path: Path, minilm, question: str) -> None:
    assert SAVED_FACTS_HEADER not in _shown(tmp_path, minilm, question)


# (message, asks about the user or what they said)
@pytest.mark.parametrize("message, about", [
    ("What did I tell you about my diet?", True),
    ("what do you remember about my food?", True),
    ("Did I mention my sister?", True),
    ("Do you know why the sky is blue?", False),
    ("What did I do yesterday?", False),
    ("what did the report say?", False),
    ("how do I like my summaries?", True),
    ("what's my locker code again?", True),
    ("whats my gym membership number?", True),
    ("What time does my daughter's school end?", True),
    ("do you remember where I parked?", True),
    ("what was the name again?", True),
    ("remember my locker code is 4471", False),  # not a question: a fact to keep
    ("how big is my report.txt?", False),  # names a file
    ("what's in my downloads folder?", False),
    ("summarize my notes", False),
    ("can you run that again?", False),
    ("What is the capital of Italy?", False),
    ("What does todo.txt say I must do on Friday?", False),
])
def test_what_counts_as_asking_about_the_user_or_what_they_said(message: str, about: bool) -> None:
    assert asks_about_user(message) == about


def test_a_refusal_beside_the_saved_fact_ends_with_the_fact(tmp_path: Path, minilm) -> None:
    """The 0.5B's second turn of remember_casual (dev): "I'm sorry, but I can't assist with that." with
    "My locker code is 4471" beside the question. Asked once again, it refused again: the answer is the fact."""
    answer, requests = _run(tmp_path, minilm, "what's my locker code again?",
                            ["I'm sorry, but I can't assist with that."] * 2, LOCKER)
    assert answer == "From what you told me earlier: My locker code is 4471"
    assert len(requests) == 2 and "the saved memories beside my message" in requests[1]["messages"][-1]["content"]


def test_a_fact_far_from_the_question_is_not_said_to_answer_it(tmp_path: Path, minilm) -> None:
    answer, _ = _run(tmp_path, minilm, "what's my locker code again?",
                     ["I'm sorry, but I can't assist with that."] * 2, ("I like my summaries as bullet points",))
    assert answer == ("I found nothing you told me about that. The closest thing you told me: "
                      "I like my summaries as bullet points")


@pytest.mark.parametrize("question, fact", [
    ("Do I prefer tea or coffee?", "I prefer tea over coffee"),
    ("What appointment do I have on 12 May?", "My appointment with Dr. Alvarez is on 12 May"),
])
def test_a_question_close_to_a_saved_fact_is_about_it_whatever_its_words(tmp_path: Path, minilm, question: str,
                                                                          fact: str) -> None:
    """The 0.5B, test split (remember_preference, ground_fact_subject): with the fact beside the question, "I
    don't have any saved memories that may help ...". Neither question has a word facts.asks_about_user reads."""
    assert not asks_about_user(question)
    refusal = "I'm sorry, but I don't have any saved memories that may help me answer your question."
    answer, requests = _run(tmp_path, minilm, question, [refusal] * 2, (*FACTS, fact))
    assert answer == f"From what you told me earlier: {fact}"
    assert len(requests) == 2 and "the saved memories beside my message" in requests[1]["messages"][-1]["content"]


def test_a_general_question_on_a_facts_topic_is_not_about_the_fact(tmp_path: Path, minilm) -> None:
    # "Are peanuts a kind of nut?" is 0.66 from "I am allergic to peanuts": the fact is shown beside it, but a
    # refusal is the model's to give, not a cue to answer with the fact
    refusal = "I'm not sure about that."
    answer, requests = _run(tmp_path, minilm, "Are peanuts a kind of nut?", [refusal], FACTS)
    assert "I am allergic to peanuts" in requests[0]["messages"][-1]["content"]
    assert answer == refusal and len(requests) == 1


# A first-person question whose words asks_about_user does not read, and the fact it asks for (probe45, probe46:
# "what diet do i follow?" was answered "I don't have any information" by the 1.5B, no fact beside it)
@pytest.mark.parametrize("question, fact", [
    ("what diet do i follow?", "I'm vegetarian"),
    ("is there anything i can't eat?", "I am allergic to peanuts"),
])
def test_a_first_person_question_is_shown_the_facts_close_to_it(tmp_path: Path, minilm, question: str,
                                                                 fact: str) -> None:
    assert not asks_about_user(question) and asks_in_first_person(question)
    facts = (*(f for f in FACTS if "vegetarian" not in f), fact) if "vegetarian" in fact else FACTS
    shown = _shown(tmp_path, minilm, question, facts)
    assert SAVED_FACTS_HEADER in shown and f"- {fact}" in shown, shown


# ("am i free on friday?" is shown "I work from home on Fridays", which it may well ask about)
@pytest.mark.parametrize("question", ["how do I make pancakes?", "how do I convert celsius to fahrenheit?",
                                      "can you tell me a joke?"])
def test_a_first_person_question_on_something_else_is_shown_no_fact(tmp_path: Path, minilm, question: str) -> None:
    assert SAVED_FACTS_HEADER not in _shown(tmp_path, minilm, question)
