"""A llama-server that outlives one ``ask``: found again through a state file, shared safely.

``acquire(spec, keep_alive=S)`` returns a ``KeptServer``: a hold on a server for this model and
these settings, started by the call (``reused`` False) or found running (``reused`` True). Holding
it keeps it alive; ``stop()`` lets go, and the server exits after ``S`` idle seconds. The keeper
process (keeper.py) is the server's parent and ends it, so nothing here can leave an orphan: not a
crash, not ``kill -9`` of every gaia-lite process.

Files, per server key (a hash of binary build, model file and settings), in ``servers_dir()``
(mode 0700, under the cache dir, so each ``GAIA_HOME`` has its own servers):

* ``KEY.json``  state: keeper pid, port, API key, model, settings (0600: it holds the key);
* ``KEY.key``   the API key for ``--api-key-file`` (0600; never on a command line, which
  ``ps`` shows to every local user);
* ``KEY.lock``  held (exclusive) while a client picks or starts the server, and by the keeper
  while it stops it, so two ``ask`` runs never start two servers or use a stopping one;
* ``KEY.users`` a shared lock per client while it uses the server (dropped by the kernel when
  the client dies); ``KEY.lease`` its mtime is the last use.

Nothing here prints.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import secrets
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .keeper import mtime, touch
from .model import LLAMA_SERVER_FIX, cache_dir, find_llama_server
from .server import ServerError, free_port

__all__ = ["DEFAULT_KEEP_ALIVE", "ServerSpec", "KeptState", "KeptStatus", "KeptServer", "acquire", "build_id",
           "describe", "kept_servers", "servers_dir", "stop_kept"]

DEFAULT_KEEP_ALIVE = 300.0  # seconds; Ollama's keep_alive default (measured: docs/benchmarks.md)
KEEPER = Path(__file__).with_name("keeper.py")
_STOP_WAIT = 8.0


def servers_dir(root: Path | None = None) -> Path:
    folder = (root or cache_dir()) / "servers"
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    return folder


def build_id(binary: Path) -> str:
    """Identifies a llama-server build: name, size and mtime of the binary and the libraries beside it
    (a rebuild or reinstall changes them; hashing ~20 MB on every start would cost more than it is worth)."""
    binary = binary.resolve()
    h = hashlib.sha256()
    for path in sorted([binary, *binary.parent.glob("*.so*")]):
        try:
            if path.is_symlink() or not path.is_file():
                continue
            st = path.stat()
        except OSError:
            continue
        h.update(f"{path.name}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:16]


@dataclass(frozen=True)
class ServerSpec:
    """What makes two servers interchangeable: the same binary build, model file and settings."""

    model: Path
    alias: str
    ctx_size: int = 8192
    threads: int = 2
    binary: Path | None = None
    slot_dir: Path | None = None  # --slot-save-path (the shared-prefix cache)
    extra_args: tuple[str, ...] = ()
    api_prefix: str = "/api"

    def resolved_binary(self) -> Path:
        binary = self.binary or find_llama_server()
        if binary is None:
            raise ServerError(f"llama-server not found: {LLAMA_SERVER_FIX}")
        return binary

    def key(self) -> str:
        binary = self.resolved_binary()
        try:
            st = self.model.stat()
            model_id = f"{self.model.resolve()}:{st.st_size}:{st.st_mtime_ns}"
        except OSError:
            model_id = str(self.model)
        parts = {"binary": str(binary.resolve()), "build": build_id(binary), "model": model_id, "alias": self.alias,
                 "ctx": self.ctx_size, "threads": self.threads, "slots": str(self.slot_dir or ""),
                 "extra": list(self.extra_args), "prefix": self.api_prefix}
        return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:16]

    def command(self, port: int, key_file: Path) -> list[str]:
        args = [str(self.resolved_binary()), "-m", str(self.model), "--host", "127.0.0.1", "--port", str(port),
                "-t", str(self.threads), "-c", str(self.ctx_size), "-np", "1", "-a", self.alias, "--jinja",
                "--api-key-file", str(key_file)]
        if self.api_prefix:
            args += ["--api-prefix", self.api_prefix]
        if self.slot_dir is not None:
            args += ["--slot-save-path", str(self.slot_dir)]
        return args + list(self.extra_args)


@dataclass(frozen=True)
class KeptState:
    """The state file of one kept server."""

    key: str
    keeper_pid: int
    port: int
    api_key: str = field(repr=False)
    model: str
    alias: str
    ctx_size: int
    threads: int
    keep_alive: float
    started_at: float
    cold_start_s: float
    log: str
    build: str
    api_prefix: str = "/api"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        return f"{self.url}{self.api_prefix}/v1"


@dataclass(frozen=True)
class KeptStatus:
    """What ``gaia-lite models`` and ``doctor`` show about a kept server."""

    state: KeptState
    in_use: bool
    idle_s: float
    idle_left_s: float


class KeptServer:
    """This process's hold on a kept server. ``stop()`` lets go (the server stays up for its
    keep-alive); ``shutdown()`` stops the server itself."""

    def __init__(self, state: KeptState, folder: Path, users_fd: int, *, reused: bool) -> None:
        self.state = state
        self.folder = folder
        self.reused = reused
        self._users_fd: int | None = users_fd

    # the LocalServer surface the CLI reads
    @property
    def base_url(self) -> str:
        return self.state.base_url

    @property
    def url(self) -> str:
        return self.state.url

    @property
    def alias(self) -> str:
        return self.state.alias

    @property
    def api_key(self) -> str:
        return self.state.api_key

    @property
    def ctx_size(self) -> int:
        return self.state.ctx_size

    @property
    def port(self) -> int:
        return self.state.port

    @property
    def pid(self) -> int:
        return self.state.keeper_pid

    @property
    def cold_start_s(self) -> float:
        return self.state.cold_start_s

    @property
    def keep_alive(self) -> float:
        return self.state.keep_alive

    @property
    def model(self) -> Path:
        return Path(self.state.model)

    def is_running(self) -> bool:
        return _alive(self.state)

    def stop(self) -> None:
        """Let go: the last use is now; the keeper ends the server after its idle time."""
        fd, self._users_fd = self._users_fd, None
        if fd is None:
            return
        touch(self.folder / f"{self.state.key}.lease")
        os.close(fd)  # drops the shared lock

    def shutdown(self) -> None:
        self.stop()
        _stop_keeper(self.folder, self.state)

    def __enter__(self) -> KeptServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def acquire(spec: ServerSpec, *, keep_alive: float, root: Path | None = None,
            startup_timeout: float = 120.0) -> KeptServer:
    """A hold on the kept server for ``spec``: the running one if it is healthy, else a new one.
    Raises ServerError (with the log's tail) when a new one cannot start."""
    folder = servers_dir(root)
    key = spec.key()
    with _locked(folder / f"{key}.lock"):
        state = _read_state(folder / f"{key}.json")
        if state is not None and _alive(state) and _healthy(state):
            return KeptServer(state, folder, _hold(folder, key), reused=True)
        if state is not None:  # dead, or alive but not answering: replace it
            _stop_keeper(folder, state)
        state = _start(spec, folder, key, keep_alive, startup_timeout)
        return KeptServer(state, folder, _hold(folder, key), reused=False)


def kept_servers(root: Path | None = None) -> list[KeptStatus]:
    """Every kept server of this home that is still running, with its idle time left."""
    folder = (root or cache_dir()) / "servers"
    out = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        state = _read_state(path)
        if state is None or not _alive(state):
            continue
        in_use = _in_use(folder / f"{state.key}.users")
        last = max(mtime(folder / f"{state.key}.lease"), state.started_at)
        idle = 0.0 if in_use else max(0.0, time.time() - last)
        out.append(KeptStatus(state, in_use, idle, max(0.0, state.keep_alive - idle)))
    return out


def stop_kept(root: Path | None = None, key: str | None = None) -> list[KeptState]:
    """Stop every kept server of this home (or the one with ``key``); the ones stopped."""
    folder = (root or cache_dir()) / "servers"
    stopped = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        state = _read_state(path)
        if state is None or (key is not None and state.key != key):
            continue
        if _alive(state):
            _stop_keeper(folder, state)
            stopped.append(state)
        _unlink(path)
    return stopped


# -- internals ---------------------------------------------------------------------------------


class _locked:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.fd = -1

    def __enter__(self) -> None:
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(self.fd, fcntl.LOCK_EX)

    def __exit__(self, *exc: object) -> None:
        os.close(self.fd)


def _hold(folder: Path, key: str) -> int:
    fd = os.open(folder / f"{key}.users", os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_SH)
    touch(folder / f"{key}.lease")
    return fd


def _in_use(users: Path) -> bool:
    try:
        fd = os.open(users, os.O_RDWR)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)  # also drops the probe's own lock
    return False


