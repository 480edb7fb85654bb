"""Shared fixtures for the built-in tool tests (sandbox, shell, files, data, ...).

``tool_ctx`` is a real ToolContext: a real Sandbox rooted at ``tmp_path``
(also the working directory) and a data folder inside it. ``outside_dir`` is
a second temporary folder that is *not* a root. ``x_display`` starts a
private Xvfb server for clipboard/window tests and skips when Xvfb is
missing (scripts/ci-apt.sh installs it in CI).
"""

from __future__ import annotations

import os
import select
import shutil
import subprocess
from pathlib import Path
from typing import Iterator

import pytest

from gaia_lite.registry.context import ToolContext
from gaia_lite.tools.sandbox import Sandbox


@pytest.fixture
def tool_ctx(tmp_path: Path) -> ToolContext:
    """A ToolContext whose sandbox root and working directory are tmp_path."""
    return ToolContext(workdir=tmp_path, sandbox=Sandbox([tmp_path]), data_dir=tmp_path / ".gaia-data")


@pytest.fixture
def outside_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder outside tool_ctx's sandbox, with one file in it."""
    folder = tmp_path_factory.mktemp("outside")
    (folder / "secret_plans.txt").write_text("outside the sandbox\n")
    return folder


@pytest.fixture
def no_display(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pretend there is no graphical session."""
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)


@pytest.fixture
def empty_path(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """PATH holds one empty folder, so no helper program can be found."""
    monkeypatch.setenv("PATH", str(tmp_path_factory.mktemp("empty-bin")))


def _start_xvfb() -> tuple[subprocess.Popen, str]:
    read_fd, write_fd = os.pipe()
    proc = subprocess.Popen(["Xvfb", "-displayfd", str(write_fd), "-screen", "0", "640x480x24", "-nolisten", "tcp"],
                            pass_fds=(write_fd,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write_fd)
    try:
        ready, _, _ = select.select([read_fd], [], [], 15)
        number = os.read(read_fd, 64).decode().strip() if ready else ""
    finally:
        os.close(read_fd)
    if not number.isdigit():
        proc.kill()
        proc.wait()
        pytest.skip("Xvfb did not start")
    return proc, f":{number}"


@pytest.fixture
def x_display(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A fresh private X server (Xvfb) as DISPLAY for this test."""
    if shutil.which("Xvfb") is None:
        pytest.skip("Xvfb is not installed (scripts/ci-apt.sh installs xvfb)")
    proc, display = _start_xvfb()
    monkeypatch.setenv("DISPLAY", display)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    try:
        yield display
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
