"""The chat's rich Console, and the one test of whether stdout is a terminal.

rich reads ``NO_COLOR`` itself (colour off, layout unchanged); prompt-toolkit
does too. A ``dumb`` terminal or a pipe gets the plain-text screen instead.
"""

from __future__ import annotations

import os
import sys
from typing import Mapping, TextIO

from rich.console import Console

__all__ = ["make_console", "is_terminal"]


def is_terminal(stream: TextIO | None = None, environ: Mapping[str, str] | None = None) -> bool:
    stream = stream if stream is not None else sys.stdout
    env = environ if environ is not None else os.environ
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        return False
    return tty and env.get("TERM", "") != "dumb"


def make_console(file: TextIO | None = None, *, width: int | None = None, height: int | None = None,
                 color_system: str | None = "auto", force_terminal: bool | None = None,
                 environ: Mapping[str, str] | None = None) -> Console:
    """The console every chat renderable is printed on (tests pass a StringIO and fixed size)."""
    kwargs = {} if environ is None else {"_environ": environ}
    return Console(file=file, width=width, height=height, color_system=color_system,  # type: ignore[arg-type]
                   force_terminal=force_terminal, highlight=False, emoji=False, **kwargs)
