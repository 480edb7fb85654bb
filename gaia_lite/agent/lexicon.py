"""The English the agent reads: every phrase pattern (``Phrase``) and word list (``Words``) in one table, each with
the real messages or replies it was written for, which it must still find (tests/agent/test_lexicon.py). A pattern
of English words lives here; one of a shape (JSON, a file name, a path, our own labels) stays with its user. A
message in another language matches none of them, so the guards built on them stay silent on it."""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Phrase", "Words", "LEXICON"]


@dataclass(frozen=True)
class Phrase:
    name: str
    pattern: re.Pattern[str]
    written_for: tuple[str, ...]  # messages or replies it must find

    def search(self, text: str) -> re.Match[str] | None:
        return self.pattern.search(text)

    def found(self, text: str) -> str | None:
        """The words it finds in ``text`` (what a guard quotes back to the model), or None."""
        return m.group(0) if (m := self.pattern.search(text)) else None


@dataclass(frozen=True)
class Words:
    name: str
    words: frozenset[str]
    written_for: tuple[str, ...]  # texts that hold one of them, as the list's user reads them


def _phrase(name: str, pattern: str, *written_for: str) -> Phrase:
    return Phrase(name, re.compile(pattern, re.IGNORECASE), written_for)


# ---------------------------------------------------------------- what a message names (named.py)
FOLDER_WORDS = _phrase("folder_words", r"\b(?:the|my|our|a|this)\s+([\w.-]+)\s+(?:folder|directory|dir)\b",
                       "What is in the projects folder?", "what's in my minutes directory?")
# the files where the agent works, named by none of their names
HERE = _phrase("here", r"\bin here\b|\b(?:this|the current|the working) (?:folder|directory|dir)\b|\bmy files\b",
               "whats in here?", "list the files in this folder", "which of my files mention the budget?")

# ------------------------------------------------------- what a message asks (judge, facts.py, eval/grounding.py)
# A question, by its opener ("can you ..." is as often a request). A question about a change asks for none: told
# to make one for "What port is set in config.ini?", the 1.5B called update_memory (test split, ffeab89)
QUESTION = _phrase("question", r"^\W*(?:what|whats|which|who|whos|whom|whose|when|where|why|how|is|are|was|were|"
                   r"do|does|did|have|has)\b", "what's my locker code again?", "who's my accountant?",
                   "did you update project-plan.md?", "What port is set in config.ini?")
# ... about the user or what they said, or asks for something said before ("what was it again?", not "run it again")
ABOUT_ME = _phrase("about_me", r"\b(?:my|mine)\b|\b(?:remember|recall)\b|\bI (?:told|said|mentioned|asked|gave)\b"
                   r"|^\W*(?:what|whats|who|whos|where|when|which|how)\b.*\bagain\W*$", "what's my locker code again?",
                   "do you remember where I parked?", "What did I tell you about my diet?", "what was the name again?")
# a file, a folder or the user's documents: the answer is in the files, not in what the user said
ABOUT_FILES = _phrase("about_files", r"[\w-]\.[a-z][a-z0-9]{0,5}\b|/|\b(?:folders?|director(?:y|ies)|files?|"
                      r"documents?|downloads|desktop|clipboard|screen|computer|disk|drive)\b",
                      "how big is my report.txt?", "what's in my downloads folder?")
# A turn away from what came before: after a report was read, both models' "120" to this was called unbacked
# (dev split, 32d9094). "Unrelated to that, but what was it in Q4?" asks about what came before
CHANGES_TOPIC = _phrase("changes_topic", r"\b(?:unrelated(?! to\b)|off[- ]topic|(?:different|new|other|random|"
                        r"general|side) (?:topic|question|subject|thing)|change of (?:topic|subject)|changing the "
                        r"subject)\b", "Unrelated question: how many minutes are there in two hours?",
                        "different topic - minutes in 2h?")
# A file to be made or kept: a write of a file the message does not name is the request's own
WANTS_FILE = _phrase("wants_file", r"\b(?:files?|save[sd]?|saving|store[sd]?|disk|folder|document)\b",
                     "Write a two-line poem about the sea and save it.", "put a haiku about coffee in a file for me")
# A file's whole text to be replaced
ASKS_REWRITE = _phrase("asks_rewrite", r"\b(?:re-?write|overwrite|replace (?:the |its |all |everything|the whole)"
                       r"|start (?:it )?over|from scratch|wipe|clear)\b",
                       "rewrite notes.md as a haiku", "overwrite todo.txt with a fresh list")
# A change
ASKS_CHANGE = _phrase("asks_change", r"\b(?:update|change|bump|set(?!\s+(?:to|at|as)\b[^.!?]*\?)|edit|modify|replace|rename|fix|append|insert|raise|mark|"
                      r"write|save|put|stick|add|create|delete|remove|switch|toggle|enable|disable|turn on|turn off|tick)\b",
                      "setup.cfg - bump the version to 2.1.0", "settings.json - switch the theme to dark pls")
