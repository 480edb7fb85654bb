"""The English the agent reads: every phrase pattern and word list the judge and its helpers match, in one table.

The agent recognises a refusal, a question about the user, a change of topic or a claim that a change is made by English
words. Each such pattern is one ``Phrase`` here, and each list of English words one ``Words``, with the real user
messages or model replies it was written for (from the dev, test and held-out runs the comments of its users
cite). Every example must still match (tests/agent/test_lexicon.py), so a pattern cannot be narrowed past the
reply that made it.

The rule: a regular expression that matches English words lives here; one that matches a shape (JSON, a file
name, a number, a path, our own labels and reply-format slots, a tool's argument names) stays with its user.
tests/agent/test_lexicon.py fails on an English word alternation anywhere else under gaia_lite/agent/, and
lets through only the shapes it lists, each with its reason.

A message or answer in another language matches none of these, so the guards built on them stay silent on it:
tests/agent/test_lexicon.py judges German and Spanish turns through every guard.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Phrase", "Words", "LEXICON"]


@dataclass(frozen=True)
class Phrase:
    name: str
    pattern: re.Pattern[str]
    written_for: tuple[str, ...]  # messages or replies it must find (tests/agent/test_lexicon.py)

    def search(self, text: str) -> re.Match[str] | None:
        return self.pattern.search(text)

    def match(self, text: str) -> re.Match[str] | None:
        return self.pattern.match(text)


@dataclass(frozen=True)
class Words:
    name: str
    words: frozenset[str]
    written_for: tuple[str, ...]  # texts that hold one of them, as the list's user reads them


def _phrase(name: str, pattern: str, *written_for: str, flags: int = 0) -> Phrase:
    return Phrase(name, re.compile(pattern, flags), written_for)


def _words(name: str, words: str, *written_for: str) -> Words:
    return Words(name, frozenset(words.split()), written_for)


# ------------------------------------------------------ what the user's message asks (named.py, judge, grounding.py)

# A folder named in words
FOLDER_WORDS = _phrase(
    "folder_words", r"(?i)\b(?:the|my|our|a|this)\s+([\w.-]+)\s+(?:folder|directory|dir)\b",
    "What is in the projects folder?", "what's in my minutes directory?")
# The user asks about the files where the agent works, without naming one
HERE = _phrase(
    "here", r"(?i)\bin here\b|\b(?:this|the current|the working) (?:folder|directory|dir)\b|\bmy files\b",
    "whats in here?", "list the files in this folder", "which of my files mention the budget?")
# A question by its opener, wh- or yes/no: "how do I like my summaries?", "whats my gym membership number?"; a
# question about a change is not a request for one (the 1.5B, told to make a change for "What port is set in
# config.ini?", called update_memory: test split, ffeab89). "can you ..." is a request as often as a question.
QUESTION = _phrase(
    "question", r"(?i)^\W*(?:what|whats|which|who|whos|whom|whose|when|where|why|how|is|are|was|were|do|does|did|"
    r"have|has)\b",
    "how do I like my summaries?", "what's my locker code again?", "who's my accountant?", "do you remember my plate?",
    "what was the name again?", "whats my gym membership number?", "did you update project-plan.md?",
    "What port is set in config.ini?")
# ... about the user, or what they said
ABOUT_ME = _phrase(
    "about_me", r"(?i)\b(?:my|mine)\b|\b(?:remember|recall)\b|\bI (?:told|said|mentioned|asked|gave)\b",
    "what's my locker code again?", "do you remember where I parked?", "what was it I said about the party?",
    "What did I tell you about my diet?", "Did I mention my sister?", "what was it I asked you to keep in mind?")
# ... that asks for something said before
AGAIN = _phrase("again", r"(?i)\bagain\s*\??\s*$", "what was the name again?", "what's my locker code again?")
# A file, a folder or the user's documents: the answer is in the files, not in what the user said
ABOUT_FILES = _phrase(
    "about_files", r"(?i)[\w-]\.[a-z][a-z0-9]{0,5}\b|/|\b(?:folders?|director(?:y|ies)|files?|documents?|"
    r"downloads|desktop|clipboard|screen|computer|disk|drive)\b",
    "how big is my report.txt?", "what's in my downloads folder?")
# A message that says in so many words that it turns away from what came before: "Unrelated question: how many
# minutes are there in two hours?" (after reading a report, both models' "120" was called unbacked: dev split, 32d9094).
# "Unrelated to that, but what was it in Q4?" asks about what came before.
CHANGES_TOPIC = _phrase(
    "changes_topic", r"(?i)\b(?:unrelated(?! to\b)|off[- ]topic|(?:different|new|other|random|general|side) "
    r"(?:topic|question|subject|thing)|change of (?:topic|subject)|changing the subject)\b",
    "Unrelated question: how many minutes are there in two hours?", "different topic - minutes in 2h?")

# ---------------------------------------------------------------- a fact the user asks to keep (facts.py)

# An ask to keep a fact, at the start: "Please remember that ...", "Can you note: ...", "Don't forget ...". Not
# "save" or "store" (as often about files), nor "Note:" alone (a label: "Note: the build failed")
KEEP_FIRST = _phrase(
    "keep_first", r"^(?:(?:please|pls|hey|ok|okay|also|and)[,\s]+)*(?:(?:can|could|would|will) you\s+)?"
    r"(?:please\s+)?(?:remember|keep in mind|bear in mind|note(?: down)? that|note down|(?<=you )note(?=\s*:)|"
    r"jot down|make a note(?: that| of)?|"
    r"don'?t forget|do not forget|memori[sz]e)(?:\s+(?:that|this))?\s*[:,]?\s*",
    "Please remember that my car's licence plate is KX-4821.", "Can you note: plate KX-4821 is my car.",
    "Don't forget I prefer dark mode", "Keep in mind that my daughter's school ends at 15:30 on weekdays.",
    "note that my gym membership number is GM-55-0912", "note down my flight to lisbon: TP 1357 on 9 november",
    "jot down that the spare key is under the blue pot", flags=re.IGNORECASE)
# "..., keep that in mind", "... - remember that"
KEEP_LAST = _phrase(
    "keep_last", r"[\s,;.!-]*(?:(?:please|pls)\s+)?(?:(?:keep|bear)\s+(?:that|this|it)\s+in\s+mind|"
    r"remember\s+(?:that|this|it))[\s.!]*$",
    "fyi i like my summaries as bullet points, keep that in mind", flags=re.IGNORECASE)
ASIDE = _phrase("aside", r"^(?:fyi|btw|by the way|just so you know|for the record)[,:\s-]+",
                "fyi i like my summaries as bullet points, keep that in mind", flags=re.IGNORECASE)

# ---------------------------------------------------------------- what a request asks for (judge)

# A message that asks for a file to be made or kept: a write of a file it does not name is the request's own
WANTS_FILE = _phrase("wants_file", r"(?i)\b(?:files?|save[sd]?|saving|store[sd]?|disk|folder|document)\b",
                     "Write a two-line poem about the sea and save it.", "put a haiku about coffee in a file for me")
# A message that asks for a file's whole text to be replaced
ASKS_REWRITE = _phrase("asks_rewrite", r"(?i)\b(?:re-?write|overwrite|replace (?:the |its |all |everything|the whole)"
                       r"|start (?:it )?over|from scratch|wipe|clear)\b",
                       "rewrite notes.md as a haiku", "overwrite todo.txt with a fresh list")
# A message that asks for a change
ASKS_CHANGE = _phrase("asks_change", r"(?i)\b(?:update|change|bump|set|edit|modify|replace|rename|fix|append|insert|"
                      r"write|save|put|stick|add|create|delete|remove)\b",
                      "update project-plan.md, the deadline's now 15 March", "setup.cfg - bump the version to 2.1.0")
# ---------------------------------------------------------------- what a reply says (judge)

# A refusal or a claim not to know
DECLINES = _phrase(
    "declines", r"(?i)\bI(?:'m| am)? (?:can(?:no|')t|cannot|can not|unable to|not able to|am unable to|"
    r"am not able to) (?:assist|help|provide|answer|share|tell|access|know|recall|remember|find)\b"
    r"|\bI (?:don't|do not) (?:have|know|remember|recall)\b(?! (?:how|why|whether)\b)"
    r"|\bI(?:'m| am) (?:not sure|unsure|unaware)\b|\bno (?:information|record|memory) (?:about|of|on)\b",
    "I'm sorry, but I can't assist with that.", "I don't have access to your personal information",
    "I don't know Acme Corp's Q3 revenue according to reports/acme_q3_report.md.",
    "I'm sorry, but I don't have enough information to determine if you can get your money back on sale items.")
_DONE_VERBS = (r"(?:updated|changed|modified|edited|saved|written|wrote|created|added|replaced|bumped|renamed|"
               r"deleted|removed|appended|inserted)")
# An answer that says the change is made ("is set" alone describes a value; "is now set" claims a change)
SAYS_DONE = _phrase(
    "says_done", rf"(?i)\b(?:is|are|was|were|has been|have been)\s+"
    rf"(?:(?:now\s+|successfully\s+)?{_DONE_VERBS}|(?:now|successfully)\s+set)\b"
    rf"|\bI(?:'ve| have)?\s+(?:now\s+|successfully\s+|just\s+)?(?:{_DONE_VERBS}|set)\b"
    rf"|\b(?:successfully|now) (?:{_DONE_VERBS}|set)\b",
    "The project plan is updated to reflect the new deadline of 15 March.", "I've changed the deadline to 15 March.",
    "Done: the deadline has been successfully set to 15 March.", "The version in setup.cfg has been updated to 2.1.0.")

# ---------------------------------------------------------------- word lists

# Capitalised words that open a sentence or a title, not a name (grounding.specifics)
NOT_NAMES = _words(
    "not_names", "the a an in on at to for from of and or but this that these those there here it its "
    "he she they we you your my our his her their yes no not what which who when where why "
    "how if is are was were be has have had do does did all any each every some one two "
    "three first last next total top q1 q2 q3 q4 monday tuesday wednesday thursday friday "
    "saturday sunday january february march april may june july august september october "
    "november december according based after before during since until",
    "The top seller was John Doe of Acme Corp, per The Handbook.", "On Monday the total was high.")
# Words that carry no content: any sentence has them, so sharing them proves nothing (own_words)
STOP = _words(
    "stop", "a an the and or but if then else of to in on at for from by with as is are was were be been "
    "it its this that these those there here i you your my me we our he she they them their his her "
    "not no yes do does did can could will would should may might must have has had so than too very "
    "just only also any all some each every what which who when where why how one",
    "This answer depends on the user's files, data, memory or computer.")
# An answer of nothing, taken from the tool-first shape's "none" (judge's empty_answer)
EMPTY_ANSWERS = Words("empty_answers", frozenset({"", "none", "null", "n/a"}), ("none", "N/A."))


LEXICON: dict[str, Phrase | Words] = {e.name: e for e in list(globals().values()) if isinstance(e, (Phrase, Words))}
