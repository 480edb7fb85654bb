"""``gaia-lite mcp add|import|list|tools|remove``: the MCP servers in the config file.

``add`` and ``import`` write ``[mcp.servers.NAME]`` tables with tomlkit (the
user's other keys and comments kept; the file replaced atomically and validated
as start-up would). ``add`` starts the server first and writes it only when it
answers with its tools, so a typo never reaches the config (``--no-check``
skips that). ``list`` and ``tools`` start the servers to show what they offer
and what their tools cost in the prompt.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, List, Optional

import typer
from typing_extensions import Annotated

from gaia_lite.errors import ConfigError

from .outcome import BAD_INPUT, NOT_FOUND, JsonOpt, emit, fail, settings_or_fail

if TYPE_CHECKING:  # type-only: the MCP package loads when a command runs, not for --help
    from gaia_lite.config import McpServer, Settings
    from gaia_lite.mcp.manager import McpManager

__all__ = ["mcp_app"]

mcp_app = typer.Typer(
    help="MCP servers as tools: each server is one bundle (`mcp_NAME`) the loader selects from.\n\n"
         "Example: `gaia-lite mcp add time -- mcp-server-time`, then `gaia-lite chat`.",
    no_args_is_help=True,
)

NameArg = Annotated[str, typer.Argument(help="The server's name: lower-case snake_case; its tools are NAME__tool.")]
CONNECT_TIMEOUT = 30.0


def _start(servers: "list[McpServer]", settings: "Settings") -> "McpManager":
    from gaia_lite.mcp.manager import McpManager  # kept lazy: --help does not load the SDK

    manager = McpManager(servers, log_dir=settings.paths.state_dir, connect_timeout=CONNECT_TIMEOUT,
                         logger=_quiet_logger())
    manager.start()
    manager.wait(CONNECT_TIMEOUT + 15.0)
    return manager


def _quiet_logger() -> Any:
    import logging

    return logging.Logger("gaia_lite.mcp.cli", level=logging.CRITICAL)  # failures are printed by the command


def _tool_rows(manager: "McpManager", name: str, settings: "Settings") -> list[dict[str, Any]]:
    from gaia_lite.eval.tokens import make_token_counter
    from gaia_lite.registry.registry import ToolRegistry
    from gaia_lite.registry.render import native_json, render_native, render_text

    specs = manager.specs(name)
    registry = ToolRegistry(specs)
    counter = make_token_counter("auto", settings.base_url)
    listed = {t.name: t.description or t.title for t in manager.connection(name).tools}  # whole, not the prompt's cut
    return [{"name": s.name, "server_name": s.origin, "read_only": not s.gated, "summary": s.summary,
             "description": listed.get(s.origin or "", s.description),
             "text_tokens": counter.count(render_text(registry, [s.name])),
             "native_tokens": counter.count(native_json(render_native(registry, [s.name])))} for s in specs]


def _configured(settings: "Settings", name: str) -> "McpServer":
    for server in settings.mcp_servers:
        if server.name == name:
            return server
    known = ", ".join(s.name for s in settings.mcp_servers) or "none yet (gaia-lite mcp add NAME -- COMMAND)"
    fail(f"no MCP server named {name!r}; configured: {known}", NOT_FOUND)


def _write_servers(path: Path, servers: "list[McpServer]") -> None:
    import tomlkit

    from .config_cmd import edit_config

    def change(doc: Any) -> None:
        mcp = doc.get("mcp")
        if mcp is None:
            mcp = tomlkit.table(is_super_table=True)
            doc["mcp"] = mcp
        table = mcp.get("servers")
        if table is None:
            table = tomlkit.table(is_super_table=True)
            mcp["servers"] = table
        for server in servers:
            entry = tomlkit.table()
            for key, value in server.table().items():
                if isinstance(value, dict):
                    inline = tomlkit.inline_table()
                    inline.update(value)
                    value = inline
                entry[key] = value
            table[server.name] = entry

    edit_config(path, change)


@mcp_app.command("add", context_settings={"ignore_unknown_options": True})
def add_cmd(
    name: NameArg,
    command: Annotated[Optional[List[str]], typer.Argument(help="After `--`: the command that starts the server, and its arguments.", show_default=False)] = None,
    url: Annotated[Optional[str], typer.Option("--url", help="A streamable-HTTP server instead of a command, e.g. http://127.0.0.1:8000/mcp.", show_default=False)] = None,
    env: Annotated[Optional[List[str]], typer.Option("--env", "-e", help="KEY=VALUE for the server's environment (repeatable).", show_default=False)] = None,
    trust: Annotated[str, typer.Option("--trust", help="`ask`: confirm tools the server does not mark read-only; `always`: never ask for this server.")] = "ask",
    timeout: Annotated[float, typer.Option("--timeout", help="Seconds one call may take.")] = 60.0,
    check: Annotated[bool, typer.Option("--check/--no-check", help="Start the server and list its tools before writing it.")] = True,
    json_out: JsonOpt = False,
) -> None:
    """Add an MCP server to the config file: `gaia-lite mcp add git -- mcp-server-git --repository .`

    Its tools join as `NAME__tool` in the bundle `mcp_NAME` the next time gaia-lite starts.
    """
    from gaia_lite.config import parse_mcp_server

    settings = settings_or_fail()
    if any(s.name == name for s in settings.mcp_servers):
        fail(f"an MCP server named {name!r} is already configured; `gaia-lite mcp remove {name}` first", BAD_INPUT)
    table: dict[str, Any] = {"url": url} if url else {"command": (command or [""])[0], "args": (command or [])[1:]}
    if url and command:
        fail("give either --url or a command after `--`, not both", BAD_INPUT)
    if env:
        pairs = [e.split("=", 1) for e in env]
        if any(len(p) != 2 or not p[0] for p in pairs):
            fail("--env takes KEY=VALUE, e.g. --env GITHUB_TOKEN=...", BAD_INPUT)
        table["env"] = dict(pairs)
    table.update(trust=trust, timeout=timeout)
    try:
        server = parse_mcp_server(name, table, "gaia-lite mcp add")
    except ConfigError as exc:
        fail(str(exc), BAD_INPUT)
    tools: list[dict[str, Any]] = []
    if check:
        from gaia_lite.mcp.connection import resolve_command

        if server.command and resolve_command(server.command) is None:
            fail(f"command {server.command!r} not found; install it first (e.g. pip install {server.command}) "
                 "or give its full path", BAD_INPUT)
        manager = _start([server], settings)
        try:
            status, = manager.status()
            if status.state != "ready":
                fail(f"MCP server {name} did not start: {status.error}. Nothing was written "
                     "(fix the command, or add it anyway with --no-check)", NOT_FOUND)
            tools = _tool_rows(manager, name, settings)
        finally:
            manager.close()
    _write_servers(settings.paths.config_file, [server])
    emit({"name": name, "bundle": server.bundle, "config_file": str(settings.paths.config_file),
          "tools": tools if check else None}, json_out, lambda: _print_added(name, server, tools if check else None, settings))


def _print_added(name: str, server: Any, tools: list[dict[str, Any]] | None, settings: Any) -> None:
    if tools is None:
        typer.echo(f"added {name} (not started) -> {settings.paths.config_file}")
        return
    cost = sum(t["native_tokens"] for t in tools)
    typer.echo(f"added {name}: {len(tools)} tools in bundle {server.bundle} (~{cost} tokens if all were shown) "
               f"-> {settings.paths.config_file}")
    typer.echo("tools: " + ", ".join(t["name"] for t in tools))


@mcp_app.command("import")
def import_cmd(
    file: Annotated[Path, typer.Argument(help="claude_desktop_config.json (mcpServers) or .vscode/mcp.json (servers).")],
    json_out: JsonOpt = False,
) -> None:
    """Add the servers of a Claude Desktop or VS Code MCP file: `gaia-lite mcp import ~/.config/Claude/claude_desktop_config.json`"""
    from gaia_lite.mcp.imports import read_server_file

    settings = settings_or_fail()
    try:
        found = read_server_file(file.expanduser())
    except ConfigError as exc:
        fail(str(exc), BAD_INPUT)
    have = {s.name for s in settings.mcp_servers}
    new = [s for s in found.servers if s.name not in have]
    skipped = list(found.skipped) + [(s.name, "already configured") for s in found.servers if s.name in have]
    if new:
        _write_servers(settings.paths.config_file, new)
    emit({"added": [s.name for s in new], "skipped": [{"name": n, "why": w} for n, w in skipped],
          "config_file": str(settings.paths.config_file)}, json_out, lambda: _print_imported(new, skipped, settings))


def _print_imported(new: list[Any], skipped: list[tuple[str, str]], settings: Any) -> None:
    typer.echo(f"added {len(new)} server(s): {', '.join(s.name for s in new) or 'none'} -> {settings.paths.config_file}")
    for name, why in skipped:
        typer.echo(f"skipped {name}: {why}")


@mcp_app.command("list")
def list_cmd(json_out: JsonOpt = False) -> None:
    """Every configured server: whether it starts, how many tools it has, what they cost in the prompt."""
    settings = settings_or_fail()
    servers = list(settings.mcp_servers)
    rows: list[dict[str, Any]] = []
    if servers:
        manager = _start(servers, settings)
        try:
            for status in manager.status():
                tools = _tool_rows(manager, status.name, settings) if status.state == "ready" else []
                rows.append({"name": status.name, "bundle": f"mcp_{status.name}", "transport": status.transport,
                             "status": status.state, "tools": len(tools),
                             "read_only": sum(t["read_only"] for t in tools),
                             "native_tokens": sum(t["native_tokens"] for t in tools),
                             "text_tokens": sum(t["text_tokens"] for t in tools),
                             "connect_s": None if status.connect_s is None else round(status.connect_s, 3),
                             "error": status.error})
        finally:
            manager.close()
    emit({"enabled": settings.mcp_enabled, "servers": rows}, json_out, lambda: _print_servers(rows, settings))


def _print_servers(rows: list[dict[str, Any]], settings: Any) -> None:
    if not rows:
        typer.echo("no MCP servers configured; add one with `gaia-lite mcp add NAME -- COMMAND ARGS...`")
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{len(rows)} MCP server(s)" + ("" if settings.mcp_enabled else " (GAIA_MCP=0: off)"),
                  title_justify="left")
    for col, justify in (("server", "left"), ("bundle", "left"), ("status", "left"), ("tools", "right"),
                         ("read-only", "right"), ("native tok", "right"), ("start s", "right")):
        table.add_column(col, justify=justify)  # type: ignore[arg-type]
    for r in rows:
        status = r["status"] if r["status"] == "ready" else f"{r['status']}: {r['error']}"
        table.add_row(r["name"], r["bundle"], status, str(r["tools"]), str(r["read_only"]), str(r["native_tokens"]),
                      "" if r["connect_s"] is None else f"{r['connect_s']:.2f}")
    Console().print(table)


@mcp_app.command("tools")
def tools_cmd(name: NameArg, json_out: JsonOpt = False,
              full: Annotated[bool, typer.Option("--full", help="Also print each tool's whole description, as the server gave it (the prompt gets at most 1,000 characters).")] = False) -> None:
    """One server's tools as gaia-lite registers them: name, read-only or asks first, prompt cost."""
    settings = settings_or_fail()
    server = _configured(settings, name)
    manager = _start([server], settings)
    try:
        status, = manager.status()
        if status.state != "ready":
            fail(f"MCP server {name} did not start: {status.error}")
        rows = _tool_rows(manager, name, settings)
    finally:
        manager.close()
    emit(rows, json_out, lambda: _print_tools(name, server, rows, full))


