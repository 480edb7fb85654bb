"""The REQUESTED tier: tools the user's own message names.

On a big registry many tools clear τ, and the cap can then drop the very tool
the user asked for ("run it with search_file_content"). GAIA's released loader
(amd-gaia 0.25.1) admits such tools in a tier of their own, after CORE and
before SKILL; so does ours.

What counts as naming a tool (case-insensitive, whole words only):

* its registry name, e.g. ``search_file_content``;
* an MCP tool's name without its server prefix (``create_issue`` for
  ``github__create_issue``), when that short name is unique in the registry and
  looks like an identifier (has ``_``, a digit or an inner capital), so a plain
  word such as ``search`` never fires;
* the name of a bundle that looks like an identifier (``file_browse``,
  ``mcp_github``): all its members. A one-word bundle name (``shell``, ``data``)
  is an ordinary word and counts only as ``<name> tools`` ("the desktop tools");
* an alias the profile declares (``[aliases]`` in ``bundles/<profile>.toml``,
  e.g. "the shell"), each naming one or more tools.

Everything here is a pure function of the message and a ``RequestIndex`` that
is built once per registry.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from .bundles import ToolBundle

__all__ = ["RequestIndex", "build_request_index", "requested_tools", "MCP_SEPARATOR"]

MCP_SEPARATOR = "__"  # MCP tools are registered as <server>__<tool>

# identifier-ish tokens: words with _ . - inside (tool names in public sets use all three)
_TOKEN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*[A-Za-z0-9_]|[A-Za-z0-9_]")


def _identifier_like(name: str) -> bool:
    """A spelling no English sentence uses by accident: ``_``, a digit or an inner capital."""
    return "_" in name or any(ch.isdigit() for ch in name) or bool(re.search(r"[a-z][A-Z]", name))


def _phrase_pattern(phrase: str) -> str:
    words = [re.escape(w) for w in phrase.lower().split()]
    return r"(?<![\w])" + r"\s+".join(words) + r"(?![\w])"


@dataclass(frozen=True)
class RequestIndex:
    """Lookup tables for one registry: single tokens and multi-word phrases -> tools."""

    tokens: Mapping[str, tuple[str, ...]]
    phrases: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...]

    @property
    def empty(self) -> bool:
        return not self.tokens and not self.phrases


def _add(table: dict[str, list[str]], key: str, tools: Iterable[str]) -> None:
    slot = table.setdefault(key.lower(), [])
    for t in tools:
        if t not in slot:
            slot.append(t)


def build_request_index(names: Sequence[str], bundles: Iterable[ToolBundle],
                        aliases: Mapping[str, Sequence[str]] | None = None) -> RequestIndex:
    """The spellings that name tools of this registry (see the module doc)."""
    present = set(names)
    tokens: dict[str, list[str]] = {}
    phrases: dict[str, list[str]] = {}
    for name in names:
        _add(tokens, name, [name])
    short: dict[str, list[str]] = {}
    for name in names:
        server, sep, tool = name.partition(MCP_SEPARATOR)
        if sep and server and tool and _identifier_like(tool):
            short.setdefault(tool.lower(), []).append(name)
    for tool, owners in short.items():
        if len(owners) == 1 and tool not in tokens:  # an ambiguous short name names nothing
            _add(tokens, tool, owners)
    for bundle in bundles:
        members = sorted(m for m in bundle.members if m in present)
        if not members:
            continue
        if _identifier_like(bundle.name):
            _add(tokens, bundle.name, members)
        else:
            _add(phrases, f"{bundle.name} tools", members)
            _add(phrases, f"{bundle.name} tool", members)
    for alias, tools in (aliases or {}).items():
        known = [t for t in tools if t in present]
        if not known:
            continue
        if len(alias.split()) == 1 and _TOKEN.fullmatch(alias):
            _add(tokens, alias, known)
        else:
            _add(phrases, alias, known)
    compiled = tuple((re.compile(_phrase_pattern(p), re.IGNORECASE), tuple(ts)) for p, ts in sorted(phrases.items()))
    return RequestIndex({k: tuple(v) for k, v in tokens.items()}, compiled)


def requested_tools(message: str, index: RequestIndex) -> list[str]:
    """Tools ``message`` names, in the order they are first named (no duplicates)."""
    if index.empty or not message:
        return []
    hits: list[tuple[int, str]] = []
    for m in _TOKEN.finditer(message):
        word = m.group(0)
        for candidate in (word, word.rstrip(".-")):
            tools = index.tokens.get(candidate.lower())
            if tools:
                hits.extend((m.start(), t) for t in tools)
                break
    for pattern, tools in index.phrases:
        found = pattern.search(message)
        if found:
            hits.extend((found.start(), t) for t in tools)
    out: list[str] = []
    for _, tool in sorted(hits, key=lambda h: h[0]):
        if tool not in out:
            out.append(tool)
    return out
