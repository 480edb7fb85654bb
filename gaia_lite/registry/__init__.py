"""Tool definitions, the per-agent registry, both render paths and execution."""

from .registry import ToolRegistry
from .render import render_native, render_text, tools_hash
from .spec import ParamSpec, ToolDefinitionError, ToolSpec, spec_of, tool

__all__ = ["ToolRegistry", "ToolSpec", "ParamSpec", "ToolDefinitionError", "tool", "spec_of",
           "render_text", "render_native", "tools_hash"]
