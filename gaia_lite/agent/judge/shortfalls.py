"""The evidence guards on answers that fall short of the work: the answer stops where a tool would go on.

A small model refuses or says it does not know beside the saved fact that holds the answer, says a change is
made that no tool made, or answers about a file it never read. Each guard here compares the answer with what the turn did (``Evidence``).
"""

from __future__ import annotations

from gaia_lite.registry.execute import ToolResult, ToolStatus

from ..lexicon import ABOUT_FILES, ABOUT_ME, AGAIN, ASKS_CHANGE, DECLINES, QUESTION, SAYS_DONE
from ..named import names_file
from ..reply import Reply
from .asks import CLAIMED_CHANGE, DECLINED, DECLINED_UNREAD, UNREAD
from .guard import Evidence, Guard, OnDraft, OnFinal

__all__ = ["SHORTFALL_GUARDS", "declines", "asks_about_user"]


def declines(text: str) -> str | None:
    """The words of ``text`` that refuse or say the answer is unknown, or None."""
    m = DECLINES.search(text or "")
    return m.group(0) if m else None


def asks_about_user(message: str) -> bool:
    """Is ``message`` a question about the user or what they said: its answer may be a saved fact ("what's
    my locker code again?", "how do I like my summaries?", "What did I tell you about my diet?")? A
    question, with "my", "remember"/"recall", "I told/said ..." or a closing "again", that names no file,
    folder or other place the tools look in ("how big is my report.txt?", "what's in my downloads?").
    The loop shows such a question its closest saved facts, and declined_fact holds a refusal beside them."""
    text = (message or "").strip()
    if not (text.endswith("?") or QUESTION.match(text)) or ABOUT_FILES.search(text):
        return False
    return bool(ABOUT_ME.search(text) or (AGAIN.search(text) and QUESTION.match(text)))


def _declined_fact(reply: Reply, ev: Evidence) -> str | None:
    """An answer that refuses or says it does not know when saved facts sat beside the question: "I'm
    sorry, but I can't assist with that." to "what's my locker code again?" with "My locker code is 4471"
    shown (0.5B, dev run). Only for a question about the user: the facts shown beside another question
    need not hold its answer."""
    return declines(reply.text) if ev.facts and asks_about_user(ev.query) else None


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
    if not ASKS_CHANGE.search(ev.query) or QUESTION.match(ev.query) or not _CHANGES & set(ev.tool_names):
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


SHORTFALL_GUARDS: tuple[Guard, ...] = (
    Guard("declined_fact", "a refusal or \"I don't know\" to a question about the user beside saved facts",
          _declined_fact, None, OnDraft.ASK, OnFinal.REPLACE, DECLINED),
    Guard("claimed_change", "an answer that says the change the message asks for is made, when no tool that changes "
          "anything succeeded this turn (replaced, when it stays so, by saying it is not made)", _claimed_change, None,
          OnDraft.ASK, OnFinal.KEEP, CLAIMED_CHANGE, amend=_not_done),
    Guard("declined_unread", "a refusal or \"I don't know\" with no successful tool call, when the words of the "
          "question point to a file here", _declined_unread, None, OnDraft.ASK, OnFinal.KEEP, DECLINED_UNREAD),
    Guard("unread_file", "an answer given with no successful tool call when the message names a file or folder "
          "that exists", _unread, None, OnDraft.ASK, OnFinal.KEEP, UNREAD),
)
