"""The caller's side: hand this `ask` to a warm worker, or say there is none (then it runs here).

The caller's stdin, stdout and stderr go to the worker as file descriptors (SCM_RIGHTS), with its
arguments, folder and environment, so the worker's child writes to the same terminal or pipe and
reads the same stdin. The exchange, on one Unix socket:

    caller -> worker   length-prefixed JSON {argv, cwd, env} + the three descriptors
    worker -> caller   "ready\\n"            (the worker will run it if the caller still wants it)
    caller -> worker   "go\\n"               (from here on the caller is committed: no fallback)
    worker -> caller   "pid N\\n" ... "exit N\\n"

A caller that gets no "ready" in time closes the socket and runs the `ask` itself; the worker sees
no "go" and drops the request, so an `ask` never runs twice. Ctrl-C in the caller's terminal
reaches the caller, which passes it on to the child.
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import socket
import struct
import sys
from typing import Mapping, Sequence

from .paths import WorkerPaths, worker_paths

__all__ = ["handed_over", "is_alive", "wanted"]

READY_WAIT_S = 8.0  # a worker still importing answers within ~1.5 s on a quiet 2-core machine


def wanted(argv: Sequence[str], env: Mapping[str, str]) -> bool:
    """Only `ask` goes to a worker (chat owns the terminal), and only when servers are kept alive."""
    return (bool(argv) and argv[0] == "ask" and env.get("GAIA_KEEP_ALIVE", "").strip() not in ("0", "0.0")
            and env.get("GAIA_WARM", "1").strip() != "0" and "GAIA_WARM_CHILD" not in env)


def is_alive(paths: WorkerPaths) -> bool:
    """A live worker holds its lock file; taking it here would mean nobody does."""
    try:
        fd = os.open(paths.lock, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


def _read_line(sock: socket.socket, buf: bytearray) -> str | None:
    while b"\n" not in buf:
        chunk = sock.recv(256)
        if not chunk:
            return None
        buf.extend(chunk)
    line, _, rest = bytes(buf).partition(b"\n")
    buf[:] = rest
    return line.decode("ascii", "replace")


def handed_over(argv: Sequence[str]) -> int | None:
    """Run ``gaia-lite ARGV`` in the warm worker and return its exit code; None when no worker took it."""
    paths = worker_paths()
    if paths is None or not is_alive(paths):
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(READY_WAIT_S)
        sock.connect(str(paths.socket))
        payload = json.dumps({"argv": list(argv), "cwd": os.getcwd(), "env": dict(os.environ)}).encode()
        socket.send_fds(sock, [struct.pack("!I", len(payload)) + payload], [0, 1, 2])
        buf = bytearray()
        if _read_line(sock, buf) != "ready":
            return None
        sock.sendall(b"go\n")
    except OSError:  # no worker, a worker that is going away, or one too busy to answer in time
        sock.close()
        return None
    return _follow(sock, buf)


def _follow(sock: socket.socket, buf: bytearray) -> int:
    """Wait for the child's exit code, passing Ctrl-C and termination on to it."""
    sock.settimeout(None)
    child = 0

    def forward(signum: int, _frame: object) -> None:
        if child:
            os.kill(child, signum)

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, forward)
    try:
        while (line := _read_line(sock, buf)) is not None:
            word, _, value = line.partition(" ")
            if word == "pid":
                child = int(value)
            elif word == "exit":
                return int(value)
    finally:
        sock.close()
    sys.stderr.write("gaia-lite: error: the warm worker ended before the answer; run again "
                     "(GAIA_WARM=0 runs every ask in its own process)\n")
    return 1
