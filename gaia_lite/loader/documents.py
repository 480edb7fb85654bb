"""What the loader embeds for each tool: one or more *views* of it.

GAIA embeds one document per tool, ``"name: first docstring line"``. A user's
request is only weakly similar to that line, so a tool may also be embedded
as its parameter names and as a handful of hand-written example requests
(``bundles/<profile>_examples.toml``); the tool's score is then the best
score over its views. Which views are used is a preset setting.
"""

from __future__ import annotations

import re
import sys
from importlib import resources
from typing import Literal, Mapping, Sequence

from gaia_lite.registry.spec import ToolSpec

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["View", "VIEWS", "doc_text", "tool_views", "load_examples", "name_words"]

View = Literal["summary", "params", "description", "examples"]
VIEWS: tuple[View, ...] = ("summary", "params", "description", "examples")

_DESCRIPTION_CHARS = 600  # the embedder truncates anyway; this bounds cache-key churn


def doc_text(spec: ToolSpec) -> str:
    """GAIA's tool document: ``name: summary`` (just the name without a summary)."""
    summary = spec.summary.strip()
    return f"{spec.doc_name}: {summary}" if summary else spec.doc_name


def name_words(name: str) -> str:
    """``search_file_content`` -> ``search file content``; ``getUserInfo`` -> ``get user info``."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name)
    return " ".join(w for w in re.split(r"[_\W]+", spaced) if w).lower()


def tool_views(spec: ToolSpec, views: Sequence[View], examples: Sequence[str] = ()) -> list[str]:
    """The texts embedded for one tool, in a stable order, without duplicates."""
    out: list[str] = []
    for view in views:
        if view == "summary":
            out.append(doc_text(spec))
        elif view == "params" and spec.params:
            out.append(f"{name_words(spec.doc_name)}: " + ", ".join(name_words(p.name) for p in spec.params))
        elif view == "description" and spec.description.strip() and spec.description.strip() != spec.summary.strip():
            out.append(f"{name_words(spec.doc_name)}: {spec.description.strip()[:_DESCRIPTION_CHARS]}")
        elif view == "examples":
            out.extend(e.strip() for e in examples if e.strip())
    seen: set[str] = set()
    return [t for t in out if not (t in seen or seen.add(t))]


def load_examples(profile: str = "doc") -> dict[str, tuple[str, ...]]:
    """Example user requests per tool from ``<profile>_examples.toml`` (empty if absent)."""
    resource = resources.files("gaia_lite.bundles").joinpath(f"{profile}_examples.toml")
    try:
        data = tomllib.loads(resource.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    table: Mapping[str, object] = data.get("examples", {})
    out: dict[str, tuple[str, ...]] = {}
    for name, items in table.items():
        if not isinstance(items, list) or not all(isinstance(x, str) for x in items):
            raise ValueError(f"{profile}_examples.toml: examples for {name!r} must be a list of strings")
        out[name] = tuple(items)
    return out
