"""An instruction about the answer's form ("in one sentence", "briefly") is not an intent (issue 28,
principle 7): scored as one, "in one sentence" pulled text_to_speech into no-tool questions, and both
the 0.5B and the 1.5B model called it."""

from __future__ import annotations

import pytest

from gaia_lite.loader.query import split_clauses, without_answer_form


@pytest.mark.parametrize("asked, scored", [
    ("in one sentence - why do leaves turn red in autumn?", "why do leaves turn red in autumn?"),
    ("In one sentence: what does the CSV file format store?", "what does the CSV file format store?"),
    ("Say in one sentence why the sky is blue", "why the sky is blue"),
    ("why is the sky blue, in one sentence?", "why is the sky blue?"),
    ("what's JSON, briefly?", "what's JSON?"),
    ("summarize report.md in two sentences please", "summarize report.md"),
    ("earlier message\nin 3 words: capital of France", "earlier message\ncapital of France"),
])
def test_a_leading_or_trailing_form_instruction_is_not_scored(asked: str, scored: str) -> None:
    assert without_answer_form(asked) == scored


@pytest.mark.parametrize("asked", [
    "say it out loud",  # the request itself: nothing counts a unit or says brief
    "read this paragraph out loud",
    "check the size of dump.sql and then show me its first lines",  # "first lines" is what to show
    "give me a short summary of notes.md",  # "short" inside the request, not a run at its edge
    "tell me about the clipboard",
    "in one sentence",  # nothing else to score
])
def test_requests_that_only_look_like_form_are_kept(asked: str) -> None:
    assert without_answer_form(asked) == asked


def test_a_form_only_clause_is_not_a_clause() -> None:
    assert split_clauses("find the report file, in two short lines, and then index it for me") == [
        "find the report file", "index it for me"]


@pytest.fixture(scope="module")
def doc_loader(minilm):
    from gaia_lite.config import load_settings
    from gaia_lite.loader.loader import build_doc_loader
    from gaia_lite.cli.wiring import build_tool_set

    loader = build_doc_loader(minilm)
    tools = build_tool_set(load_settings({"dynamic_tools": True}), loader, native=True)
    return loader, tools.registry


ACTING = {"text_to_speech", "read_clipboard", "write_clipboard", "notify_desktop"}


@pytest.mark.parametrize("question", [
    "in one sentence - why do leaves turn red in autumn?",
    "Say in one sentence why the sky is blue",
    "In one sentence: what does the CSV file format store?",
])
def test_no_tool_question_with_a_form_word_loads_no_acting_tool(doc_loader, question: str) -> None:
    loader, registry = doc_loader
    loader.reset_session()
    loaded = set(loader.select(question, registry).loaded)
    assert not loaded & ACTING, sorted(loaded & ACTING)


def test_asking_to_hear_it_still_loads_text_to_speech(doc_loader) -> None:
    loader, registry = doc_loader
    loader.reset_session()
    assert "text_to_speech" in loader.select("read this paragraph out loud", registry).loaded
