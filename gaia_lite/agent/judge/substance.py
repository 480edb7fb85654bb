"""The guards on a reply's substance against the evidence: a call on a file nothing backs (before it runs), and
answers that stop short (a refusal beside what holds the answer, a change no tool made, a file never read)."""

from __future__ import annotations

from gaia_lite.registry.execute import ToolStatus

from ..lexicon import ASKS_CHANGE, COMPARES, DECLINES, QUESTION, SAYS_DONE, WANTS_FILE
from ..named import named_file, names_file
from ..reply import Reply
from .guard import Evidence, Guard, OnDraft, OnFinal


def _invented(reply: Reply, ev: Evidence) -> str | None:
    """A file a call names that nothing backs; a write the message asks for ("... and save it") names its own."""
    asks_file = WANTS_FILE.search(ev.query) is not None
    return next((found for call in reply.calls if ev.invented and not (asks_file and call.name == "write_file")
                 and (found := ev.invented(call))), None)


CALL_GUARDS: tuple[Guard, ...] = (
    # short, with the question last: asked with a longer text, the 0.5B gave the text back as its answer (3 of 3)
    Guard("invented_file", _invented, OnDraft.ASK, OnFinal.KEEP,
          "No file {slot} exists, and I asked for none. Answer without tools: {query}", on_calls=True),
)


# The tools that change a file: an agent without them cannot be asked to make a file's change (the 1.5B said
# setup.cfg "has been updated" after update_memory, 3258b4d: a memory change does not count)
_CHANGES_FILES = frozenset({"write_file", "edit_file", "run_shell_command"})
# A call the user denied or that timed out ends a turn as a read would: asked again, the model would repeat it
_ENDED = (ToolStatus.DENIED, ToolStatus.TIMEOUT)


def _unread(ev: Evidence) -> bool:
    """No tool succeeded, was denied or timed out this turn, and one could have."""
    return bool(ev.tool_names) and not any(r.ok or r.status in _ENDED for r in ev.results)


def _claimed_change(reply: Reply, ev: Evidence) -> str | None:
    """The change the message asks for, to a file it names, said to be made while no tool changed a file."""
    if not ASKS_CHANGE.search(ev.query) or QUESTION.search(ev.query) or not _CHANGES_FILES & set(ev.tool_names):
        return None
    if not any(names_file(n) for n in ev.named) or any(r.ok and r.name in _CHANGES_FILES for r in ev.results):
        return None  # "write me a poem" changes no file
    return SAYS_DONE.found(reply.text)


def _compared_unseen(reply: Reply, ev: Evidence) -> str | None:
    """The files a comparison names that no call looked at while one looked at another ("small.log", one read)."""
    files = [n for n in ev.named if names_file(n)] if COMPARES.search(ev.query) else []
    seen = [n for n in files if any(r.ok and named_file(n) in f"{r.arguments}{r.payload}" for r in ev.results)]
    return " and ".join(n for n in files if n not in seen) if seen and len(seen) < len(files) else None


SHORTFALL_GUARDS: tuple[Guard, ...] = (
    Guard("declined_fact", lambda reply, ev: DECLINES.found(reply.text) if ev.facts else None, OnDraft.ASK,
          OnFinal.REPLACE, "You said \"{slot}\", but the saved memories beside my message are what I told you "
          "earlier. If one answers it, answer from it: {query}"),
    Guard("claimed_change", _claimed_change, OnDraft.ASK, OnFinal.KEEP, "You said \"{slot}\", but no tool changed "
          "anything yet. Make the change with a tool now, then answer: {query}",
          amend=lambda reply, ev: "I have not made this change: no tool changed anything this turn."),
    Guard("compared_unseen", _compared_unseen, OnDraft.ASK, OnFinal.KEEP,
          "{slot}: you have not looked at it yet. Look at it with a tool too, then compare and answer: {query}"),
    Guard("unread_file", lambda reply, ev: " and ".join(ev.named) if ev.named and _unread(ev) else None,
          OnDraft.ASK, OnFinal.KEEP,
          "{slot}: look at it with a tool before answering, then answer from what it holds. My question: {query}"),
)
