"""An MCP server that serves the tools of a judged set (the ``shared/evaldata`` format).

    python -m gaia_lite.eval.mcp_fixture SET.json              # stdio
    python -m gaia_lite.eval.mcp_fixture SET.json --http 8765  # streamable HTTP at /mcp

``gaia-lite eval recall SET.json --registry mcp`` starts it and takes the set's
tools through a real MCP session, so selection over MCP tools can be measured
against ``--registry dataset`` (the same tools read straight from the file).
Each tool is listed with the set's name, description and parameters; only the
schema's root type is set to ``object``, as MCP requires (the sets write
``dict`` too). ``--read-only`` marks every tool read-only. A call answers with
the tool's name and its arguments; ``--slow SECONDS`` delays the listing (a
slow server), ``--hang TOOL`` never answers that tool (a hung one).

Written with the SDK's low-level server API; tests and benchmarks use it too.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

__all__ = ["load_tools", "build_server", "main"]


def load_tools(path: str | Path, *, read_only: bool = False) -> list[Any]:
    import mcp_types as types  # kept lazy: `--help` of the eval commands does not need the SDK

    data = json.loads(Path(path).read_text(encoding="utf-8"))
    hints = types.ToolAnnotations(read_only_hint=True) if read_only else None
    out = []
    for raw in data.get("tools") or []:
        schema = dict(raw.get("parameters") or {})
        schema["type"] = "object"
        schema.setdefault("properties", {})
        out.append(types.Tool(name=str(raw["name"]), description=str(raw.get("description") or ""),
                              input_schema=schema, annotations=hints))
    return out


def build_server(tools: list[Any], *, slow: float = 0.0, hang: str = "") -> Any:
    import anyio
    import mcp_types as types
    from mcp.server.lowlevel import Server

    async def list_tools(ctx: Any, params: Any) -> Any:
        if slow:
            await anyio.sleep(slow)
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: Any) -> Any:
        if params.name == hang:
            await anyio.sleep_forever()
        text = json.dumps({"tool": params.name, "arguments": params.arguments or {}})
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

    return Server("gaia-lite-fixture", on_list_tools=list_tools, on_call_tool=call_tool)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gaia_lite.eval.mcp_fixture", description=__doc__.split("\n")[0])
    parser.add_argument("dataset", help="a judged set: a JSON file with a 'tools' list")
    parser.add_argument("--http", type=int, metavar="PORT", help="serve streamable HTTP on 127.0.0.1:PORT/mcp")
    parser.add_argument("--read-only", action="store_true", help="mark every tool read-only")
    parser.add_argument("--slow", type=float, default=0.0, metavar="SECONDS", help="delay the tool listing")
    parser.add_argument("--hang", default="", metavar="TOOL", help="never answer calls to this tool")
    args = parser.parse_args(argv)
    try:
        tools = load_tools(args.dataset, read_only=args.read_only)
    except (OSError, ValueError, KeyError) as exc:
        print(f"mcp_fixture: cannot read {args.dataset}: {exc}", file=sys.stderr)
        return 2
    server = build_server(tools, slow=args.slow, hang=args.hang)
    if args.http:
        import uvicorn

        uvicorn.run(server.streamable_http_app(), host="127.0.0.1", port=args.http, log_level="warning")
        return 0
    import anyio
    from mcp.server.stdio import stdio_server

    async def serve() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(serve)
    return 0


if __name__ == "__main__":
    sys.exit(main())
