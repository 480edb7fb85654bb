"""``gaia-lite doctor``: check the setup and say how to fix what is broken."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import typer

from gaia_lite.cli.options import BaseUrlOpt, ModelOpt
from gaia_lite.errors import GaiaError

from .outcome import JsonOpt, emit

if TYPE_CHECKING:  # type-only: the checks load openai and numpy, which --help does not need
    from gaia_lite.cli.doctor_checks import Check, Probe

__all__ = ["doctor"]

MARKS = {"ok": "✓", "warn": "!", "fail": "✗", "skip": "-", "tip": "+"}


def _probe(base_url: str | None, model: str | None) -> Probe:
    """Settings as start-up resolves them; a bad setting becomes the config check's failure."""
    # kept lazy: the checks load openai and numpy, which --help does not need
    from gaia_lite.cli.doctor_checks import Probe
    from gaia_lite.config import Paths, Settings, load_settings

    cli = {"base_url": base_url, "model": model}
    try:
        return Probe(load_settings(cli))
    except GaiaError as exc:
        return Probe(Settings(paths=Paths.resolve(os.environ)), config_error=str(exc))


def doctor(
    base_url: BaseUrlOpt = None,
    model: ModelOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Check everything a bad setup can break, and say how to fix each: config, server, model,
    context window, embedder, memory database, document index, disk space, state folder; and
    suggest the bigger model where the memory allows.

    Example: `gaia-lite doctor`. Exit code 1 when any check fails (warnings do not count).
    """
    from gaia_lite.cli.doctor_checks import FAIL, run_checks  # kept lazy: as in _probe

    checks = run_checks(_probe(base_url, model))
    broken = [c for c in checks if c.status == FAIL]
    emit({"ok": not broken, "checks": [c.to_dict() for c in checks]}, json_out, lambda: _print(checks, broken))
    if broken:
        raise typer.Exit(1)


def _print(checks: list[Check], broken: list[Check]) -> None:
    width = max(len(c.name) for c in checks)
    for c in checks:
        typer.echo(f"{MARKS[c.status]} {c.name:<{width}}  {c.detail}")
        if c.fix and c.status != "ok":
            typer.echo(f"  {'':<{width}}  {'try' if c.status == 'tip' else 'fix'}: {c.fix}")
    typer.echo(f"\n{len(broken)} problem(s) found." if broken else "\nNo problems found.")
