"""The guards on a reply's substance against the evidence: calls the message did not ask for, judged before they
run (a poem written into a file nobody named, a file that does not exist, a whole file replaced to change one
line), and answers that stop short of the work (a refusal beside the saved fact or the file that holds the answer,
a change said to be made that no tool made, an answer about a file never read)."""

from __future__ import annotations

from gaia_lite.registry.execute import ToolStatus

from ..lexicon import ABOUT_FILES, ABOUT_ME, AGAIN, ASKS_CHANGE, ASKS_REWRITE, DECLINES, QUESTION, SAYS_DONE, WANTS_FILE
from ..named import names_file
from ..reply import Reply
from .guard import Evidence, Guard, OnDraft, OnFinal


def _unasked_write(reply: Reply, ev: Evidence) -> str | None:
    """A write of a made-up file for a message that asks for no file: what it wrote is the answer asked for."""
    if ev.invented is None or WANTS_FILE.search(ev.query):
        return None
    return next((found for call in reply.calls if call.name == "write_file" and (found := ev.invented(call))), None)


def _invented(reply: Reply, ev: Evidence) -> str | None:
    """A file a call names that nothing backs; a write the message asks for ("... and save it") names its own."""
    if ev.invented is None:
        return None
    asks_file = WANTS_FILE.search(ev.query) is not None
    return next((found for call in reply.calls if not (asks_file and call.name == "write_file")
                 and (found := ev.invented(call)) is not None), None)


def _clobbering(reply: Reply, ev: Evidence) -> str | None:
    if ev.clobbers is None or ASKS_REWRITE.search(ev.query):
        return None
    return next((found for call in reply.calls if call.name == "write_file" and (found := ev.clobbers(call))), None)


# Each row: what it caught first, and why it comes after the guards it names (docs/architecture.md has the replies)
CALL_GUARDS: tuple[Guard, ...] = (
    # the 0.5B wrote "Write me a two-line poem about the sea." to sea.txt (test split, 3 runs of 3)
    Guard("unasked_write", _unasked_write, OnDraft.ANSWER, OnFinal.ANSWER, on_calls=True),
    # analyze_image on leaves.jpg for "why do leaves turn red in autumn?" (0.5B). After unasked_write: asked this
    # about a poem's file, the 0.5B answered "I can't find that file". Short, with the question last: asked with a
    # longer text, it gave the text back as its answer (3 runs of 3)
    Guard("invented_file", _invented, OnDraft.ASK, OnFinal.KEEP,
          "No file {slot} exists, and I asked for none. Answer without tools: {query}",
          on_calls=True, after=("unasked_write",)),
    # the 1.5B wrote "bump the version to 2.1.0" over setup.cfg (test split, 287ef59)
    Guard("clobbering_write", _clobbering, OnDraft.ASK, OnFinal.ANSWER, "Not run: write_file would replace all of "
          "{slot}, and your text keeps little of what it holds. To change part of it, call edit_file with "
          "old_content copied exactly from the file (read it first if you need to). My request: {query}",
          on_calls=True),
)


# The tools that change something: an agent with none of them cannot be asked to make a change
_CHANGES = frozenset({"write_file", "edit_file", "run_shell_command", "remember", "update_memory", "forget",
                      "index_document", "index_directory", "add_watch_directory", "write_clipboard", "notify_desktop",
                      "text_to_speech", "set_loop_state", "dump_document"})
# ... and those that change a file (the 1.5B said setup.cfg "has been updated" after update_memory: 3258b4d)
_CHANGES_FILES = frozenset({"write_file", "edit_file", "run_shell_command"})
# A call the user denied or that timed out ends a turn as a read would: asked again, the model would repeat it
_ENDED = (ToolStatus.DENIED, ToolStatus.TIMEOUT)


def asks_about_user(message: str) -> bool:
    """Is ``message`` a question about the user or what they said, whose answer may be a saved fact ("what's my
    locker code again?")? A question with "my", "remember", "I told ..." or a closing "again" that names no
    file or other place the tools look in. The loop shows it the closest saved facts."""
    text = (message or "").strip()
    if not (text.endswith("?") or QUESTION.search(text)) or ABOUT_FILES.search(text):
        return False
    return bool(ABOUT_ME.search(text) or (AGAIN.search(text) and QUESTION.search(text)))


def _unread(ev: Evidence) -> bool:
    """No tool succeeded, was denied or timed out this turn, and one could have."""
    return bool(ev.tool_names) and not any(r.ok or r.status in _ENDED for r in ev.results)


def _declined_fact(reply: Reply, ev: Evidence) -> str | None:
    return DECLINES.found(reply.text) if ev.facts and asks_about_user(ev.query) else None


def _claimed_change(reply: Reply, ev: Evidence) -> str | None:
    """The change the message asks for, to a file it names, said to be made while no tool changed a file."""
    if not ASKS_CHANGE.search(ev.query) or QUESTION.search(ev.query) or not _CHANGES & set(ev.tool_names):
        return None
    if not any(names_file(n) for n in ev.named) or any(r.ok and r.name in _CHANGES_FILES for r in ev.results):
        return None  # "write me a poem" changes no file
    return SAYS_DONE.found(reply.text)


def _declined_unread(reply: Reply, ev: Evidence) -> str | None:
    """A refusal while the question's words point to a file here (one the message names is unread_file's)."""
    if ev.named or ev.pointed is None or not _unread(ev):
        return None
    return ev.pointed() if DECLINES.search(reply.text) else None


SHORTFALL_GUARDS: tuple[Guard, ...] = (
    # "I'm sorry, but I can't assist with that." to "what's my locker code again?" beside the code (0.5B, dev)
    Guard("declined_fact", _declined_fact, OnDraft.ASK, OnFinal.REPLACE, "You said \"{slot}\", but the saved "
          "memories beside my message are what I told you earlier. If one answers it, answer from it: {query}"),
    # "The project plan is updated ..." after only read_file ran (0.5B, dev split, 383dafe)
    Guard("claimed_change", _claimed_change, OnDraft.ASK, OnFinal.KEEP, "You said \"{slot}\", but no tool changed "
          "anything yet. Make the change with a tool now, then answer: {query}",
          amend=lambda reply, ev: "I have not made this change: no tool changed anything this turn."),
    # "I don't have enough information" beside policies/returns.md (1.5B, test split)
    Guard("declined_unread", _declined_unread, OnDraft.ASK, OnFinal.KEEP, "You said you do not know, but {slot} "
          "may hold it: look at it with a tool, then answer from what it holds. My question: {query}"),
    # "small.log" to "Which is bigger, big.log or small.log?", nothing read
    Guard("unread_file", lambda reply, ev: " and ".join(ev.named) if ev.named and _unread(ev) else None,
          OnDraft.ASK, OnFinal.KEEP,
          "{slot}: look at it with a tool before answering, then answer from what it holds. My question: {query}"),
)
