"""A judged set's tools taken through a real MCP session (``eval recall --registry mcp``).

The fixture server (``mcp_fixture``) serves the set's tools; they come back as
the agent registers any MCP server's tools: ``fixture__<tool>`` in one bundle,
``mcp_fixture``, embedded under the set's own names. The cases name the set's
tools, so ``rename`` maps those names to the registry's.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from gaia_lite.config import McpServer
from gaia_lite.loader.bundles import ToolBundle
from gaia_lite.mcp.connection import ServerConnection
from gaia_lite.mcp.tools import server_bundle, tool_specs
from gaia_lite.registry.registry import ToolRegistry

__all__ = ["McpRegistry", "mcp_registry", "FIXTURE"]

FIXTURE = "fixture"
CONNECT_TIMEOUT = 300.0  # thousands of tools in one listing, on a busy machine


@dataclass
class McpRegistry:
    registry: ToolRegistry
    bundles: tuple[ToolBundle, ...]
    rename: dict[str, str]  # the set's tool name -> the registry's
    close: Callable[[], None]
    connect_s: float


def fixture_server(dataset_path: str | Path) -> McpServer:
    return McpServer(FIXTURE, command=sys.executable,
                     args=("-m", "gaia_lite.eval.mcp_fixture", str(Path(dataset_path).resolve())),
                     timeout=30.0)


def mcp_registry(dataset_path: str | Path) -> McpRegistry:
    """Start the fixture server for the set and register its tools. ValueError when it does not start."""
    server = fixture_server(dataset_path)
    conn = ServerConnection(server, connect_timeout=CONNECT_TIMEOUT)
    conn.start()
    conn.wait(CONNECT_TIMEOUT + 10.0)
    if conn.state != "ready":
        conn.close()
        raise ValueError(f"the MCP fixture server did not start: {conn.error}")
    if not conn.tools:
        conn.close()
        raise ValueError("this dataset has no tools: use --registry doc")

    def call(_server: str, tool: str, arguments: dict) -> dict:
        try:
            from gaia_lite.mcp.tools import outcome_payload

            return outcome_payload(conn.call(tool, arguments, server.timeout))
        except Exception as exc:  # the recall run never calls; a caller gets the error as data
            return {"status": "error", "error": str(exc)}

    specs = tool_specs(server, conn.tools, call)
    registry = ToolRegistry(specs)
    return McpRegistry(registry, (server_bundle(server, specs),), {s.origin: s.name for s in specs}, conn.close,
                       conn.connect_s or 0.0)
