"""Test wiring: the doc registry, selector and executor around a given loader, built as services.py does."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gaia_lite.agent.selection import ToolSelector
from gaia_lite.cli.services import _insert_after, build_registry
from gaia_lite.config import load_settings
from gaia_lite.registry.context import ToolContext
from gaia_lite.registry.execute import ToolExecutor
from gaia_lite.registry.registry import ToolRegistry
from gaia_lite.tools.catalog import LOAD_TOOLS_AFTER


class OpenSandbox:
    roots = ()

    def check(self, path: Any, *, write: bool = False) -> Path:
        return Path(path)


@dataclass
class Stack:
    registry: ToolRegistry
    selector: ToolSelector
    executor: ToolExecutor
    ctx: ToolContext


def doc_stack(loader: Any, workdir: Path, *, native: bool) -> Stack:
    registry = build_registry(load_settings({}), with_loader=loader is not None)
    selector = ToolSelector(registry, loader, menu_enabled=native)
    if loader is not None:
        registry = _insert_after(registry, LOAD_TOOLS_AFTER, selector.load_tools_spec())
        selector.registry = registry
        selector.state = selector._full_state()
    ctx = ToolContext(workdir=workdir, sandbox=OpenSandbox(), data_dir=workdir)
    executor = ToolExecutor(registry, ctx, on_invoke=selector.record_tool_use)
    return Stack(registry, selector, executor, ctx)
