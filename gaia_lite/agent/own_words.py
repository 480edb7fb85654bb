"""Our own text, kept out of the user's answers. A small model may answer with a line of its prompt ("This answer
depends on the user's files, data, memory or computer.", 0.5B) or with a tool result and the line the agent
writes after it, cut off by the token limit ("... (If this answers the request, reply {"). None of that is an
answer: ``without_own_lines`` takes those lines out, ``copied_instructions`` finds an answer made of our text."""

from __future__ import annotations

import re
from typing import Iterable

from .lexicon import STOP

__all__ = ["without_own_lines", "copied_instructions", "COPIED_SHARE", "MIN_CUT"]

MIN_CUT = 12  # a cut-off copy counts from this many characters ("(If this answers"); "(If" may be the answer's own
COPIED_SHARE = 0.6  # a copy: this share of an answer's content words are ours and in nothing the user or a tool said
COPIED_RUN = 6  # ... or this many words in a row of our text make up half the answer
_MIN_WORDS = 4  # content words an answer needs before it is judged at all ("OK, done." is not)
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


def without_own_lines(text: str, lines: Iterable[str]) -> str:
    """``text`` without each whole occurrence of ``lines``, nor a cut-off start of one that ends it."""
    out = text
    for line in (ln.strip() for ln in lines if ln and ln.strip()):
        out = out.replace(line, "")
        # a cut-off copy may end in the closers the JSON reply added after it ("To answer: {}}")
        for end in dict.fromkeys((out.rstrip(), out.rstrip().rstrip("}]\"' "))):
            cut = next((n for n in range(len(line) - 1, MIN_CUT - 1, -1) if end.endswith(line[:n])), 0)
            if cut:
                out = end[:-cut]
                break
    return out.strip() if out != text else text


def _words(text: str) -> list[str]:
    return _WORD.findall((text or "").lower().replace("\u2019", "'"))


def copied_instructions(answer: str, instructions: Iterable[str], evidence: Iterable[str]) -> str | None:
    """The part of ``answer`` copied from our ``instructions`` when the answer is mostly that, or None. A word of
    ``evidence`` (the user's messages, tool results, saved facts) is the answer's own: "The file was written"
    after a write is no copy."""
    said = _words(answer)
    content = [w for w in said if w not in STOP.words]
    if len(content) < _MIN_WORDS:
        return None
    ours = [_words(t) for t in instructions if t]
    run = _longest_run(said, ours)
    if run and len(run) * 2 >= len(said):
        return " ".join(run)
    vocab, backed = {w for text in ours for w in text}, {w for text in evidence for w in _words(text)}
    copied = [w for w in content if w in vocab and w not in backed]
    return " ".join(dict.fromkeys(copied)) if len(copied) >= COPIED_SHARE * len(content) else None


def _longest_run(said: list[str], ours: list[list[str]]) -> list[str]:
    """The longest run (``COPIED_RUN`` words or more) of ``said`` that one of ``ours`` holds word for word."""
    grams = {tuple(text[i:i + COPIED_RUN]) for text in ours for i in range(len(text) - COPIED_RUN + 1)}
    joined = [" " + " ".join(text) + " " for text in ours]
    best: list[str] = []
    for i in (i for i in range(len(said) - COPIED_RUN + 1) if tuple(said[i:i + COPIED_RUN]) in grams):
        j = i + COPIED_RUN
        while j < len(said) and any(" " + " ".join(said[i:j + 1]) + " " in t for t in joined):
            j += 1
        if j - i > len(best):
            best = said[i:j]
    return best
