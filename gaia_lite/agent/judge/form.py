"""The guards on a reply's form: what a reply is instead of an answer, whatever the turn found (a tool result
given back as JSON, a call described or written unreadably, a copied slot)."""

from __future__ import annotations

import json
import re
from typing import Iterable

from ..lexicon import EMPTY_ANSWERS, SLOT_WORDS
from ..reply import Reply, names_a_tool
from .guard import Detector, Evidence, Guard, OnDraft, OnFinal

# A reply that opens a JSON object with a plain key ({"size_bytes": ...): data, held off the screen until the
# loop has read it (the answer shown is the loop's, so a JSON answer the user asked for still appears)
_JSON_OBJECT = re.compile(r'\s*\{\s*"([\w ]+)"\s*:')
# A template slot: two or more capitalised words, or words ending in a slot word ("[Customer Name]", "[Number]");
# not "[Page 2]", "[REDACTED]" or a Markdown link
_PLACEHOLDER = re.compile(r"\[(?:[A-Z][a-z']+(?: [A-Za-z][a-z']+){1,4}|(?:[A-Za-z][a-z']* ){0,3}(?i:"
                          + "|".join(sorted(SLOT_WORDS.words, reverse=True)) + r"))\](?!\()")
# A slot copied from the reply format ("<tool name>"): lower-case words in angle brackets, not an HTML tag or
# autolink; the format's answer slots are "<your answer, ...>"
_ANGLE_SLOT = re.compile(r"<[a-z][a-z']*(?:,? [a-z][a-z']*)+>")
_ANSWER_SLOT = re.compile(r"<your answer(?:,? [a-z][a-z']*){0,8}>")
# A call written into the text and not read as one: an object whose name key holds a tool's name, and whether its
# arguments key comes next. A call to a tool that does not exist needs that key and a snake_case name
# ({"tool": "change_port", "arguments": ...}): data quoted from a file ({"name": "Alice", ...}) has neither
_WRITTEN_CALL = re.compile(r"""\{\s*["']?(?:name|tool|tool_name|function)["']?\s*:\s*["']([A-Za-z_][\w.-]*)["']"""
                           r"""(\s*,\s*["']?(?:arguments|args|parameters|params|tool_args)["']?\s*:)?""")
_SNAKE_CASE = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+")
# A line of the tool list, "name(arguments): description"; a call in Python syntax has no colon after it
_MENU_LINE = re.compile(r"(?<![\w.])([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\([^()\n]*\)\s*:\s")


def is_result_echo(text: str) -> bool:
    """Does ``text`` look like a tool result (a JSON object with a status)?"""
    try:
        value, _ = json.JSONDecoder().raw_decode(text.strip())
    except ValueError:
        return False
    return isinstance(value, dict) and "status" in value


def placeholder(text: str) -> str | None:
    """The first template slot in ``text`` ("[Customer Name]", "<your answer, in plain sentences>"), or None."""
    found = [m for m in (_PLACEHOLDER.search(text or ""), _ANGLE_SLOT.search(text or "")) if m]
    return min(found, key=lambda m: m.start()).group(0) if found else None


def written_call(text: str, tool_names: Iterable[str]) -> str | None:
    """The tool a call written into ``text`` names (``{"name": "recall", "arguments": {...``), or None."""
    names = set(tool_names)
    return next((m.group(1) for m in _WRITTEN_CALL.finditer(text or "") if m.group(1) in names), None)


def unknown_call(text: str, tool_names: Iterable[str]) -> str | None:
    """The name of a tool that does not exist, called in JSON written into ``text``, or None."""
    names = set(tool_names)
    return next((m.group(1) for m in _WRITTEN_CALL.finditer(text or "")
                 if m.group(2) and m.group(1) not in names and _SNAKE_CASE.fullmatch(m.group(1))), None)


def _echo(reply: Reply, ev: Evidence) -> str | None:
    """A result given back with its status, or opening with one of its keys (the 0.5B dropped "status")."""
    m = _JSON_OBJECT.match(reply.text)
    key = m is not None and ev.last_result is not None and m.group(1) in ev.last_result.payload
    return "echo" if is_result_echo(reply.text) or key else None


