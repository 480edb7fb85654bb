"""What a guard is (a row of the judge's table) and what it may look at besides the reply (``Evidence``)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Callable

from gaia_lite.messages import ToolCall
from gaia_lite.registry.execute import ToolResult

from ..reply import Reply


@dataclass(frozen=True)
class Evidence:
    """What the turn knows besides the reply; its looks at the user's files are a step's ``evidence.Lookups``."""

    tool_names: tuple[str, ...] = ()
    results: tuple[ToolResult, ...] = ()  # this turn's tool results, oldest first
    last_result: ToolResult | None = None  # the latest successful result, else the latest one
    user_messages: tuple[str, ...] = ()  # the conversation's user messages, the current one last
    facts: tuple[str, ...] = ()  # saved facts shown beside a question about what the user told (loop._about_user)
    copied_lines: tuple[str, ...] = ()  # lines the agent writes after tool results, which a small model copies
    seen_results: tuple[str, ...] = ()  # every tool result of the conversation as the model read it
    named: tuple[str, ...] = ()  # what the current message names that exists (named.named_in_message)
    invented: Callable[[ToolCall], str | None] | None = None  # a file a call names that nothing backs
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


class OnFinal(Enum):
    KEEP = "keep"
    REPLACE = "replace"  # by an answer built from the tool results ("could not finish" without any)
    REPLACE_AFTER_RESULT = "replace after a tool result"


Detector = Callable[[Reply, Evidence], "str | None"]  # what it found in the reply, or None


@dataclass(frozen=True)
class Guard:
    name: str  # what it catches, for people, is its row in docs/architecture.md's table
    detect: Detector
    on_draft: OnDraft
    on_final: OnFinal
    ask: str = ""  # the request sent with ASK/HOLD; {slot} is what was found, {query} the user's message
    on_screen: Detector | None = None  # keeps streamed text off the screen when it finds something; None: shown
    on_calls: bool = False  # judges a reply's calls before they run; others judge answers
    amend: Callable[[Reply, Evidence], str] | None = None  # a final answer it detects becomes this
    after: tuple[str, ...] = ()  # guards that must come before it in the table (each for a reason, said at the row)
