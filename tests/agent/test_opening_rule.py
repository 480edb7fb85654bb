"""``opening`` on its own, without an embedder: each threshold with the scores MiniLM gave the real messages
(test_opening.py runs the same cases through the agent, with MiniLM and SQLite)."""

from __future__ import annotations

import pytest

from gaia_lite.agent.opening import Opening, opening

TOOLS = ("read_file", "remember", "recall", "browse_directory")


def _open(query: str, best: float | None, *, holds: bool = True, facts: bool = False, closest: float = 0.0,
          later: bool = False) -> Opening:
    def best_tool() -> float | None:
        assert not facts, "the tool score is not needed when saved facts sit beside the message"
        return best

    return opening(query, tool_names=TOOLS, holds_calls=holds, facts_shown=facts, closest_fact=closest,
                   best_tool=best_tool, later_turn=later)


@pytest.mark.parametrize("query, best, later, expected", [
    ("what is 12 times 12?", 0.20, False, Opening.ANSWER),  # unlike every tool
    ("lol ok", 0.26, True, Opening.ANSWER),
    ("shopping.md - what do I need from the bakery?", 0.20, False, Opening.TOOL_FIRST),  # names a file
    ("list the files in this folder", 0.71, False, Opening.TOOL_FIRST),
    ("Thanks! How many days are there in a week?", 0.40, True, Opening.OPEN),  # after a tool turn
    ("Unrelated question: how many minutes are there in two hours?", 0.54, True, Opening.OPEN),
    ("Thanks! How many days are there in a week?", 0.40, False, Opening.TOOL_FIRST),  # no tool ran yet
    ("who was the top salesperson in that file?", 0.86, True, Opening.TOOL_FIRST),
    ("And what does notes.md say?", 0.45, True, Opening.TOOL_FIRST),  # names a file
    ("what is in docs/plan?", 0.45, True, Opening.TOOL_FIRST),  # names a path
    ("can you recall my plate number?", 0.45, True, Opening.TOOL_FIRST),  # names a tool
    ("anything", None, True, Opening.TOOL_FIRST),  # no loader to score with
])
def test_the_tool_score_decides(query: str, best: float | None, later: bool, expected: Opening) -> None:
    assert _open(query, best, later=later) is expected


def test_saved_facts_beside_the_question() -> None:
    assert _open("Who is my dentist?", None, facts=True, closest=0.81) is Opening.ANSWER
    assert _open("Who is my dentist?", None, facts=True, closest=0.5) is Opening.OPEN  # related, not the answer
    assert _open("Remember that my dentist is now Dr. Smith", None, facts=True, closest=0.9) is Opening.OPEN


def test_free_replies_are_never_held() -> None:
    assert _open("what is 12 times 12?", 0.2, holds=False) is Opening.TOOL_FIRST
