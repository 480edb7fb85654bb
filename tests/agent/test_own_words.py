"""Our own instructions never reach the user (issue 28): an answer that is a line of our prompt is not final,
and the lines written after tool results are cut from answers, whole or cut off by the token limit. The
strings are the real ones: the prompt's constants, and replies the 0.5B gave on the dev suite."""

from __future__ import annotations

import pytest

from gaia_lite.agent.constrained import CONSTRAINED_FORMAT_NOTE, TOOL_FIRST_AFTER_RESULT, TOOL_FIRST_FORMAT_NOTE
from gaia_lite.agent.judge import Accept, AskAgain, Evidence, FromResults, Reply, Stage, judge
from gaia_lite.agent.loop import SAVED_FACTS_HEADER, STOP_CALLING, TEXT_PATH_NEXT
from gaia_lite.agent.own_words import copied_instructions, without_own_lines
from gaia_lite.agent.prompt import MENU_INTRO, PERSONA, RESPONSE_FORMAT
from gaia_lite.registry.execute import ToolResult, ToolStatus

OURS = (PERSONA.split("Rules:", 1)[-1], RESPONSE_FORMAT, MENU_INTRO, TOOL_FIRST_FORMAT_NOTE, CONSTRAINED_FORMAT_NOTE,
        TOOL_FIRST_AFTER_RESULT, TEXT_PATH_NEXT, STOP_CALLING, SAVED_FACTS_HEADER)
AFTER = (TEXT_PATH_NEXT.strip(), TOOL_FIRST_AFTER_RESULT.strip())
FACTS = ("\n".join([SAVED_FACTS_HEADER, "- I like my summaries as bullet points", TOOL_FIRST_AFTER_RESULT.strip()]),)
ROWS = ToolResult("analyze_data_file", "analyze_data_file", {"file_path": "sales.csv"},
                  {"status": "success", "message": "Total over all 9 rows: revenue 375,000; units 1,393."},
                  ToolStatus.OK, 0.1)


def _ev(question: str, *, facts: tuple[str, ...] = (), result: ToolResult | None = None) -> Evidence:
    return Evidence(("read_file", "remember", "recall"), (result,) if result else (), result,
                    user_messages=(question,), facts=facts, copied_lines=AFTER, instructions=OURS)


# replies the 0.5B gave that are our own words
COPIES = [
    ("This answer depends on the user's files, data, memory or computer.", "how do I like my summaries?"),
    ("No specific knowledge or math or chit-chat available.", "how do I like my summaries?"),
    ("Call a tool when the answer depends on the user's files, data, memory or computer (never guess them).",
     "what's my locker code again?"),
    ("Use tool and argument names exactly as listed. Never invent tool results.", "What is the capital of Italy?"),
]

# answers that share words with the prompt and are answers all the same
ANSWERS = [
    ("You like your summaries as bullet points.", "how do I like my summaries?"),
    ("The capital of Italy is Rome.", "What is the capital of Italy?"),
    ("The file was successfully written to the specified location.", "did you save project-plan.md?"),
    ("Remembered: My locker code is 4471", "remember my locker code is 4471"),
    ("I could not find a file named notes.txt in the working directory.", "what does notes.txt say?"),
    ("No specific information available from the provided documentation.", "Give me a short HR briefing"),
]


@pytest.mark.parametrize("reply, question", COPIES)
def test_an_answer_copied_from_our_instructions_is_asked_again_then_replaced(reply: str, question: str) -> None:
    asked = judge(Reply((), reply), _ev(question, facts=FACTS), Stage.DRAFT)
    assert isinstance(asked, AskAgain) and asked.guard == "own_words" and question in asked.request
    assert judge(Reply((), reply), _ev(question, facts=FACTS), Stage.FINAL) == FromResults("own_words")


@pytest.mark.parametrize("reply, question", ANSWERS)
def test_answers_that_share_words_with_the_prompt_stay_answers(reply: str, question: str) -> None:
    assert copied_instructions(reply, OURS, [question]) is None
    assert judge(Reply((), reply), _ev(question), Stage.DRAFT) == Accept(reply)


def test_words_the_user_or_a_tool_used_are_the_answers_own() -> None:
    reply = "Your files, data and memory are on this computer."
    assert copied_instructions(reply, OURS, ["where are my files?"]) is not None
    assert copied_instructions(reply, OURS, ["where are my files, data and memory kept on this computer?"]) is None


def test_the_line_after_a_result_is_cut_from_an_answer_whole_or_cut_off() -> None:
    table = "Total over all 9 rows: revenue 375,000; units 1,393."
    cut_off = table + "\n" + TOOL_FIRST_AFTER_RESULT.strip()[:37]  # '(If this answers the request, reply {'
    assert cut_off.endswith('(If this answers the request, reply {')
    assert without_own_lines(cut_off, AFTER) == table
    assert without_own_lines(table + TOOL_FIRST_AFTER_RESULT, AFTER) == table
    assert without_own_lines(table + " " + TEXT_PATH_NEXT.strip()[:20], AFTER) == table
    assert without_own_lines("See (Now", AFTER) == "See (Now"  # a short end may be the answer's own
    assert without_own_lines(table, AFTER) == table
    assert judge(Reply((), cut_off), _ev("total?", result=ROWS), Stage.DRAFT) == Accept(table)


DECLINES = ["I'm sorry, but I can't assist with that.",
            "I'm sorry, but I don't have any saved memories that may help you find your locker code again."]


@pytest.mark.parametrize("reply", DECLINES)
def test_a_refusal_beside_saved_facts_is_asked_again_then_replaced(reply: str) -> None:
    question = "what's my locker code again?"
    facts = ("\n".join([SAVED_FACTS_HEADER, "- My locker code is 4471"]),)
    asked = judge(Reply((), reply), _ev(question, facts=facts), Stage.DRAFT)
    assert isinstance(asked, AskAgain) and asked.guard in ("declined_fact", "own_words")
    assert isinstance(judge(Reply((), reply), _ev(question, facts=facts), Stage.FINAL), FromResults)
    # without saved facts a refusal is the model's to give
    assert judge(Reply((), reply), _ev("can you hack my neighbour's wifi?"), Stage.DRAFT) == Accept(reply)


def test_a_reply_format_line_copied_and_cut_where_the_json_string_ended_is_no_answer() -> None:
    # the 0.5B, dev run, after reading a 46-line handbook: {"answer": "To answer: {"} and "To answer: {}}"
    fmt = tuple(ln.strip() for ln in TOOL_FIRST_FORMAT_NOTE.splitlines() if "{" in ln)
    for reply in ("To answer: {", "To answer: {}}"):
        assert without_own_lines(reply, fmt) == ""
        ev = Evidence(("read_file",), (ROWS,), ROWS, user_messages=("total?",), copied_lines=(*AFTER, *fmt))
        assert judge(Reply((), reply), ev, Stage.DRAFT) == FromResults("empty_answer")
    assert without_own_lines("The total is 5. To answer: {", fmt) == "The total is 5."
    for kept in ('Set it to {"a": 1}', "See {}", "Rome is the capital of Italy."):
        assert without_own_lines(kept, fmt) == kept
