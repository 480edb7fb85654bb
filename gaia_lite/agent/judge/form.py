"""The guards on a reply's form: what a reply is instead of an answer, whatever the turn found.

A small model may give a tool result back as JSON, name a tool instead of calling it, write a call the
parser cannot read, copy the reply format's slot or a line of the tool list, leave a template slot where a
value belongs, or answer with our own instructions. These guards read the reply's shape (and the tool names,
and our own text); the evidence guards (calls.py, shortfalls.py) compare it with what the turn found.
The helpers (``names_a_tool``, ``placeholder``, ...) serve the reply views and the evals too.
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable, Iterable

from ..lexicon import EMPTY_ANSWERS
from ..own_words import copied_instructions, without_own_lines
from ..reply import Reply
from .asks import COPIED_FORMAT, GUARD_ASKS, NARRATED, OWN_WORDS, TEMPLATE, UNKNOWN_CALL
from .guard import Evidence, Guard, OnDraft, OnFinal

__all__ = ["FORM_GUARDS", "is_result_echo", "opens_json_object", "echoes_result", "names_a_tool",
           "without_tool_names", "bare_tool_name", "placeholder", "answer_slot", "written_call", "unknown_call",
           "not_an_answer"]


def is_result_echo(text: str) -> bool:
    """Does the model's reply look like a tool result (a JSON object with a status)?"""
    t = text.strip()
    if not t.startswith("{"):
        return False
    try:
        value, _ = json.JSONDecoder().raw_decode(t)
    except ValueError:
        return False
    return isinstance(value, dict) and "status" in value


# A reply that opens a JSON object with a plain key ({"size_bytes": ...): data, held off the screen until the
# loop has read it (the answer shown is the loop's, so a JSON answer the user asked for still appears).
_JSON_OBJECT = re.compile(r'\s*\{\s*"([\w ]+)"\s*:')


def opens_json_object(text: str) -> bool:
    return bool(_JSON_OBJECT.match(text or ""))


def echoes_result(text: str, payload: dict[str, Any]) -> bool:
    """Is ``text`` a tool result given back as JSON: with its status, or opening with one of ``payload``'s
    keys (the 0.5B model dropped "status" and was cut off mid-"content")?"""
    if is_result_echo(text):
        return True
    m = _JSON_OBJECT.match(text or "")
    return m is not None and m.group(1) in payload


def _named(name: str) -> re.Pattern[str]:
    """A tool's name as a whole word, not part of a file name or a longer identifier."""
    return re.compile(rf"(?<![\w.]){re.escape(name)}(?!\w)")


def names_a_tool(text: str, tool_names: Iterable[str]) -> bool:
    """Does ``text`` name a tool (``browse_directory``, `read_file`)? An answer has no reason to:
    it is a call described in prose, or a bare tool name, instead of a call made. Only snake_case
    names count, so "read" or "recall" in a sentence never does."""
    return any(_named(n).search(text or "") for n in tool_names if "_" in n)


def without_tool_names(text: str, tool_names: Iterable[str], words: Callable[[str], str]) -> str:
    """``text`` with every tool name ``names_a_tool`` would find replaced by ``words(name)``."""
    for n in tool_names:
        if "_" in n:
            text = _named(n).sub(words(n), text)
    return text


def bare_tool_name(text: str, tool_names: Iterable[str]) -> bool:
    """Is the whole reply just a tool's name (``list_recent_files``, `read_file()`)?"""
    core = (text or "").strip().strip("`'\".:").removesuffix("()").strip()
    return bool(core) and core in set(tool_names)


# A template slot where a value should be: "[Customer Name]", "[Total Units]", "[customer name]", "[Name]".
# Two or more capitalised words, or words ending in a slot word; "[Page 2]", "[REDACTED]" and Markdown
# links do not count.
_SLOT_WORDS = r"(?:name|value|number|amount|date|total|units?|location|address|price|count)"


_PLACEHOLDER = re.compile(
    r"\[(?:[A-Z][a-z']+(?: [A-Za-z][a-z']+){1,4}|(?:[A-Za-z][a-z']* ){0,3}(?i:" + _SLOT_WORDS + r"))\](?!\()")


# A slot copied from the reply format ("<your answer, in plain sentences>", "<tool name>"): two or more
# lower-case words in angle brackets. HTML tags (<br>, <a href="...">) and autolinks (<https://...>)
# do not match.
_ANGLE_SLOT = re.compile(r"<[a-z][a-z']*(?:,? [a-z][a-z']*)+>")


# The reply format's answer slots are "<your answer, ...>" (a kind of angle slot); a copy of one stands where
# the answer belongs.
_ANSWER_SLOT = re.compile(r"<your answer(?:,? [a-z][a-z']*){0,8}>")


