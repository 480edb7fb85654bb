"""Slash-command parsing, completion and the prompt's key bindings."""

from __future__ import annotations

import io

from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from gaia_lite.ui.commands import COMMANDS, parse_command
from gaia_lite.ui.input import LineReader, PlainReader, SlashCompleter


def complete(text: str, names=("clipboard", "data", "read_clipboard")) -> list[str]:
    completer = SlashCompleter(lambda: list(names))
    return [c.text for c in completer.get_completions(Document(text, len(text)), CompleteEvent())]


def test_parse_command():
    assert parse_command("hello") is None
    assert parse_command("//etc/passwd is a path") is None  # sent as a message
    assert parse_command("/load clipboard") == parse_command("  /LOAD   clipboard ")
    cmd = parse_command("/load clipboard")
    assert (cmd.name, cmd.arg, cmd.error) == ("/load", "clipboard", "")
    assert parse_command("/res").name == "/reset"
    assert parse_command("/q").name == "/quit" and parse_command("/exit").name == "/quit"
    assert parse_command("/?").name == "/help"
    assert parse_command("/nope").error == "unknown command /nope; /help lists the commands"
    assert "ambiguous" in parse_command("/l").error  # /load, /last


def test_every_issue_command_exists():
    names = {c.name for c in COMMANDS}
    assert {"/help", "/tools", "/load", "/reset", "/status", "/index", "/panel", "/quit"} <= names


def test_completion_of_commands_bundles_and_tools():
    assert complete("/lo") == ["/load"]
    assert complete("/") == [c.name for c in COMMANDS]
    assert complete("/load ") == ["clipboard", "data", "read_clipboard"]
    assert complete("/load cl") == ["clipboard"]
    assert complete("/load read") == ["read_clipboard"]
    assert complete("hello /lo") == []
    assert complete("/help x") == []


def test_completion_of_paths_after_index(tmp_path, monkeypatch):
    (tmp_path / "report.pdf").write_text("x")
    monkeypatch.chdir(tmp_path)
    assert complete("/index rep") == ["ort.pdf"]


def test_enter_sends_and_alt_enter_adds_a_line(tmp_path):
    history = tmp_path / "state" / "chat_history"
    with create_pipe_input() as pipe:
        reader = LineReader(history, pt_input=pipe, pt_output=DummyOutput())
        pipe.send_text("first line\x1b\rsecond line\r")
        assert reader.read() == "first line\nsecond line"
        pipe.send_text("again\r")
        assert reader.read() == "again"
        pipe.send_text("\x04")  # Ctrl-D on an empty line
        assert reader.read() is None
    saved = history.read_text()
    assert "+first line\n+second line" in saved and "+again" in saved


def test_plain_reader_reads_lines_until_eof():
    echoed: list[str] = []
    reader = PlainReader(io.StringIO("one\ntwo\n"), echo=echoed.append)
    assert [reader.read(), reader.read(), reader.read()] == ["one", "two", None]
    assert echoed == ["one", "two"]
