"""A fact the user asks to keep, saved in the user's own words.

Small models cut a fact down to its value: "Please remember that my car's licence plate is KX-4821"
became ``remember(fact="KX-4821")`` (Qwen2.5-Coder-1.5B), and in the next conversation nothing about
"licence plate" found it again. The user's own sentence says what the value is; when the model's fact
is only a piece of it, the sentence is kept instead.
"""

from __future__ import annotations

import re

__all__ = ["in_user_words", "asked_to_keep"]

# "Please remember that ...", "Can you note: ...", "Don't forget ..."
_ASK = re.compile(r"^(?:(?:please|pls|hey|ok|okay)[,\s]+)*(?:(?:can|could|would|will) you\s+)?(?:please\s+)?"
                  r"(?:remember|note(?: down)?|keep in mind|don'?t forget|do not forget|save|store|memori[sz]e)"
                  r"(?:\s+(?:that|this))?\s*[:,]?\s*", re.IGNORECASE)
# The asks asked_to_keep acts on, narrower than _ASK: "save" and "store" are as often about files
_KEEP_FIRST = re.compile(r"^(?:(?:please|pls|hey|ok|okay|also|and)[,\s]+)*(?:(?:can|could|would|will) you\s+)?"
                         r"(?:please\s+)?(?:remember|keep in mind|bear in mind|note(?: down)? that|note down|jot down|"
                         r"make a note(?: that| of)?|"
                         r"don'?t forget|do not forget|memori[sz]e)(?:\s+(?:that|this))?\s*[:,]?\s*", re.IGNORECASE)
# "..., keep that in mind", "... - remember that"
_KEEP_LAST = re.compile(r"[\s,;.!-]*(?:(?:please|pls)\s+)?(?:(?:keep|bear)\s+(?:that|this|it)\s+in\s+mind|"
                        r"remember\s+(?:that|this|it))[\s.!]*$", re.IGNORECASE)
_ASIDE = re.compile(r"^(?:fyi|btw|by the way|just so you know|for the record)[,:\s-]+", re.IGNORECASE)
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


def asked_to_keep(message: str) -> str | None:
    """The fact ``message`` asks to keep, in the user's words ("Keep in mind that my daughter's school
    ends at 15:30" -> "My daughter's school ends at 15:30"), or None: not such a request (a question,
    "remember to ...", no ask at all)."""
    text = message.strip()
    if not text or text.endswith("?"):
        return None
    last = _KEEP_LAST.search(text)
    if last is not None and last.start() > 0:
        fact = _ASIDE.sub("", text[:last.start()])
    else:
        first = _KEEP_FIRST.match(text)
        if first is None or first.end() == 0:
            return None
        fact = text[first.end():]
    fact = fact.strip(" .!,;:-")
    if len(_words(fact)) < 2 or fact.lower().startswith("to "):
        return None
    return fact[:1].upper() + fact[1:]
