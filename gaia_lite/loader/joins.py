"""Tools that join the registry mid-session, as the loader sees them.

An MCP server that connects after the session started hands its tools over as
one ``ToolJoin``; the agent's selector asks a ``JoinSource`` for them between
turns. The type lives here, below both the MCP manager that makes joins and the
agent that applies them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from gaia_lite.events import Notice
from gaia_lite.registry.spec import ToolSpec

from .bundles import ToolBundle

__all__ = ["ToolJoin", "JoinSource"]


@dataclass(frozen=True)
class ToolJoin:
    """Tools that join the registry mid-session (an MCP server that connected), as one bundle,
    with the notice that says so; a server that failed joins nothing and only has its notice.
    A spec whose name is registered already replaces it (the server changed the tool), and the
    ``removed`` names leave (the server no longer lists them)."""

    specs: tuple[ToolSpec, ...]
    bundle: ToolBundle | None
    notice: Notice
    removed: tuple[str, ...] = ()


JoinSource = Callable[[], Sequence[ToolJoin]]  # what has joined since it was last asked (never blocks long)
