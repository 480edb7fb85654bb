"""Where a warm worker listens, and which code it runs.

A worker serves only callers of the same code: its socket's name holds a fingerprint of the
interpreter, the installed packages and gaia-lite's own source files (an edit or an upgrade makes
a new name, so a stale worker is never used and idles out). The socket lives in a folder only
this user can open (``$XDG_RUNTIME_DIR`` or ``/tmp/gaia-lite-UID``, mode 0700): the peer check in
the worker is the second lock on that door.
"""

from __future__ import annotations

import hashlib
import os
import sys
import sysconfig
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = ["WorkerPaths", "fingerprint", "home_workers", "read_pid_file", "runtime_dir", "worker_paths"]

_PACKAGE = Path(__file__).resolve().parent.parent  # gaia_lite/


def _sources() -> list[Path]:
    """gaia_lite/ and the folders mapped into it (tools/, bundles/ in an editable install)."""
    roots = [_PACKAGE]
    for sub in ("tools", "bundles"):
        mapped = _PACKAGE.parent / sub
        if mapped.is_dir() and not (_PACKAGE / sub).is_dir():
            roots.append(mapped)
    return roots


def _newest(root: Path) -> tuple[int, int]:
    """(newest mtime in ns, number of .py files) under ``root``: any edit, add or removal changes it."""
    newest, count, stack = 0, 0, [str(root)]
    while stack:
        with os.scandir(stack.pop()) as it:
            for entry in it:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name != "__pycache__":
                        stack.append(entry.path)
                elif entry.name.endswith(".py"):
                    count += 1
                    newest = max(newest, entry.stat().st_mtime_ns)
    return newest, count


def fingerprint() -> str:
    parts = [sys.executable, sys.version]
    try:
        parts.append(str(os.stat(sysconfig.get_paths()["purelib"]).st_mtime_ns))  # a pip install touches it
    except OSError:
        pass
    for root in _sources():
        parts.append(f"{root}:{_newest(root)}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def runtime_dir() -> Path | None:
    """This user's private folder for sockets, or None when it cannot be made private."""
    base = os.environ.get("XDG_RUNTIME_DIR") or ""
    folder = Path(base) / "gaia-lite" if base and os.path.isdir(base) else \
        Path(tempfile.gettempdir()) / f"gaia-lite-{os.getuid()}"
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = folder.stat()
    except OSError:
        return None
    if st.st_uid != os.getuid() or st.st_mode & 0o077:
        return None  # someone else's folder, or one others can enter: never listen or connect there
    return folder


def _home_key() -> str:
    """Each GAIA_HOME has its own worker (its memory, config and servers are its own)."""
    home = os.environ.get("GAIA_HOME")
    return os.path.abspath(os.path.expanduser(home)) if home else "~"


@dataclass(frozen=True)
class WorkerPaths:
    socket: Path  # where the worker listens
    lock: Path  # held by the live worker for its whole life
    pid: Path  # "PID IDLE_S": for `serve --stop`, `models` and `doctor`; its mtime is the last use


def read_pid_file(path: Path) -> tuple[int, float, float] | None:
    """(pid, idle seconds it exits after, seconds since its last use: < 0 while an ask runs) from a
    worker's pid file."""
    try:
        words = path.read_text().split()
        since = time.time() - path.stat().st_mtime
        return int(words[0]), float(words[1]) if len(words) > 1 else 0.0, since
    except (OSError, ValueError, IndexError):
        return None


def home_prefix() -> str:
    return hashlib.sha256(_home_key().encode()).hexdigest()[:12]


def worker_paths(code: str | None = None) -> WorkerPaths | None:
    """The worker of this GAIA_HOME and this code (``code``: a fingerprint; default: the running code's)."""
    folder = runtime_dir()
    if folder is None:
        return None
    name = f"{home_prefix()}-{code or fingerprint()}"
    return WorkerPaths(folder / f"{name}.sock", folder / f"{name}.lock", folder / f"{name}.pid")


def home_workers() -> list[WorkerPaths]:
    """Every worker of this GAIA_HOME, whatever code it runs (``serve --stop`` ends them all)."""
    folder = runtime_dir()
    if folder is None:
        return []
    return [WorkerPaths(p.with_suffix(".sock"), p, p.with_suffix(".pid"))
            for p in sorted(folder.glob(f"{home_prefix()}-*.lock"))]