def _bare(reply: Reply, ev: Evidence) -> str | None:
    core = reply.text.strip().strip("`'\".:").removesuffix("()").strip()
    return core if core and core in ev.tool_names else None


def _menu_copy(reply: Reply, ev: Evidence) -> str | None:
    """After a tool succeeded, a copied line of the tool list: the tool's name. Held to a call, the 0.5B narrowed
    the listing it had; asked again, it copied the line again (6 runs of 6)."""
    if not any(r.ok for r in ev.results):
        return None
    return next((m.group(1) for m in _MENU_LINE.finditer(reply.text) if m.group(1) in ev.tool_names), None)


# The detectors a row uses to keep streamed text off the screen (all but _json also judge the reply); any JSON
# object waits off the screen, a tool result or not
_json: Detector = lambda reply, ev: ("json" if _JSON_OBJECT.match(reply.text) or is_result_echo(reply.text)
                                     else None)
_narrated: Detector = lambda reply, ev: "tool" if names_a_tool(reply.text, ev.tool_names) else None
_answer_slot: Detector = lambda reply, ev: (m := _ANSWER_SLOT.search(reply.text)) and m.group(0)
_template: Detector = lambda reply, ev: placeholder(reply.text)
_written: Detector = lambda reply, ev: written_call(reply.text, ev.tool_names)
_unknown: Detector = lambda reply, ev: unknown_call(reply.text, ev.tool_names)


def _slot_only(reply: Reply, ev: Evidence) -> str | None:
    slot = _answer_slot(reply, ev)
    return slot if slot is not None and not reply.text.replace(slot, "").strip(" .\"'{}:") else None


NARRATED = ("Do not describe a tool call or name a tool. Either make the call now, in the reply format, "
            "or answer my question yourself in plain sentences.")

# Each row says why it comes after the guards it names; the real reply it caught first is its row in
# docs/architecture.md's table
FORM_GUARDS: tuple[Guard, ...] = (
    Guard("called_after_stop", lambda reply, ev: reply.calls[0].name if reply.calls else None, OnDraft.PASS,
          OnFinal.REPLACE),
    Guard("result_echo", _echo, OnDraft.PASS, OnFinal.REPLACE, on_screen=_json),
    Guard("bare_tool_name", _bare, OnDraft.PASS, OnFinal.REPLACE),
    Guard("empty_answer", lambda reply, ev: "empty" if reply.text.strip(" .\"'").lower() in EMPTY_ANSWERS.words
          else None, OnDraft.PASS, OnFinal.REPLACE_AFTER_RESULT),
    Guard("menu_copy", _menu_copy, OnDraft.END, OnFinal.REPLACE_AFTER_RESULT),
    # after bare_tool_name (a tool's name alone is replaced, not held) and menu_copy (a copied line of the list
    # names a tool too)
    Guard("narrated", _narrated, OnDraft.HOLD, OnFinal.REPLACE_AFTER_RESULT, NARRATED, on_screen=_narrated,
          after=("bare_tool_name", "menu_copy")),
    Guard("format_only", _slot_only, OnDraft.PASS, OnFinal.REPLACE),  # on screen: held as copied_format
    # its own request, not template's (which would send "what is the capital of Italy?" to a tool); after
    # format_only: the slot alone is replaced as final even with no tool result
    Guard("copied_format", _answer_slot, OnDraft.ASK, OnFinal.REPLACE_AFTER_RESULT,
          "Your reply copied {slot} from the reply format. Write the answer itself instead: {query}",
          on_screen=_answer_slot, after=("format_only",)),
    # after copied_format: its slot is a template slot too, and held to a call for it, the model would look up a
    # value it should write
    Guard("template", _template, OnDraft.HOLD, OnFinal.REPLACE_AFTER_RESULT, "Your reply has a placeholder, "
          "{slot}, where a value belongs. Call a tool to find the real value now, or say plainly that you could "
          "not find it.", on_screen=_template, after=("copied_format",)),
    Guard("written_call", _written, OnDraft.HOLD, OnFinal.REPLACE, NARRATED, on_screen=_written),
    Guard("unknown_call", _unknown, OnDraft.ASK, OnFinal.REPLACE, "{slot} is not one of your tools. Call a tool "
          "from the list, in the reply format, or answer my question in plain sentences: {query}",
          on_screen=_unknown),
)
