"""Spotting secrets in text, so memory neither stores nor hands them back.

A remembered fact that holds a key would be repeated into every later prompt
that recalls it, so facts that look like secrets are refused outright, and
turns and tool arguments (kept for history, not for recall) are masked.
Hex and base64 runs count only when they look random: commit hashes, paths
and ordinary identifiers are common in chat and must pass.
"""

from __future__ import annotations

import math
import re
from collections import Counter

__all__ = ["looks_like_credential", "mask_credentials"]

_CREDENTIAL_PATTERNS: list[tuple[re.Pattern[str], str]] = [(re.compile(p), why) for p, why in [
    (r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----", "a private key block"),
    # only user:password goes, so the masked URL still says which host it was
    (r"(?<=://)[^\s/?#@:'\"<>]+:[^\s/?#@'\"<>]+(?=@)", "credentials in a URL"),
    (r"\bsk-(?:proj-|ant-|live-)?[A-Za-z0-9_\-]{20,}", "an API key (sk-...)"),
    (r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b", "an AWS access key id"),
    (r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})", "a GitHub token"),
    (r"\bxox[abposr]-[A-Za-z0-9\-]{10,}", "a Slack token"),
    (r"\bAIza[0-9A-Za-z_\-]{35}", "a Google API key"),
    (r"\b[rs]k_(?:live|test)_[0-9A-Za-z]{16,}", "a Stripe key"),
    (r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}", "a JSON Web Token"),
    (r"(?i)\bbearer\s+[A-Za-z0-9._~+/\-]{20,}", "a bearer token"),
    (r"(?i)\b(?:password|passwd|pwd|passphrase|passcode|secret|api[_\- ]?key|access[_\- ]?token"
     r"|auth[_\- ]?token|client[_\- ]?secret|token)\b\s*[:=]\s*[\"']?[^\s\"']{3,}",
     "a 'password: value' style secret"),
    (r"(?i)\b(?:password|passcode|passphrase|pin|api key|token)\s+(?:is|was)\s+"
     r"(?:\"[^\"]{4,}\"|'[^']{4,}'|(?=\S*[0-9@#$%^&*!+=_~])\S{4,})", "a stated password or PIN"),
]]
_HEX_RUN = re.compile(r"\b[0-9a-fA-F]{32,}\b")
_HASH_WORDS = re.compile(r"(?i)(commit|sha|hash|checksum|digest|md5|uuid|revision)\W*\S*\W*$")
_B64_RUN = re.compile(r"[A-Za-z0-9+/_\-]{40,}={0,2}")


def _entropy(s: str) -> float:
    counts = Counter(s)
    return -sum(c / len(s) * math.log2(c / len(s)) for c in counts.values())


def _credential_spans(text: str) -> list[tuple[int, int, str]]:
    spans = [(m.start(), m.end(), why) for rx, why in _CREDENTIAL_PATTERNS for m in rx.finditer(text)]
    for m in _HEX_RUN.finditer(text):
        run = m.group()
        if re.search(r"\d", run) and re.search(r"[a-fA-F]", run) \
                and not _HASH_WORDS.search(text[max(0, m.start() - 24):m.start()]):
            spans.append((m.start(), m.end(), "a long hex secret"))
    for m in _B64_RUN.finditer(text):
        run = m.group()
        mixed = all(re.search(p, run) for p in (r"[a-z]", r"[A-Z]", r"\d"))
        pathlike = run.startswith("/") or run.count("/") >= 3
        if mixed and not pathlike and _entropy(run) >= 4.0:
            spans.append((m.start(), m.end(), "a long random-looking secret"))
    return sorted(spans)


def looks_like_credential(text: str) -> str | None:
    """Why ``text`` looks like it holds a secret (API key, password, token…), or None."""
    spans = _credential_spans(text or "")
    return f"it looks like {spans[0][2]}" if spans else None


def mask_credentials(text: str) -> str:
    """``text`` with every credential-shaped run replaced by ``[REDACTED]``."""
    out, pos = [], 0
    for start, end, _ in _credential_spans(text or ""):
        if start >= pos:
            out.append(text[pos:start] + "[REDACTED]")
            pos = end
        elif end > pos:
            pos = end
    return "".join(out) + (text or "")[pos:]
