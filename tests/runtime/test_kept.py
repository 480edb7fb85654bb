"""Kept-alive servers (runtime/kept.py + keeper.py) with a fake llama-server: start and reuse, one
server per model and settings, the idle exit, and no orphan after ``kill -9`` of the clients or of
the keeper itself. The real server's own checks (the API key, the prefix cache) are in
tests/integration/test_keepalive_real.py."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from gaia_lite.runtime.kept import ServerSpec, acquire, kept_servers, servers_dir, stop_kept
from tests.runtime.test_server import _wait_until

FakeServerFactory = Callable[[str], Path]


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _children(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _server_pid(keeper_pid: int) -> int:
    assert _wait_until(lambda: bool(_children(keeper_pid)), 5)
    return _children(keeper_pid)[0]


@pytest.fixture
def spec(fake_llama_server: FakeServerFactory, fake_model: Path) -> ServerSpec:
    return ServerSpec(fake_model, "fake", ctx_size=2048, binary=fake_llama_server("ok"))


def test_started_then_reused_and_private(spec: ServerSpec) -> None:
    first = acquire(spec, keep_alive=30)
    try:
        second = acquire(spec, keep_alive=30)
        assert not first.reused and second.reused
        assert second.base_url == first.base_url and second.api_key == first.api_key
        folder = servers_dir()
        for suffix in (".json", ".key"):
            assert (folder / f"{spec.key()}{suffix}").stat().st_mode & 0o777 == 0o600
        assert folder.stat().st_mode & 0o777 == 0o700
        # the key never reaches a command line (ps shows those to every local user)
        for pid in (first.pid, _server_pid(first.pid)):
            assert first.api_key.encode() not in Path(f"/proc/{pid}/cmdline").read_bytes()
        assert "127.0.0.1" in first.base_url
        second.stop()
        [status] = kept_servers()
        assert status.in_use  # the first hold is still there
        first.stop()
        [status] = kept_servers()
        assert not status.in_use and 25 < status.idle_left_s <= 30
    finally:
        stop_kept()
    assert kept_servers() == []


def test_another_model_or_setting_gets_its_own_server(spec: ServerSpec, tmp_path: Path) -> None:
    other_model = tmp_path / "other.gguf"
    other_model.write_bytes(b"GGUF other")
    a = acquire(spec, keep_alive=30)
    b = acquire(ServerSpec(other_model, "other", ctx_size=2048, binary=spec.binary), keep_alive=30)
    c = acquire(ServerSpec(spec.model, "fake", ctx_size=4096, binary=spec.binary), keep_alive=30)
    try:
        assert not b.reused and not c.reused
        assert len({a.port, b.port, c.port}) == 3
        assert len(kept_servers()) == 3
    finally:
        for hold in (a, b, c):
            hold.stop()
        assert len(stop_kept()) == 3


def test_exits_after_the_idle_time_but_not_while_held(spec: ServerSpec) -> None:
    hold = acquire(spec, keep_alive=1.0)
    keeper, server = hold.pid, _server_pid(hold.pid)
    time.sleep(2.5)  # held: in use, so the idle clock does not run
    assert _alive(server) and kept_servers()[0].in_use
    hold.stop()
    assert _wait_until(lambda: not _alive(server) and not _alive(keeper), 1.0 + 5)
    assert not (servers_dir() / f"{spec.key()}.json").exists()
    again = acquire(spec, keep_alive=1.0)  # a later ask starts a new one
    assert not again.reused
    again.stop()
    stop_kept()


_CLIENT = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from gaia_lite.runtime.kept import ServerSpec, acquire
    hold = acquire(ServerSpec(Path(sys.argv[1]), "fake", ctx_size=2048, binary=Path(sys.argv[2])),
                   keep_alive=float(sys.argv[3]))
    print(hold.pid, hold.reused, flush=True)
    time.sleep(600)
""")


