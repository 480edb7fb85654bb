"""The evidence guards on what an answer claims: its specifics against what the turn's results show.

A small model states a number no result holds, summarises a report without one of its figures, names some
entries of a listing and not the rest, or answers "which host is 10.0.0.40?" with 10.0.0.40. Each guard here
reads the results (``Evidence``); several amend a final answer with what the results add instead of replacing
it.
"""

from __future__ import annotations

import json
import re
from pathlib import PurePath
from typing import Any

from ..grounding import changes_topic, unsupported
from ..lexicon import ASKS_LISTING, ASKS_WHAT, FIGURE, NARROWS, NUMBER_WORD, SUMMARY_ASKED, asks_to_list
from ..reply import Reply
from .asks import ECHOED, HOLLOW_SUMMARY, LEFT_OUT, UNGROUNDED, UNOPENED_FOLDER
from .form import is_result_echo, opens_json_object
from .guard import Evidence, Guard, OnDraft, OnFinal

__all__ = ["CLAIM_GUARDS", "ungrounded_in", "FIGURE_LINES", "LISTING_NAMES_ALL", "ECHO_LINES"]


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


# A listing short enough that an answer to "what's in X?" names every entry
LISTING_NAMES_ALL = 12


def _left_out(reply: Reply, ev: Evidence) -> str | None:
    """The entries of a short folder listing (the turn's last result) that an answer naming some of them
    leaves out: "There are 3 files in the 'docs' directory: ..." for "whats in docs/?", whose listing
    held the folder images/ too (1.5B, test split). None when it names none (a count, or another question)."""
    last = ev.results[-1] if ev.results else None
    if last is None or not ASKS_LISTING.search(ev.query) or NARROWS.search(ev.query):
        return None
    entries = last.payload.get("entries") if last.ok else None
    if not isinstance(entries, list) or not 1 < len(entries) <= LISTING_NAMES_ALL:
        return None
    names = [str(e.get("name")) for e in entries if isinstance(e, dict) and e.get("name")]
    text = reply.text or ""
    said = [n for n in names if n in text]
    missing = [n + ("/" if any(e.get("name") == n and e.get("type") == "folder" for e in entries) else "")
               for n in names if n not in said]
    return ", ".join(missing) if said and missing else None


def _unopened_folder(reply: Reply, ev: Evidence) -> str | None:
    """A request to list a folder it names, answered after listings that show that folder as an entry but never
    list it: for "whats in docs/?" the 1.5B listed the working folder and answered "This folder holds 1 folder:
    docs." (test split, 383dafe). The folder, or None."""
    listings = [r for r in ev.results if r.ok and isinstance(r.payload.get("entries"), list)]
    if not listings or not ASKS_LISTING.search(ev.query):
        return None
    opened = {PurePath(str(r.payload.get("path") or "")).name.lower() for r in listings}
    for r in listings:
        for e in r.payload["entries"]:
            name = str(e.get("name") or "") if isinstance(e, dict) and e.get("type") == "folder" else ""
            asked = name and asks_to_list(ev.query, name)
            if asked and name.lower() not in opened:
                return name + "/"
    return None


def _with_rest(reply: Reply, ev: Evidence) -> str:
    """A listing answer kept, with the entries it left out named after it."""
    missing = _left_out(reply, ev)
    return f"{reply.text.rstrip()}\n\nAlso there: {missing}." if missing else reply.text


_TOKEN = re.compile(r"[\w][\w.@:/-]*[\w]|\w")


# what a line adds is at most this many of its lines, shown after an answer that stays an echo
ECHO_LINES = 3


def _identifiers(text: str) -> set[str]:
    """The tokens of ``text`` that hold a digit and are not a year or a lone small number: IPs, order numbers,
    codes ("10.0.0.40", "1043", "E42")."""
    return {t.lower() for t in _TOKEN.findall(text or "") if any(c.isdigit() for c in t)
            and not _YEAR.fullmatch(t) and not (t.isdigit() and len(t) < 3)}


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return value.splitlines()
    if isinstance(value, dict):
        return [ln for v in value.values() for ln in _strings(v)]
    if isinstance(value, (list, tuple)):
        return [ln for v in value for ln in _strings(v)]
    return []


def _lines_of(ev: Evidence, ids: set[str]) -> list[tuple[str, set[str]]]:
    """This turn's result lines that hold one of ``ids``, each with the tokens it adds to the question."""
    asked = {t.lower() for t in _TOKEN.findall(ev.query)}
    out = []
    for r in ev.results:
        for line in _strings(r.payload) if r.ok else ():
            tokens = {t.lower() for t in _TOKEN.findall(line)}
            if tokens & ids and (added := tokens - asked - {"line", "text"}):
                out.append((line.strip(), added))
    return list({ln: (ln, added) for ln, added in out}.values())


def _echoed(reply: Reply, ev: Evidence) -> str | None:
    """An answer to "which/what/who is <identifier>?" that has none of what the result's line adds to the
    identifier: the 1.5B answered "which host is 10.0.0.40?" with "The host IP address 10.0.0.40 is found at
    line 3 of hosts.txt." and the 0.5B with "10.0.0.40", both beside the line "10.0.0.40 cache01" (test split).
    The identifier, or None."""
    ids = _identifiers(ev.query) if ASKS_WHAT.search(ev.query) else set()
    lines = _lines_of(ev, ids) if ids else []
    said = {t.lower() for t in _TOKEN.findall(reply.text or "")}
    if not lines or any(added & said for _, added in lines):
        return None
    return sorted(ids)[0]


def _with_lines(reply: Reply, ev: Evidence) -> str:
    """An echo kept, with the result's lines that hold the identifier after it, as they stand."""
    lines: list[str] = []
    for ln in sorted((ln for ln, _ in _lines_of(ev, _identifiers(ev.query))), key=len):
        if not any(kept in ln for kept in lines):  # "hosts.txt:3: 10.0.0.40 cache01" holds "10.0.0.40 cache01"
            lines.append(ln)
    lines = lines[:ECHO_LINES]
    return f"{reply.text.rstrip()}\n\n" + "\n".join(lines) if lines else reply.text


CLAIM_GUARDS: tuple[Guard, ...] = (
    Guard("ungrounded", "a number, file name or name that no tool result, message or saved fact holds",
          _ungrounded, None, OnDraft.ASK, OnFinal.REPLACE_AFTER_RESULT, UNGROUNDED),
    Guard("hollow_summary", "a summary, or an answer to \"how many/much\", that lists a text's topics without any of "
          "the figures the text read this turn states (kept, with the text's lines of figures, when it stays so)",
          _hollow_summary, None, OnDraft.ASK, OnFinal.KEEP, HOLLOW_SUMMARY, amend=_with_figures),
    Guard("unopened_folder", "a request to list a folder it names, answered from a listing that shows that folder as "
          "an entry and never lists it", _unopened_folder, None, OnDraft.ASK, OnFinal.KEEP, UNOPENED_FOLDER),
    Guard("left_out", "an answer naming some entries of a short folder listing (the last result) and leaving others "
          "out (kept, with the rest named, when it stays so)", _left_out, None, OnDraft.ASK, OnFinal.KEEP, LEFT_OUT,
          amend=_with_rest),
    Guard("echoed_id", "an answer to \"which/what/who is <identifier>?\" with none of what the result's line adds to "
          "the identifier (kept, with those lines, when it stays so)", _echoed, None, OnDraft.ASK, OnFinal.KEEP,
          ECHOED, amend=_with_lines),
)
