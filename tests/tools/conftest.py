"""Shared fixtures for the built-in tool tests (sandbox, shell, files, data, ...).

``tool_ctx`` is a real ToolContext: a real Sandbox rooted at ``tmp_path``
(also the working directory) and a data folder inside it. ``outside_dir`` is
a second temporary folder that is *not* a root. ``x_display`` starts a
private Xvfb server for clipboard/window tests and skips when Xvfb is
missing (scripts/ci-apt.sh installs it in CI).
"""

from __future__ import annotations

import random
import shutil
import socket
import subprocess
import time
from pathlib import Path
from typing import Iterator

import pytest

from gaia_lite.embed.hashing import HashEmbedder
from gaia_lite.memory.rag import RagIndex
from gaia_lite.registry.context import ToolContext
from gaia_lite.tools.sandbox import Sandbox


@pytest.fixture
def tool_ctx(tmp_path: Path) -> ToolContext:
    """A ToolContext whose sandbox root and working directory are tmp_path."""
    return ToolContext(workdir=tmp_path, sandbox=Sandbox([tmp_path]), data_dir=tmp_path / ".gaia-data")


@pytest.fixture
def rag_ctx(tmp_path: Path) -> Iterator[ToolContext]:
    """A ToolContext over a work folder with a real document index (hashing embedder) beside it.
    Test modules that need another one (an LLM, a second root) define their own."""
    work = tmp_path / "work"
    work.mkdir()
    index = RagIndex(tmp_path / "index", HashEmbedder(dim=1024))
    yield ToolContext(workdir=work, sandbox=Sandbox([work]), data_dir=tmp_path / "data", rag=index)
    index.close()


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


def _x_socket_ready(number: int) -> bool:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        try:
            sock.connect(f"/tmp/.X11-unix/X{number}")
            return True
        except OSError:
            return False


def _start_xvfb() -> tuple[subprocess.Popen, str]:
    """Start Xvfb on a random high display and wait until it accepts connections.

    A random display (not -displayfd's "lowest free") keeps parallel test runs
    on one machine from racing for :0; a server that loses a race is retried.
    """
    for _ in range(5):
        number = random.randint(100, 899)
        if Path(f"/tmp/.X{number}-lock").exists():
            continue
        proc = subprocess.Popen(["Xvfb", f":{number}", "-screen", "0", "640x480x24", "-nolisten", "tcp"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 15
        while proc.poll() is None and time.monotonic() < deadline:
            if _x_socket_ready(number):
                return proc, f":{number}"
            time.sleep(0.05)
        proc.kill()
        proc.wait()
    pytest.skip("Xvfb did not start")


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
