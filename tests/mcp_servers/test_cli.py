"""`gaia-lite mcp add|import|list|tools|remove` and the doctor's MCP check, against real servers and a
real config file in the test's GAIA_HOME."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from gaia_lite.cli.app import app
from gaia_lite.config import load_settings

from .conftest import installed


def cli(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


def one_line_error(result: Any) -> str:
    lines = [ln for ln in result.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("gaia-lite: error: "), result.output
    return lines[0]


def test_add_checks_the_server_writes_it_keeping_comments_and_list_shows_it(gaia_home: Path) -> None:
    config = gaia_home / "config.toml"
    config.write_text("# my settings\nmax_steps = 9  # keep this\n")
    added = cli("mcp", "add", "time", "--", installed("mcp-server-time"), "--local-timezone", "Europe/Paris")
    assert added.exit_code == 0, added.output
    assert added.stdout.startswith("added time: 2 tools in bundle mcp_time")
    text = config.read_text()
    assert text.startswith("# my settings\nmax_steps = 9  # keep this\n")
    assert "[mcp.servers.time]" in text and '"--local-timezone", "Europe/Paris"' in text
    listed = cli("mcp", "list", "--json")
    row, = json.loads(listed.stdout)["servers"]
    assert (row["name"], row["status"], row["tools"], row["read_only"]) == ("time", "ready", 2, 2)
    assert row["native_tokens"] > 100
    tools = json.loads(cli("mcp", "tools", "time", "--json").stdout)
    assert [t["name"] for t in tools] == ["time__get_current_time", "time__convert_time"]
    again = cli("mcp", "add", "time", "--", "mcp-server-time")
    assert again.exit_code == 2 and "already configured" in one_line_error(again)
    removed = cli("mcp", "remove", "time")
    assert removed.exit_code == 0 and config.read_text().rstrip() == "# my settings\nmax_steps = 9  # keep this"


def test_add_refuses_a_missing_command_or_a_bad_name_in_one_line_and_writes_nothing(gaia_home: Path) -> None:
    missing = cli("mcp", "add", "nope", "--", "no-such-mcp-server")
    assert missing.exit_code == 2 and "command 'no-such-mcp-server' not found" in one_line_error(missing)
    crashing = cli("mcp", "add", "oops", "--", sys.executable, "-c", "raise SystemExit('no token')")
    assert crashing.exit_code == 1 and "did not start" in one_line_error(crashing)
    bad = cli("mcp", "add", "My-Server", "--", "x")
    assert bad.exit_code == 2 and "e.g. [mcp.servers.my_server]" in one_line_error(bad)
    assert not (gaia_home / "config.toml").exists()
    assert cli("mcp", "remove", "ghost").exit_code == 1


def test_import_reads_claude_desktop_and_vs_code_files(gaia_home: Path, tmp_path: Path) -> None:
    claude = tmp_path / "claude_desktop_config.json"
    claude.write_text(json.dumps({"mcpServers": {
        "brave-search": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-brave-search"],
                         "env": {"BRAVE_API_KEY": "k"}},
        "remote": {"url": "http://127.0.0.1:9/mcp"},
        "off": {"command": "x", "disabled": True}}}))
    result = cli("mcp", "import", str(claude), "--json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["added"] == ["brave_search", "remote"]
    assert out["skipped"] == [{"name": "off", "why": "disabled in the file"}]
    brave, remote = load_settings().mcp_servers
    assert (brave.command, brave.args, brave.env) == ("npx", ("-y", "@modelcontextprotocol/server-brave-search"),
                                                      (("BRAVE_API_KEY", "k"),))
    assert remote.url == "http://127.0.0.1:9/mcp"
    vscode = tmp_path / "mcp.json"
    vscode.write_text(json.dumps({"servers": {"remote": {"type": "http", "url": "http://h/mcp"},
                                              "git": {"type": "stdio", "command": "mcp-server-git"},
                                              "gh": {"command": "gh-mcp", "env": {"T": "${input:token}"}}}}))
    second = json.loads(cli("mcp", "import", str(vscode), "--json").stdout)
    assert second["added"] == ["git"]
    assert {s["name"] for s in second["skipped"]} == {"remote", "gh"}
    not_json = tmp_path / "x.json"
    not_json.write_text("{nope")
    assert cli("mcp", "import", str(not_json)).exit_code == 2

