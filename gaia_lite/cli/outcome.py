"""How the data commands (index, memory, config, models, logs, doctor) end.

Results go to stdout (text, or JSON with ``--json``); errors are one line on
stderr, ``gaia-lite: error: ...``, with an exit code:

    0  done            1  failed or not found
    2  bad input       3  no model server
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Mapping, NoReturn

import typer
from typing_extensions import Annotated

from gaia_lite.errors import GaiaError

if TYPE_CHECKING:  # type-only: config is imported when a command runs, not for --help
    from gaia_lite.config import Settings

__all__ = ["JsonOpt", "fail", "echo_json", "settings_or_fail", "BAD_INPUT", "NOT_FOUND"]

NOT_FOUND = 1
BAD_INPUT = 2

JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]


def fail(message: str, code: int = NOT_FOUND) -> NoReturn:
    typer.echo(f"gaia-lite: error: {message}", err=True)
    raise typer.Exit(code)


def echo_json(value: Any) -> None:
    typer.echo(json.dumps(value, ensure_ascii=False))


def settings_or_fail(cli: Mapping[str, Any] | None = None) -> Settings:
    """Settings resolved as at start-up; a bad flag, env var or config file ends the command."""
    from gaia_lite.config import load_settings  # kept lazy: --help imports this module

    try:
        return load_settings(cli or {})
    except GaiaError as exc:
        fail(str(exc), exc.exit_code)
