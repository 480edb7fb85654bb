"""scripts/capture_panel.py, which makes the README's chat captures, still runs and still captures a
successful turn: the real `gaia-lite chat` in tmux, driven here by the scripted fake server (the UI is
under test, not a model), at both sizes the README shows; and a failed turn writes nothing."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, text_chunks, tool_call_chunks

pytestmark = [pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (apt-get install tmux)"),
              pytest.mark.timeout(300)]

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "capture_panel.py"
ANSWER = "There are three files here: notes.md, sales.csv and todo.txt."


def capture(base_url: str, out: Path, *sizes: str, extra: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    size_args = [a for s in sizes for a in ("--size", s)]
    env = {**os.environ, "TMPDIR": str(out.parent)}  # a failed capture keeps its homes there, not in /tmp
    return subprocess.run([sys.executable, str(SCRIPT), "--base-url", base_url, "--out", str(out), "--timeout", "120",
                           *size_args, *extra], capture_output=True, text=True, timeout=280, env=env)


def test_the_capture_shows_a_successful_turn_with_the_panel_and_the_status_bar(tmp_path: Path) -> None:
    with FakeOpenAIServer() as srv:
        for _ in range(2):  # one chat session per size
            srv.script += [tool_call_chunks("browse_directory", {"directory_path": "."}), text_chunks(ANSWER)]
        proc = capture(srv.base_url, tmp_path, "120x40", "80x24")
    assert proc.returncode == 0, proc.stderr[-3000:]
    wide = (tmp_path / "chat-120x40.txt").read_text()
    assert "› list the files in this folder" in wide
    assert re.search(r"→ browse_directory\(directory_path='\.'\)\s+✓", wide), wide
    assert ANSWER in wide, wide
    assert re.search(r"file_browse\s+\+ browse_directory 0\.\d\d", wide), "the loaded set by tier is missing:\n" + wide
    assert "▾ turn 1 · selection" in wide and "admitted CORE×" in wide, "the TOOL_LOADER record is missing:\n" + wide
    assert re.search(r"│\s+1\s+\d+\.\d\ds\s+120\s+100", wide), "the turn's TTFT row is missing:\n" + wide
    narrow = (tmp_path / "chat-80x24.txt").read_text()
    assert ANSWER in narrow and "╭─ tools" not in narrow  # below 100 columns the panel is a status bar
    assert re.search(r"^tools 1\d/\d+ │ \+browse_directory 0\.\d\d", narrow, re.M), narrow
    assert all(len(line) <= 80 for line in narrow.splitlines())
    svg = (tmp_path / "chat-120x40.svg").read_text()
    assert svg.startswith("<svg") and "browse_directory" in svg and "TOOL_LOADER" in svg
    assert (tmp_path / "chat-80x24.svg").read_text().startswith("<svg")


def test_a_failed_tool_call_writes_no_capture(tmp_path: Path) -> None:
    with FakeOpenAIServer() as srv:
        srv.script += [tool_call_chunks("read_file", {"file_path": "missing.md"}), text_chunks("It is not there.")]
        proc = capture(srv.base_url, tmp_path / "shots", "120x40")
    assert proc.returncode == 1
    assert "the turn did not succeed (a tool call failed: → read_file(" in proc.stderr, proc.stderr[-3000:]
    assert not (tmp_path / "shots").exists()


def test_an_answer_without_the_expected_text_writes_no_capture(tmp_path: Path) -> None:
    # the 0.5B's way to fail this ask (2026-12-05): a tool ran fine, and the answer left a file out
    with FakeOpenAIServer() as srv:
        srv.script += [tool_call_chunks("browse_directory", {"directory_path": "."}), text_chunks(ANSWER)]
        proc = capture(srv.base_url, tmp_path / "shots", "120x40", extra=("--expect", "budget.csv"))
    assert proc.returncode == 1
    assert "the turn did not succeed (the answer does not name budget.csv" in proc.stderr, proc.stderr[-3000:]
    assert not (tmp_path / "shots").exists()
