"""The evidence guards on what an answer claims: its specifics against what the turn's results show.

A small model states a number no result holds, or summarises a report without one of its figures. Each guard
here reads the results (``Evidence``); hollow_summary amends a final answer with what the results add instead
of replacing it.
"""

from __future__ import annotations

import json
import re

from ..grounding import changes_topic, unsupported
from ..lexicon import FIGURE, NUMBER_WORD, SUMMARY_ASKED
from ..reply import Reply
from .asks import HOLLOW_SUMMARY, UNGROUNDED
from .form import is_result_echo, opens_json_object
from .guard import Evidence, Guard, OnDraft, OnFinal

__all__ = ["CLAIM_GUARDS", "ungrounded_in", "FIGURE_LINES"]


def ungrounded_in(answer: str, ev: Evidence) -> str | None:
    """The first number, file name or name of ``answer`` that nothing the conversation was shown holds, or
    None. Checked only where the answer may draw on evidence: a tool succeeded this turn, saved facts
    were shown, or no tool ran and earlier turns' results are there (a follow-up: "and its q1?"). "Rome"
    to a plain question, or "144" after a denied call, has no source to be checked against. A call's arguments count (a file it read is
    named there). A message that says it changes the topic ("Unrelated question: how many minutes in two hours?")
    is no follow-up: "120" was flagged there after a report was read, for both models (dev split, 32d9094)."""
    follow_up = ev.seen_results and not ev.results and not (ev.user_messages and changes_topic(ev.user_messages[-1]))
    if not (any(r.ok for r in ev.results) or ev.facts or follow_up):
        return None
    said = [*ev.seen_results, *ev.user_messages, *ev.facts,
            *(json.dumps([r.arguments, r.payload], ensure_ascii=False, default=str) for r in ev.results)]
    found = unsupported(answer, "\n".join(said))
    return found.text if found is not None else None


def _ungrounded(reply: Reply, ev: Evidence) -> str | None:
    if opens_json_object(reply.text) or is_result_echo(reply.text):  # data, judged by result_echo when final
        return None
    return ungrounded_in(reply.text, ev)


# A year is when, not how much: "Acme Corp's second quarter 2025 report highlights strong revenue growth" (1.5B,
# test split) names the report's year and none of its figures.
_YEAR = re.compile(r"\b(?:19|20)\d\d\b")


_NUMBER = re.compile(r"(?<![\w./\\-])\d+(?:[.,]\d+)*")


_TEXT_KEYS = frozenset({"content", "text", "summary"})  # a text read, not a listing's sizes


def _hollow_summary(reply: Reply, ev: Evidence) -> str | None:
    """A summary (or an answer to "how many ...?") that lists a text's topics without one of its figures,
    although the text read this turn states figures: "It includes revenue, gross margin, and operating
    expenses, along with ..." for "Summarize reports/acme_q2_report.md." (0.5B and 1.5B, test split), whose
    text says $12.9 million; "The handbook provides information about PTO, remote work, benefits ..." for
    "... how many PTO days first-year staff get, how many remote days per week ..." (0.5B, dev)."""
    if not SUMMARY_ASKED.search(ev.query):
        return None
    texts = [_YEAR.sub("", v) for v in _texts(ev) if len(v) > 80]
    said = _YEAR.sub("", reply.text or "")
    if NUMBER_WORD.search(said) or set(_NUMBER.findall(said)) & {n for t in texts for n in _NUMBER.findall(t)}:
        return None  # a figure of the text (the file's size or line count is none)
    return "figures" if any(len(FIGURE.pattern.findall(t)) >= 3 for t in texts) else None


# The figures a hollow summary is given when it stays hollow: this many lines of the text, at most
FIGURE_LINES = 5


_BULLET = re.compile(r"^\s*(?:[-*+\u2022]|\d+[.)])\s+")


def _texts(ev: Evidence) -> list[str]:
    """The texts this turn's successful results read (a file's content, a summary), oldest first."""
    return [v for r in ev.results if r.ok for k, v in r.payload.items() if k in _TEXT_KEYS and isinstance(v, str)]


def _with_figures(reply: Reply, ev: Evidence) -> str:
    """A summary asked once for the text's figures that still has none keeps its words, and the text's own
    lines that state figures follow it, as they stand: the 1.5B summarized the Acme report as "highlights on
    Q2 revenue, gross margin, and operating expenses" twice, and the $12.9 million was never said."""
    lines = [_BULLET.sub("", ln).strip() for v in _texts(ev) for ln in v.splitlines()
             if ln.strip() and not ln.lstrip().startswith(("#", "|")) and FIGURE.search(ln)]
    picked = list(dict.fromkeys(ln.rstrip(".;") for ln in lines))[:FIGURE_LINES]
    if not picked:
        return reply.text
    return f"{reply.text.rstrip()}\n\nThe figures it gives: " + "; ".join(picked) + "."


CLAIM_GUARDS: tuple[Guard, ...] = (
    Guard("ungrounded", "a number, file name or name that no tool result, message or saved fact holds",
          _ungrounded, None, OnDraft.ASK, OnFinal.REPLACE_AFTER_RESULT, UNGROUNDED),
    Guard("hollow_summary", "a summary, or an answer to \"how many/much\", that lists a text's topics without any of "
          "the figures the text read this turn states (kept, with the text's lines of figures, when it stays so)",
          _hollow_summary, None, OnDraft.ASK, OnFinal.KEEP, HOLLOW_SUMMARY, amend=_with_figures),
)
