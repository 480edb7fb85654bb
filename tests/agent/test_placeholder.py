"""A template slot is not an answer; bracketed text that is a real value is."""

import pytest

from gaia_lite.agent.constrained import AnswerView
from gaia_lite.agent.judge import Accept, Evidence, FromResults, Reply, Stage, judge
from gaia_lite.agent.judge.form import placeholder, written_call
from gaia_lite.messages import ChatResult


@pytest.mark.parametrize("text, slot", [
    ("The customer on the invoice is [Customer Name].", "[Customer Name]"),
    ("The top salesperson was [Salesperson Name], and they sold [Total Units] units.", "[Salesperson Name]"),
    ("Your plate is [Number].", "[Number]"),
    ("The customer on the invoice is [customer name].", "[customer name]"),
    ("<your answer, in plain sentences>", "<your answer, in plain sentences>"),   # the reply format, copied
    ("The total is <your answer, from the result>.", "<your answer, from the result>"),
])
def test_template_slots_are_found(text, slot):
    assert placeholder(text) == slot


@pytest.mark.parametrize("text", [
    "See [Page 2] of the report.",               # a citation copied from a tool result
    "The key was [REDACTED] in the log.",
    "Read the [Release Notes](https://example.org/notes).",   # a Markdown link
    "The list is [a, b, c].",
    "- [X] done\n- [ ] to do",                  # a Markdown task list
    "The flag is [enabled] by default.",
    "Rome is the capital of Italy.",
    "Use <br> for a line break, or <p class=\"x\"> for a paragraph.",   # HTML tags
    "The docs are at <https://example.org/docs>.",   # an autolink
    "Java writes List<String> and the test is a < b and c > d.",
])
def test_real_answers_have_no_slot(text):
    assert placeholder(text) is None


def _shown(raw: str) -> str:
    view = AnswerView(["read_file"])
    return "".join(view.feed(raw[i:i + 7]) for i in range(0, len(raw), 7)) + view.finish(ChatResult(raw))


def test_a_constrained_template_answer_never_reaches_the_screen():
    assert _shown('{"answer": "The customer on the invoice is [Customer Name]."}') == ""
    assert _shown('{"answer": "The customer is Lindqvist Bakery."}') == "The customer is Lindqvist Bakery."


def test_a_copied_reply_format_never_reaches_the_screen():
    assert _shown('{"tool": "none", "answer": "<your answer, in plain sentences>"}') == ""


def test_a_broken_written_call_is_not_an_answer():
    broken = '{"name": "recall", "arguments": {"query": "revenue in Q3?", chunks (2): ["# Acme"], offset: 0}}'
    ev = Evidence(("recall", "read_file"))
    assert written_call(broken, ev.tool_names) == "recall"
    assert judge(Reply((), broken), ev, Stage.FINAL) == FromResults("written_call")
    quoted = 'package.json says: {"name": "acme-web", "version": "2.1.0"}'   # a JSON file, not a call
    assert written_call(quoted, ev.tool_names) is None
    assert judge(Reply((), quoted), ev, Stage.FINAL) == Accept(quoted)
