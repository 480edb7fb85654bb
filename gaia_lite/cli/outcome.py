"""How every command ends: its result on stdout, or a one-line error.

``emit(data, json_out, text)`` is the one way a command prints its result:
``data`` as one line of JSON with ``--json`` (``JsonOpt``, or ``json_option``
where the help spells out the shape), else the text view. Errors are one line
on stderr, ``gaia-lite: error: ...``, with an exit code:

    0  done            1  failed or not found
    2  bad input       3  no model server
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Callable, Mapping, NoReturn, Union

import typer
from typing_extensions import Annotated

from gaia_lite.errors import GaiaError

if TYPE_CHECKING:  # type-only: config is imported when a command runs, not for --help
    from gaia_lite.config import Settings

__all__ = ["JsonOpt", "json_option", "emit", "fail", "settings_or_fail", "BAD_INPUT", "NOT_FOUND"]

NOT_FOUND = 1
BAD_INPUT = 2

# The text view of a result: a line to echo, or a function that prints it (tables, several lines).
TextView = Union[str, Callable[[], object], None]


def json_option(help: str = "Print JSON instead of text.") -> Any:
    """The ``--json`` flag of a command; ``help`` may name the fields it prints."""
    return Annotated[bool, typer.Option("--json", help=help)]


JsonOpt = json_option()


def fail(message: str, code: int = NOT_FOUND) -> NoReturn:
    typer.echo(f"gaia-lite: error: {message}", err=True)
    raise typer.Exit(code)


def emit(data: Any, json_out: bool, text: TextView = None, *, ascii_only: bool = False) -> None:
    """Print a command's result: ``data`` as one line of JSON when ``json_out``, else ``text``.

    ``ascii_only`` escapes non-ASCII characters (``\\u00e9``): what ask, tools, eval and skills have
    always printed, kept so their JSON stays byte for byte the same.
    """
    if json_out:
        typer.echo(json.dumps(data, ensure_ascii=ascii_only))
    elif callable(text):
        text()
    elif text is not None:
        typer.echo(text)


def settings_or_fail(cli: Mapping[str, Any] | None = None) -> Settings:
    """Settings resolved as at start-up; a bad flag, env var or config file ends the command."""
    from gaia_lite.config import load_settings  # kept lazy: --help imports this module

    try:
        return load_settings(cli or {})
    except GaiaError as exc:
        fail(str(exc), exc.exit_code)
