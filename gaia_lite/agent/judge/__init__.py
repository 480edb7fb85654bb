"""The judge: every check on a model's reply, as named guards in one table (docs/architecture.md lists them).

``judge`` turns a reply into one typed ``Verdict``; the loop acts on it with one ``match``. The stream views ask
``hiding_guard`` what they may show while a reply arrives. guard.py says what a guard is, core.py orders them and
judges; the guards are in form.py (the reply's form) and substance.py (the reply against the evidence). The
English they read is in agent/lexicon.py; tests/agent/test_judge_budget.py lists all of the judge's files.
"""

from ..reply import Reply
from .core import (
    GUARDS, Accept, AskAgain, FromResults, HoldToAnswer, HoldToCall, RunCalls, Verdict, active, hiding_guard,
    judge, unknown_guards,
)
from .form import names_a_tool, placeholder, unknown_call, without_tool_names, written_call
from .guard import Evidence, Guard, OnDraft, OnFinal, Stage
from .substance import asks_about_user

__all__ = ["Reply", "Evidence", "Stage", "OnDraft", "OnFinal", "Guard", "GUARDS", "judge", "Verdict", "RunCalls",
           "AskAgain", "HoldToCall", "HoldToAnswer", "FromResults", "Accept", "active", "unknown_guards",
           "hiding_guard", "names_a_tool", "without_tool_names", "placeholder", "written_call", "unknown_call",
           "asks_about_user"]
