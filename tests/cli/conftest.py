"""Fixtures for the data commands: typer's CliRunner on the real app, in the temp GAIA_HOME
of the autouse ``gaia_home`` fixture, with real SQLite files and real folders."""

from __future__ import annotations

from typing import Any, Callable

import pytest
from typer.testing import CliRunner

from gaia_lite.cli.app import app


@pytest.fixture
def cli() -> Callable[..., Any]:
    """``cli("memory", "list", input=None)`` -> click Result (``stdout``, ``stderr``, ``exit_code``)."""
    runner = CliRunner()

    def run(*args: str, input: str | None = None) -> Any:
        return runner.invoke(app, list(args), input=input)

    return run


def one_line_error(result: Any) -> str:
    """The single ``gaia-lite: error: ...`` line on stderr (asserts there is exactly one, and no traceback)."""
    lines = [ln for ln in result.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("gaia-lite: error: "), lines[0]
    assert "Traceback" not in result.output
    return lines[0]
