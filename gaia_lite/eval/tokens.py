"""Token counting for cost reports: the chat model's tokenizer when a server is up, a proxy otherwise.

* ``ServerTokenCounter``: llama-server's ``POST /tokenize`` (``{"content": text}``
  -> ``{"tokens": [...]}``). The route hangs off the server root, next to
  ``/v1``: base ``http://h:p/v1`` -> ``http://h:p/tokenize``; with
  ``--api-prefix /api`` (Lemonade-style) base ``http://h:p/api/v1`` ->
  ``http://h:p/api/tokenize`` (checked against llama-server b11434).
* ``CharTokenCounter``: ``ceil(chars / 4)``. A documented approximation of a
  BPE tokenizer on English + JSON; GAIA's tiktoken numbers give 4.28 chars per
  token for the native schemas and 4.80 for the text block.
* ``WordPieceTokenCounter``: the vendored MiniLM wordpiece tokenizer. It splits
  every JSON punctuation mark into its own token, so it overcounts schemas
  relative to a BPE chat tokenizer; useful only as a second offline opinion.

Cost ratios (loaded set / all tools) are what the reports compare, and they
move little between these counters.
"""

from __future__ import annotations

import json
import math
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Protocol, runtime_checkable

from gaia_lite.errors import GaiaError

__all__ = ["TokenCounter", "CharTokenCounter", "WordPieceTokenCounter", "ServerTokenCounter",
           "tokenize_url", "make_token_counter", "TokenCounterError"]


class TokenCounterError(GaiaError, RuntimeError):
    """The token counter cannot count (server down, tokenizer missing)."""


@runtime_checkable
class TokenCounter(Protocol):
    name: str

    def count(self, text: str) -> int: ...


@dataclass(frozen=True)
class CharTokenCounter:
    chars_per_token: float = 4.0
    name: str = "chars/4"

    def count(self, text: str) -> int:
        return math.ceil(len(text) / self.chars_per_token)


@dataclass
class WordPieceTokenCounter:
    name: str = "minilm-wordpiece"
    _tok: Any = field(default=None, repr=False)

    def count(self, text: str) -> int:
        if self._tok is None:
            try:
                # kept lazy: tokenizers loads only when this counter is used
                from tokenizers import Tokenizer
            except ImportError:
                raise TokenCounterError("tokenizers is not installed") from None
            path = resources.files("gaia_lite.data").joinpath("minilm-tokenizer.json")
            tok = Tokenizer.from_str(path.read_text(encoding="utf-8"))
            tok.no_padding()
            tok.no_truncation()
            self._tok = tok
        return len(self._tok.encode(text, add_special_tokens=False).ids)


def tokenize_url(base_url: str) -> str:
    """``/tokenize`` next to the OpenAI ``/v1`` root of a llama-server base URL."""
    root = base_url.rstrip("/")
    if root.endswith("/v1"):
        root = root[: -len("/v1")]
    return root + "/tokenize"


@dataclass
class ServerTokenCounter:
    """Counts with the served chat model's own tokenizer; memoises repeated texts."""

    base_url: str
    timeout: float = 10.0
    name: str = ""
    _memo: dict[str, int] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.url = tokenize_url(self.base_url)
        if not self.name:
            self.name = f"server:{self.url}"

    def count(self, text: str) -> int:
        hit = self._memo.get(text)
        if hit is not None:
            return hit
        body = json.dumps({"content": text}).encode("utf-8")
        req = urllib.request.Request(self.url, data=body, headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                tokens = json.loads(resp.read().decode("utf-8"))["tokens"]
        except (urllib.error.URLError, OSError, KeyError, ValueError) as exc:
            raise TokenCounterError(f"POST {self.url} failed: {exc}") from exc
        if len(self._memo) < 4096:
            self._memo[text] = len(tokens)
        return len(tokens)


def make_token_counter(kind: str = "auto", base_url: str | None = None) -> TokenCounter:
    """``server`` (needs ``base_url``), ``chars``, ``minilm``, or ``auto``: the server if it answers, else chars/4."""
    if kind == "chars":
        return CharTokenCounter()
    if kind == "minilm":
        return WordPieceTokenCounter()
    if kind in ("server", "auto"):
        if base_url:
            counter = ServerTokenCounter(base_url, timeout=2.0 if kind == "auto" else 10.0)
            try:
                counter.count("probe")
                return counter
            except TokenCounterError:
                if kind == "server":
                    raise
        elif kind == "server":
            raise TokenCounterError("the server token counter needs a base URL")
        return CharTokenCounter()
    raise ValueError(f"unknown token counter {kind!r}: choose auto, server, chars or minilm")
