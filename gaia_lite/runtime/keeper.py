"""The keeper: the parent of a kept-alive llama-server, and the reason it never becomes an orphan.

Run as a script (``python -I keeper.py --dir D --key K --keep-alive S --log L -- llama-server ...``),
standard library only, in a session of its own. It starts llama-server as its child with
``PR_SET_PDEATHSIG`` = SIGKILL, so the server dies with the keeper however the keeper dies
(``kill -9`` included). The keeper itself ends the server and exits once nobody has used the
server for ``--keep-alive`` seconds:

* clients hold a shared ``flock`` on ``K.users`` while they use the server; the kernel drops it when
  a client dies, even by ``kill -9``, so a lock the keeper cannot take exclusively means "in use";
* clients touch ``K.lease`` when they let go: its mtime is the last use;
* the idle clock runs from the later of the two (and the keeper's own start).

Before it stops the server it takes ``K.lock`` (the start/reuse lock clients hold while they
pick a server) and removes ``K.json``, so a client either finds the server and holds it, or finds
nothing and starts its own. SIGTERM/SIGHUP/SIGINT stop the server at once (``gaia-lite serve --stop``).
"""

from __future__ import annotations

import argparse
import ctypes
import fcntl
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

_PR_SET_PDEATHSIG = 1
_STOP_GRACE = 5.0


def _die_with(parent: int):  # type: ignore[no-untyped-def]
    """A preexec_fn: the kernel SIGKILLs the child when ``parent`` (this single-threaded keeper) dies."""
    prctl = ctypes.CDLL(None, use_errno=True).prctl  # resolved before fork: no dlopen in the child

    def preexec() -> None:
        prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        if os.getppid() != parent:  # the keeper died between fork and prctl
            os._exit(1)

    return preexec


def _in_use(users_fd: int) -> bool:
    """Does any client hold the users lock (shared)? Probed without blocking anyone for long."""
    try:
        fcntl.flock(users_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    fcntl.flock(users_fd, fcntl.LOCK_UN)
    return False


def mtime(path: Path) -> float:
    """A file's mtime, 0 when it is missing (the lease's: the last use)."""
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def touch(path: Path) -> None:
    """Set a file's mtime to now, creating it (0600) if needed; never raises."""
    try:
        os.utime(path)
    except FileNotFoundError:
        try:
            path.touch(mode=0o600)
        except OSError:
            pass
    except OSError:
        pass


class Keeper:
    def __init__(self, folder: Path, key: str, keep_alive: float, log: Path, command: list[str]) -> None:
        self.folder, self.key, self.keep_alive = folder, key, keep_alive
        self.state = folder / f"{key}.json"
        self.lease = folder / f"{key}.lease"
        self.lock = folder / f"{key}.lock"
        self.log, self.command = log, command
        self.proc: subprocess.Popen[bytes] | None = None
        self.stopping = False

    def run(self) -> int:
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(sig, self._on_signal)
        users_fd = os.open(self.folder / f"{self.key}.users", os.O_RDWR | os.O_CREAT, 0o600)
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(self.command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                         preexec_fn=_die_with(os.getpid()))
        started = last_used = time.time()
        tick = min(1.0, max(0.1, self.keep_alive / 20))
        while not self.stopping:
            code = self.proc.poll()
            if code is not None:
                self._forget_state()
                return code
            now = time.time()
            if _in_use(users_fd):
                last_used = now
                touch(self.lease)  # status readers see the same idle clock (a killed client touches nothing)
            last_used = max(last_used, mtime(self.lease), started)
            if now - last_used >= self.keep_alive and self._idle_stop(users_fd):
                return 0
            time.sleep(tick)
        self._stop_server()
        self._forget_state()
        return 0

    def _idle_stop(self, users_fd: int) -> bool:
        """Stop after the idle time, unless a client picked the server up meanwhile."""
        with open(self.lock, "a+") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if _in_use(users_fd) or time.time() - mtime(self.lease) < self.keep_alive:
                return False
            self._forget_state()
            self._stop_server()
        return True

    def _on_signal(self, signum: int, frame: object) -> None:
        self.stopping = True

    def _forget_state(self) -> None:
        """Remove the state file if it still names this keeper (a newer server may own the key)."""
        try:
            data = json.loads(self.state.read_text())
        except (OSError, ValueError):
            return
        if data.get("keeper_pid") == os.getpid():
            try:
                self.state.unlink()
            except OSError:
                pass

    def _stop_server(self) -> None:
        proc = self.proc
        if proc is None or proc.poll() is not None:
            return
        proc.terminate()
        try:
            proc.wait(timeout=_STOP_GRACE)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="keep one llama-server alive while it is used")
    ap.add_argument("--dir", required=True, type=Path)
    ap.add_argument("--key", required=True)
    ap.add_argument("--keep-alive", required=True, type=float)
    ap.add_argument("--log", required=True, type=Path)
    ap.add_argument("command", nargs=argparse.REMAINDER)
    args = ap.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        ap.error("no server command after --")
    return Keeper(args.dir, args.key, args.keep_alive, args.log, command).run()


if __name__ == "__main__":
    sys.exit(main())
