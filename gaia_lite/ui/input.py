"""Reading what the user types: prompt-toolkit on a terminal, plain lines otherwise.

* Enter sends; Alt-Enter (or Esc then Enter) inserts a new line; pasted text keeps its lines.
* History lives in a file in the state dir and survives restarts.
* Tab completes slash commands, bundle and tool names after ``/load``, paths after ``/index``.
* Ctrl-O toggles full tool details without losing what is typed; Ctrl-C clears the
  line; Ctrl-D on an empty line quits.

``LineReader.read()`` returns the text, ``None`` at end of input (Ctrl-D / EOF),
and raises nothing else: a Ctrl-C at the prompt returns an empty string.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence, TextIO

from prompt_toolkit import PromptSession
from prompt_toolkit.application import run_in_terminal
from prompt_toolkit.completion import CompleteEvent, Completer, Completion, PathCompleter
from prompt_toolkit.document import Document
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.history import FileHistory, InMemoryHistory
from prompt_toolkit.key_binding import KeyBindings

from .commands import COMMANDS

__all__ = ["SlashCompleter", "LineReader", "PlainReader", "make_key_bindings", "ask_choice", "PROMPT"]

PROMPT = "› "
_CONTINUATION = "· "


class SlashCompleter(Completer):
    """Command names after ``/``; ``load_names()`` after ``/load ``; paths after ``/index ``."""

    def __init__(self, load_names: Callable[[], Sequence[str]]) -> None:
        self.load_names = load_names
        self._paths = PathCompleter(expanduser=True)

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        text = document.text_before_cursor
        if not text.startswith("/") or "\n" in text:
            return
        head, sep, arg = text.partition(" ")
        if not sep:
            for c in COMMANDS:
                if c.name.startswith(head.lower()):
                    yield Completion(c.name, start_position=-len(head), display_meta=c.help)
            return
        if head == "/load":
            word = arg.strip()
            for name in self.load_names():
                if name.startswith(word):
                    yield Completion(name, start_position=-len(word))
        elif head == "/index":
            sub = Document(arg, len(arg))
            yield from self._paths.get_completions(sub, complete_event)


def make_key_bindings(on_details: Callable[[], None] | None = None) -> KeyBindings:
    kb = KeyBindings()

    @kb.add("escape", "enter")
    def _newline(event) -> None:  # Alt-Enter arrives as Esc + Enter
        event.current_buffer.insert_text("\n")

    if on_details is not None:
        @kb.add("c-o")
        def _details(event) -> None:
            run_in_terminal(on_details)

    return kb


class LineReader:
    """The interactive prompt (prompt-toolkit)."""

    def __init__(self, history_file: Path | None, completer: Completer | None = None,
                 on_details: Callable[[], None] | None = None, *, pt_input: Any = None,
                 pt_output: Any = None) -> None:
        history = InMemoryHistory()
        if history_file is not None:
            try:
                history_file.parent.mkdir(parents=True, exist_ok=True)
                history = FileHistory(str(history_file))
            except OSError:
                pass
        self.session: PromptSession[str] = PromptSession(
            history=history, completer=completer, complete_while_typing=False, multiline=False,
            key_bindings=make_key_bindings(on_details), prompt_continuation=_CONTINUATION,
            enable_history_search=False, input=pt_input, output=pt_output)

    def read(self) -> str | None:
        try:
            return self.session.prompt(FormattedText([("bold fg:ansicyan", PROMPT)]))
        except KeyboardInterrupt:
            return ""
        except EOFError:
            return None


class PlainReader:
    """stdin is not a terminal: one message per line, no editing."""

    def __init__(self, stream: TextIO | None = None, echo: Callable[[str], None] | None = None) -> None:
        self.stream = stream or sys.stdin
        self.echo = echo

    def read(self) -> str | None:
        try:
            line = self.stream.readline()
        except KeyboardInterrupt:
            return ""
        if not line:
            return None
        text = line.rstrip("\n")
        if self.echo is not None:
            self.echo(text)
        return text


def ask_choice(question: str, choices: Sequence[str], *, default: str, interactive: bool,
               err: TextIO | None = None) -> str:
    """Ask one short question inline; returns the first letter of the choice typed, or ``default``.

    On a terminal prompt-toolkit asks; otherwise the question goes to stderr and a
    line is read from stdin (an empty or closed stdin gives the default).
    A Ctrl-C here propagates, so it cancels the turn like Ctrl-C anywhere else.
    """
    keys = "/".join(choices)
    if interactive:
        try:
            answer = PromptSession().prompt(FormattedText([("bold fg:ansiyellow", f"{question} [{keys}] ")]))
        except EOFError:
            return default
    else:
        out = err or sys.stderr
        out.write(f"{question} [{keys}] ")
        out.flush()
        answer = sys.stdin.readline()
    answer = answer.strip().lower()
    return answer[:1] if answer else default
