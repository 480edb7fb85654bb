"""The judge: every check on a model's reply, as named guards in one table.

A small model's reply is not always an answer. It may describe a call instead of making it, copy the
reply format's slot, or give a tool result back as JSON. Each such case is a
``Guard`` row in ``GUARDS``, in priority order:

- what it detects (its detector);
- what happens to a *draft* reply, one the model may still redo: ask again off the record, hold the
  next reply to a call, or nothing (the reply is judged as final);
- what happens to a *final* reply, the turn's last word: replace it with an answer built from the tool
  results, or keep it;
- whether it keeps streamed text off the screen (its screen detector);
- which guards must come before it (``after``).

``judge`` turns a reply into one typed ``Verdict``; the loop acts on it with one ``match``. Stream views
ask ``hiding_guard`` and ``first_sentence_pending`` what they may show while a reply arrives.

The package:

    guard.py       what a guard is (Guard, Stage, OnDraft, OnFinal) and what it reads (Evidence)
    core.py        the verdicts, the table in priority order, judge(), active(), the screen gates
    asks.py        what the guards say to the model when they ask again
    form.py        the guards on a reply's form (JSON echo, narrated or written call, slots, own words)
    calls.py       the evidence guards on calls, before they run (made-up files, clobbering writes, lookups)
    shortfalls.py  the evidence guards on answers that stop short (declines, claimed changes, unread files)

Adding a check is adding a row: a detector ``(reply, evidence) -> str | None`` (what it found, or None)
and a ``Guard`` in the module of its kind, named at its place in ``core.PRIORITY``. ``Evidence`` carries
what the turn knows besides the reply (its tool results, the user's messages, the saved facts shown), so a
later guard can compare an answer with them (an answer that stops one step short, or claims a change no
tool made). The English the guards read is in agent/lexicon.py.
"""

from ..reply import Reply
from .core import (
    GUARDS, Accept, AskAgain, FromResults, HoldToAnswer, HoldToCall, RunCalls, Verdict, active, first_sentence_pending,
    hiding_guard, judge, unknown_guards,
)
from .form import (
    answer_slot, bare_tool_name, echoes_result, is_result_echo, names_a_tool, not_an_answer, opens_json_object,
    placeholder, unknown_call, without_tool_names, written_call,
)
from .guard import Evidence, Guard, OnDraft, OnFinal, Stage
from .shortfalls import asks_about_user, declines

__all__ = ["Reply", "Evidence", "Stage", "OnDraft", "OnFinal", "Guard", "GUARDS", "judge", "Verdict", "RunCalls",
           "AskAgain", "HoldToCall", "HoldToAnswer", "FromResults", "Accept", "hiding_guard", "first_sentence_pending",
           "names_a_tool", "without_tool_names", "placeholder", "answer_slot", "written_call",
           "unknown_call", "not_an_answer", "is_result_echo", "echoes_result", "opens_json_object", "bare_tool_name",
           "declines", "asks_about_user", "active", "unknown_guards"]
