"""What `gaia-lite ask` prints, against a SCRIPTED FAKE OpenAI server: the answer alone on stdout,
one line per tool call on stderr, nothing but errors with --quiet."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gaia_lite.cli.app import tool_line
from gaia_lite.events import ToolCallFinished
from tests.fakes.openai_server import FakeOpenAIServer, text_chunks

pytest.importorskip("onnxruntime", reason="onnxruntime is not installed")


def _ask(cli: Any, srv: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch, workdir: Path, *args: str) -> Any:
    monkeypatch.chdir(workdir)
    return cli("ask", *args, "--base-url", srv.base_url, "--text-tools", "--no-local-server")


def test_the_answer_alone_goes_to_stdout_and_each_call_is_one_stderr_line(cli, monkeypatch, tmp_path) -> None:
    (tmp_path / "notes.md").write_text("buy milk")
    with FakeOpenAIServer() as srv:
        srv.script += [text_chunks('{"name": "read_file", "arguments": {"file_path": "notes.md"}}'),
                       text_chunks('{"answer": "Your notes say: buy milk."}')]
        result = _ask(cli, srv, monkeypatch, tmp_path, "show me notes.md", "--tool-calls", "constrained")
    assert result.exit_code == 0, result.output
    assert result.stdout == "Your notes say: buy milk.\n"
    # (a busy machine may add the "waiting for the model" line: progress, on stderr too)
    lines = [ln for ln in result.stderr.strip().splitlines() if not ln.startswith("waiting for the model")]
    assert len(lines) == 1 and lines[0].startswith("→ read_file(file_path='notes.md') ✓ ")


def test_quiet_leaves_stderr_empty_and_free_calls_show_no_prose(cli, monkeypatch, tmp_path) -> None:
    (tmp_path / "notes.md").write_text("buy milk")
    with FakeOpenAIServer() as srv:
        srv.script += [text_chunks('Sure! I will read it.\n{"name": "read_file", "arguments": {"file_path": "notes.md"}}'),
                       text_chunks("Your notes say: buy milk.")]
        result = _ask(cli, srv, monkeypatch, tmp_path, "show me notes.md", "--tool-calls", "free", "--quiet")
    assert result.exit_code == 0, result.output
    assert result.stdout == "Your notes say: buy milk.\n" and result.stderr == ""


@pytest.mark.parametrize(("outcome", "status", "line"), [
    ("ok", "success", "→ browse_directory(directory_path='.') ✓ 0.02s"),
    ("invalid", "error", "→ browse_directory(directory_path='.') ✗ 0.02s (no such folder)"),
    ("denied", "denied", "→ browse_directory(directory_path='.') ✗ 0.02s (no such folder)"),
])
def test_tool_line(outcome: str, status: str, line: str) -> None:
    ev = ToolCallFinished("c1", "browse_directory", {"directory_path": "."}, status, {"error": "no such folder"},
                          0.021, outcome=outcome)
    assert tool_line(ev) == line


def test_a_seed_in_the_config_file_goes_with_every_request(cli, gaia_home, monkeypatch, tmp_path) -> None:
    """`seed = 42` in config.toml: each model request of the turn carries it, so a reply can be had again."""
    (gaia_home / "config.toml").write_text("seed = 42\n")
    (tmp_path / "notes.md").write_text("buy milk")
    with FakeOpenAIServer() as srv:
        srv.script += [text_chunks('{"name": "read_file", "arguments": {"file_path": "notes.md"}}'),
                       text_chunks('{"answer": "Your notes say: buy milk."}')]
        result = _ask(cli, srv, monkeypatch, tmp_path, "show me notes.md", "--tool-calls", "constrained")
        chats = [r for r in srv.requests if r.get("messages") and r.get("max_tokens", 0) > 16]
    assert result.exit_code == 0, result.output
    assert len(chats) == 2 and all(r.get("seed") == 42 for r in chats), [r.get("seed") for r in chats]
