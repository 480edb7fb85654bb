"""Slash commands: the table, parsing, and the help text.

What a command *does* lives in ``gaia_lite.cli.chat`` (it touches services);
this module only knows names, arguments and help, so the completer, the
parser and ``/help`` read one table.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.table import Table
from rich.text import Text

__all__ = ["CommandSpec", "Command", "COMMANDS", "ALIASES", "parse_command", "render_help", "KEYS"]


@dataclass(frozen=True)
class CommandSpec:
    name: str
    args: str
    help: str


@dataclass(frozen=True)
class Command:
    """A parsed line. ``name`` is the canonical name, or ``None`` with ``error`` set."""

    name: str | None
    arg: str = ""
    error: str = ""


COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("/help", "", "this help"),
    CommandSpec("/tools", "", "every registered tool, with its bundle and loaded mark"),
    CommandSpec("/load", "<bundle|tool>", "add a bundle (or the bundle of a tool) to the loaded set"),
    CommandSpec("/reset", "", "clear the conversation AND the loader session (logs the session summary)"),
    CommandSpec("/status", "", "server, model, embedder, loader settings, memory path"),
    CommandSpec("/index", "<path>", "index a file or folder for document questions"),
    CommandSpec("/panel", "", "show or hide the side panel (below 100 columns: print it under each turn)"),
    CommandSpec("/details", "", "show or hide full tool arguments and results (also Ctrl-O)"),
    CommandSpec("/last", "", "print the last answer in full"),
    CommandSpec("/quit", "", "leave (also Ctrl-D)"),
)
ALIASES = {"/exit": "/quit", "/q": "/quit", "/?": "/help", "/h": "/help"}
KEYS = (
    ("Enter", "send"),
    ("Alt-Enter / Esc Enter", "new line"),
    ("Tab", "complete a command, or a bundle/tool after /load"),
    ("Up / Down", "history (kept between sessions)"),
    ("Ctrl-O", "toggle full tool arguments and results"),
    ("Ctrl-C", "cancel the answer being written (the conversation is kept)"),
    ("Ctrl-D", "quit"),
)
_NAMES = tuple(c.name for c in COMMANDS)


def parse_command(line: str) -> Command | None:
    """``None`` for a chat message; a Command (maybe with ``error``) for a ``/`` line.

    Unique prefixes work (``/res`` is ``/reset``). ``//text`` sends ``/text`` as a message.
    """
    text = line.strip()
    if not text.startswith("/") or text.startswith("//"):
        return None
    head, _, arg = text.partition(" ")
    head = head.lower()
    name = ALIASES.get(head, head)
    if name not in _NAMES:
        hits = [n for n in _NAMES if n.startswith(head)]
        if len(hits) == 1:
            name = hits[0]
        elif hits:
            return Command(None, arg, f"{head} is ambiguous: {', '.join(hits)}")
        else:
            return Command(None, arg, f"unknown command {head}; /help lists the commands")
    return Command(name, arg.strip())


def render_help() -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold cyan", no_wrap=True)
    table.add_column()
    for c in COMMANDS:
        table.add_row(f"{c.name} {c.args}".rstrip(), c.help)
    table.add_row("", "")
    for key, what in KEYS:
        table.add_row(Text(key, style="bold"), what)
    return table
