"""run_shell_command: read-only commands, run as argv lists without a shell.

The policy is checked before the user is asked to approve (the tool is
gated), in this order: text-level refusals (control characters, unicode
look-alikes of shell punctuation, ``; & > < ` $``), splitting on unquoted
``|``, then per-segment argv rules (allow-listed program, per-program
option rules, every path-like argument through the sandbox). Pipes are
built by chaining ``Popen`` processes; nothing is ever given to a shell,
so there is no expansion of globs, ``~`` or variables.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
import unicodedata
from collections import deque
from pathlib import Path
from typing import Callable, Optional

from gaia_lite.registry.context import ToolContext
from gaia_lite.registry.spec import tool

from .sandbox import SECRET_DIR_NAMES, SECRET_FILE_GLOBS, SandboxError, resolve_user_path

__all__ = ["TOOLS", "run_shell_command", "CommandRefused", "parse_command", "policy_error", "RateLimiter",
           "ALLOWED_PROGRAMS", "OUTPUT_CAP"]

OUTPUT_CAP = 10_000          # characters kept of stdout and of stderr
MAX_TIMEOUT = 120
MAX_SEGMENTS = 5
RATE_LIMITER_KEY = "shell.rate_limiter"

ALLOWED_PROGRAMS = frozenset({
    "ls", "cat", "head", "tail", "grep", "egrep", "fgrep", "rg", "find", "wc", "sort", "uniq",
    "diff", "file", "stat", "du", "df", "whoami", "uname", "date", "ps", "lscpu", "free", "pwd",
    "echo", "which", "tree", "cut", "tr", "nl", "basename", "dirname", "realpath", "hostname",
    "uptime", "id", "git",
})
# Programs whose arguments are never file paths (so "/" in `tr / _` is not a path).
_NO_PATH_ARGS = frozenset({"echo", "tr", "date", "which", "whoami", "uname", "id", "hostname",
                           "uptime", "pwd", "free", "lscpu", "ps", "basename", "dirname"})
_GIT_READ_ONLY = frozenset({"status", "log", "diff", "show", "branch", "ls-files", "rev-parse",
                            "blame", "grep"})
_GIT_BRANCH_FLAGS = frozenset({"-a", "-r", "-v", "-vv", "-l", "--list", "--all", "--remotes",
                               "--verbose", "--show-current", "--no-color", "--color"})
_HOSTNAME_FLAGS = frozenset({"-s", "-f", "-d", "-i", "-I", "-A", "-a", "--short", "--fqdn", "--long",
                             "--domain", "--ip-address", "--all-ip-addresses", "--all-fqdns", "--alias"})
_FIND_ACTIONS = ("-exec", "-execdir", "-ok", "-okdir", "-delete", "-fls", "-fprint")
# ASCII sequences refused anywhere in the text, longest first for a precise message.
_FORBIDDEN_TEXT = (("&&", "'&&' (command chaining)"), ("||", "'||' (command chaining)"),
                   ("$(", "'$(' (command substitution)"), ("${", "'${' (variable expansion)"),
                   (";", "';' (command chaining)"), ("&", "'&' (background jobs)"),
                   (">", "'>' (output redirection)"), ("<", "'<' (input redirection)"),
                   ("`", "backticks (command substitution)"), ("$", "'$' (variable expansion)"))
# Visual look-alikes of | ; & > < $ ` that NFKC does not fold to ASCII.
_LOOKALIKES = frozenset("\u2223\u01c0\u2502\u2016\u23d0\u037e\u204f\u2039\u203a\u2035\u2032\u02cb\u02bc")


class CommandRefused(ValueError):
    """The command breaks the read-only policy; the message says why."""


# ---------------------------------------------------------------- text checks

def _check_text(command: str) -> None:
    for ch in command:
        if ch.isascii():
            if ord(ch) < 32 or ord(ch) == 127:
                raise CommandRefused(f"control character {ch!r} (newlines chain commands)")
            continue
        category = unicodedata.category(ch)
        label = f"U+{ord(ch):04X} {unicodedata.name(ch, '')}".strip()
        if category[0] in "CZ":
            raise CommandRefused(f"invisible or non-ASCII space character {label}")
        folded = unicodedata.normalize("NFKC", ch)
        if ch in _LOOKALIKES or any(c.isascii() and not c.isalnum() for c in folded):
            raise CommandRefused(f"look-alike punctuation {label}; type plain ASCII")
    for seq, why in _FORBIDDEN_TEXT:
        if seq in command:
            raise CommandRefused(f"{why} is not allowed")


def _split_pipes(command: str) -> list[str]:
    """Split on ``|`` outside quotes (a quoted ``'a|b'`` regex stays whole)."""
    segments: list[str] = []
    current: list[str] = []
    quote: str | None = None
    i = 0
    while i < len(command):
        ch = command[i]
        if ch == "\\" and quote != "'" and i + 1 < len(command):
            current.append(command[i:i + 2])
            i += 2
            continue
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "|":
            segments.append("".join(current))
            current = []
            i += 1
            continue
        current.append(ch)
        i += 1
    if quote:
        raise CommandRefused("unbalanced quotes")
    segments.append("".join(current))
    return segments


# ---------------------------------------------------------------- argv rules

def _long_name(arg: str) -> str:
    return arg[2:].split("=", 1)[0]


def _is_long_prefix(arg: str, *dangerous: str) -> bool:
    """GNU tools accept unambiguous prefixes: --out means --output."""
    name = _long_name(arg)
    return arg.startswith("--") and bool(name) and any(d.startswith(name) for d in dangerous)


def _short_cluster(arg: str) -> str:
    return arg[1:] if arg.startswith("-") and not arg.startswith("--") else ""


def _check_find(args: list[str]) -> None:
    for a in args:
        if a.startswith(_FIND_ACTIONS):
            raise CommandRefused(f"find {a} runs or writes something; only searching is allowed")


def _check_sort(args: list[str]) -> None:
    for a in args:
        if _is_long_prefix(a, "output", "compress-program", "temporary-directory", "files0-from"):
            raise CommandRefused(f"sort {a} writes files or runs programs")
        for ch in _short_cluster(a):
            if ch in "oT":
                raise CommandRefused(f"sort -{ch} writes files")
            if ch in "ktS":
                break  # the rest of the cluster is this option's value


def _check_uniq(args: list[str]) -> None:
    positional, skip_next, options_done = 0, False, False
    for a in args:
        if skip_next:
            skip_next = False
        elif options_done or a == "-" or not a.startswith("-"):
            positional += 1
        elif a == "--":
            options_done = True
        elif a.startswith("--"):
            skip_next = "=" not in a and _is_long_prefix(a, "skip-fields", "skip-chars", "check-chars")
        else:
            skip_next = a[-1] in "fsw" and a[1:].isalpha()
    if positional > 1:
        raise CommandRefused("uniq with an OUTPUT file argument writes a file")


def _check_date(args: list[str]) -> None:
    takes_value = {"-d", "--date", "-f", "--file", "-r", "--reference"}
    skip_next = False
    for a in args:
        if skip_next:
            skip_next = False
        elif _is_long_prefix(a, "set") or ("s" in _short_cluster(a) and a[1] not in "dfrI"):
            raise CommandRefused("date --set changes the system clock")
        elif a in takes_value:
            skip_next = True
        elif not a.startswith(("-", "+")):
            raise CommandRefused("date with a bare argument sets the clock; use +FORMAT or -d")


def _check_git(args: list[str]) -> list[str]:
    rest = list(args)
    while rest and rest[0] == "--no-pager":
        rest.pop(0)
    if not rest or rest[0].startswith("-"):
        raise CommandRefused("git needs a read-only subcommand first (global options are not allowed)")
    sub = rest[0]
    if sub not in _GIT_READ_ONLY:
        raise CommandRefused(f"git {sub} is not read-only; allowed: {', '.join(sorted(_GIT_READ_ONLY))}")
    for a in rest[1:]:
        if _is_long_prefix(a, "output", "ext-diff", "textconv", "open-files-in-pager", "exec") or a.startswith("-O"):
            raise CommandRefused(f"git {sub} {a} writes files or runs programs")
    if sub == "branch":
        listing = any(a in ("-l", "--list") for a in rest[1:])
        for a in rest[1:]:
            if a not in _GIT_BRANCH_FLAGS and (a.startswith("-") or not listing):
                raise CommandRefused(f"git branch {a} would change branches; only listing is allowed")
    safe = ["--no-pager", "-c", "core.fsmonitor=false", "-c", "core.pager=cat", sub]
    if sub in ("diff", "show", "log"):
        safe.append("--no-ext-diff")
    return safe + rest[1:]


def _is_bsd_e_flag(args: list[str], i: int) -> bool:
    """``ps axe``: a dashless letter cluster with ``e`` prints environments."""
    a = args[i]
    follows_option = i > 0 and args[i - 1].startswith("-")
    return a.isalpha() and "e" in a and not follows_option


def _check_argv(argv: list[str]) -> list[str]:
    """Refuse or return the argv to execute (git gets safety options added)."""
    prog, args = argv[0], argv[1:]
    if "=" in prog:
        raise CommandRefused("environment assignments (VAR=value cmd) are not allowed")
    if "/" in prog or "\\" in prog:
        raise CommandRefused(f"give the program name only, not a path: {prog!r}")
    if prog not in ALLOWED_PROGRAMS:
        raise CommandRefused(f"{prog!r} is not an allowed read-only program; allowed: "
                             f"{', '.join(sorted(ALLOWED_PROGRAMS))}")
    if prog == "find":
        _check_find(args)
    elif prog == "sort":
        _check_sort(args)
    elif prog == "uniq":
        _check_uniq(args)
    elif prog == "date":
        _check_date(args)
    elif prog == "git":
        return ["git", *_check_git(args)]
    elif prog == "tree" and any("o" in _short_cluster(a) for a in args):
        raise CommandRefused("tree -o writes a file")
    elif prog == "file" and any("C" in _short_cluster(a) or _is_long_prefix(a, "compile") for a in args):
        raise CommandRefused("file -C writes a compiled magic file")
    elif prog == "ps" and any("env" in a or _is_bsd_e_flag(args, i) for i, a in enumerate(args)):
        raise CommandRefused("ps options that show other processes' environment are not allowed")
    elif prog == "hostname" and any(a not in _HOSTNAME_FLAGS for a in args):
        raise CommandRefused("hostname with arguments can rename the machine; use it bare or with -f/-s/-I")
    elif prog == "rg" and any(_is_long_prefix(a, "pre", "pre-glob") for a in args):
        raise CommandRefused("rg --pre runs a program on every file")
    return argv


def _path_candidates(args: list[str]) -> list[str]:
    """Arguments that may name files: positionals and the values of options."""
    found = []
    for a in args:
        if a in ("-", "--"):
            continue
        if a.startswith("--"):
            if "=" in a:
                found.append(a.split("=", 1)[1])
        elif a.startswith("-"):
            tail = a[2:]
            if tail.startswith("~") or ("/" in tail and len(tail) > 1):
                found.append(tail)
        else:
            found.append(a)
    return [c for c in found if c]


def _hide_secrets(argv: list[str]) -> list[str]:
    """Recursive searches skip credential files the sandbox would refuse."""
    prog, args = argv[0], argv[1:]
    if prog == "rg":
        globs = [f"--glob=!{g}" for g in (*SECRET_FILE_GLOBS, *SECRET_DIR_NAMES)]
        return [prog, *globs, *args]
    recursive = any(a in ("--recursive", "--dereference-recursive") or
                    ("r" in _short_cluster(a) or "R" in _short_cluster(a)) for a in args)
    if prog in ("grep", "egrep", "fgrep") and recursive:
        excludes = [f"--exclude={g}" for g in SECRET_FILE_GLOBS]
        excludes += [f"--exclude-dir={d}" for d in SECRET_DIR_NAMES]
        return [prog, *excludes, *args]
    return argv


def parse_command(command: str, check_path: Callable[[str], None] | None = None) -> list[list[str]]:
    """Validate a command line and return the argv of each pipeline segment.

    ``check_path(arg)`` is called for every path-like argument and should
    raise SandboxError to refuse it. Raises CommandRefused otherwise.
    """
    if not isinstance(command, str) or not command.strip():
        raise CommandRefused("empty command")
    if len(command) > 2000:
        raise CommandRefused("command is longer than 2000 characters")
    _check_text(command)
    segments = _split_pipes(command)
    if len(segments) > MAX_SEGMENTS:
        raise CommandRefused(f"at most {MAX_SEGMENTS} pipeline segments are allowed")
    pipeline = []
    for segment in segments:
        try:
            argv = shlex.split(segment, comments=False, posix=True)
        except ValueError as exc:
            raise CommandRefused(f"cannot parse {segment.strip()!r}: {exc}") from None
        if not argv:
            raise CommandRefused("empty pipeline segment (a stray '|')")
        safe = _check_argv(argv)
        if check_path is not None and argv[0] not in _NO_PATH_ARGS:
            for cand in _path_candidates(argv[1:]):
                check_path(cand)
        pipeline.append(_hide_secrets(safe))
    return pipeline


# ---------------------------------------------------------------- rate limit

class RateLimiter:
    """Sliding-window limits, e.g. 3 calls per 10 s and 10 per 60 s."""

    def __init__(self, limits: tuple[tuple[int, float], ...] = ((3, 10.0), (10, 60.0)),
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self.clock = clock
        self._calls: deque[float] = deque()

    def acquire(self) -> float:
        """Record a call and return 0, or return the seconds to wait (nothing recorded)."""
        now = self.clock()
        longest = max(window for _, window in self.limits)
        while self._calls and now - self._calls[0] >= longest:
            self._calls.popleft()
        wait = 0.0
        for count, window in self.limits:
            recent = [t for t in self._calls if now - t < window]
            if len(recent) >= count:
                wait = max(wait, recent[-count] + window - now)
        if wait <= 0:
            self._calls.append(now)
        return max(wait, 0.0)


# ---------------------------------------------------------------- execution

def _child_env() -> dict[str, str]:
    keep = ("PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR",
            "SYSTEMROOT", "COMSPEC", "PATHEXT")
    env = {k: os.environ[k] for k in keep if k in os.environ}
    env.update(PAGER="cat", GIT_PAGER="cat", GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0", TERM="dumb")
    env.setdefault("LANG", "C.UTF-8")
    return env


class _CappedReader(threading.Thread):
    """Drains a pipe, keeping the first ``cap`` bytes and counting the rest."""

    def __init__(self, stream, cap: int) -> None:
        super().__init__(daemon=True)
        self.stream, self.cap = stream, cap
        self.data = bytearray()
        self.total = 0

    def run(self) -> None:
        while True:
            chunk = self.stream.read1(65536)
            if not chunk:
                break
            self.total += len(chunk)
            if len(self.data) < self.cap:
                self.data += chunk[: self.cap - len(self.data)]

    def text(self) -> tuple[str, bool]:
        decoded = bytes(self.data).decode("utf-8", errors="replace")
        truncated = self.total > len(self.data) or len(decoded) > OUTPUT_CAP
        return decoded[:OUTPUT_CAP], truncated


def _kill(proc: subprocess.Popen) -> None:
    try:
        if sys.platform != "win32":
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.kill()
    except (ProcessLookupError, PermissionError, OSError):
        pass


def _execute(pipeline: list[list[str]], cwd: Path, timeout: int, cancel: threading.Event) -> dict:
    start = time.monotonic()
    err_read, err_write = os.pipe()
    procs: list[subprocess.Popen] = []
    prev = subprocess.DEVNULL
    try:
        for argv in pipeline:
            procs.append(subprocess.Popen(argv, cwd=cwd, env=_child_env(), stdin=prev, stdout=subprocess.PIPE,
                                          stderr=err_write, start_new_session=(sys.platform != "win32")))
            if prev is not subprocess.DEVNULL:
                prev.close()  # the next process owns it now (so SIGPIPE reaches the writer)
            prev = procs[-1].stdout
    except OSError as exc:
        for p in procs:
            _kill(p)
            p.stdout.close()
        os.close(err_read)
        return {"error": f"could not start {pipeline[len(procs)][0]}: {exc.strerror or exc}"}
    finally:
        os.close(err_write)
    out = _CappedReader(procs[-1].stdout, OUTPUT_CAP * 4)
    err = _CappedReader(os.fdopen(err_read, "rb"), OUTPUT_CAP * 4)
    out.start()
    err.start()
    timed_out = cancelled = False
    while any(p.poll() is None for p in procs):
        if time.monotonic() - start >= timeout:
            timed_out = True
        elif cancel.is_set():
            cancelled = True
        if timed_out or cancelled:
            for p in procs:
                _kill(p)
            break
        time.sleep(0.02)
    for p in procs:
        p.wait()
    out.join(2)
    err.join(2)
    stdout, out_cut = out.text()
    stderr, err_cut = err.text()
    for stream in (procs[-1].stdout, err.stream):
        stream.close()
    return {"stdout": stdout, "stderr": stderr, "return_code": procs[-1].returncode,
            "output_truncated": out_cut or err_cut, "timed_out": timed_out, "cancelled": cancelled,
            "duration_seconds": round(time.monotonic() - start, 3)}


def _error(message: str, **extra) -> dict:
    return {"status": "error", "error": message, **extra}


def _means_no_match(prog: str, run: dict) -> bool:
    """grep/rg exit 1 for "no match" and diff for "files differ": not failures."""
    return prog in ("grep", "egrep", "fgrep", "rg", "diff") and run["return_code"] == 1 \
        and not run["stderr"].strip()


def _plan(ctx: ToolContext, command: str, working_directory: Optional[str]) -> tuple[list[list[str]], Path] | str:
    """(pipeline, cwd) ready to run, or the one-line reason the command is refused."""
    try:
        cwd = resolve_user_path(ctx, working_directory) if working_directory else ctx.sandbox.check(ctx.workdir)
    except SandboxError as exc:
        return str(exc)
    if not cwd.is_dir():
        return f"working_directory {cwd} is not an existing folder"

    def check_path(arg: str) -> None:
        target = Path(os.path.expanduser(arg))
        ctx.sandbox.check(target if target.is_absolute() else cwd / target)

    try:
        pipeline = parse_command(command, check_path)
    except CommandRefused as exc:
        return f"command refused: {exc}. Only read-only commands are allowed."
    except SandboxError as exc:
        return f"command refused: {exc}"
    missing = [argv[0] for argv in pipeline if shutil.which(argv[0]) is None]
    if missing:
        return f"{missing[0]} is not installed on this machine"
    return pipeline, cwd


def policy_error(ctx: ToolContext, command: str, working_directory: Optional[str] = None) -> str | None:
    """The refusal run_shell_command would give, or None: lets an approval
    prompt skip asking the user about a command that will be refused anyway."""
    plan = _plan(ctx, command, working_directory)
    return plan if isinstance(plan, str) else None


@tool(gated=True, timeout=MAX_TIMEOUT + 30)
def run_shell_command(ctx: ToolContext, command: str, working_directory: Optional[str] = None,
                      timeout: int = 30) -> dict:
    """Run a read-only command (ls, cat, grep, find, wc, git log/diff...) and get its output.

    No shell: pipes work; ; && > < $ and globs do not.

    Args:
        command: The command line, e.g. "grep -rn TODO src | head -20".
        working_directory: Folder to run in; defaults to the working directory.
        timeout: Seconds before the command is stopped (1-120).
    """
    try:
        timeout = max(1, min(MAX_TIMEOUT, int(timeout)))
    except (TypeError, ValueError):
        return _error(f"timeout must be a number of seconds, got {timeout!r}")
    plan = _plan(ctx, command, working_directory)
    if isinstance(plan, str):
        return _error(plan, command=command)
    pipeline, cwd = plan
    limiter = ctx.state.setdefault(RATE_LIMITER_KEY, RateLimiter())
    wait = limiter.acquire()
    if wait > 0:
        return _error(f"rate limit: too many shell commands; wait {wait:.0f} s and try again",
                      command=command, retry_after_seconds=round(wait, 1))
    run = _execute(pipeline, cwd, timeout, ctx.cancel)
    if "error" in run:
        return _error(run["error"], command=command)
    result = {"status": "success", "command": command, "stdout": run["stdout"], "stderr": run["stderr"],
              "return_code": run["return_code"],
              "has_errors": (run["return_code"] != 0 and not _means_no_match(pipeline[-1][0], run))
              or bool(run["stderr"].strip()),
              "duration_seconds": run["duration_seconds"], "timeout": timeout, "cwd": str(cwd),
              "output_truncated": run["output_truncated"]}
    if run["timed_out"]:
        result.update(status="error", error=f"command timed out after {timeout} s and was stopped; "
                                            "narrow it down or raise timeout")
    elif run["cancelled"]:
        result.update(status="error", error="command was cancelled")
    elif run["return_code"] != 0 and not _means_no_match(pipeline[-1][0], run):
        first = run["stderr"].strip().splitlines()[:1]
        result.update(status="error", error=f"command exited with code {run['return_code']}"
                                            + (f": {first[0][:200]}" if first else ""))
    return result


def _precheck(ctx: ToolContext, command: str, working_directory: Optional[str] = None, **_: object) -> str | None:
    return policy_error(ctx, command, working_directory)


# The executor refuses a disallowed command before the confirmation prompt,
# so the user is never asked to approve something the policy would block.
run_shell_command.precheck = _precheck  # type: ignore[attr-defined]

TOOLS = [run_shell_command]
