"""The two render paths, driven by one selection.

* Text path: one line per tool inside the system prompt,
  ``- name(p: type, q?: type): first docstring line``.
* Native path: OpenAI ``tools=`` function schemas with real JSON types and
  per-parameter descriptions.

``filter_to=None`` renders every tool in registration order; that output is
what a build without the loader produces, byte for byte.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Iterable

from .registry import ToolRegistry

__all__ = ["render_text", "render_native", "tools_hash", "native_json"]


def render_text(registry: ToolRegistry, filter_to: Iterable[str] | None = None) -> str:
    return "\n".join(f"- {s.signature_text()}: {s.summary}" for s in registry.specs(filter_to))


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
