"""Regular expressions a model supplies, run on a linear-time engine.

Python's ``re`` backtracks: ``(a+)+$`` against a long line runs for minutes
while holding the GIL, so no thread timeout can stop it. RE2 (``google-re2``)
matches in time linear in the input and refuses the few constructs that need
backtracking (look-around, back-references); callers then fall back to a
literal search. Pattern length is bounded too.
"""

from __future__ import annotations

from typing import Any

__all__ = ["compile_user_regex", "regex_error", "singular", "MAX_PATTERN_CHARS"]

MAX_PATTERN_CHARS = 1000
_MAX_MEM = 8 << 20  # bytes RE2 may use for one compiled pattern


def compile_user_regex(pattern: str, *, ignore_case: bool = False, literal: bool = False) -> Any:
    """A compiled RE2 pattern (``.search(text)`` like ``re``), or None when the
    pattern is too long or not valid RE2 syntax (then search for it with
    ``literal=True``, which matches the text as given)."""
    compiled, _ = _compile(pattern, ignore_case=ignore_case, literal=literal)
    return compiled


def regex_error(pattern: str) -> str | None:
    """Why ``pattern`` is no regular expression RE2 can run, in RE2's words ("missing ): f(x",
    "invalid perl operator: (?="), or None when it is one."""
    compiled, why = _compile(pattern, ignore_case=False, literal=False)
    return None if compiled is not None else why


def _compile(pattern: str, *, ignore_case: bool, literal: bool) -> tuple[Any, str]:
    if not isinstance(pattern, str):
        return None, "the pattern is not text"
    if len(pattern) > MAX_PATTERN_CHARS:
        return None, f"it is {len(pattern)} characters; the limit is {MAX_PATTERN_CHARS}"
    import re2  # lazy: only searches need it

    options = re2.Options()
    options.case_sensitive = not ignore_case
    options.log_errors = False
    options.max_mem = _MAX_MEM
    options.literal = literal
    try:
        return re2.compile(pattern, options), ""
    except re2.error as exc:
        said = exc.args[0] if exc.args else exc
        return None, said.decode("utf-8", "replace") if isinstance(said, bytes) else str(said)


# the nouns whose plural ends in -ves for an -f or -fe ("olives", "drives", "archives" are no such plurals)
_VES = {"loaves": "loaf", "halves": "half", "shelves": "shelf", "wolves": "wolf", "knives": "knife",
        "wives": "wife", "calves": "calf", "thieves": "thief", "scarves": "scarf", "selves": "self",
        "hooves": "hoof", "elves": "elf", "sheaves": "sheaf"}


def singular(word: str) -> str:
    """``policies`` -> ``policy``, ``invoices`` -> ``invoice``, ``boxes`` -> ``box``; short words and
    ``-ss``/``-us``/``-is`` endings stay as they are."""
    if len(word) <= 3 or word.isdigit():
        return word
    if (f := _VES.get(word.lower())) is not None:   # "sourdough loaves" for the value "sourdough loaf" (probe56)
        return f
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes", "zes")) or (word.endswith("toes") and len(word) > 5):
        return word[:-2]   # "tomatoes", "potatoes": the tomato, not "tomatoe"
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word
