"""How a constrained turn's first reply may begin: with the tool choice, held to an answer, or open.

With tool-first replies the first thing the model writes is a tool's name, and the 0.5B model calls some
tool even for "what is 12 times 12?" or, with the answer saved beside the question, for "who is my
dentist?" (it read dentist.txt). ``opening`` decides from the message, its saved facts and how much it is
like any tool; it is a pure function of those, so each threshold is testable without an embedder.
"""

from __future__ import annotations

import re
from enum import Enum
from typing import Callable, Iterable

__all__ = ["Opening", "opening", "tools_named", "OPEN_ANSWER_BELOW", "OPEN_LATER_BELOW", "ANSWERED_BY_FACT"]

# Below this best tool score (MiniLM, the default loader's documents) a message is unlike every tool:
# on the judged doc set 9 of its 16 no-tool messages ("is a tomato a fruit?", "lol ok") score under it
# and none of its 161 tool messages (the lowest is 0.29).
OPEN_ANSWER_BELOW = 0.27
# On a later turn, a message that names no file and scores below this may be answered at once (the reply
# chooses: answer, or call): "Thanks! How many days are there in a week?" (0.40) and "Unrelated question:
# how many minutes are there in two hours?" (0.54) came right after a tool turn, and both Qwen2.5-Coder
# models, held to a tool first, called one. Follow-ups whose answer is already in the conversation ("and
# what was its q1?", 0.35) are answered from it; "who was the top salesperson in that file?" (0.86)
# still starts with the tool choice.
OPEN_LATER_BELOW = 0.55
ANSWERED_BY_FACT = 0.6  # a saved fact this close answers the question (MiniLM pairs: 0.72-0.88)
# a match starts only where a word does: else a long word in a pasted message ("xxx...", 20,000 characters) is
# rescanned from each of its letters, O(n^2) with the GIL held (1.5 s; as find.PATH_MENTION)
_FILE_NAMED = re.compile(r"(?<![\w-])[\w-]+\.[A-Za-z][A-Za-z0-9]{0,4}\b|/")


class Opening(Enum):
    TOOL_FIRST = ""  # the reply starts with the tool choice ("none" answers)
    ANSWER = "answer"  # the reply is an answer, held there by its schema (the model still sees the conversation)
    OPEN = "open"  # the reply chooses between answering and calling, as after a tool result


def tools_named(message: str, tool_names: Iterable[str]) -> set[str]:
    """The tools ``message`` names as whole words, any case ("Remember that ..." names ``remember``),
    one-word names included: for deciding what the user asked for, not for spotting a narrated call."""
    words = set(re.findall(r"[a-z0-9_]+", (message or "").lower()))
    return {n for n in tool_names if n in words}


def opening(query: str, *, tool_names: Iterable[str], holds_calls: bool, facts_shown: bool, closest_fact: float,
            best_tool: Callable[[], float | None], later_turn: bool) -> Opening:
    """How the first reply to ``query`` may begin.

    ``holds_calls``: the reply mode holds replies to a schema (free replies and native calls are never
    held); ``facts_shown``/``closest_fact``: saved facts sit beside the message, the closest at this
    cosine; ``best_tool``: the best tool score for the message (asked only when needed: it embeds it);
    ``later_turn``: a tool already ran in this conversation.

    ANSWER: no tool resembles the message and it names no file, or a saved fact plainly answers it and the message names no
    tool ("remember that my dentist is now ..." must still reach ``remember``). OPEN: saved facts sit
    beside the question, or a later turn names no file and is not much like any tool. Else TOOL_FIRST."""
    if not holds_calls:
        return Opening.TOOL_FIRST
    if facts_shown:
        named = tools_named(query, tool_names)
        return Opening.ANSWER if closest_fact >= ANSWERED_BY_FACT and not named else Opening.OPEN
    best = best_tool()
    if best is None:
        return Opening.TOOL_FIRST
    # a file named may need reading, whatever the score: "shopping.md - what do I need from the bakery?" was
    # held to an answer, and the 0.5B wrote a terminal command for it (test split)
    if best < OPEN_ANSWER_BELOW and not _FILE_NAMED.search(query):
        return Opening.ANSWER
    if later_turn and best < OPEN_LATER_BELOW and not _FILE_NAMED.search(query) \
            and not tools_named(query, tool_names):
        return Opening.OPEN
    return Opening.TOOL_FIRST
