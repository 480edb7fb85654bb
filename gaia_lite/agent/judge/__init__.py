"""The judge: every check on a model's reply, as named guards in one table (docs/architecture.md lists them).
``judge`` turns a reply into one typed ``Verdict`` the loop acts on; the stream views ask ``hiding_guard`` what
they may show. guard.py says what a guard is, core.py orders them and judges; the guards are in form.py (the
reply's form) and substance.py (the reply against the evidence). Their English is in agent/lexicon.py."""

from ..reply import Reply
from .core import (GUARDS, Accept, AskAgain, FromResults, HoldToCall, RunCalls, Verdict, active, hiding_guard, judge,
                   unknown_guards)
from .guard import Evidence, Guard, OnDraft, OnFinal, Stage

__all__ = ["Reply", "Evidence", "Stage", "OnDraft", "OnFinal", "Guard", "GUARDS", "judge", "Verdict", "RunCalls",
           "AskAgain", "HoldToCall", "FromResults", "Accept", "active", "unknown_guards", "hiding_guard"]
