"""A fact the user asks to keep, saved in the user's own words.

Small models cut a fact down to its value: "Please remember that my car's licence plate is KX-4821"
became ``remember(fact="KX-4821")`` (Qwen2.5-Coder-1.5B), and in the next conversation nothing about
"licence plate" found it again. The user's own sentence says what the value is; when the model's fact
is only a piece of it, the sentence is kept instead.
"""

from __future__ import annotations

import re

__all__ = ["in_user_words"]

# "Please remember that ...", "Can you note: ...", "Don't forget ..."
_ASK = re.compile(r"^(?:(?:please|pls|hey|ok|okay)[,\s]+)*(?:(?:can|could|would|will) you\s+)?(?:please\s+)?"
                  r"(?:remember|note(?: down)?|keep in mind|don'?t forget|do not forget|save|store|memori[sz]e)"
                  r"(?:\s+(?:that|this))?\s*[:,]?\s*", re.IGNORECASE)
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
        said = _ASK.sub("", sentence.strip()).rstrip(" .!?")
        words = _words(said)
        if len(words) > len(got) and set(got) <= set(words):
            return said[:1].upper() + said[1:]
    return fact
