"""[mcp.servers.NAME] tables in the config file, and GAIA_MCP=0."""

from __future__ import annotations

from pathlib import Path

import pytest

from gaia_lite.config import McpServer, load_settings
from gaia_lite.errors import ConfigError


def write_config(home: Path, text: str) -> None:
    (home / "config.toml").write_text(text)


def test_a_command_server_and_a_url_server_are_read_in_file_order(gaia_home: Path) -> None:
    write_config(gaia_home, """
max_steps = 7
[mcp.servers.git]
command = "mcp-server-git"
args = ["--repository", "."]
env = { GIT_PAGER = "cat" }

[mcp.servers.remote]
url = "http://127.0.0.1:8765/mcp"
trust = "always"
timeout = 5
""")
    settings = load_settings()
    assert settings.max_steps == 7
    git, remote = settings.mcp_servers
    assert git == McpServer("git", command="mcp-server-git", args=("--repository", "."), env=(("GIT_PAGER", "cat"),))
    assert (git.bundle, git.prefix, git.trust) == ("mcp_git", "git__", "ask")
    assert (remote.url, remote.trust, remote.timeout, remote.command) == ("http://127.0.0.1:8765/mcp", "always", 5.0, "")


def test_gaia_mcp_0_turns_every_server_off_for_one_run(gaia_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_config(gaia_home, '[mcp.servers.time]\ncommand = "mcp-server-time"\n')
    assert load_settings().mcp_enabled is True
    monkeypatch.setenv("GAIA_MCP", "0")
    settings = load_settings()
    assert settings.mcp_enabled is False and len(settings.mcp_servers) == 1


@pytest.mark.parametrize("table, message", [
    ('[mcp.servers.Git-Hub]\ncommand = "x"\n', "e.g. [mcp.servers.git_hub]"),
    ('[mcp.servers.a__b]\ncommand = "x"\n', "snake_case"),
    ('[mcp.servers.both]\ncommand = "x"\nurl = "http://h/mcp"\n', "exactly one of command"),
    ('[mcp.servers.neither]\nargs = ["x"]\n', "exactly one of command"),
    ('[mcp.servers.ftp]\nurl = "ftp://h/mcp"\n', "not an http(s) URL"),
    ('[mcp.servers.x]\ncommand = "x"\nargs = "--flag"\n', "args must be a list of strings"),
    ('[mcp.servers.x]\ncommand = "x"\ntrust = "yes"\n', 'expected "ask"'),
    ('[mcp.servers.x]\ncommand = "x"\ntimeout = 0\n', "seconds > 0"),
    ('[mcp.servers.x]\ncommand = "x"\ncomand = "typo"\n', "unknown key(s) comand"),
    ('[mcp]\nserver = 1\n', "holds only [mcp.servers.NAME]"),
])
def test_a_bad_server_table_is_one_line_naming_it_and_the_fix(gaia_home: Path, table: str, message: str) -> None:
    write_config(gaia_home, table)
    with pytest.raises(ConfigError) as err:
        load_settings()
    assert message in str(err.value) and "\n" not in str(err.value)
    assert "config file" in str(err.value)