# What was meant as a call to a tool, written into the text and not read as one (cut-off or broken JSON):
# an object whose name key holds a tool's name. An answer quoting a JSON file has no reason to.
_WRITTEN_CALL = re.compile(r"""\{\s*["']?(?:name|tool|tool_name|function)["']?\s*:\s*["']([A-Za-z_][\w.-]*)["']""")


# A call to a tool that does not exist, written as JSON into the answer: a snake_case name, then its arguments
# ({"tool": "change_port", "arguments": {...). Data quoted from a file ({"name": "Alice", ...}) has no
# snake_case name followed by an arguments key.
_UNKNOWN_CALL = re.compile(r"""\{\s*["']?(?:name|tool|tool_name|function)["']?\s*:\s*"""
                           r"""["']([a-z][a-z0-9]*(?:_[a-z0-9]+)+)["']\s*,\s*"""
                           r"""["']?(?:arguments|args|parameters|params|tool_args)["']?\s*:""")


def placeholder(text: str) -> str | None:
    """The first template slot in ``text`` (``[Customer Name]``, ``<your answer, in plain sentences>``),
    or None. The model wrote the shape of an answer without the value: it has not read what holds it
    yet, or it copied the reply format instead of answering."""
    found = [m for m in (_PLACEHOLDER.search(text or ""), _ANGLE_SLOT.search(text or "")) if m]
    return min(found, key=lambda m: m.start()).group(0) if found else None


def answer_slot(text: str) -> str | None:
    """The reply format's answer slot copied into ``text`` (``<your answer, in plain sentences>``), or None."""
    m = _ANSWER_SLOT.search(text or "")
    return m.group(0) if m else None


def written_call(text: str, tool_names: Iterable[str]) -> str | None:
    """The tool a call written into ``text`` names (``{"name": "recall", "arguments": {...``), or None."""
    names = set(tool_names)
    return next((m.group(1) for m in _WRITTEN_CALL.finditer(text or "") if m.group(1) in names), None)


def unknown_call(text: str, tool_names: Iterable[str]) -> str | None:
    """The name of a tool that does not exist, called in JSON written into ``text``
    (``{"tool": "change_port", "arguments": {...}}``), or None."""
    names = set(tool_names)
    return next((m.group(1) for m in _UNKNOWN_CALL.finditer(text or "") if m.group(1) not in names), None)


def not_an_answer(text: str, tool_names: Iterable[str]) -> bool:
    """A reply the user must not see as the answer: a call described in prose or written as unreadable
    JSON, or a template."""
    names = list(tool_names)
    return names_a_tool(text, names) or placeholder(text) is not None or written_call(text, names) is not None


def _called(reply: Reply, ev: Evidence) -> str | None:
    return reply.calls[0].name if reply.calls else None


def _echo(reply: Reply, ev: Evidence) -> str | None:
    last = ev.last_result
    echo = echoes_result(reply.text, last.payload) if last is not None else is_result_echo(reply.text)
    return "echo" if echo else None


def _json_on_screen(reply: Reply, ev: Evidence) -> str | None:
    return "json" if opens_json_object(reply.text) or is_result_echo(reply.text) else None


def _bare(reply: Reply, ev: Evidence) -> str | None:
    return reply.text.strip() if bare_tool_name(reply.text, ev.tool_names) else None


def _empty(reply: Reply, ev: Evidence) -> str | None:
    return "empty" if reply.text.strip(" .\"'").lower() in EMPTY_ANSWERS.words else None


# A line of the tool list: a tool's name, its arguments in parentheses, a colon and the description
# ("list_recent_files(location?, file_types?, ...): List files changed ..."). A call written in Python syntax
# has no colon after its parenthesis.
_MENU_LINE = re.compile(r"(?<![\w.])([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\([^()\n]*\)\s*:\s")


def _menu_copy(reply: Reply, ev: Evidence) -> str | None:
    """After a tool succeeded this turn, an answer that copies a line of the tool list: the 0.5B's answer to
    "list the files in this folder" after browse_directory's listing, in 6 runs of 6 in one folder (the
    menu line after browse_directory's). Held to a call, it then made one that narrowed the full listing
    (list_recent_files with file_types='csv, md'), whose two files became the answer; asked again, it
    copied the line again. The tool's name, or None."""
    if not any(r.ok for r in ev.results):
        return None
    return next((m.group(1) for m in _MENU_LINE.finditer(reply.text or "") if m.group(1) in ev.tool_names), None)


