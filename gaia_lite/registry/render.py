"""The two render paths, driven by one selection.

* Text path: one line per tool inside the system prompt,
  ``- name(p: type, q?: type): first docstring line``.
* Native path: OpenAI ``tools=`` function schemas with real JSON types and
  per-parameter descriptions.
* Compact: ``- name(p, q?, n?: integer): the summary's first words``, one
  line per tool, the type only where it is not a string: how the stable
  layout discloses a tool admitted on a later turn (agent/prefix.py), where
  every token is prefilled on that turn.
* Listed: ``- name(p, q?, n?: integer): the whole summary``: the text path's
  tool list while the loader is on (the same line as the text render, without
  the ``: string`` that most arguments carry; the constrained reply schema
  holds the real types either way).

``filter_to=None`` renders every tool in registration order; that output is
what a build without the loader produces, byte for byte.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Iterable

from .registry import ToolRegistry

__all__ = ["render_text", "render_listed", "render_native", "render_compact", "compact_signature", "short_summary", "tools_hash",
           "native_json"]


def render_text(registry: ToolRegistry, filter_to: Iterable[str] | None = None) -> str:
    return "\n".join(f"- {s.signature_text()}: {s.summary}" for s in registry.specs(filter_to))


def render_listed(registry: ToolRegistry, filter_to: Iterable[str] | None = None) -> str:
    return "\n".join(f"- {compact_signature(s)}: {s.summary}" if s.summary else f"- {compact_signature(s)}"
                     for s in registry.specs(filter_to))


def compact_signature(spec: Any) -> str:
    """``name(p, q?, n?: integer)``: the argument names (``?`` = optional), types other than string."""
    parts = [f"{p.name}{'' if p.required else '?'}" + ("" if p.json_type == "string" else f": {p.json_type}")
             for p in spec.params]
    return f"{spec.name}({', '.join(parts)})"


def short_summary(summary: str, words: int = 8) -> str:
    """The summary's first ``words`` words (``…`` when cut), without its closing period."""
    w = summary.strip().rstrip(".").split()
    return " ".join(w[:words]) + ("…" if len(w) > words else "")


def render_compact(registry: ToolRegistry, filter_to: Iterable[str] | None = None) -> str:
    return "\n".join(f"- {compact_signature(s)}: {short_summary(s.summary)}" if s.summary
                     else f"- {compact_signature(s)}" for s in registry.specs(filter_to))


def render_native(registry: ToolRegistry, filter_to: Iterable[str] | None = None) -> list[dict[str, Any]]:
    return [s.openai_schema() for s in registry.specs(filter_to)]


def native_json(schemas: list[dict[str, Any]]) -> str:
    """The serialisation used for size measurement (json.dumps defaults)."""
    return json.dumps(schemas)


def tools_hash(text_block: str, schemas: list[dict[str, Any]] | None) -> str:
    """Short hash of exactly what the model sees of the tools (text + native)."""
    h = hashlib.sha256(text_block.encode("utf-8"))
    h.update(b"\x00")
    h.update(json.dumps(schemas or [], sort_keys=True).encode("utf-8"))
    return h.hexdigest()[:12]
