"""Secrets in what tools return, found by their shape and replaced before the model sees them.

The path rules (tools/sandbox.py) refuse credential files by *name*; a token can still
sit in a file with an ordinary name (``.git/config``, a log, a committed config). Every
tool result passes ``redact_payload`` in the executor, MCP tools included: each string in
it is searched for well-known token shapes (AWS, GitHub, GitLab, Slack, OpenAI, Google,
Stripe, Hugging Face, npm, PyPI keys; private key blocks; JWTs; credentials in URLs;
``password=``/``token:`` assignments whose value looks random), each hit is replaced by
``[REDACTED:<kind>]``, and the payload says so under ``redacted``.

It is pattern matching, not proof: a secret of no known shape whose value does not look
random, or one that is encoded (base64, hex of a token), passes. The patterns run on RE2
as one alternation, so a megabyte costs a few milliseconds (scripts/bench_redact.py).
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections import Counter
from typing import Any, Iterator

__all__ = ["redact_text", "redact_payload", "asked_kinds", "MARK", "KINDS"]

MARK = "[REDACTED:{}]"

def _assignment(words: str, shortest: int) -> str:
    """``<name with one of words> = <value>`` with the value as the rule's group."""
    return (rf"(?i:[A-Za-z0-9_.-]*(?:{words})(?:[_.-][A-Za-z0-9_.-]*)?)[\"']?[ \t]*(?:=>|=|:)[ \t]*[\"'`]?"
            rf"([A-Za-z0-9_./+=~@#%^*!?&$-]{{{shortest},}})(?:[\s\"'`,;)\]}}\x00]|$)")


# (kind, pattern). A pattern with one capture group redacts only that group (the value of an
# assignment, the user:password of a URL); without one the whole match goes.
_RULES: tuple[tuple[str, str], ...] = (
    ("private-key", r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[^\x00]*?"
                    r"(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)"),
    ("url-credentials", r"\b[A-Za-z][A-Za-z0-9+.-]{1,20}://([^\s/?#@:'\"<>\x00]+:[^\s/?#@'\"<>\x00]+)@"),
    ("aws-access-key", r"\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}\b"),
    ("github-token", r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})"),
    ("gitlab-token", r"\bgl(?:pat|dt|rt|ptt|soat|cbt|ft|imt|agent)-[A-Za-z0-9_-]{20,}"),
    ("slack-token", r"\bxox[abposre]-[A-Za-z0-9-]{10,}|https://hooks\.slack\.com/services/[A-Za-z0-9/]{20,}"),
    ("openai-key", r"\bsk-(?:proj-|svcacct-|admin-|ant-)?[A-Za-z0-9_-]{20,}"),
    ("google-key", r"\bAIza[0-9A-Za-z_-]{35}\b|\bGOCSPX-[A-Za-z0-9_-]{20,}|\bya29\.[0-9A-Za-z_-]{20,}"),
    ("stripe-key", r"\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}"),
    ("huggingface-token", r"\bhf_[A-Za-z0-9]{30,}"),
    ("npm-token", r"\bnpm_[A-Za-z0-9]{36}\b"),
    ("pypi-token", r"\bpypi-AgE[A-Za-z0-9_-]{50,}"),
    ("sendgrid-key", r"\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}"),
    ("jwt", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{10,}"),
    ("bearer-token", r"\b(?i:bearer)\s+([A-Za-z0-9._~+/-]{20,}=*)"),
    # key = value, key: value, "key": "value", key => value; judged by the value's shape below.
    ("password", _assignment(r"passw(?:or)?d|passwd|pwd|passphrase", 6)),
    ("secret-assignment", _assignment(r"secret|token|api[_-]?key|apikey|access[_-]?key|auth[_-]?key|"
                                      r"private[_-]?key|credentials?", 8)),
)
KINDS = tuple(kind for kind, _ in _RULES)
_VALUE_RULES = frozenset({"url-credentials", "bearer-token", "password", "secret-assignment"})
_MAX_DEPTH = 64
_SEP = "\x00"  # joins a payload's strings for one scan; no rule matches across it


@functools.lru_cache(maxsize=1)
def _compiled() -> tuple[Any, tuple[tuple[str, int, bool], ...]]:
    """The one RE2 pattern and, per rule, (kind, its group, whether a value group follows).
    Built on first use: the executor imports this module at start-up."""
    import re2

    groups, parts, group = [], [], 1
    for kind, rule in _RULES:
        has_value = kind in _VALUE_RULES
        groups.append((kind, group, has_value))
        parts.append(f"({rule})")
        group += 2 if has_value else 1
    options = re2.Options()
    options.log_errors = False
    options.max_mem = 64 << 20
    # bytes, not str: the str interface maps every offset back to characters, 3x the cost
    return re2.compile("|".join(parts).encode(), options), tuple(groups)


def _entropy(value: str) -> float:
    return -sum(n / len(value) * math.log2(n / len(value)) for n in Counter(value).values())


def _classes(value: str) -> int:
    return sum((any(c.islower() for c in value), any(c.isupper() for c in value),
                any(c.isdigit() for c in value), any(not c.isalnum() for c in value)))


def _is_secret_value(kind: str, value: str) -> bool:
    """An assignment's value that reads like a secret, not a word, a number or a reference.
    Passwords are chosen by people: any value with a digit, a symbol or mixed case counts."""
    if value.isdigit() or value.lower() in _PLACEHOLDERS or value.startswith("$"):
        return False
    if kind == "password":
        return _classes(value) >= 2
    entropy, classes = _entropy(value), _classes(value)
    return (len(value) >= 10 and entropy >= 3.3 and classes >= 2) or (classes >= 3 and entropy >= 2.8)


