"""Test wiring: the doc registry, selector and executor around a given loader, built as the agent's is."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gaia_lite.agent.selection import ToolSelector
from gaia_lite.cli.wiring import build_tool_set
from gaia_lite.config import load_settings
from gaia_lite.loader.loader import ToolLoader
from gaia_lite.registry.context import ToolContext
from gaia_lite.registry.execute import ToolExecutor
from gaia_lite.registry.registry import ToolRegistry


class OpenSandbox:
    roots = ()
    approved = ()

    def check(self, path: Any, *, write: bool = False) -> Path:
        return Path(path)


@dataclass
class Stack:
    registry: ToolRegistry
    selector: ToolSelector
    executor: ToolExecutor
    ctx: ToolContext


def doc_stack(loader: ToolLoader | None, workdir: Path, *, native: bool) -> Stack:
    tools = build_tool_set(load_settings({"dynamic_tools": loader is not None}), loader, native=native)
    ctx = ToolContext(workdir=workdir, sandbox=OpenSandbox(), data_dir=workdir,
                      loader=tools.selector if loader is not None else None)
    executor = ToolExecutor(tools.registry, ctx, on_invoke=tools.selector.record_tool_use)
    return Stack(tools.registry, tools.selector, executor, ctx)
