"""A llama-server child process that never outlives gaia-lite.

``LocalServer`` starts llama-server on 127.0.0.1 with Lemonade-style paths
(``--api-prefix /api``), waits until ``/api/health`` answers 200 and stops the
server by PID on exit. It prints nothing: callers read ``info()``.

Why several layers of cleanup: ``with``/``stop()`` covers normal exits and
Ctrl-C; atexit plus a SIGTERM/SIGHUP handler cover ``kill`` and a closed
terminal; and because ``kill -9`` runs no Python at all, the kernel itself is
asked to signal the child (Linux ``PR_SET_PDEATHSIG``), or a watchdog process
kills it when a pipe from the parent closes. The child gets its own process
group, so the terminal's Ctrl-C reaches only gaia-lite, which then stops it.
"""

from __future__ import annotations

import atexit
import ctypes
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import FrameType, TracebackType
from typing import IO

from .model import LLAMA_SERVER_FIX, LocalRuntimeError, cache_dir, find_llama_server

__all__ = ["LocalServer", "ServerError", "ServerInfo", "free_port", "port_is_free"]

_PR_SET_PDEATHSIG = 1
_LOG_TAIL_LINES = 12

# Runs in a separate process: blocks on a pipe whose write end only the parent
# holds; EOF means the parent is gone (however it died), so kill the server group.
_WATCHDOG_CODE = """
import os, signal, sys, time
fd, pgid = int(sys.argv[1]), int(sys.argv[2])
try:
    while os.read(fd, 64):
        pass
except OSError:
    pass
def alive():
    try:
        os.killpg(pgid, 0)
        return True
    except ProcessLookupError:
        return False
if alive():
    os.killpg(pgid, signal.SIGTERM)
    for _ in range(50):
        time.sleep(0.1)
        if not alive():
            sys.exit(0)
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass
"""


class ServerError(LocalRuntimeError):
    """llama-server could not be started or did not become healthy."""


@dataclass(frozen=True)
class ServerInfo:
    """What the CLI prints about a running server."""

    pid: int
    port: int
    base_url: str
    model: Path
    alias: str
    embedding: bool
    log_path: Path
    cold_start_s: float


def port_is_free(port: int, host: str = "127.0.0.1") -> bool:
    """True when nothing listens on the port (TIME_WAIT leftovers do not count)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        # Like llama-server itself, so a recently closed connection does not look busy.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


def free_port(host: str = "127.0.0.1") -> int:
    """A port that was free a moment ago (the server retries if it is taken meanwhile)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def _pdeathsig_preexec(parent_pid: int) -> Callable[[], None] | None:
    """A preexec_fn asking the kernel to SIGTERM the child when its parent dies.

    The kernel ties this to the *thread* that forked, so it is only used when
    spawning from the main thread; other threads get the watchdog instead.
    """
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)  # resolved before fork: no dlopen in the child
        prctl = libc.prctl
    except (OSError, AttributeError):
        return None

    def preexec() -> None:
        prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
        # The parent may have died between fork and prctl: then nobody would signal us.
        if os.getppid() != parent_pid:
            os._exit(1)

    return preexec


# Process-wide by nature: atexit and signal handlers must reach every live server.
_LIVE: set[LocalServer] = set()
_LIVE_LOCK = threading.RLock()  # re-entered when a signal handler interrupts stop()
_ATEXIT_SET = False
_SIGNALS_SET = False


def _stop_all() -> None:
    with _LIVE_LOCK:
        servers = list(_LIVE)
    for server in servers:
        server.stop()


def _on_fatal_signal(signum: int, frame: FrameType | None) -> None:
    _stop_all()
    # Then die the way the signal would have killed us without this handler.
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _install_hooks() -> None:
    global _ATEXIT_SET, _SIGNALS_SET
    if not _ATEXIT_SET:
        atexit.register(_stop_all)
        _ATEXIT_SET = True
    if _SIGNALS_SET or threading.current_thread() is not threading.main_thread():
        return  # signal handlers can only be set from the main thread: a later start may do it
    _SIGNALS_SET = True
    for sig in (signal.SIGTERM, signal.SIGHUP):
        # Never replace a handler the application installed on purpose.
        if signal.getsignal(sig) == signal.SIG_DFL:
            signal.signal(sig, _on_fatal_signal)


