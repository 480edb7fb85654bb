"""The judge: every check on a model's reply, as named guards in one table.

A small model's reply is not always an answer. It may describe a call instead of making it, copy the
reply format's slot, give a tool result back as JSON, or repeat an earlier answer. Each such case is a
``Guard`` row in ``GUARDS``, in priority order:

- what it detects (its detector);
- what happens to a *draft* reply, one the model may still redo: ask again off the record, hold the
  next reply to a call, or nothing (the reply is judged as final);
- what happens to a *final* reply, the turn's last word: replace it with an answer built from the tool
  results, or keep it;
- whether it keeps streamed text off the screen (its screen detector).

``judge`` turns a reply into one typed ``Verdict``; the loop acts on it with one ``match``. Stream views
ask ``hiding_guard`` and ``first_sentence_pending`` what they may show while a reply arrives.

Adding a check is adding a row: a detector ``(reply, evidence) -> str | None`` (what it found, or None)
and a ``Guard`` at its priority. ``Evidence`` carries what the turn knows besides the reply (its tool
results, the user's messages, the saved facts shown), so a later guard can compare an answer with them
(an answer that stops one step short, or states specifics no result holds).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from enum import Enum
from pathlib import PurePath
from typing import Any, Callable, Iterable

from gaia_lite.messages import ToolCall
from gaia_lite.registry.execute import ToolResult, ToolStatus

from .lexicon import (
    ASKS_CHANGE, ASKS_IF_DONE, ASKS_LISTING, ASKS_REWRITE, ASKS_USER, ASKS_WHAT, COMPARES, DECLINES, EMPTY_ANSWERS, FIGURE,
    NARROWS, NOT_IN_IT, NUMBER_WORD, OUT_OF_REACH, PASSES_REFUSAL, PUT_IN, SAYS_DONE, SAYS_SIZE, SUMMARY_ASKED, WANTS_FILE,
    WILL_DO, YOU_DO_IT, asks_to_list,
)
from .grounding import asks_about_user, changes_topic, named_file, names_file, unsupported
from .own_words import copied_instructions, without_own_lines
from .reply import Reply
from .results import lines_to_the_model

__all__ = ["Reply", "Evidence", "Stage", "OnDraft", "OnFinal", "Guard", "GUARDS", "judge", "Verdict", "RunCalls",
           "AskAgain", "HoldToCall", "HoldToAnswer", "FromResults", "Accept", "hiding_guard", "first_sentence_pending",
           "plain_words", "names_a_tool", "without_tool_names", "placeholder", "answer_slot", "written_call",
           "unknown_call", "not_an_answer", "is_result_echo", "echoes_result", "opens_json_object", "bare_tool_name", "ungrounded_in",
           "hands_off", "declines", "active", "unknown_guards"]


@dataclass(frozen=True)
class Evidence:
    """What a guard may look at besides the reply."""

    tool_names: tuple[str, ...] = ()
    results: tuple[ToolResult, ...] = ()  # this turn's tool results, oldest first
    last_result: ToolResult | None = None  # the latest successful result, else the latest one
    earlier_answers: tuple[str, ...] = ()  # answers given earlier in the conversation that a new question must not get
    user_messages: tuple[str, ...] = ()  # the conversation's user messages, the current one last
    facts: tuple[str, ...] = ()  # saved facts shown beside the current message
    copied_lines: tuple[str, ...] = ()  # lines the agent writes after tool results, which a small model copies
    seen_results: tuple[str, ...] = ()  # every tool result of the conversation as the model read it
    named: tuple[str, ...] = ()  # what the current message names that exists ("settings.toml is in ...")
    invented: Callable[[ToolCall], "str | None"] | None = None  # a file a call names that nothing backs
    clobbers: Callable[[ToolCall], "str | None"] | None = None  # a file a write would replace, keeping little of it
    unasked: Callable[[ToolCall], "str | None"] | None = None  # a lookup that serves nothing the message asks
    pointed: Callable[[], "str | None"] | None = None  # the files the message's words point to, looked up on demand
    instructions: tuple[str, ...] = ()  # our own prompt text (rules, reply format, hints), never an answer
    skip: frozenset[str] = frozenset()  # guards turned off (GAIA_JUDGE_SKIP), so each can be measured without it

    @property
    def query(self) -> str:
        return self.user_messages[-1] if self.user_messages else ""


class Stage(Enum):
    DRAFT = "draft"  # the model may still be asked once to redo the reply
    FINAL = "final"  # it was asked once already: the reply is the answer, or is replaced
    FORCED = "forced"  # it was told to answer without tools: a call in it is never run


class OnDraft(Enum):
    PASS = "judged as final"
    ASK = "ask again"  # off the record, with the guard's words
    HOLD = "hold to a call"  # where the reply mode can (no words the model could echo), else ask again
    END = "judged as final at once"  # later guards' draft actions are skipped: asking again cannot help
    ANSWER = "hold to an answer"  # a call not run, and the next reply answers without tools


class OnFinal(Enum):
    KEEP = "keep"
    REPLACE = "replace"  # by an answer built from the tool results ("could not finish" without any)
    REPLACE_AFTER_RESULT = "replace after a tool result"
    ANSWER = "hold to an answer"  # a call judged again after the ask is not run: the next reply must answer


Detector = Callable[[Reply, Evidence], "str | None"]


@dataclass(frozen=True)
class Guard:
    name: str
    catches: str  # one line, for people (docs/architecture.md lists it)
    detect: Detector
    on_screen: Detector | None  # keeps streamed text off the screen when it finds something; None: shown
    on_draft: OnDraft
    on_final: OnFinal
    ask: str = ""  # the request sent with ASK/HOLD; {slot} is what was found, {query} the user's message
    on_calls: bool = False  # judges a reply's calls before they run; others judge answers
    amend: Callable[[Reply, Evidence], str] | None = None  # a final answer it detects becomes this (kept, and added to)

    def final_applies(self, ev: Evidence) -> bool:
        return self.on_final is OnFinal.REPLACE or (self.on_final is OnFinal.REPLACE_AFTER_RESULT
                                                    and ev.last_result is not None)


# ---------------------------------------------------------------- verdicts


@dataclass(frozen=True)
class RunCalls:
    calls: tuple[ToolCall, ...]


@dataclass(frozen=True)
class AskAgain:
    guard: str
    request: str  # sent after the reply, both off the record


@dataclass(frozen=True)
class HoldToCall:
    guard: str


@dataclass(frozen=True)
class HoldToAnswer:
    guard: str
    request: str = ""  # sent after the history, for the reply that must answer without tools


@dataclass(frozen=True)
class FromResults:
    guard: str


@dataclass(frozen=True)
class Accept:
    answer: str
    guard: str = ""  # the guard that amended the answer, if one did


Verdict = RunCalls | AskAgain | HoldToCall | HoldToAnswer | FromResults | Accept


def judge(reply: Reply, ev: Evidence, stage: Stage, *, can_hold: bool = False) -> Verdict:
    """What to do with ``reply``: run its calls, ask again, hold the next reply to a call, or end the turn
    with it (``Accept``) or with an answer built from the tool results (``FromResults``). A draft is judged
    by the first guard with a draft action that detects something; otherwise, as a final reply, by the
    first guard whose final action applies. ``can_hold``: the reply mode can hold a reply to a call."""
    guards = active(ev.skip)
    if reply.calls and stage is not Stage.FORCED:
        for guard in guards:
            if not guard.on_calls or (stage is Stage.FINAL and guard.on_final is not OnFinal.ANSWER):
                continue
            found = guard.detect(reply, ev)
            if found is not None and stage is Stage.DRAFT and guard.on_draft is OnDraft.ASK:
                return AskAgain(guard.name, guard.ask.format(slot=found, query=ev.query))
            if found is not None:
                return HoldToAnswer(guard.name, ANSWER_YOURSELF.format(query=ev.query))
        return RunCalls(reply.calls)
    # the agent's own lines, copied (whole, or cut off by the token limit), are not part of the answer
    text = without_own_lines(reply.text.strip(), ev.copied_lines)
    # ... nor are a result's lines for the model, copied with their labels (the 0.5B answered a travel-policy
    # question with the whole query_documents result, "note: ... was not indexed; it is now." included: held-out
    # suite, 3 runs of 3), unless nothing else is left
    text = without_own_lines(text, [ln for r in ev.seen_results for ln in lines_to_the_model(r)]) or text
    seen = Reply(reply.calls, text)
    if stage is Stage.DRAFT:
        for guard in guards:
            found = guard.detect(seen, ev) if guard.on_draft is not OnDraft.PASS else None
            if found is None:
                continue
            if guard.on_draft is OnDraft.END:
                break
            if guard.on_draft is OnDraft.HOLD and can_hold:
                return HoldToCall(guard.name)
            return AskAgain(guard.name, guard.ask.format(slot=found, query=ev.query))
    for guard in guards:
        if guard.amend is not None and guard.detect(seen, ev) is not None:
            return Accept(guard.amend(seen, ev), guard.name)
        if guard.on_final is not OnFinal.KEEP and guard.final_applies(ev) and guard.detect(seen, ev) is not None:
            return FromResults(guard.name)
    return Accept(text)


# ---------------------------------------------------------------- detectors

def plain_words(text: str) -> str:
    """``text`` lower-cased, without punctuation, one space between words: for "said the same"."""
    return " ".join("".join(c for c in text.lower() if c.isalnum() or c.isspace()).split())


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




def hands_off(text: str, ran_tools: bool) -> str | None:
    """What in ``text`` hands the user a step the tools could take, or None. Instructions count only
    when no tool ran this turn (after a result, "you can find more in the report" beside an answer is
    fine); a claim that the files are out of reach always counts."""
    m = OUT_OF_REACH.search(text or "") or (None if ran_tools else YOU_DO_IT.search(text or ""))
    return m.group(0).strip() if m else None


_LAST_SENTENCE = re.compile(r"(?s)(?:^|(?<=[.!?:])\s+)([^.!?:]*[.!?]*)\s*$")


def _announced(reply: Reply, ev: Evidence) -> str | None:
    """An answer that ends by announcing a step of the agent's own, and stops there: "... but it doesn't
    contain any information about eggs. I'll need to search for other files in the same directory." (1.5B,
    test split); "Let's proceed with that analysis." (held-out suite). The step is not done, and no tool
    call follows the words."""
    if not ev.tool_names or reply.calls:
        return None
    last = _LAST_SENTENCE.search((reply.text or "").strip())
    m = WILL_DO.search(last.group(1)) if last else None
    return m.group(0) if m else None


def _stopped_short(reply: Reply, ev: Evidence) -> str | None:
    """Instructions to the user count when no call succeeded, or the last one failed: after edit_file failed,
    the 1.5B answered "The current version is 2.0.3. You need to update it to 2.1.0." (test split)."""
    ran = any(r.ok for r in ev.results) and ev.results[-1].ok
    return hands_off(reply.text, ran) if ev.tool_names else None


_WRITES = frozenset({"write_file"})




def _relayed_error(reply: Reply, ev: Evidence) -> str | None:
    """The note of the tool call that just failed, passed on to the user as the answer: an argument's name of
    that call in the answer, or an answer mostly made of the note when the note names a tool to call. After
    edit_file said "Call edit_file again with one of them as old_content", the 1.5B answered "Please provide
    one of them as old_content"; after update_memory said "setup.cfg is a file, not a memory: change its text
    with edit_file", the 0.5B answered with that sentence (test split, 4 runs of 4). An answer that asks the
    user for something, when the note names a tool to call, counts too: the note says how to get it."""
    last = ev.results[-1] if ev.results else None
    if last is None or last.ok:
        return None
    named = next((name for name in last.arguments if "_" in name
                  and re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", reply.text or "")), None)
    if named is not None:
        return named
    note = " ".join(str(last.payload.get(k) or "") for k in ("error", "message"))
    if not any(re.search(rf"\b{re.escape(t)}\b", note) for t in ev.tool_names):
        return None
    asked = ASKS_USER.search(reply.text or "")
    if asked:
        return asked.group(0)
    copied = copied_instructions(reply.text.replace("_", " "), [note.replace("_", " ")], ev.user_messages)
    return " ".join(copied.split()[:8]) if copied else None


# The sandbox's refusal of a path outside the allowed folders (tools/sandbox.py), and an answer that passes such a
# refusal on ("Please restart the process with the --allowed-paths option to allow it.")
_REFUSED_PATH = re.compile(r"(\S+) is outside the allowed folders")


def _relayed_refusal(reply: Reply, ev: Evidence) -> str | None:
    """A refusal of a path the user never asked about, passed on as the answer. For "and how many of those are
    left?" after a CSV's lowest row was named, the 1.5B ran `find` on the working folder's parent, was refused,
    and answered "Please restart the process with the --allowed-paths option" (dev split, 3258b4d): a dead end
    the model made, while the answer was in the earlier result. The refused path, or None."""
    last = ev.results[-1] if ev.results else None
    if last is None or last.ok or reply.calls:
        return None
    note = " ".join(str(last.payload.get(k) or "") for k in ("error", "message"))
    refused = _REFUSED_PATH.search(note)
    if refused is None or not PASSES_REFUSAL.search(reply.text or ""):
        return None
    path = refused.group(1)
    said = " ".join(ev.user_messages)
    if path in said or PurePath(path).name in re.findall(r"[\w.-]+", said):
        return None  # the user asked about that place: the refusal is the answer, with how to widen it
    return path


# The tools that change something (files, memory, the index, the desktop): after one of them, "done" may be true
_CHANGES = frozenset({"write_file", "edit_file", "run_shell_command", "remember", "update_memory", "forget",
                      "index_document", "index_directory", "add_watch_directory", "write_clipboard", "notify_desktop",
                      "text_to_speech", "set_loop_state", "dump_document"})
# The tools that change a file: only after one of them is a change to a named file "done" (the 1.5B said setup.cfg
# "has been updated" after its write was stopped and an update_memory call had succeeded: test split, 3258b4d)
_CHANGES_FILES = frozenset({"write_file", "edit_file", "run_shell_command"})


def _claimed_change(reply: Reply, ev: Evidence) -> str | None:
    """An answer that says the change the message asks for, to a file it names, is made, when no tool that changes
    a file succeeded this turn: "The project plan is updated to reflect the new deadline of 15 March." after only read_file ran
    (0.5B, dev split, 383dafe); the file still said the old date. What it claimed, or None."""
    if not ASKS_CHANGE.search(ev.query) or ASKS_IF_DONE.search(ev.query) or not _CHANGES & set(ev.tool_names):
        return None
    if not any(names_file(n) for n in ev.named):  # a change to a file here ("write me a poem" changes nothing)
        return None
    if any(r.ok and r.name in _CHANGES_FILES for r in ev.results):
        return None
    m = SAYS_DONE.search(reply.text or "")
    return m.group(0) if m else None


def _not_done(reply: Reply, ev: Evidence) -> str:
    """A claim of a change that stays unmade, replaced by what is true."""
    return "I have not made this change: no tool changed anything this turn."


def _invented(reply: Reply, ev: Evidence) -> str | None:
    """A file a call of the reply names that does not exist, is like no file in the allowed folders and
    the user never named, when the user named none ("leaves.jpg" to analyze_image for "in one sentence -
    why do leaves turn red?"; grounding.invented_file)."""
    if ev.invented is None:
        return None
    asks_file = WANTS_FILE.search(ev.query) is not None  # "... and save it": the write names its own file
    return next((found for call in reply.calls if not (asks_file and call.name in _WRITES)
                 and (found := ev.invented(call)) is not None), None)




def _clobbering(reply: Reply, ev: Evidence) -> str | None:
    """A write_file call that would replace a file's text with text keeping under half of its lines, when the
    message asks for no rewrite (grounding.clobbered_file): the file, as the user reads it, or None."""
    if ev.clobbers is None or ASKS_REWRITE.search(ev.query):
        return None
    return next((found for call in reply.calls if call.name in _WRITES and (found := ev.clobbers(call))), None)


def _unasked_write(reply: Reply, ev: Evidence) -> str | None:
    """A write of a made-up file (grounding.invented_file) for a message that asks for no file: the text
    is what the user asked for, to be answered. The 0.5B wrote "The sea is vast ..." to sea.txt for "Write
    me a two-line poem about the sea." (test split, 3 runs of 3); asked again with invented_file's words
    ("No file sea.txt exists ..."), it answered "I can't find that file" twice."""
    if ev.invented is None or WANTS_FILE.search(ev.query):
        return None
    return next((found for call in reply.calls if call.name in _WRITES and (found := ev.invented(call))), None)


def _unasked(reply: Reply, ev: Evidence) -> str | None:
    """The first call of a turn that looks the user's files up for a message they serve nothing in
    (grounding.unasked_lookup): "whats 9+10?" after a file was read."""
    if ev.unasked is None or any(r.ok for r in ev.results):
        return None
    return next((found for call in reply.calls if (found := ev.unasked(call)) is not None), None)


def _own_words(reply: Reply, ev: Evidence) -> str | None:
    """An answer that is mostly our own instruction text ("This answer depends on the user's files, data,
    memory or computer."): the part copied (own_words.copied_instructions)."""
    if not ev.instructions:
        return None
    ours = (*ev.instructions, *(g.ask for g in GUARDS))
    said = [*ev.user_messages, *ev.facts, *ev.seen_results,
            *(json.dumps([r.arguments, r.payload], ensure_ascii=False, default=str) for r in ev.results)]
    # the facts' header and the lines after results are ours, not evidence
    return copied_instructions(reply.text, ours, [without_own_lines(t, (*ev.copied_lines, *ours)) for t in said])




def declines(text: str) -> str | None:
    """The words of ``text`` that refuse or say the answer is unknown, or None."""
    m = DECLINES.search(text or "")
    return m.group(0) if m else None


def _declined_fact(reply: Reply, ev: Evidence) -> str | None:
    """An answer that refuses or says it does not know when saved facts sat beside the question: "I'm
    sorry, but I can't assist with that." to "what's my locker code again?" with "My locker code is 4471"
    shown (0.5B, dev run). Only for a question about the user: the facts shown beside another question
    need not hold its answer."""
    return declines(reply.text) if ev.facts and asks_about_user(ev.query) else None


def _declined_result(reply: Reply, ev: Evidence) -> str | None:
    """An answer that refuses or says it does not know although a result of this turn holds lines that
    match the question (read_file's lines_matching_request): "I don't know Acme Corp's Q3 revenue according
    to reports/acme_q3_report.md." after three successful reads of that report, whose line 7 says "Q3
    revenue was $14.2 million" (0.5B, dev run)."""
    if not any(r.ok and r.payload.get("lines_matching_request") for r in ev.results):
        return None
    return declines(reply.text)


_ENDED = (ToolStatus.DENIED, ToolStatus.TIMEOUT)


def _declined_unread(reply: Reply, ev: Evidence) -> str | None:
    """A refusal or "I don't know" with no successful tool call this turn, when the words of the question point
    to a file here that it names in no other way: "returns policy - can I get my money back on sale items?"
    answered "I don't have enough information" (1.5B, test split) beside policies/returns.md. The files, or
    None. (A file the message names is unread_file's.)"""
    if ev.named or ev.pointed is None or not ev.tool_names or any(r.ok or r.status in _ENDED for r in ev.results):
        return None
    return ev.pointed() if declines(reply.text) else None


def _unread(reply: Reply, ev: Evidence) -> str | None:
    """An answer given with no successful tool call this turn although the message names a file or
    folder that exists ("settings.toml - what's the timeout?" answered "10 seconds" from nowhere;
    "big.log or small.log?" answered "small.log"): what it names, or None. A call the user denied or
    that timed out ends it too: asked again, the model would only make it again."""
    if not ev.named or not ev.tool_names or any(r.ok or r.status in _ENDED for r in ev.results):
        return None
    return " and ".join(ev.named)




def _unread_named(reply: Reply, ev: Evidence) -> str | None:
    """An answer that says the file the message names does not hold the answer, or does not know, when no
    call of the turn read that file: it was searched, not read. "hosts.txt - what's the db server's IP?"
    got a content search for "db server's IP" (nothing), and the 1.5B answered "The IP address of the
    database server is not found in the hosts.txt file." (test split, 54039b1). What it names, or None."""
    if not ev.named or not ev.tool_names or not (NOT_IN_IT.search(reply.text or "") or declines(reply.text)):
        return None
    unread = [name for name in ev.named if not any(_read(r, name) for r in ev.results)]
    return " and ".join(unread) or None




def _compared_unseen(reply: Reply, ev: Evidence) -> str | None:
    """An answer to a comparison of files the message names, when a call of the turn looked at one of them and
    none at the other: "Which is bigger, big.log or small.log?" answered "small.log" after reading one file
    (0.5B, dev split); "report_a.txt is bigger" after reading only report_a.txt (1.5B, dev split). The files
    no call looked at, or None."""
    files = [n for n in ev.named if names_file(n)]
    if len(files) < 2 or not COMPARES.search(ev.query):
        return None
    seen = [n for n in files if any(_seen(r, n) for r in ev.results)]
    unseen = [n for n in files if n not in seen]
    return " and ".join(unseen) if seen and unseen else None




def _sizes(ev: Evidence) -> dict[str, int]:
    """The byte sizes this turn's results show, by file name: a read's ``size_bytes``, a listing's entries."""
    out: dict[str, int] = {}
    for r in ev.results:
        if not r.ok:
            continue
        listed = [r.payload.get(key) for key in ("entries", "files")]  # a listing's "files" may be a count
        items = [r.payload, *(e for found in listed if isinstance(found, list) for e in found if isinstance(e, dict))]
        for item in items:
            where = item.get("file_path") or item.get("path") or item.get("name")
            if isinstance(where, str) and isinstance(item.get("size_bytes"), int):
                out[PurePath(where).name] = item["size_bytes"]
    return out


def _size_claim(reply: Reply, ev: Evidence) -> dict[str, int] | None:
    """The sizes the results show for the files the message names, when the answer calls the wrong one of
    them the bigger (or the smaller) one; else None."""
    files = [named_file(n) for n in ev.named if names_file(n)]
    sizes = {f: b for f, b in _sizes(ev).items() if f in files}
    m = SAYS_SIZE.search(reply.text or "")
    if len(sizes) < 2 or len(set(sizes.values())) < 2 or m is None or not COMPARES.search(ev.query):
        return None
    said = m.group("a") or m.group("b")
    if said not in sizes:
        return None
    big = bool(m.group("big") or m.group("big2"))
    right = max(sizes, key=sizes.__getitem__) if big else min(sizes, key=sizes.__getitem__)
    return sizes if said != right else None


def _wrong_size(reply: Reply, ev: Evidence) -> str | None:
    """A comparison of named files' sizes that the results contradict: "small.log is bigger than big.log." after
    reads that showed 5 and 2,001 bytes (1.5B, dev split, 3258b4d). The sizes, or None."""
    sizes = _size_claim(reply, ev)
    return ", ".join(f"{f} is {b:,} bytes" for f, b in sizes.items()) if sizes else None


def _by_size(reply: Reply, ev: Evidence) -> str:
    """The comparison, from the sizes the results show."""
    sizes = _size_claim(reply, ev)
    if not sizes:
        return reply.text
    ranked = sorted(sizes.items(), key=lambda fb: -fb[1])
    return f"{ranked[0][0]} is bigger: " + ", ".join(f"{f} is {b:,} bytes" for f, b in ranked) + "."


def _seen(result: ToolResult, name: str) -> bool:
    """Did ``result`` look at the file ``name`` (a line of ``Evidence.named``): name it in its arguments or its
    result (a folder listing with its size counts)?"""
    leaf = named_file(name)
    return result.ok and (leaf in json.dumps(result.arguments, ensure_ascii=False)
                          or leaf in json.dumps(result.payload, ensure_ascii=False, default=str))


def _read(result: ToolResult, name: str) -> bool:
    """Did ``result`` read the file ``name`` (a line of ``Evidence.named``): named it in its arguments, or found
    lines in it?"""
    if not result.ok:
        return False
    leaf = named_file(name)
    said = json.dumps(result.arguments, ensure_ascii=False)
    return leaf in said or (bool(result.payload.get("count")) and leaf in json.dumps(result.payload, default=str))


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
# A file name in an answer, not as the end of a path ("router_setup.txt", not "home-network/router_setup.txt")
_BARE_FILE = re.compile(r"(?<![\w./\\-])([\w-][\w.-]*\.[A-Za-z0-9]{1,5})(?![\w/\\-])")


def _places(name: str, texts: Iterable[str]) -> set[str]:
    """The folders the results show ``name`` in ("home-network", "/tmp/w/home-network")."""
    found = re.compile(rf"((?:~?/)?[\w.-]+(?:/[\w.-]+)*)/{re.escape(name)}(?![\w.-])")
    return {m.group(1) for t in texts for m in found.finditer(t)}


def _misplaced(reply: Reply, ev: Evidence) -> str | None:
    """A found file put in a folder no result shows it in: for "Which file holds the Wi-Fi details?", after
    search_file showed home-network/router_setup.txt, the 1.5B answered "... in the `router_setup.txt` file located
    at `/…/work`" (dev split, 3258b4d): a path no tool returned. "<file> in <folder>", or None."""
    text = reply.text or ""
    if reply.calls or "/" not in text:
        return None
    for m in _BARE_FILE.finditer(text):
        name = m.group(1)
        places = _places(name, ev.seen_results)
        put = PUT_IN.pattern.match(text, m.end())
        if not places or put is None or "/" not in put.group(1) or any(f"{p}/{name}" in text for p in places):
            continue
        folder = put.group(1).rstrip("/.")  # "home-network/." ends a sentence
        if not any(p == folder or p.endswith("/" + folder.lstrip("/")) or folder.endswith("/" + p) for p in places):
            return f"{name} in {folder}"
    return None


def _with_place(reply: Reply, ev: Evidence) -> str:
    """A misplaced file kept, with where the results show it after it."""
    found = _misplaced(reply, ev)
    if not found:
        return reply.text
    name = found.split(" in ", 1)[0]
    where = min(_places(name, ev.seen_results), key=len)
    return f"{reply.text.rstrip()}\n\n{name} is at {where}/{name}."


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


def _repeated(reply: Reply, ev: Evidence) -> str | None:
    """An earlier answer of this conversation, word for word."""
    said = plain_words(reply.text)
    return "repeat" if said and any(plain_words(a) == said for a in ev.earlier_answers) else None


# ---------------------------------------------------------------- the guards, in priority order

# Sent (once per turn, and kept out of the history) when a reply describes a call instead of making it.
NARRATED = ("Do not describe a tool call or name a tool. Either make the call now, in the reply format, "
            "or answer my question yourself in plain sentences.")
# Sent the same way when a reply is a template ("The customer is [Customer Name].") instead of an answer.
TEMPLATE = ("Your reply has a placeholder, {slot}, where a value belongs. Call a tool to find the real value "
            "now, or say plainly that you could not find it.")
# Sent the same way when a reply copies the reply format's slot ("<your answer, in plain sentences>"): the
# 0.5B model did on "what is the capital of Italy?"; the template request above would send it to a tool.
COPIED_FORMAT = "Your reply copied {slot} from the reply format. Write the answer itself instead: {query}"
# Sent the same way when a reply is word for word the answer to an earlier question of this conversation.
HOLLOW_SUMMARY = ("Your summary names topics but none of the figures and facts the text gives. Summarize again, "
                  "stating the key figures and facts it gives: {query}")
REPEATED = "That repeats your answer to an earlier question. Answer my latest question: {query}"
# Sent the same way, the call not run, when a call names a file nothing backs.
DECLINED_UNREAD = ("You said you do not know, but {slot} may hold it: look at it with a tool, then answer from what "
                   "it holds. My question: {query}")
UNASKED = ("None of my files or earlier results mention this. Answer it yourself, in plain sentences (or call a "
           "tool if it truly needs one): {query}")
# Short, with the question last: asked with a longer text ("... If my question needs my files, find them first;
# otherwise just answer it, without tools: ..."), the 0.5B gave that text back as its answer to "Write me a
# two-line poem about the sea." in 3 runs of 3 (test split), and the turn ended with "could not finish".
INVENTED = "No file {slot} exists, and I asked for none. Answer without tools: {query}"
# Sent the same way, the call not run, when a write would replace most of a file the user asked to change.
CLOBBERING = ("Not run: write_file would replace all of {slot}, and your text keeps little of what it holds. To change "
              "part of it, call edit_file with old_content copied exactly from the file (read it first if you need "
              "to). My request: {query}")
# Sent the same way when an answer came without a tool although the message names a file that exists.
UNREAD = "{slot}: look at it with a tool before answering, then answer from what it holds. My question: {query}"
# Sent the same way when a reply tells the user to do what a tool can ("You can open the file ...").
STOPPED_SHORT = ("You told me to do it myself (\"{slot}\"). You have tools for that: call the tool that does it "
                 "now, then answer my question: {query}")
# Sent, for a reply held to an answer, after a lookup or write the message did not ask for: "with what you
# already have" (the loop's usual words) drew "I don't have enough information" to "cheers! whats 9+10?" (1.5B).
ANSWER_YOURSELF = "Answer it yourself now, in plain sentences, without tools: {query}"
# Sent the same way when an answer to a listing names some of its entries and leaves others out.
LEFT_OUT = "Your answer leaves out {slot}, which the listing holds. Answer again, naming every entry: {query}"
# Sent the same way when a folder the message asks about was seen only as an entry of another folder's listing.
UNOPENED_FOLDER = ("You answered from a listing that shows {slot} as one entry, but you never listed {slot} itself. "
                   "List {slot} with a tool now, then answer from what it holds: {query}")
# Sent the same way when an answer to "which host is 10.0.0.40?" only gives the identifier back.
ECHOED = ("Your answer only gives \"{slot}\" back. The tool result has the line that holds it: say from that line "
          "what I asked: {query}")
# Sent the same way when an answer ends by announcing a step of its own ("I'll need to search ...").
ANNOUNCED = ("You said \"{slot}\" and stopped. Do it now: call the tool for it, then answer my question: {query}")
# Sent the same way when an answer writes a call to a tool that does not exist ({"tool": "change_port", ...}).
UNKNOWN_CALL = ("{slot} is not one of your tools. Call a tool from the list, in the reply format, or answer my "
                "question in plain sentences: {query}")
# Sent the same way when an answer is mostly a copy of our own instructions.
OWN_WORDS = ("Your reply repeats my instructions (\"{slot}\") instead of answering. Answer my question itself, "
             "in plain sentences, or call a tool if it needs one: {query}")
# Sent the same way when an answer refuses or says it does not know while saved memories sat beside the question.
DECLINED = ("You said \"{slot}\", but the saved memories beside my message are what I told you earlier. If one "
            "answers it, answer from it: {query}")
# Sent the same way when an answer refuses or says it does not know while a result holds lines on the question.
DECLINED_RESULT = ("You said \"{slot}\", but the tool result above has lines that match my question. Answer from "
                   "them: {query}")
# Sent the same way when an answer passes on the note of a tool call that failed, naming its argument.
RELAYED_ERROR = ("Your answer passes on the failed tool's note to you (\"{slot}\"). Do what the note says: call the "
                 "tool it names, with the arguments it gives, then answer: {query}")
# Sent the same way when an answer's size comparison contradicts the sizes the results show.
WRONG_SIZE = "The results show: {slot}. Your comparison does not match them. Answer again from these sizes: {query}"
# Sent the same way when an answer puts a found file in a folder no result shows it in.
MISPLACED = ("{slot}: no result shows it there. Say where it is as the results show its path, then answer: "
             "{query}")
# Sent the same way when an answer passes on a refusal of a path the user never asked about.
RELAYED_REFUSAL = ("{slot} is outside the folders you may use, and the user did not ask about it. Answer from the "
                   "results you already have, or call a tool on a path inside the working folder, then answer: {query}")
# Sent the same way when an answer says a change is made that no tool made.
CLAIMED_CHANGE = ("You said \"{slot}\", but no tool changed anything yet. Make the change with a tool now, then "
                  "answer: {query}")
# Sent the same way when an answer compares files it looked at only one of.
COMPARED_UNSEEN = "{slot}: you have not looked at it yet. Look at it with a tool too, then compare and answer: {query}"
# Sent the same way when an answer states a number or file name that nothing shown to the model holds.
UNGROUNDED = ("Your answer says {slot}, but no tool result, saved memory or message of mine says that. Answer "
              "again using only what the tools returned; if they do not hold it, call a tool to find it or say "
              "plainly that you could not find it. My question: {query}")

GUARDS: tuple[Guard, ...] = (
    Guard("unasked_write", "a write of a made-up file for a message that asks for no file (never run)",
          _unasked_write, None, OnDraft.ANSWER, OnFinal.ANSWER, on_calls=True),
    Guard("invented_file", "a call naming a file that does not exist, is like no file here and the user never "
          "named, when the user named none (never run)", _invented, None, OnDraft.ASK, OnFinal.KEEP, INVENTED,
          on_calls=True),
    Guard("clobbering_write", "a write_file call that would replace a file's text with text keeping under half of "
          "its lines, when the message asks for no rewrite (never run)", _clobbering, None, OnDraft.ASK, OnFinal.ANSWER,
          CLOBBERING, on_calls=True),
    Guard("unasked_lookup", "the first lookup of a turn (a read, document query or image question) for a message "
          "that names no file, points back at nothing, and whose words no file or earlier result holds (never run)",
          _unasked, None, OnDraft.ASK, OnFinal.ANSWER, UNASKED, on_calls=True),
    Guard("called_after_stop", "a tool call in the reply that was told to answer without tools (never run)",
          _called, None, OnDraft.PASS, OnFinal.REPLACE),
    Guard("result_echo", "a tool result given back as JSON, with its status or opening with one of its keys",
          _echo, _json_on_screen, OnDraft.PASS, OnFinal.REPLACE),
    Guard("bare_tool_name", "a reply that is only a tool's name", _bare, None, OnDraft.PASS, OnFinal.REPLACE),
    Guard("empty_answer", 'an answer of "none", "null", "n/a" or nothing, taken from the tool-first shape',
          _empty, None, OnDraft.PASS, OnFinal.REPLACE_AFTER_RESULT),
    Guard("menu_copy", "after a tool succeeded, an answer that copies a line of the tool list (name, arguments, "
          "description)", _menu_copy, None, OnDraft.END, OnFinal.REPLACE_AFTER_RESULT),
    Guard("narrated", "a tool named in prose: a call described instead of made",
          _narrated, _narrated, OnDraft.HOLD, OnFinal.REPLACE_AFTER_RESULT, NARRATED),
    Guard("format_only", "a reply that is nothing but the reply format's answer slot",
          _slot_only, None, OnDraft.PASS, OnFinal.REPLACE),  # on screen: held as copied_format
    Guard("copied_format", "the reply format's answer slot copied into the reply",
          _copied, _copied, OnDraft.ASK, OnFinal.REPLACE_AFTER_RESULT, COPIED_FORMAT),
    Guard("template", "a template slot where a value belongs ([Customer Name])",
          _template, _template, OnDraft.HOLD, OnFinal.REPLACE_AFTER_RESULT, TEMPLATE),
    Guard("written_call", "a call written as JSON that could not be read as one",
          _written, _written, OnDraft.HOLD, OnFinal.REPLACE, NARRATED),
    Guard("unknown_call", "a call to a tool that does not exist, written as JSON into the answer",
          _unknown, _unknown, OnDraft.ASK, OnFinal.REPLACE, UNKNOWN_CALL),
    Guard("own_words", "an answer that is mostly a copy of our own instructions (the prompt's rules, the reply "
          "format, the lines after tool results)", _own_words, None, OnDraft.ASK, OnFinal.REPLACE, OWN_WORDS),
    Guard("declined_fact", "a refusal or \"I don't know\" to a question about the user beside saved facts",
          _declined_fact, None, OnDraft.ASK, OnFinal.REPLACE, DECLINED),
    Guard("declined_result", "a refusal or \"I don't know\" although a result of the turn holds lines that match the "
          "question", _declined_result, None, OnDraft.ASK, OnFinal.REPLACE_AFTER_RESULT, DECLINED_RESULT),
    Guard("stopped_short", "an answer that hands the user a step a tool can do, or says the files are out of reach",
          _stopped_short, None, OnDraft.ASK, OnFinal.KEEP, STOPPED_SHORT),
    Guard("announced_step", "an answer that ends by announcing a step of its own (\"I'll need to search ...\", "
          "\"Let's proceed ...\") and stops", _announced, None, OnDraft.ASK, OnFinal.KEEP, ANNOUNCED),
    Guard("relayed_error", "the note of the tool call that just failed, passed on to the user: an argument of the "
          "call named, or the note (naming a tool to call) copied", _relayed_error, None, OnDraft.ASK, OnFinal.KEEP, RELAYED_ERROR),
    Guard("wrong_size", "a comparison of named files' sizes that the sizes in the results contradict (replaced, when "
          "it stays so, by the comparison from those sizes)", _wrong_size, None, OnDraft.ASK, OnFinal.KEEP, WRONG_SIZE,
          amend=_by_size),
    Guard("misplaced_file", "a found file put in a folder no result shows it in (kept, with the path the results "
          "show, when it stays so)", _misplaced, None, OnDraft.ASK, OnFinal.KEEP, MISPLACED, amend=_with_place),
    Guard("relayed_refusal", "a refusal of a path outside the allowed folders that the user never asked about, "
          "passed on as the answer", _relayed_refusal, None, OnDraft.ASK, OnFinal.KEEP, RELAYED_REFUSAL),
    Guard("claimed_change", "an answer that says the change the message asks for is made, when no tool that changes "
          "anything succeeded this turn (replaced, when it stays so, by saying it is not made)", _claimed_change, None,
          OnDraft.ASK, OnFinal.KEEP, CLAIMED_CHANGE, amend=_not_done),
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
    Guard("repeated", "an earlier answer given word for word to a new question",
          _repeated, None, OnDraft.ASK, OnFinal.KEEP, REPEATED),
    Guard("declined_unread", "a refusal or \"I don't know\" with no successful tool call, when the words of the "
          "question point to a file here", _declined_unread, None, OnDraft.ASK, OnFinal.KEEP, DECLINED_UNREAD),
    Guard("unread_named", "an answer that says the file the message names does not hold it, or does not know, when "
          "no call of the turn read that file", _unread_named, None, OnDraft.ASK, OnFinal.KEEP, UNREAD),
    Guard("compared_unseen", "an answer to a comparison of files the message names, when the turn looked at one of "
          "them and not at the other", _compared_unseen, None, OnDraft.ASK, OnFinal.KEEP, COMPARED_UNSEEN),
    Guard("unread_file", "an answer given with no successful tool call when the message names a file or folder "
          "that exists", _unread, None, OnDraft.ASK, OnFinal.KEEP, UNREAD),
)




def active(skip: frozenset[str]) -> tuple[Guard, ...]:
    """The guards in force: all of them but those ``skip`` names."""
    return GUARDS if not skip else tuple(g for g in GUARDS if g.name not in skip)


def unknown_guards(names: Iterable[str]) -> list[str]:
    """The names among ``names`` that no guard has (a GAIA_JUDGE_SKIP typo must not pass silently)."""
    known = {g.name for g in GUARDS}
    return [n for n in names if n not in known]


# ---------------------------------------------------------------- on screen

# The first sentence of a streamed answer is held until it is complete (or this long): a narrated call
# names its tool there.
FIRST_SENTENCE_MAX = 160
_SENTENCE_END = re.compile(r".{12}[.!?:](\s|$)|\n", re.DOTALL)


def first_sentence_pending(text: str) -> bool:
    """Is ``text`` (an answer as it streams) still inside its first sentence?"""
    return len(text) < FIRST_SENTENCE_MAX and not _SENTENCE_END.search(text)


def hiding_guard(text: str, ev: Evidence) -> str | None:
    """The first guard that keeps ``text`` (a reply as it streams, or all of it) off the screen, or None.
    The loop judges the whole reply and shows the answer it ends the turn with."""
    seen = Reply((), text)
    return next((g.name for g in active(ev.skip) if g.on_screen is not None and g.on_screen(seen, ev) is not None), None)