def _print_tools(name: str, server: Any, rows: list[dict[str, Any]], full: bool) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{name}: {len(rows)} tools in bundle {server.bundle}", title_justify="left")
    for col, justify in (("tool", "left"), ("gate", "left"), ("native tok", "right"), ("what it is for", "left")):
        table.add_column(col, justify=justify)  # type: ignore[arg-type]
    for r in rows:
        gate = "read-only" if r["read_only"] else "asks"
        table.add_row(r["name"], gate, str(r["native_tokens"]), r["summary"][:70])
    Console().print(table)
    for r in rows if full else ():
        typer.echo(f"\n{r['name']} (listed as {r['server_name']}):\n{r['description']}")


@mcp_app.command("remove")
def remove_cmd(name: NameArg, json_out: JsonOpt = False) -> None:
    """Remove a server from the config file (its tools are gone from the next start on)."""
    from .config_cmd import edit_config

    settings = settings_or_fail()
    _configured(settings, name)

    def change(doc: Any) -> None:
        servers = doc["mcp"]["servers"]
        servers.pop(name)
        if not servers:
            doc["mcp"].pop("servers")
        if not doc["mcp"]:
            doc.pop("mcp")

    edit_config(settings.paths.config_file, change)
    emit({"removed": name, "config_file": str(settings.paths.config_file)}, json_out,
         f"removed {name} from {settings.paths.config_file}")
