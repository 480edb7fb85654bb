"""`gaia-lite doctor`'s MCP check against real servers and a real config file."""

from __future__ import annotations

from pathlib import Path

import pytest

from gaia_lite.cli.doctor_checks import FAIL, OK, SKIP, Probe, check_mcp_servers
from gaia_lite.config import load_settings

from .conftest import installed


def test_doctor_starts_each_server_and_names_a_broken_one_with_the_fix(gaia_home: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    assert check_mcp_servers(Probe(load_settings())).status == SKIP
    (gaia_home / "config.toml").write_text(
        f'[mcp.servers.time]\ncommand = "{installed("mcp-server-time")}"\n'
        '[mcp.servers.broken]\ncommand = "no-such-mcp-server"\n')
    check = check_mcp_servers(Probe(load_settings()))
    assert check.status == FAIL
    assert check.detail == "broken: command 'no-such-mcp-server' not found (install it, or give its full path)"
    assert "`gaia-lite mcp remove broken`" in check.fix and "\n" not in check.detail + check.fix
    (gaia_home / "config.toml").write_text(f'[mcp.servers.time]\ncommand = "{installed("mcp-server-time")}"\n')
    good = check_mcp_servers(Probe(load_settings()))
    assert good.status == OK and good.detail.startswith("time: 2 tools (")
    monkeypatch.setenv("GAIA_MCP", "0")
    assert check_mcp_servers(Probe(load_settings())).detail == "1 configured, turned off by GAIA_MCP=0"
