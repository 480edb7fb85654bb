"""A fact the user asks to keep, saved in the user's own words.

Small models cut a fact down to its value: "Please remember that my car's licence plate is KX-4821"
became ``remember(fact="KX-4821")`` (Qwen2.5-Coder-1.5B), and in the next conversation nothing about
"licence plate" found it again. The user's own sentence says what the value is; when the model's fact
is only a piece of it, the sentence is kept instead.
"""

from __future__ import annotations

import re

from .lexicon import ABOUT_FILES, ABOUT_ME, ASIDE, FIRST_PERSON, KEEP_FIRST, KEEP_LAST, QUESTION

__all__ = ["in_user_words", "asked_to_keep", "asks_about_user", "asks_in_first_person"]

_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_WORD = re.compile(r"[\w'-]+")


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def in_user_words(fact: str, message: str) -> str:
    """``fact``, or the sentence of ``message`` it was cut from (without "please remember that") when
    every word of the fact is in that sentence and the sentence says more."""
    got = _words(fact)
    if not got:
        return fact
    for sentence in _SENTENCE.split(message.strip()):
        said = KEEP_FIRST.pattern.sub("", sentence.strip()).rstrip(" .!?")
        words = _words(said)
        if len(words) > len(got) and set(got) <= set(words):
            return said[:1].upper() + said[1:]
    return fact


def asked_to_keep(message: str) -> str | None:
    """The fact ``message`` asks to keep, in the user's words ("Keep in mind that my daughter's school
    ends at 15:30" -> "My daughter's school ends at 15:30"), or None: not such a request (a question,
    "remember to ...", no ask at all)."""
    text = message.strip()
    if not text or text.endswith("?"):
        return None
    last = KEEP_LAST.search(text)
    if last is not None and last.start() > 0:
        fact = ASIDE.pattern.sub("", text[:last.start()])
    else:
        first = KEEP_FIRST.search(text)  # anchored at the start
        if first is None or first.end() == 0:
            return None
        fact = text[first.end():]
    fact = fact.strip(" .!,;:-")
    if len(_words(fact)) < 2 or fact.lower().startswith("to "):
        return None
    return fact[:1].upper() + fact[1:]


def asks_about_user(message: str) -> bool:
    """Is ``message`` a question about the user or what they said, whose answer may be a saved fact ("what's my
    locker code again?")? A question with "my", "remember", "I told ..." or a closing "again" that names no
    file or other place the tools look in. The loop shows it the closest saved facts."""
    text = (message or "").strip()
    return _question_not_of_files(text) and ABOUT_ME.search(text) is not None


def asks_in_first_person(message: str) -> bool:
    """Is ``message`` a question in the first person ("what diet do i follow?", "is there anything i can't eat?")
    that names no file or place the tools look in? Such a question may be about the user without the words
    asks_about_user reads; the loop shows it the saved facts close enough to it (a lower bar than for any
    message, a higher one than for a question about the user)."""
    text = (message or "").strip()
    return _question_not_of_files(text) and not FIRST_PERSON.words.isdisjoint(_words(text))


def _question_not_of_files(text: str) -> bool:
    """Is ``text`` a question that names no file, folder or other place the tools look in?"""
    return bool(text.endswith("?") or QUESTION.search(text)) and ABOUT_FILES.search(text) is None
