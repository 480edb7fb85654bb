"""``load_tools``: the loader's menu, as an ordinary tool.

The catalog registers it only while a loader is configured (right after
``request_user_input``); it reaches the loader through ``ctx.loader`` and hands
the ``ToolsLoaded`` outcome back with its reply, so the agent can show what was
added and disclose the new tools on the next step.
"""

from __future__ import annotations

from typing import Any

from gaia_lite.registry.context import ToolContext, ToolReply
from gaia_lite.registry.spec import tool

__all__ = ["TOOLS", "load_tools", "LOAD_TOOLS"]

LOAD_TOOLS = "load_tools"
NOT_ACTIVE = "the loader is not active, so every tool is already available"


@tool
def load_tools(ctx: ToolContext, bundle: str) -> dict[str, Any] | ToolReply:
    """Load a bundle of extra tools so you can call them on your next step.

    Args:
        bundle: A bundle name from LOADABLE TOOL BUNDLES, or the exact tool name you need.
    """
    if ctx.loader is None:
        return {"status": "error", "error": NOT_ACTIVE}
    outcome = ctx.loader.load_bundle(bundle)
    if isinstance(outcome, str):
        return {"status": "error", "error": outcome}
    return ToolReply({"status": "success", "bundle": outcome.bundle, "loaded_tools": sorted(outcome.loaded)},
                     loaded=outcome)


TOOLS = [load_tools]
