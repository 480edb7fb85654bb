#!/usr/bin/env python
"""The chat side panel as it looks when an MCP server's tools are admitted (for the README).

    python scripts/capture_mcp_panel.py [--question "..."] [--width 50] [--home DIR]

A real selection, no model needed: the doc registry, the in-process MiniLM embedder, the default
preset and mcp-server-git on this repository join exactly as in `gaia-lite chat --dynamic-tools`;
the panel is drawn from the turn's ToolsSelected event by the chat UI's own renderer.
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console  # noqa: E402

from gaia_lite.agent.selection import ToolSelector  # noqa: E402
from gaia_lite.cli.chat import _layout  # noqa: E402
from gaia_lite.cli.wiring import build_embedder, build_loader, build_mcp, build_registry  # noqa: E402
from gaia_lite.config import McpServer, load_settings  # noqa: E402
from gaia_lite.events import TurnStarted  # noqa: E402
from gaia_lite.mcp.connection import resolve_command  # noqa: E402
from gaia_lite.ui.panel import panel_lines  # noqa: E402
from gaia_lite.ui.view import ChatView  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--question", default="show me the last three commits in the git log")
    parser.add_argument("--width", type=int, default=50)
    parser.add_argument("--home", help="a GAIA_HOME to reuse (a second run finds the tool vectors cached)")
    args = parser.parse_args()
    git = resolve_command("mcp-server-git")
    if git is None:
        print("mcp-server-git is not installed (scripts/setup.sh installs it)", file=sys.stderr)
        return 1
    repo = str(Path(__file__).resolve().parents[1])
    home = args.home or tempfile.mkdtemp(prefix="gl-panel-")
    settings = load_settings({"dynamic_tools": True}, env={"GAIA_HOME": home}).replace(
        mcp_servers=(McpServer("git", command=git, args=("--repository", repo)),))
    loader = build_loader(settings, build_embedder(settings, settings.base_url))
    mcp = build_mcp(settings, loader, grace=120.0)
    registry = build_registry(settings, with_loader=True)
    selector = ToolSelector(registry, loader, joins=mcp.joins if mcp else None)
    selector.warm()  # as the agent's services do: the embedder loads while the user types
    try:
        state = selector.select([], args.question)
        view = ChatView()
        view.start_session(layout=_layout(loader), registry_names=registry.names(), active=True,
                           off_state=None, off_reason="", max_tools=loader.max_tools)
        view.apply(TurnStarted(1, args.question))
        for notice in state.notices:
            view.apply(notice)
        view.apply(state.event(1, registry))
        out = io.StringIO()
        console = Console(file=out, width=args.width, color_system=None, force_terminal=False)
        for line in panel_lines(view.panel, args.width):
            console.print(line, soft_wrap=True)
        print(f"› {args.question}")
        for notice in state.notices:
            print(f"  {notice.message}")
        print(out.getvalue(), end="")
    finally:
        if mcp is not None:
            mcp.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
