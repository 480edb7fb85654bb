"""MCP servers as first-class tools: each server one bundle, its tools selected by the loader.

``connection`` talks to one server through the official SDK (a thread and an
event loop per server); ``tools`` turns its tools into ToolSpecs and a bundle;
``manager`` starts, joins, calls and restarts them for one agent.
"""

from .connection import CallOutcome, ListedTool, McpCallError, ServerConnection
from .manager import McpManager, ServerStatus
from .tools import local_names, outcome_payload, server_bundle, tool_specs

__all__ = ["CallOutcome", "ListedTool", "McpCallError", "ServerConnection", "McpManager", "ServerStatus",
           "local_names", "outcome_payload", "server_bundle", "tool_specs"]