# A comparison of files' size, length or age
COMPARES = _phrase("compares", r"\b(?:bigger|larger|smaller|biggest|largest|smallest|longer|shorter|newer|older|"
                   r"(?:more|most) recent|more lines|fewer)\b", "Which is bigger, big.log or small.log?")

# ---------------------------------------------------------------- a fact the user asks to keep (facts.py)
# At the start. Not "save" or "store" (as often about files), nor "Note:" alone ("Note: the build failed")
KEEP_FIRST = _phrase(
    "keep_first", r"^(?:(?:please|pls|hey|ok|okay|also|and)[,\s]+)*(?:(?:can|could|would|will) you\s+)?"
    r"(?:please\s+)?(?:remember|keep in mind|bear in mind|note(?: down)? that|note down|(?<=you )note(?=\s*:)|jot down|"
    r"make a note(?: that| of)?|don'?t forget|do not forget|memori[sz]e|(?:update|correction)(?=\s*:))(?:\s+(?:that|this))?"
    r"\s*[:,]?\s*",
    "Please remember that my car's licence plate is KX-4821.", "Can you note: plate KX-4821 is my car.",
    "Don't forget I prefer dark mode", "note down my flight to lisbon: TP 1357 on 9 november")
# At the end: "..., keep that in mind", "... - remember that"
KEEP_LAST = _phrase("keep_last", r"[\s,;.!-]*(?:(?:please|pls)\s+)?(?:(?:keep|bear)\s+(?:that|this|it)\s+in\s+"
                    r"mind|remember\s+(?:that|this|it))[\s.!]*$", "fyi i like summaries as bullets, keep that in mind")
ASIDE = _phrase("aside", r"^(?:fyi|btw|by the way|just so you know|for the record)[,:\s-]+",
                "fyi i like my summaries as bullet points, keep that in mind")

# ---------------------------------------------------------------- what a reply says (judge)
# A refusal or a claim not to know
DECLINES = _phrase(
    "declines", r"\bI(?:'m| am)? (?:can(?:no|')t|cannot|can not|unable to|not able to|am unable to|"
    r"am not able to) (?:assist|help|provide|answer|share|tell|access|know|recall|remember|find)\b"
    r"|\bI (?:don't|do not) (?:have|know|remember|recall)\b(?! (?:how|why|whether)\b)"
    r"|\bI(?:'m| am) (?:not sure|unsure|unaware)\b|\bno (?:information|record|memory) (?:about|of|on)\b",
    "I'm sorry, but I can't assist with that.",
    "I'm sorry, but I don't have enough information to determine if you can get your money back on sale items.")
_DONE = r"(?:updated|changed|modified|edited|saved|written|wrote|created|added|replaced|bumped|renamed|deleted|" \
        r"removed|appended|inserted|switched|toggled|enabled|disabled|turned (?:on|off))"
# A change said to be made ("is set" alone describes a value; "is now set" claims a change)
SAYS_DONE = _phrase(
    "says_done", rf"\b(?:is|are|was|were|has been|have been)\s+(?:(?:now\s+|successfully\s+)?{_DONE}|(?:now|"
    rf"successfully)\s+set)\b|\bI(?:'ve| have)?\s+(?:now\s+|successfully\s+|just\s+)?(?:{_DONE}|set)\b"
    rf"|\b(?:successfully|now) (?:{_DONE}|set)\b",
    "The project plan is updated to reflect the new deadline of 15 March.",
    "The theme in settings.json has been switched to dark.")

# ---------------------------------------------------------------- word lists
# The last word of a template slot, "[Number]" (judge.form's template): "[server]" of an INI file is no slot
SLOT_WORDS = Words("slot_words", frozenset("name value number amount date total unit units location address price "
                                           "count".split()), ("The customer is [Customer Name].", "Total: [Amount]."))
# Capitalised words that open a sentence or a title, not a name (eval/grounding.specifics)
NOT_NAMES = Words("not_names", frozenset(
    "the a an in on at to for from of and or but if this that these those there here it its he she they "
    "we you your my our his her their yes no not what which who when where why how is are was were be has have had "
    "do does did all any each every some one may two three first last next total top q1 q2 q3 q4 monday tuesday "
    "wednesday thursday friday saturday sunday january february march april june july august september october "
    "november december according based after before during since until".split()),
    ("The top seller was John Doe of Acme Corp, per The Handbook.", "On Monday the total was high."))
# An answer of nothing, taken from the tool-first shape's "none" (empty_answer)
EMPTY_ANSWERS = Words("empty_answers", frozenset({"", "none", "null", "n/a"}), ("none", "N/A."))
# A question in the first person (facts.asks_in_first_person): "what diet do i follow?" asks after "I'm vegetarian"
FIRST_PERSON = Words("first_person", frozenset({"i", "me", "i'm", "i've"}), ("what diet do i follow?", "can I eat it?"))

LEXICON: dict[str, Phrase | Words] = {e.name: e for e in list(globals().values()) if isinstance(e, (Phrase, Words))}
