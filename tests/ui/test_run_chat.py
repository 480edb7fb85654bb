"""``run_chat`` end to end with the real composition root, a scripted server and a
test embedder; stdin and stdout are pipes, so this is the plain-text screen."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from gaia_lite.cli.chat import run_chat
from gaia_lite.config import load_settings
from gaia_lite.embed.hashing import HashEmbedder
from tests.fakes.openai_server import FakeOpenAIServer, text_chunks, tool_call_chunks


@pytest.fixture
def piped(monkeypatch: pytest.MonkeyPatch):
    def run(lines: str, **settings) -> tuple[int, str]:
        out = io.StringIO()
        monkeypatch.setattr(sys, "stdin", io.StringIO(lines))
        monkeypatch.setattr(sys, "stdout", out)
        code = run_chat(load_settings(settings), no_panel=False, progress=None)
        return code, out.getvalue()

    monkeypatch.setattr("gaia_lite.cli.services.build_embedder", lambda settings, base_url: HashEmbedder())
    return run


def test_plain_chat_runs_a_turn_loads_and_resets(piped, tmp_path: Path, monkeypatch, gaia_home: Path):
    from typer.testing import CliRunner

    from gaia_lite.cli.app import app

    (tmp_path / "a.txt").write_text("hello")
    monkeypatch.chdir(tmp_path)
    with FakeOpenAIServer() as srv:
        srv.script += [tool_call_chunks("browse_directory", {"directory_path": str(tmp_path)}),
                       text_chunks("There is one file: a.txt.")]
        result = CliRunner().invoke(app, ["chat", "--base-url", srv.base_url, "--dynamic-tools", "--no-local-server"],
                                    input="list the files in this folder\n/load clipboard\n/reset\n/quit\n")
    code, text = result.exit_code, result.stdout
    assert code == 0, result.output
    assert "\x1b" not in text
    lines = text.splitlines()
    assert "› list the files in this folder" in lines
    assert any(ln.startswith("  → browse_directory(directory_path=") and "✓" in ln for ln in lines)
    assert "There is one file: a.txt." in lines
    status = [ln for ln in lines if ln.startswith("tools ")]
    assert status and "hashΔ" in status[-1]
    assert any(ln.startswith("/load clipboard: bundle clipboard → ") for ln in lines)
    assert "conversation and loader session cleared (TOOL_LOADER_SESSION summary logged)" in lines
    log = (gaia_home / "state" / "gaia-lite.log").read_text()
    assert "TOOL_LOADER {\"turn\": 1, " in log and "TOOL_LOADER_SESSION {\"turns\": 1, " in log


def test_unreachable_server_is_an_error_exit(piped):
    code, text = piped("hello\n", base_url="http://127.0.0.1:9/api/v1", local_server=False)
    assert code == 3 and text == ""