class LocalServer:
    """Context manager around one llama-server process.

    ``with LocalServer(model_path) as srv: client(base_url=srv.base_url)``.
    ``embedding=True`` starts an embeddings server (``--embedding``, 512-token
    context and ubatch) instead of a chat server.
    """

    def __init__(
        self,
        model: Path,
        *,
        port: int | None = None,
        alias: str = "qwen2.5-coder-0.5b",
        embedding: bool = False,
        threads: int = 2,
        ctx_size: int | None = None,
        binary: Path | None = None,
        api_prefix: str = "/api",
        log_path: Path | None = None,
        startup_timeout: float = 120.0,
        stop_grace: float = 5.0,
        watchdog: bool | None = None,
        extra_args: tuple[str, ...] = (),
    ) -> None:
        self.model = Path(model)
        self.alias = alias
        self.embedding = embedding
        self.threads = threads
        self.ctx_size = ctx_size or (512 if embedding else 8192)
        self.binary = binary
        self.api_prefix = "/" + api_prefix.strip("/") if api_prefix.strip("/") else ""
        self.startup_timeout = startup_timeout
        self.stop_grace = stop_grace
        self.extra_args = extra_args
        self._requested_port = port
        self._requested_log = log_path
        self._watchdog_wanted = watchdog
        self.port: int | None = None
        self.log_path: Path | None = None
        self.cold_start_s: float | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None
        self._watchdog: subprocess.Popen[bytes] | None = None
        self._watchdog_fd: int | None = None
        self._started_at = 0.0

    # -- public API ------------------------------------------------------

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT`` (no API prefix)."""
        if self.port is None:
            raise ServerError("server not started: call start() or use it as a context manager")
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible base URL, e.g. ``http://127.0.0.1:PORT/api/v1``."""
        return f"{self.url}{self.api_prefix}/v1"

    @property
    def health_url(self) -> str:
        return f"{self.url}{self.api_prefix}/health"

    def is_running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    # what a KeptServer also offers, so ask/chat hold either the same way
    api_key = ""  # this server takes requests without a key (it dies with its parent)
    reused = False
    keep_alive = 0.0

    def info(self) -> ServerInfo:
        if self._proc is None or self.port is None or self.log_path is None or self.cold_start_s is None:
            raise ServerError("server not started: call start() or use it as a context manager")
        return ServerInfo(
            pid=self._proc.pid,
            port=self.port,
            base_url=self.base_url,
            model=self.model,
            alias=self.alias,
            embedding=self.embedding,
            log_path=self.log_path,
            cold_start_s=self.cold_start_s,
        )

    def command(self, port: int) -> list[str]:
        binary = self.binary or find_llama_server()
        if binary is None:
            raise ServerError(f"llama-server not found: {LLAMA_SERVER_FIX}")
        args = [str(binary), "-m", str(self.model), "--host", "127.0.0.1", "--port", str(port)]
        args += ["-t", str(self.threads), "-c", str(self.ctx_size), "-np", "1", "-a", self.alias]
        if self.api_prefix:
            args += ["--api-prefix", self.api_prefix]
        if self.embedding:
            # One ubatch must hold the longest input, or long texts are rejected.
            args += ["--embedding", "-ub", str(self.ctx_size)]
        else:
            args += ["--jinja"]
        return args + list(self.extra_args)

    def start(self) -> LocalServer:
        """Spawn the server and block until it is healthy (ServerError otherwise)."""
        if self.is_running():
            return self
        if not self.model.is_file():
            raise ServerError(f"model file not found: {self.model}: pass an existing .gguf or a bundled model name")
        _install_hooks()
        # An auto-picked port can be taken between probing and binding: retry on a new one.
        attempts = 1 if self._requested_port else 3
        for attempt in range(attempts):
            port = self._requested_port or free_port()
            try:
                self._spawn(port)
                self._wait_healthy()
                return self
            except ServerError as exc:
                self.stop()
                if attempt + 1 < attempts and "bind" in str(exc).lower():
                    continue
                raise
            except BaseException:  # Ctrl-C while the model loads: do not leave it running
                self.stop()
                raise
        raise AssertionError("unreachable")

    def stop(self) -> None:
        """SIGTERM the server's process group, SIGKILL it after ``stop_grace`` seconds."""
        proc = self._proc
        if proc is not None:
            if proc.poll() is None:
                self._signal_group(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(timeout=self.stop_grace)
                except subprocess.TimeoutExpired:
                    self._signal_group(proc.pid, signal.SIGKILL)
                    proc.wait()
            self._proc = None
        self._close_watchdog()
        if self._log is not None:
            self._log.close()
            self._log = None
        with _LIVE_LOCK:
            _LIVE.discard(self)

    def log_tail(self, lines: int = _LOG_TAIL_LINES) -> str:
        if self.log_path is None:
            return ""
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    # -- internals -------------------------------------------------------

    def _spawn(self, port: int) -> None:
        cmd = self.command(port)
        self.port = port
        self.log_path = self._requested_log or cache_dir() / "logs" / f"llama-server-{port}.log"
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self._log = open(self.log_path, "wb")
        in_main = threading.current_thread() is threading.main_thread()
        preexec = _pdeathsig_preexec(os.getpid()) if in_main else None
        use_watchdog = self._watchdog_wanted if self._watchdog_wanted is not None else preexec is None
        self._started_at = time.monotonic()
        try:
            self._proc = subprocess.Popen(
                cmd,
                stdin=subprocess.DEVNULL,
                stdout=self._log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # own process group: Ctrl-C goes to us, we stop it
                preexec_fn=preexec,
            )
        except OSError as exc:
            raise ServerError(f"cannot run {cmd[0]}: {exc}: {LLAMA_SERVER_FIX}") from exc
        with _LIVE_LOCK:
            _LIVE.add(self)
        if use_watchdog:
            self._start_watchdog(self._proc.pid)

    def _start_watchdog(self, pgid: int) -> None:
        read_fd, write_fd = os.pipe()  # non-inheritable (PEP 446): llama-server never holds it
        try:
            self._watchdog = subprocess.Popen(
                [sys.executable, "-I", "-c", _WATCHDOG_CODE, str(read_fd), str(pgid)],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                pass_fds=(read_fd,),
                start_new_session=True,
            )
        finally:
            os.close(read_fd)
        self._watchdog_fd = write_fd

    def _close_watchdog(self) -> None:
        if self._watchdog_fd is not None:
            os.close(self._watchdog_fd)  # EOF tells the watchdog to exit
            self._watchdog_fd = None
        if self._watchdog is not None:
            try:
                self._watchdog.wait(timeout=2)
            except subprocess.TimeoutExpired:
                self._watchdog.kill()
                self._watchdog.wait()
            self._watchdog = None

    def _wait_healthy(self) -> None:
        assert self._proc is not None
        deadline = self._started_at + self.startup_timeout
        while True:
            code = self._proc.poll()
            if code is not None:
                raise ServerError(
                    f"llama-server exited with code {code} before it was ready (log {self.log_path}):\n"
                    + self.log_tail()
                )
            if self._health_ok():
                self.cold_start_s = time.monotonic() - self._started_at
                return
            if time.monotonic() > deadline:
                raise ServerError(
                    f"llama-server was not healthy after {self.startup_timeout:.0f}s (log {self.log_path}):\n"
                    + self.log_tail()
                )
            time.sleep(0.05)

    def _health_ok(self) -> bool:
        try:
            with urllib.request.urlopen(self.health_url, timeout=1.0) as resp:
                return bool(resp.status == 200)
        except (urllib.error.URLError, OSError, ValueError):
            return False  # not listening yet, or 503 while the model loads

    @staticmethod
    def _signal_group(pid: int, sig: signal.Signals) -> None:
        try:
            os.killpg(pid, sig)  # the group id equals the child's pid (start_new_session)
        except ProcessLookupError:
            pass
        except PermissionError:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