_PLACEHOLDERS = frozenset({"true", "false", "null", "none", "changeme", "password", "required", "optional",
                           "redacted", "xxxxxxxx", "********"})


# The user's own words asking for a password: "whats the wifi pw for the lake cabin?", "the door passcode"
_ASKS_PASSWORD = re.compile(r"(?i)\b(?:passw(?:or)?ds?|passwd|pws?|passcodes?|passphrases?|wi-?fi (?:key|code))\b")


def asked_kinds(message: str) -> frozenset[str]:
    """The kinds of secret the user's own message asks to see: a password it asks for by name ("theres a file w the
    wifi pw for the lake cabin, can u find it and tell me the password") is shown; the mask stood in its place and
    both models answered with it (probe57, and earlier the router notes). Tokens and keys of a known shape stay
    hidden whatever is asked: they are what a planted instruction would be after."""
    return frozenset({"password"}) if _ASKS_PASSWORD.search(message or "") else frozenset()


def redact_text(text: str, shown: frozenset[str] = frozenset()) -> tuple[str, Counter[str]]:
    """``text`` with every secret replaced by ``[REDACTED:kind]``, and how many of each kind; the kinds in ``shown``
    stay as written."""
    found: Counter[str] = Counter()
    if len(text) < 8:
        return text, found
    pattern, groups = _compiled()
    data = text.encode("utf-8", "surrogatepass")  # tool text may carry lone surrogates; keep them
    if pattern.search(data) is None:  # the common case: one linear scan, no Python per match
        return text, found
    out: list[bytes] = []
    last = 0
    for match in pattern.finditer(data):
        kind, group, has_value = next(g for g in groups if match.start(g[1]) != -1)
        start, end = match.span(group + 1) if has_value else match.span(group)
        if kind in ("password", "secret-assignment"):
            value = data[start:end]
            if not _is_secret_value(kind, value.decode("utf-8", "replace")):
                continue
            inner = pattern.search(value)  # a token of a known shape is named as such
            if inner is not None and inner.span() == (0, len(value)):
                kind = next(g[0] for g in groups if inner.start(g[1]) != -1)
        if kind in shown:
            continue
        out += [data[last:start], MARK.format(kind).encode()]
        last = end
        found[kind] += 1
    if not found:
        return text, found
    out.append(data[last:])
    return b"".join(out).decode("utf-8", "surrogatepass"), found


def _leaves(value: Any, strings: list[str], depth: int) -> Any:
    """Collect the strings of a dict, list or tuple in order. A subtree deeper than any tool
    builds comes back as its JSON text (one string to scan), not recursed into without end."""
    if depth > _MAX_DEPTH:
        try:
            text = json.dumps(value, default=str)
        except (RecursionError, ValueError):
            text = "[left out: nested too deep to check for secrets]"
        strings.append(text)
        return text
    changed = {}
    for key, item in (value.items() if isinstance(value, dict) else enumerate(value)):
        if isinstance(item, str):
            strings.append(item)
        elif isinstance(item, (dict, list, tuple)):
            new = _leaves(item, strings, depth + 1)
            if new is not item:
                changed[key] = new
    return _with(value, changed)


def _rebuild(value: Any, clean: Iterator[str]) -> Any:
    """``value`` with its strings, in ``_leaves`` order, taken from ``clean``; containers
    whose strings all came back unchanged (the same objects) are kept, not copied."""
    changed = {}
    for key, item in (value.items() if isinstance(value, dict) else enumerate(value)):
        if isinstance(item, str):
            new = next(clean)
        elif isinstance(item, (dict, list, tuple)):
            new = _rebuild(item, clean)
        else:
            continue
        if new is not item:
            changed[key] = new
    return _with(value, changed)


def _with(value: Any, changed: dict) -> Any:
    if not changed:
        return value
    if isinstance(value, dict):
        return {**value, **changed}
    return type(value)(changed.get(i, item) for i, item in enumerate(value))


def redact_payload(payload: dict[str, Any], shown: frozenset[str] = frozenset()) -> dict[str, Any]:
    """The payload with secrets in its strings replaced (but for the kinds in ``shown``), plus a ``redacted`` note
    when any was (the same object when there was nothing to hide)."""
    strings: list[str] = []
    shaped = _leaves(payload, strings, 0)
    found: Counter[str] = Counter()
    if any(_SEP in s for s in strings):  # rare (binary text): one scan per string
        clean = []
        for s in strings:
            text, hits = redact_text(s, shown)
            clean.append(text)
            found += hits
    else:  # one scan of all strings joined: no pattern matches across the separator
        text, found = redact_text(_SEP.join(strings), shown)
        # unchanged strings stay the same objects, so _rebuild copies only what holds a secret
        clean = [c if c != s else s for s, c in zip(strings, text.split(_SEP))] if found else strings
    if not found:
        return shaped  # the payload itself, unless a too-deep part was turned into its text
    kinds = ", ".join(f"{kind} x{n}" if n > 1 else kind for kind, n in sorted(found.items()))
    return {**_rebuild(shaped, iter(clean)),
            "redacted": f"{sum(found.values())} secret(s) hidden from this output ({kinds}); "
                        "the text shows [REDACTED:<kind>] in their place"}
