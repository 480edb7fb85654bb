"""Server tables from the ``mcpServers`` JSON that Claude Desktop writes (``claude_desktop_config.json``)
and the ``servers`` JSON of VS Code (``.vscode/mcp.json``), as ``[mcp.servers.NAME]`` tables.

Names become lower-case snake_case (``brave-search`` -> ``brave_search``) because
they prefix tool names. An entry this version cannot run (no command and no URL,
or an input it would have to prompt for) is skipped with the reason.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from gaia_lite.config import McpServer, _mcp_name, parse_mcp_server
from gaia_lite.errors import ConfigError
from gaia_lite.jsonfile import read_json

__all__ = ["Imported", "read_server_file"]


@dataclass(frozen=True)
class Imported:
    servers: tuple[McpServer, ...]
    skipped: tuple[tuple[str, str], ...]  # (name in the file, why)


def read_server_file(path: Path) -> Imported:
    """The servers a Claude Desktop / VS Code MCP file configures. ConfigError when it is not one."""
    try:
        data = read_json(path)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    table = data.get("mcpServers", data.get("servers")) if isinstance(data, Mapping) else None
    if not isinstance(table, Mapping):
        raise ConfigError(f"{path} has no \"mcpServers\" (Claude Desktop) or \"servers\" (VS Code) object")
    servers: list[McpServer] = []
    skipped: list[tuple[str, str]] = []
    for raw_name, entry in table.items():
        name = _mcp_name(str(raw_name))
        why = _unusable(entry)
        if why or not name:
            skipped.append((str(raw_name), why or "its name has no letters"))
            continue
        try:
            servers.append(parse_mcp_server(name, _table(entry), str(path)))
        except ConfigError as exc:
            skipped.append((str(raw_name), str(exc).split(": ", 2)[-1]))
    return Imported(tuple(servers), tuple(skipped))


def _unusable(entry: Any) -> str:
    if not isinstance(entry, Mapping):
        return "not an object"
    if entry.get("disabled") is True:
        return "disabled in the file"
    if "${input:" in json.dumps(entry):
        return "it asks for an input (${input:...}); add it with `gaia-lite mcp add` and the value"
    if not entry.get("command") and not entry.get("url"):
        return "neither a command nor a url"
    return ""


def _table(entry: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if entry.get("url"):
        out["url"] = str(entry["url"])
    else:
        out["command"] = str(entry["command"])
        out["args"] = [str(a) for a in entry.get("args") or []]
    env = entry.get("env")
    if isinstance(env, Mapping) and env:
        out["env"] = {str(k): str(v) for k, v in env.items()}
    if entry.get("cwd"):
        out["cwd"] = str(entry["cwd"])
    return out
