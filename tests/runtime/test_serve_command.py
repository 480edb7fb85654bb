"""``gaia-lite serve`` as a typer command, driven with a fake llama-server."""

from __future__ import annotations

import socket
from collections.abc import Callable
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from gaia_lite.cli.serve import serve
from gaia_lite.runtime import free_port

FakeServerFactory = Callable[[str], Path]


@pytest.fixture
def app() -> typer.Typer:
    app = typer.Typer()
    app.command()(serve)
    return app


def test_busy_port_is_a_one_line_error(
    app: typer.Typer, monkeypatch: pytest.MonkeyPatch, fake_llama_server: FakeServerFactory, fake_model: Path
) -> None:
    monkeypatch.setenv("GAIA_LLAMA_SERVER", str(fake_llama_server("ok")))
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        result = CliRunner().invoke(app, ["--port", str(port), "--model", str(fake_model)])
    assert result.exit_code == 1
    assert f"port {port} is already in use" in result.output and "--port N" in result.output


def test_embedding_needs_a_gguf(
    app: typer.Typer, monkeypatch: pytest.MonkeyPatch, fake_llama_server: FakeServerFactory
) -> None:
    monkeypatch.setenv("GAIA_LLAMA_SERVER", str(fake_llama_server("ok")))
    result = CliRunner().invoke(app, ["--embedding", "--port", str(free_port())])
    assert result.exit_code == 1 and "--embedding needs --model" in result.output


def test_prints_base_url_and_reports_a_dying_server(
    app: typer.Typer, monkeypatch: pytest.MonkeyPatch, fake_llama_server: FakeServerFactory, fake_model: Path
) -> None:
    monkeypatch.setenv("GAIA_LLAMA_SERVER", str(fake_llama_server("brief")))
    port = free_port()
    result = CliRunner().invoke(app, ["--port", str(port), "--model", str(fake_model)])
    assert f"http://127.0.0.1:{port}/api/v1" in result.output
    assert "Press Ctrl-C to stop." in result.output
    assert result.exit_code == 1 and "exited unexpectedly" in result.output
