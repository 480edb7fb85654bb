"""Shared set-up for the hostile-input suite: a sandbox root with the usual
bait inside it (a ``.env``, a ``.ssh`` folder), a folder outside every root
holding a secret, and the marker strings each test looks for in output.

Every test states what the attack was and asserts it failed *and how*: the
canary file is absent, the secret is absent from the output, the exit code,
no traceback.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gaia_lite.registry.context import ToolContext
from gaia_lite.tools import os_sandbox
from gaia_lite.tools.sandbox import Sandbox
from gaia_lite.registry.limits import RateLimiter

SECRET = "OUTSIDE-SECRET-5f1c"      # lives outside every root
ENV_SECRET = "ENV-SECRET-93ab"      # lives in root/.env
KEY_SECRET = "KEY-SECRET-d41e"      # lives in root/.ssh/id_rsa


@pytest.fixture
def outside(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder outside the sandbox: a secret file and a fake home with an SSH key."""
    folder = tmp_path_factory.mktemp("outside")
    (folder / "secret.txt").write_text(f"{SECRET}\n")
    (folder / "home" / ".ssh").mkdir(parents=True)
    (folder / "home" / ".ssh" / "id_rsa").write_text(f"{SECRET}-ssh-key\n")
    return folder


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "root"
    (folder / "docs").mkdir(parents=True)
    (folder / "a.txt").write_text("alpha\nbeta\ngamma\n")
    (folder / "docs" / "notes.md").write_text("# notes\nnothing secret here\n")
    (folder / ".env").write_text(f"API_KEY={ENV_SECRET}\n")
    (folder / ".ssh").mkdir()
    (folder / ".ssh" / "id_rsa").write_text(f"{KEY_SECRET}\n")
    return folder


@pytest.fixture
def ctx(root: Path) -> ToolContext:
    return ToolContext(workdir=root, sandbox=Sandbox([root]), data_dir=root / ".gaia-data",
                       shell_limiter=RateLimiter(limits=((10_000, 10.0),)))  # the suite is not rate-limited


def git(cwd: Path, *args: str) -> str:
    """Run real git for fixtures (outside any sandbox: this is the test's own set-up)."""
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "PATH": "/usr/bin:/bin", "HOME": str(cwd),
           "GIT_CONFIG_NOSYSTEM": "1"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


def make_repo(folder: Path, message: str = "first") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    git(folder, "init", "-q", ".")
    (folder / "tracked.txt").write_text("one\n")
    git(folder, "add", "tracked.txt")
    git(folder, "commit", "-qm", message)
    return folder


def output_of(result: dict) -> str:
    """Everything a tool result shows the model."""
    return " ".join(str(result.get(k, "")) for k in ("stdout", "stderr", "error", "message"))


@pytest.fixture(params=["kernel-sandbox", "policy-alone"])
def mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each test twice: with the kernel sandbox (skipped where there is none) and with
    ``GAIA_SHELL_SANDBOX=off``, where the argv policy must hold on its own."""
    if request.param == "policy-alone":
        monkeypatch.setenv("GAIA_SHELL_SANDBOX", "off")
    else:
        box = os_sandbox.detect()
        if not box.active:
            pytest.skip(f"no OS sandbox on this machine: {box.reason}")
    return request.param