def _client(spec: ServerSpec, keep_alive: float) -> tuple[subprocess.Popen[str], int, bool]:
    proc = subprocess.Popen([sys.executable, "-c", _CLIENT, str(spec.model), str(spec.binary), str(keep_alive)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=os.environ.copy())
    line = proc.stdout.readline() if proc.stdout else ""
    assert line, proc.stderr.read() if proc.stderr else ""
    pid, reused = line.split()
    return proc, int(pid), reused == "True"


def test_no_orphan_after_kill9_of_every_client(spec: ServerSpec) -> None:
    keep_alive = 2.0
    a, keeper, reused_a = _client(spec, keep_alive)
    b, keeper_b, reused_b = _client(spec, keep_alive)
    try:
        assert keeper == keeper_b and (reused_a, reused_b) == (False, True)  # two clients share one server
        server = _server_pid(keeper)
        for proc in (a, b):
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=10)
        killed = time.monotonic()
        time.sleep(0.5)
        assert _alive(server), "a kept server stays up after its clients are gone"
        assert _wait_until(lambda: not _alive(server) and not _alive(keeper), keep_alive + 5)
        assert time.monotonic() - killed <= keep_alive + 5
        assert kept_servers() == []
    finally:
        for proc in (a, b):
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        stop_kept()


def test_kill9_of_the_keeper_ends_the_server_at_once(spec: ServerSpec) -> None:
    hold = acquire(spec, keep_alive=300)
    server = _server_pid(hold.pid)
    os.kill(hold.pid, signal.SIGKILL)
    assert _wait_until(lambda: not _alive(server), 3), "the server outlived its keeper"
    hold.stop()
    again = acquire(spec, keep_alive=300)  # the dead one is not reused
    assert not again.reused
    again.stop()
    stop_kept()


_RACER = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from gaia_lite.runtime.kept import ServerSpec, acquire
    time.sleep(max(0.0, float(sys.argv[3]) - time.time()))
    hold = acquire(ServerSpec(Path(sys.argv[1]), "fake", ctx_size=2048, binary=Path(sys.argv[2])), keep_alive=30)
    print(hold.pid, hold.port, hold.reused, flush=True)
    hold.stop()
""")


def test_concurrent_starts_share_one_server(spec: ServerSpec) -> None:
    go = str(time.time() + 1.0)
    procs = [subprocess.Popen([sys.executable, "-c", _RACER, str(spec.model), str(spec.binary), go],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    try:
        outs = [p.communicate(timeout=60) for p in procs]
        rows = [o[0].split() for o in outs]
        assert all(rows), [o[1] for o in outs]
        assert len({(r[0], r[1]) for r in rows}) == 1, rows
        assert sorted(r[2] for r in rows) == ["False", "True", "True"]
    finally:
        stop_kept()


def test_a_dead_server_in_the_state_file_is_replaced(spec: ServerSpec) -> None:
    hold = acquire(spec, keep_alive=30)
    hold.stop()
    state_file = servers_dir() / f"{spec.key()}.json"
    data = json.loads(state_file.read_text())
    stop_kept()
    state_file.write_text(json.dumps(data))  # a stale file left by a crash
    fresh = acquire(spec, keep_alive=30)
    try:
        assert not fresh.reused and fresh.pid != data["keeper_pid"]
    finally:
        fresh.stop()
        stop_kept()


def test_models_doctor_show_a_kept_server_and_serve_stop_ends_it(spec: ServerSpec) -> None:
    from typer.testing import CliRunner

    from gaia_lite.cli.app import app

    hold = acquire(spec, keep_alive=120)
    hold.stop()
    runner = CliRunner()
    shown = runner.invoke(app, ["models", "--base-url", "http://127.0.0.1:9/api/v1"])
    assert f"running: fake kept alive at {hold.base_url}" in shown.output and "stops in" in shown.output
    as_json = runner.invoke(app, ["models", "--json", "--base-url", "http://127.0.0.1:9/api/v1"])
    [kept] = json.loads(as_json.output)["embedded"]["kept"]
    assert kept["model"] == "fake" and kept["pid"] == hold.pid and 0 < kept["idle_left_s"] <= 120
    doctor = runner.invoke(app, ["doctor", "--json"], env={"LEMONADE_BASE_URL": "http://127.0.0.1:9/api/v1"})
    assert "fake kept alive at" in doctor.output
    stopped = runner.invoke(app, ["serve", "--stop"])
    assert stopped.exit_code == 0 and f"Stopped the kept llama-server of model fake at {hold.base_url}" in stopped.output
    assert kept_servers() == [] and _wait_until(lambda: not _alive(hold.pid), 5)
    assert "No kept llama-server is running." in runner.invoke(app, ["serve", "--stop"]).output
