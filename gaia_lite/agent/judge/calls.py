"""The evidence guards on a reply's calls, judged before they run: a call the message did not ask for.

A small model writes the poem it was asked for into a file nobody named, calls a tool on a file that does not
exist, or replaces a whole file to change one line. Each guard here looks at the user's files through ``Evidence``'s
lookups (agent/evidence.py, each made once a step) and keeps the call from running.
"""

from __future__ import annotations

from ..lexicon import ASKS_REWRITE, WANTS_FILE
from ..reply import Reply
from .asks import CLOBBERING, INVENTED
from .guard import Evidence, Guard, OnDraft, OnFinal

__all__ = ["CALL_GUARDS"]


_WRITES = frozenset({"write_file"})


def _unasked_write(reply: Reply, ev: Evidence) -> str | None:
    """A write of a made-up file (evidence.invented_file) for a message that asks for no file: the text
    is what the user asked for, to be answered. The 0.5B wrote "The sea is vast ..." to sea.txt for "Write
    me a two-line poem about the sea." (test split, 3 runs of 3); asked again with invented_file's words
    ("No file sea.txt exists ..."), it answered "I can't find that file" twice."""
    if ev.invented is None or WANTS_FILE.search(ev.query):
        return None
    return next((found for call in reply.calls if call.name in _WRITES and (found := ev.invented(call))), None)


def _invented(reply: Reply, ev: Evidence) -> str | None:
    """A file a call of the reply names that does not exist, is like no file in the allowed folders and
    the user never named, when the user named none ("leaves.jpg" to analyze_image for "in one sentence -
    why do leaves turn red?"; evidence.invented_file)."""
    if ev.invented is None:
        return None
    asks_file = WANTS_FILE.search(ev.query) is not None  # "... and save it": the write names its own file
    return next((found for call in reply.calls if not (asks_file and call.name in _WRITES)
                 and (found := ev.invented(call)) is not None), None)


def _clobbering(reply: Reply, ev: Evidence) -> str | None:
    """A write_file call that would replace a file's text with text keeping under half of its lines, when the
    message asks for no rewrite (evidence.clobbered_file): the file, as the user reads it, or None."""
    if ev.clobbers is None or ASKS_REWRITE.search(ev.query):
        return None
    return next((found for call in reply.calls if call.name in _WRITES and (found := ev.clobbers(call))), None)


CALL_GUARDS: tuple[Guard, ...] = (
    Guard("unasked_write", "a write of a made-up file for a message that asks for no file (never run)",
          _unasked_write, None, OnDraft.ANSWER, OnFinal.ANSWER, on_calls=True),
    # after unasked_write: a write of a made-up file is that too, and asked again with this guard's words ("No file
    # sea.txt exists ..."), the 0.5B answered "I can't find that file"
    Guard("invented_file", "a call naming a file that does not exist, is like no file here and the user never "
          "named, when the user named none (never run)", _invented, None, OnDraft.ASK, OnFinal.KEEP, INVENTED,
          on_calls=True, after=("unasked_write",)),
    Guard("clobbering_write", "a write_file call that would replace a file's text with text keeping under half of "
          "its lines, when the message asks for no rewrite (never run)", _clobbering, None, OnDraft.ASK, OnFinal.ANSWER,
          CLOBBERING, on_calls=True),
)
