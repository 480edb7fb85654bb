"""Regular expressions a model supplies, run on a linear-time engine.

Python's ``re`` backtracks: ``(a+)+$`` against a long line runs for minutes
while holding the GIL, so no thread timeout can stop it. RE2 (``google-re2``)
matches in time linear in the input and refuses the few constructs that need
backtracking (look-around, back-references); callers then fall back to a
literal search. Pattern length is bounded too.
"""

from __future__ import annotations

from typing import Any

__all__ = ["compile_user_regex", "MAX_PATTERN_CHARS"]

MAX_PATTERN_CHARS = 1000
_MAX_MEM = 8 << 20  # bytes RE2 may use for one compiled pattern


def compile_user_regex(pattern: str, *, ignore_case: bool = False, literal: bool = False) -> Any:
    """A compiled RE2 pattern (``.search(text)`` like ``re``), or None when the
    pattern is too long or not valid RE2 syntax (then search for it with
    ``literal=True``, which matches the text as given)."""
    if not isinstance(pattern, str) or len(pattern) > MAX_PATTERN_CHARS:
        return None
    import re2  # lazy: only searches need it

    options = re2.Options()
    options.case_sensitive = not ignore_case
    options.log_errors = False
    options.max_mem = _MAX_MEM
    options.literal = literal
    try:
        return re2.compile(pattern, options)
    except re2.error:
        return None
