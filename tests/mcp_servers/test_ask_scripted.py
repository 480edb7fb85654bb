"""`gaia-lite ask` wiring with a real mcp-server-time and a SCRIPTED FAKE model server (protocol, not a
model): the server's tools join the first turn, a native call to one runs through the executor and the
real server, its answer goes back to the model, and no server process outlives the command."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from gaia_lite.cli.app import app
from gaia_lite.embed.hashing import HashEmbedder
from tests.fakes.openai_server import FakeOpenAIServer, text_chunks, tool_call_chunks

from .conftest import installed, server_children


def test_ask_runs_an_mcp_tool_through_the_executor_and_the_real_server(gaia_home: Path, monkeypatch) -> None:
    (gaia_home / "config.toml").write_text(
        f'[mcp.servers.time]\ncommand = "{installed("mcp-server-time")}"\n')
    monkeypatch.setattr("gaia_lite.cli.services.build_embedder", lambda settings, base_url: HashEmbedder())
    monkeypatch.setenv("GAIA_MCP_WAIT", "60")  # a busy machine may need seconds to start it: this turn waits
    with FakeOpenAIServer() as srv:
        srv.script.append(tool_call_chunks("time__get_current_time", {"timezone": "Asia/Tokyo"}))
        srv.script.append(text_chunks("It is evening in Tokyo."))
        result = CliRunner().invoke(app, ["ask", "--base-url", srv.base_url, "--native-tools", "--no-dynamic-tools",
                                          "--no-local-server", "--json", "what time is it in Tokyo?"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["tools_called"] == ["time__get_current_time"]
    assert "time__get_current_time" in out["loaded_tools"]
    first, second = srv.requests
    assert "time__get_current_time" in [t["function"]["name"] for t in first["tools"]]
    tool_reply = next(m for m in second["messages"] if m["role"] == "tool")
    assert '"timezone": "Asia/Tokyo"' in tool_reply["content"] and "success" in tool_reply["content"]
    assert server_children("mcp-server-time") == []
