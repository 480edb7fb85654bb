"""CORE and the tool bundles, read from package data (``gaia_lite.bundles``).

A profile file ``<profile>.toml`` holds ``core = [...]`` and an ordered list of
``[[bundle]]`` tables (name, description, members). Bundle order is the menu
order, so it is kept as a tuple. An optional ``[aliases]`` table maps a
spelling users write ("the shell") to the tools it names (the REQUESTED tier,
``requested.py``); an optional ``[companions]`` table lists known workflow
edges, the cold-start prior of the learned companions (``companions.py``). Nothing here checks the names against a
registry: ``ToolLoader.validate_registry`` does that at runtime and the tests
check the reverse direction against the catalog.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 needs the `tomli` backport (same API)
    import tomli as tomllib

__all__ = ["ToolBundle", "BundleConfig", "load_bundles", "parse_bundles", "BUNDLE_PACKAGE"]

BUNDLE_PACKAGE = "gaia_lite.bundles"


@dataclass(frozen=True)
class ToolBundle:
    """A named group of tools that are pulled in together."""

    name: str
    members: frozenset[str]
    description: str = ""


@dataclass(frozen=True)
class BundleConfig:
    """The always-on CORE names and the bundles in menu order."""

    core: frozenset[str]
    bundles: tuple[ToolBundle, ...]
    aliases: dict[str, tuple[str, ...]] = field(default_factory=dict)
    companions: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def members(self) -> frozenset[str]:
        """Every tool named by some bundle."""
        return frozenset().union(*(b.members for b in self.bundles))

    def bundle(self, name: str) -> ToolBundle:
        for b in self.bundles:
            if b.name == name:
                return b
        raise KeyError(name)


def parse_bundles(data: dict[str, Any], *, source: str = "<bundles>") -> BundleConfig:
    """Build a BundleConfig from parsed TOML; malformed input raises ValueError."""
    core = data.get("core", [])
    if not isinstance(core, list) or not all(isinstance(n, str) for n in core):
        raise ValueError(f"{source}: `core` must be a list of tool names")
    bundles: list[ToolBundle] = []
    seen: set[str] = set()
    for i, raw in enumerate(data.get("bundle", [])):
        name = raw.get("name")
        members = raw.get("members")
        if not isinstance(name, str) or not name:
            raise ValueError(f"{source}: bundle #{i + 1} has no name")
        if name in seen:
            raise ValueError(f"{source}: bundle {name!r} is declared twice")
        if not isinstance(members, list) or not members or not all(isinstance(m, str) for m in members):
            raise ValueError(f"{source}: bundle {name!r} needs a non-empty list of members")
        seen.add(name)
        bundles.append(ToolBundle(name, frozenset(members), str(raw.get("description", ""))))
    aliases: dict[str, tuple[str, ...]] = {}
    for alias, tools in (data.get("aliases") or {}).items():
        if isinstance(tools, str):
            tools = [tools]
        if not alias.strip() or not isinstance(tools, list) or not tools or \
                not all(isinstance(t, str) for t in tools):
            raise ValueError(f"{source}: alias {alias!r} needs a tool name or a list of tool names")
        aliases[alias.strip().lower()] = tuple(tools)
    companions: dict[str, tuple[str, ...]] = {}
    for tool, mates in (data.get("companions") or {}).items():
        if not isinstance(mates, list) or not mates or not all(isinstance(m, str) for m in mates):
            raise ValueError(f"{source}: companions of {tool!r} must be a non-empty list of tool names")
        companions[tool] = tuple(mates)
    return BundleConfig(frozenset(core), tuple(bundles), aliases, companions)


def load_bundles(profile: str = "doc") -> BundleConfig:
    """Read ``<profile>.toml`` shipped in the ``gaia_lite.bundles`` package."""
    resource = resources.files(BUNDLE_PACKAGE).joinpath(f"{profile}.toml")
    try:
        text = resource.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ValueError(f"unknown bundle profile {profile!r}") from None
    return parse_bundles(tomllib.loads(text), source=f"{profile}.toml")
