"""The warm worker (gaia_lite/warm): a real worker process and the real `gaia-lite` command.

No model is needed: `ask --help` and a bad option exercise the hand-over, the caller's descriptors,
folder and environment, and the exit code, through the same path an answered `ask` takes.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gaia_lite.warm import client, paths, worker

GAIA = [sys.executable, "-m", "gaia_lite"]


def _env(**extra: str) -> dict[str, str]:
    return {**os.environ, "GAIA_KEEP_ALIVE": "300", **extra}


def _wait(predicate, seconds: float = 60.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


@pytest.fixture
def warm(gaia_home: Path):
    """A worker for this home and code, started as `ask` starts it, ready (imports done)."""
    assert worker.start(300)
    found = paths.worker_paths()
    assert found is not None and _wait(lambda: client.is_alive(found) and found.socket.exists())
    yield found
    worker.stop_all()


def test_an_ask_is_handed_over_and_answers_in_the_callers_terminal(warm, tmp_path: Path) -> None:
    run = subprocess.run([*GAIA, "ask", "--help"], cwd=tmp_path, env=_env(), capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    assert "Ask one question" in run.stdout
    assert not worker.start(300)  # one worker per home and code


def test_exit_codes_and_errors_come_back(warm, tmp_path: Path) -> None:
    run = subprocess.run([*GAIA, "ask", "--no-such-option", "x"], cwd=tmp_path, env=_env(), capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 2
    assert "No such option" in run.stderr and "Traceback" not in run.stderr


def test_the_child_sees_the_callers_environment(warm, tmp_path: Path) -> None:
    """The worker started with another environment: the child must see the caller's."""
    code = ("import sys; from gaia_lite.warm.client import handed_over; "
            "code = handed_over(['ask', '--help']); sys.exit(9 if code is None else code)")  # 9: not handed over
    run = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=_env(COLUMNS="200"),
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    # rich wraps the help to the terminal width the caller's COLUMNS gives: 200 columns fit a whole line
    assert max(len(line) for line in run.stdout.splitlines()) > 100


def test_no_worker_means_the_ask_runs_here(gaia_home: Path) -> None:
    assert client.handed_over(["ask", "--help"]) is None


def test_stale_code_is_not_served(warm) -> None:
    other = paths.worker_paths("0" * 16)
    assert other is not None and other.socket != warm.socket and not client.is_alive(other)


def test_who_may_talk_to_it(warm) -> None:
    folder = paths.runtime_dir()
    assert folder is not None and (folder.stat().st_mode & 0o777) == 0o700
    assert (warm.socket.stat().st_mode & 0o777) == 0o600


def test_it_goes_when_idle(gaia_home: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-c", "from gaia_lite.launch import worker_main; worker_main()",
                             "--idle", "1"], env=os.environ.copy())
    try:
        proc.wait(timeout=60)
    finally:
        proc.kill()
    found = paths.worker_paths()
    assert found is not None and not found.socket.exists() and not client.is_alive(found)


def test_models_and_doctor_see_it_with_its_idle_time(warm, tmp_path: Path) -> None:
    (found,) = worker.status()
    assert found.pid == int(warm.pid.read_text().split()[0]) and found.current and not found.in_use
    assert 250 < found.idle_left_s <= 300 and found.idle_s == 300
    assert found.describe().startswith(f"warm gaia-lite worker (pid {found.pid}; idle, stops in ")
    shown = subprocess.run([*GAIA, "models"], cwd=tmp_path, env=_env(GAIA_WARM="0"), capture_output=True,
                           text=True, timeout=120)
    assert f"running: warm gaia-lite worker (pid {found.pid}; " in shown.stdout, shown.stdout + shown.stderr


def test_the_pid_file_shows_an_ask_in_progress(tmp_path: Path) -> None:
    pid_file = tmp_path / "w.pid"
    pid_file.write_text("123 300")
    worker._show_use(pid_file, in_use=True)
    pid, idle_s, since = paths.read_pid_file(pid_file)
    assert (pid, idle_s) == (123, 300.0) and since < 0  # in use: the idle clock has not started
    worker._show_use(pid_file, in_use=False)
    assert 0 <= paths.read_pid_file(pid_file)[2] < 5


def test_serve_stop_ends_it(warm) -> None:
    pid = int(warm.pid.read_text().split()[0])
    assert worker.stop_all() == [pid]
    assert _wait(lambda: not client.is_alive(warm), 30)


def test_only_ask_and_only_when_kept(monkeypatch) -> None:
    assert client.wanted(["ask", "hi"], {})
    assert not client.wanted(["chat"], {})
    assert not client.wanted(["ask", "hi"], {"GAIA_KEEP_ALIVE": "0"})
    assert not client.wanted(["ask", "hi"], {"GAIA_WARM": "0"})
    assert not client.wanted(["ask", "hi"], {"GAIA_WARM_CHILD": "1"})
    monkeypatch.setenv("GAIA_WARM", "0")
    assert not worker.start(300)
