"""Our own lines never reach the user (issue 28): the lines written after tool results and the reply format's
JSON lines are cut from answers, whole or cut off by the token limit (``reply.without_own_lines``). The strings
are the real ones: the prompt's constants, and replies the 0.5B gave on the dev suite."""

from __future__ import annotations

import pytest

from gaia_lite.agent.constrained import TOOL_FIRST_AFTER_RESULT, TOOL_FIRST_FORMAT_NOTE
from gaia_lite.agent.judge import Accept, AskAgain, Evidence, FromResults, Reply, Stage, judge
from gaia_lite.agent.loop import SAVED_FACTS_HEADER, TEXT_PATH_NEXT
from gaia_lite.agent.reply import without_own_lines
from gaia_lite.registry.execute import ToolResult, ToolStatus

AFTER = (TEXT_PATH_NEXT.strip(), TOOL_FIRST_AFTER_RESULT.strip())
ROWS = ToolResult("analyze_data_file", "analyze_data_file", {"file_path": "sales.csv"},
                  {"status": "success", "message": "Total over all 9 rows: revenue 375,000; units 1,393."},
                  ToolStatus.OK, 0.1)


def _ev(question: str, *, facts: tuple[str, ...] = (), result: ToolResult | None = None) -> Evidence:
    return Evidence(("read_file", "remember", "recall"), (result,) if result else (), result,
                    user_messages=(question,), facts=facts, copied_lines=AFTER)


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
    assert isinstance(asked, AskAgain) and asked.guard == "declined_fact"
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