def _unlink(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass


def _write_private(path: Path, text: str) -> None:
    """Write a 0600 file atomically (it may hold the API key)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(tmp, path)


def _read_state(path: Path) -> KeptState | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return KeptState(**data)
    except (OSError, ValueError, TypeError):
        return None


def _alive(state: KeptState) -> bool:
    """Is the keeper of ``state`` running (and not another process that got its pid)?"""
    try:
        cmdline = Path(f"/proc/{state.keeper_pid}/cmdline").read_bytes()
    except OSError:
        try:
            os.kill(state.keeper_pid, 0)
        except (ProcessLookupError, PermissionError):
            return False
        return True  # no /proc (not Linux): trust the pid
    return state.key.encode() in cmdline and b"keeper.py" in cmdline


def _healthy(state: KeptState, timeout: float = 2.0) -> bool:
    req = urllib.request.Request(f"{state.url}{state.api_prefix}/health",
                                 headers={"Authorization": f"Bearer {state.api_key}"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return bool(resp.status == 200)
    except (urllib.error.URLError, OSError, ValueError):
        return False


def _stop_keeper(folder: Path, state: KeptState) -> None:
    """SIGTERM the keeper (it stops its server); SIGKILL its group if it does not go."""
    if not _alive(state):
        return
    try:
        os.kill(state.keeper_pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + _STOP_WAIT
    while time.monotonic() < deadline:
        if not _alive(state):
            return
        time.sleep(0.05)
    try:
        os.killpg(state.keeper_pid, signal.SIGKILL)  # the keeper leads its own group; the server is in it
    except (ProcessLookupError, PermissionError):
        pass
    _unlink(folder / f"{state.key}.json")


def _log_tail(path: Path, lines: int = 12) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def _start(spec: ServerSpec, folder: Path, key: str, keep_alive: float, startup_timeout: float) -> KeptState:
    if not spec.model.is_file():
        raise ServerError(f"model file not found: {spec.model}: pass an existing .gguf or a bundled model name")
    key_file = folder / f"{key}.key"
    api_key = secrets.token_urlsafe(24)
    _write_private(key_file, api_key + "\n")
    logs = cache_dir() / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    for attempt in range(3):  # an auto-picked port can be taken between probing and binding
        port = free_port()
        log = logs / f"llama-server-{port}.log"
        log.write_bytes(b"")
        started = time.monotonic()
        keeper = subprocess.Popen(
            [sys.executable, "-I", str(KEEPER), "--dir", str(folder), "--key", key, "--keep-alive", str(keep_alive),
             "--log", str(log), "--", *spec.command(port, key_file)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)  # its own group: the terminal's Ctrl-C and a closing shell miss it
        state = KeptState(key=key, keeper_pid=keeper.pid, port=port, api_key=api_key, model=str(spec.model),
                          alias=spec.alias, ctx_size=spec.ctx_size, threads=spec.threads, keep_alive=keep_alive,
                          started_at=time.time(), cold_start_s=0.0, log=str(log),
                          build=build_id(spec.resolved_binary()), api_prefix=spec.api_prefix)
        try:
            code = _wait_healthy(keeper, state, started + startup_timeout)
        except BaseException:  # Ctrl-C while the model loads: do not leave it running
            _terminate(keeper)
            raise
        if code is None:
            state = KeptState(**{**asdict(state), "cold_start_s": round(time.monotonic() - started, 3)})
            _write_private(folder / f"{key}.json", json.dumps(asdict(state)))
            return state
        tail = _log_tail(log)
        if code == "timeout":
            _terminate(keeper)
            raise ServerError(f"llama-server was not healthy after {startup_timeout:.0f}s (log {log}):\n{tail}")
        if "bind" in tail.lower() and attempt < 2:
            continue
        raise ServerError(f"llama-server exited with code {code} before it was ready (log {log}):\n{tail}")
    raise AssertionError("unreachable")


def _wait_healthy(keeper: subprocess.Popen[bytes], state: KeptState, deadline: float) -> int | str | None:
    """None when healthy; the keeper's exit code when it ended; "timeout" after the deadline."""
    while True:
        code = keeper.poll()
        if code is not None:
            return code
        if _healthy(state, timeout=1.0):
            return None
        if time.monotonic() > deadline:
            return "timeout"
        time.sleep(0.05)


def _terminate(keeper: subprocess.Popen[bytes]) -> None:
    if keeper.poll() is None:
        keeper.terminate()
        try:
            keeper.wait(timeout=_STOP_WAIT)
        except subprocess.TimeoutExpired:
            os.killpg(keeper.pid, signal.SIGKILL)
            keeper.wait()


def describe(status: KeptStatus) -> str:
    """One line about a kept server: model, where, and how long it stays."""
    st = status.state
    left = f"in use now, kept {st.keep_alive:g} s after its last use" if status.in_use else \
        f"idle {status.idle_s:.0f} s, stops in {status.idle_left_s:.0f} s"
    return f"{st.alias} kept alive at {st.base_url} (pid {st.keeper_pid}; {left}; `gaia-lite serve --stop` ends it)"


def stop_keepers_under(root: Path) -> int:
    """Stop every keeper whose state folder lies under ``root`` (tests: whatever GAIA_HOME a test's
    subprocesses used); how many. Reads /proc, so Linux only (0 elsewhere)."""
    root = root.resolve()
    stopped = 0
    proc = Path("/proc")
    for entry in proc.iterdir() if proc.is_dir() else ():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if not any(a.endswith(b"keeper.py") for a in argv) or b"--dir" not in argv:
            continue
        folder = Path(os.fsdecode(argv[argv.index(b"--dir") + 1]))
        if folder.resolve() != root and root not in folder.resolve().parents:
            continue
        try:
            os.kill(int(entry.name), signal.SIGTERM)
            stopped += 1
        except (ProcessLookupError, PermissionError):
            continue
        deadline = time.monotonic() + _STOP_WAIT
        while time.monotonic() < deadline and (entry / "cmdline").exists() and _state_of(entry) not in ("Z", ""):
            time.sleep(0.05)
    return stopped


def _state_of(entry: Path) -> str:
    try:
        return (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return ""
