"""`gaia-lite logs` after real `ask` and `chat` turns against the scripted server: the turn log in the
state dir, and the same recall `gaia-lite eval log` computes from the state log."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gaia_lite.cli.turnlog import log_lines, read_turns
from gaia_lite.config import load_settings
from gaia_lite.embed.hashing import HashEmbedder
from gaia_lite.eval.logscore import score_lines
from tests.fakes.openai_server import FakeOpenAIServer, text_chunks, tool_call_chunks

from .conftest import one_line_error

SCORED = ("sessions", "turns", "scored_turns", "recall", "misses", "escape_hatch_count", "load_tools_count",
          "tool_set_changes", "unfiltered_turns")


@pytest.fixture
def turns(cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Two `ask` turns and one `chat` turn, loader on, through the real composition root."""
    monkeypatch.setattr("gaia_lite.cli.services.build_embedder", lambda settings, base_url: HashEmbedder())
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.md").write_text("buy milk\n", encoding="utf-8")
    flags = ["--dynamic-tools", "--native-tools", "--no-local-server"]
    with FakeOpenAIServer(models=("Gemma-4-E4B-it-GGUF",)) as srv:
        srv.script += [tool_call_chunks("read_file", {"file_path": "notes.md"}), text_chunks("It says: buy milk.")]
        first = cli("ask", "show me notes.md", "--base-url", srv.base_url, *flags)
        srv.script += [text_chunks("Hi there.")]
        second = cli("ask", "hello, my password: hunter2xyz", "--base-url", srv.base_url, *flags)
        srv.script += [text_chunks("Paris.")]
        third = cli("chat", "--base-url", srv.base_url, *flags, input="capital of France?\n/quit\n")
    for result in (first, second, third):
        assert result.exit_code == 0, result.output
    return load_settings().paths.turns_file


def test_logs_shows_question_answer_tools_loaded_set_and_ttft(cli: Any, turns: Path) -> None:
    records = json.loads(cli("logs", "--json").stdout)
    assert [(r["frontend"], r["turn"], r["status"]) for r in records] == [("ask", 1, "ok"), ("ask", 1, "ok"),
                                                                         ("chat", 1, "ok")]
    first = records[0]
    assert first["question"] == "show me notes.md" and first["answer"] == "It says: buy milk."
    assert first["tools_called"] == ["read_file"] and "read_file" in first["loaded"]
    assert first["ttft_s"] > 0 and first["model"] == "Gemma-4-E4B-it-GGUF"
    assert first["loader"]["selection"]["turn"] == 1 and first["tool_calls"]["called"] == ["read_file"]
    assert "hunter2xyz" not in turns.read_text(encoding="utf-8")  # masked like memory masks it
    assert records[1]["question"] == "hello, my [REDACTED]"

    last = cli("logs", "-n", "1")
    assert last.exit_code == 0
    lines = last.stdout.splitlines()
    assert lines[0].startswith("── ") and " · chat · Gemma-4-E4B-it-GGUF · turn 1 · TTFT " in lines[0]
    assert lines[1:3] == ["Q: capital of France?", "A: Paris."]
    assert lines[3].startswith("tools called: none · loaded ")
    assert "loader recall over these turns: 100.0 % of 1" in last.stdout


def test_logs_json_holds_what_eval_log_scores(cli: Any, turns: Path) -> None:
    records = json.loads(cli("logs", "--json", "-n", "50").stdout)
    from_turns = score_lines(log_lines(records)).to_dict()
    state_log = load_settings().paths.log_file
    scored = cli("eval", "log", str(state_log), "--json")
    assert scored.exit_code == 0, scored.output
    from_log = json.loads(scored.stdout)
    assert {k: from_turns[k] for k in SCORED} == {k: from_log[k] for k in SCORED}
    assert from_log["scored_turns"] == 3 and from_log["recall"] == 1.0


def test_a_line_cut_by_a_crash_is_skipped(cli: Any, turns: Path) -> None:
    with open(turns, "a", encoding="utf-8") as fh:
        fh.write('{"v": 1, "question": "half a li')
    result = cli("logs", "--json")
    assert result.exit_code == 0 and len(json.loads(result.stdout)) == 3
    assert f"skipped 1 unreadable line(s) in {turns}" in result.stderr
    assert read_turns(turns, 2)[0][-1]["frontend"] == "chat"


def test_no_turns_yet_and_bad_count(cli: Any) -> None:
    empty = cli("logs")
    assert empty.exit_code == 0 and empty.stdout.startswith("No turns logged yet in ")
    assert json.loads(cli("logs", "--json").stdout) == []
    bad = cli("logs", "-n", "0")
    assert bad.exit_code == 2 and "-n 0 is invalid" in one_line_error(bad)
