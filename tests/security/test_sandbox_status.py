"""Class 1: whether the kernel sandbox is active is never a secret.

`/status` in chat and `gaia-lite tools list` say it; without one, the shell
tool says so once per session (a WARNING, shown as a chat notice) and keeps
the argv policy.
"""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys

import pytest

from gaia_lite.cli.chat import ChatSession
from gaia_lite.tools import os_sandbox
from gaia_lite.tools.shell import run_shell_command
from gaia_lite.ui.plain import PlainScreen
from gaia_lite.ui.view import ChatView
from tests.hang import HANG_GUARD_S
from tests.ui.test_chat import fake_services, typed

BOX = os_sandbox.detect()


def tools_list(tmp_path, **env: str) -> str:
    full = {**os.environ, "GAIA_HOME": str(tmp_path / "home"), **env}
    run = subprocess.run([sys.executable, "-m", "gaia_lite", "tools", "list"], capture_output=True, text=True,
                         env=full, timeout=HANG_GUARD_S)
    assert run.returncode == 0 and "Traceback" not in run.stderr
    return " ".join(run.stdout.split())  # rich wraps long lines


def test_tools_list_says_whether_the_sandbox_is_active(tmp_path) -> None:
    text = tools_list(tmp_path)
    assert ("shell sandbox: active (bubblewrap" in text) == BOX.active
    assert ("shell sandbox: not active" in text) == (not BOX.active)


def test_tools_list_says_when_it_is_turned_off(tmp_path) -> None:
    text = tools_list(tmp_path, GAIA_SHELL_SANDBOX="off")
    assert "shell sandbox: not active (turned off by GAIA_SHELL_SANDBOX=off)" in text
    assert "read-only command policy still applies" in text


def test_status_shows_the_shell_sandbox(monkeypatch) -> None:
    monkeypatch.setenv("GAIA_SHELL_SANDBOX", "off")
    out = io.StringIO()
    view = ChatView()
    ChatSession(fake_services(), view, PlainScreen(out, view, width=200), typed("/status")).run()
    assert "shell      not active (turned off by GAIA_SHELL_SANDBOX=off)" in out.getvalue()


def test_without_a_sandbox_the_shell_tool_says_so_once(ctx, monkeypatch, caplog) -> None:
    monkeypatch.setenv("GAIA_SHELL_SANDBOX", "off")
    with caplog.at_level(logging.WARNING):
        for _ in range(3):
            assert run_shell_command(ctx, "ls")["status"] == "success"
    notices = [r for r in caplog.records if "shell sandbox: not active" in r.getMessage()]
    assert len(notices) == 1


@pytest.mark.skipif(not BOX.active, reason=f"no OS sandbox on this machine: {BOX.reason}")
def test_with_the_sandbox_the_shell_tool_runs_inside_it(ctx) -> None:
    result = run_shell_command(ctx, "df")  # inside the sandbox / is an empty tmpfs
    assert result["status"] == "success" and "tmpfs" in result["stdout"]