def _narrated(reply: Reply, ev: Evidence) -> str | None:
    return "tool" if names_a_tool(reply.text, ev.tool_names) else None


def _slot_only(reply: Reply, ev: Evidence) -> str | None:
    """The reply format's answer slot and nothing else ("<your answer, in plain sentences>")."""
    slot = answer_slot(reply.text)
    return slot if slot is not None and not reply.text.replace(slot, "").strip(" .\"'{}:") else None


def _copied(reply: Reply, ev: Evidence) -> str | None:
    return answer_slot(reply.text)


def _template(reply: Reply, ev: Evidence) -> str | None:
    return placeholder(reply.text)


def _written(reply: Reply, ev: Evidence) -> str | None:
    return written_call(reply.text, ev.tool_names)


def _unknown(reply: Reply, ev: Evidence) -> str | None:
    return unknown_call(reply.text, ev.tool_names)


def _own_words(reply: Reply, ev: Evidence) -> str | None:
    """An answer that is mostly our own instruction text ("This answer depends on the user's files, data,
    memory or computer."): the part copied (own_words.copied_instructions)."""
    if not ev.instructions:
        return None
    ours = (*ev.instructions, *GUARD_ASKS)
    said = [*ev.user_messages, *ev.facts, *ev.seen_results,
            *(json.dumps([r.arguments, r.payload], ensure_ascii=False, default=str) for r in ev.results)]
    # the facts' header and the lines after results are ours, not evidence
    return copied_instructions(reply.text, ours, [without_own_lines(t, (*ev.copied_lines, *ours)) for t in said])


FORM_GUARDS: tuple[Guard, ...] = (
    Guard("called_after_stop", "a tool call in the reply that was told to answer without tools (never run)",
          _called, None, OnDraft.PASS, OnFinal.REPLACE),
    Guard("result_echo", "a tool result given back as JSON, with its status or opening with one of its keys",
          _echo, _json_on_screen, OnDraft.PASS, OnFinal.REPLACE),
    Guard("bare_tool_name", "a reply that is only a tool's name", _bare, None, OnDraft.PASS, OnFinal.REPLACE),
    Guard("empty_answer", 'an answer of "none", "null", "n/a" or nothing, taken from the tool-first shape',
          _empty, None, OnDraft.PASS, OnFinal.REPLACE_AFTER_RESULT),
    Guard("menu_copy", "after a tool succeeded, an answer that copies a line of the tool list (name, arguments, "
          "description)", _menu_copy, None, OnDraft.END, OnFinal.REPLACE_AFTER_RESULT),
    # after bare_tool_name: a reply that is only a tool's name is replaced, not held; after menu_copy: a copied
    # line of the tool list names a tool too, and menu_copy ends the draft (held or asked, the 0.5B copied again)
    Guard("narrated", "a tool named in prose: a call described instead of made",
          _narrated, _narrated, OnDraft.HOLD, OnFinal.REPLACE_AFTER_RESULT, NARRATED,
          after=("bare_tool_name", "menu_copy")),
    Guard("format_only", "a reply that is nothing but the reply format's answer slot",
          _slot_only, None, OnDraft.PASS, OnFinal.REPLACE),  # on screen: held as copied_format
    # after format_only: a reply that is the slot alone is replaced as final even with no tool result
    Guard("copied_format", "the reply format's answer slot copied into the reply",
          _copied, _copied, OnDraft.ASK, OnFinal.REPLACE_AFTER_RESULT, COPIED_FORMAT, after=("format_only",)),
    # after copied_format: the reply format's slot is a template slot too, and held to a call for it the model
    # would look up a value it should write ("what is the capital of Italy?", 0.5B)
    Guard("template", "a template slot where a value belongs ([Customer Name])",
          _template, _template, OnDraft.HOLD, OnFinal.REPLACE_AFTER_RESULT, TEMPLATE, after=("copied_format",)),
    Guard("written_call", "a call written as JSON that could not be read as one",
          _written, _written, OnDraft.HOLD, OnFinal.REPLACE, NARRATED),
    Guard("unknown_call", "a call to a tool that does not exist, written as JSON into the answer",
          _unknown, _unknown, OnDraft.ASK, OnFinal.REPLACE, UNKNOWN_CALL),
    # after the reply format's guards: the format is among our instructions, so a copy of its answer line is
    # both; its slot has its own, plainer request. It reads every guard's request as ours too (asks.GUARD_ASKS)
    Guard("own_words", "an answer that is mostly a copy of our own instructions (the prompt's rules, the reply "
          "format, the lines after tool results)", _own_words, None, OnDraft.ASK, OnFinal.REPLACE, OWN_WORDS,
          after=("format_only", "copied_format")),
)
