"""run_shell_command: read-only commands, run as argv lists without a shell.

The policy (``shell_policy``) is checked before the user is asked to
approve (the tool is gated) and again before running. Pipes are built by
chaining ``Popen`` processes; nothing is ever given to a shell, so there is
no expansion of ``~`` or variables. Bare globs (``ls -l *.log``) are expanded
here, as a shell would, to the names inside the allowed folders only
(``_glob``); the policy then judges the expanded command.
"""

from __future__ import annotations

import glob
import logging
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Optional

from gaia_lite.registry.context import ToolContext
from gaia_lite.registry.limits import RateLimiter
from gaia_lite.registry.spec import tool
from gaia_lite.registry.failure import error_payload

from . import os_sandbox
from .sandbox import SandboxError, SecretPathError, is_secret_path, resolve_user_path, secret_name_rule
from .shell_git import prepare_git
from .shell_policy import ALLOWED_PROGRAMS, CommandRefused, parse_command

# CommandRefused, parse_command and ALLOWED_PROGRAMS live in shell_policy, RateLimiter in the registry
# (the context holds one per agent); all are re-exported: callers imported them from here.
__all__ = ["TOOLS", "run_shell_command", "CommandRefused", "parse_command", "policy_error", "RateLimiter",
           "ALLOWED_PROGRAMS", "OUTPUT_CAP"]

OUTPUT_CAP = 10_000          # characters kept of stdout and of stderr
MAX_TIMEOUT = 120
log = logging.getLogger(__name__)


# ---------------------------------------------------------------- execution

def _child_env(confined: bool, extra: dict[str, str] | None = None) -> dict[str, str]:
    keep = ("PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR",
            "SYSTEMROOT", "COMSPEC", "PATHEXT")
    env = {k: os.environ[k] for k in keep if k in os.environ}
    env.update(PAGER="cat", GIT_PAGER="cat", GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0", TERM="dumb",
               GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull)
    if confined:  # inside the OS sandbox only the private /tmp exists of the user's world
        env.update(HOME="/tmp", TMPDIR="/tmp")
    env.setdefault("LANG", "C.UTF-8")
    env.update(extra or {})
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


def _execute(pipeline: list[list[str]], cwd: Path, timeout: int, cancel: threading.Event,
             env: dict[str, str], names: list[str]) -> dict:
    """Run argv lists as a pipeline (already wrapped by the OS sandbox, if any);
    ``names`` are the programs' names for messages."""
    start = time.monotonic()
    err_read, err_write = os.pipe()
    procs: list[subprocess.Popen] = []
    prev = subprocess.DEVNULL
    try:
        for argv in pipeline:
            procs.append(subprocess.Popen(argv, cwd=cwd, env=env, stdin=prev, stdout=subprocess.PIPE,
                                          stderr=err_write, start_new_session=(sys.platform != "win32")))
            if prev is not subprocess.DEVNULL:
                prev.close()  # the next process owns it now (so SIGPIPE reaches the writer)
            prev = procs[-1].stdout
    except OSError as exc:
        for p in procs:
            _kill(p)
            p.stdout.close()
        os.close(err_read)
        return {"error": f"could not start {names[len(procs)]}: {exc.strerror or exc}"}
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


def _means_no_match(argv: list[str], run: dict) -> bool:
    """grep/rg exit 1 for "no match" and diff for "files differ": not failures."""
    prog = argv[0]
    if prog == "git":
        prog = next((a for a in argv[1:] if a in ("grep", "diff")), "git")
    return prog in ("grep", "egrep", "fgrep", "rg", "diff") and run["return_code"] == 1 \
        and not run["stderr"].strip()


def _plan(ctx: ToolContext, command: str, working_directory: Optional[str]
          ) -> tuple[list[list[str]], Path, dict[str, str]] | str:
    """(pipeline, cwd, extra env) ready to run, or the one-line reason the command is refused."""
    try:
        cwd = resolve_user_path(ctx, working_directory) if working_directory else ctx.sandbox.check(ctx.workdir)
    except SandboxError as exc:
        return str(exc)
    if not cwd.is_dir():
        return f"working_directory {cwd} is not an existing folder"

    def check_path(arg: str) -> None:
        target = Path(os.path.expanduser(arg))
        target = target if target.is_absolute() else cwd / target
        try:
            ctx.sandbox.check(target)
        except SecretPathError:
            # A bare word like API_TOKEN or password that names no file is a search pattern
            # (grep -rn API_TOKEN .), not a path: there is nothing to read. Names that only ever
            # mean a credential file (.env, id_rsa) stay refused, as do paths.
            if os.path.lexists(target) or "/" in arg or secret_name_rule(arg) != "broad":
                raise

    try:
        pipeline = parse_command(command, check_path, lambda pattern: _glob(ctx, pattern, cwd))
    except CommandRefused as exc:
        return f"command refused: {exc}. Only read-only commands are allowed."
    except SandboxError as exc:
        return f"command refused: {exc}"
    missing = [argv[0] for argv in pipeline if shutil.which(argv[0]) is None]
    if missing:
        return f"{missing[0]} is not installed on this machine"
    extra: dict[str, str] = {}
    for i, argv in enumerate(pipeline):
        if argv[0] == "git":
            git = prepare_git(argv, cwd, ctx.sandbox)
            if isinstance(git, str):
                return f"command refused: {git}"
            pipeline[i], env = git
            extra.update(env)
    return pipeline, cwd, extra


MAX_GLOB_MATCHES = 500


def _glob(ctx: ToolContext, pattern: str, cwd: Path) -> list[str]:
    """The names a bare glob stands for, as a shell would give them (sorted, no hidden files unless the
    pattern starts them with a dot), keeping only those inside the allowed folders and not credential
    files: a pattern aimed elsewhere finds nothing and is passed on as written, for the path check to
    refuse. The folder a pattern starts in is checked before it is listed, so nothing outside is read."""
    fixed = os.path.dirname(re.split(r"[*?\[]", pattern, maxsplit=1)[0])  # "logs/app*.log" starts in logs
    if not _inside(ctx, cwd / os.path.expanduser(fixed)):  # an absolute folder replaces cwd
        return []
    matches = sorted(glob.glob(os.path.expanduser(pattern), root_dir=cwd))
    if len(matches) > MAX_GLOB_MATCHES:
        raise CommandRefused(f"{pattern} matches more than {MAX_GLOB_MATCHES} files; narrow the pattern")
    kept = [m for m in matches if _inside(ctx, Path(m) if Path(m).is_absolute() else cwd / m)]
    return [f"./{m}" if m.startswith("-") else m for m in kept]  # a file named "-o" is not an option


def _inside(ctx: ToolContext, path: Path) -> bool:
    """Inside the allowed (or approved) folders and not a credential file; never asks the user."""
    try:
        resolved = path.resolve(strict=False)
    except (OSError, RuntimeError):
        return False
    folders = [*ctx.sandbox.roots, *ctx.sandbox.approved]
    return not is_secret_path(resolved) and any(resolved == f or f in resolved.parents for f in folders)


def policy_error(ctx: ToolContext, command: str, working_directory: Optional[str] = None) -> str | None:
    """The refusal run_shell_command would give, or None: lets an approval
    prompt skip asking the user about a command that will be refused anyway."""
    plan = _plan(ctx, command, working_directory)
    return plan if isinstance(plan, str) else None


@tool(gated=True, timeout=MAX_TIMEOUT + 30)
def run_shell_command(ctx: ToolContext, command: str, working_directory: Optional[str] = None,
                      timeout: int = 30) -> dict:
    """Run a read-only command (ls, cat, grep, find, wc, git log/diff...) and get its output.

    No shell: pipes and globs (*.log) work; ; && > < $ do not.

    Args:
        command: The command line, e.g. "grep -rn TODO src | head -20".
        working_directory: Folder to run in; defaults to the working directory.
        timeout: Seconds before the command is stopped (1-120).
    """
    try:
        timeout = max(1, min(MAX_TIMEOUT, int(timeout)))
    except (TypeError, ValueError):
        return error_payload(f"timeout must be a number of seconds, got {timeout!r}")
    plan = _plan(ctx, command, working_directory)
    if isinstance(plan, str):
        return error_payload(plan, command=command)
    pipeline, cwd, extra_env = plan
    wait = ctx.shell_limiter.acquire()
    if wait > 0:
        return error_payload(f"rate limit: too many shell commands; wait {wait:.0f} s and try again",
                             command=command, retry_after_seconds=round(wait, 1))
    box = os_sandbox.detect()
    _notice_once(ctx, box)
    roots = [*ctx.sandbox.roots, *ctx.sandbox.approved]
    caps = os_sandbox.resource_limits(timeout)
    if isinstance(caps, str):
        return error_payload(caps, command=command)
    try:
        wrapped = [[*caps, *box.wrap(argv, roots, cwd)] for argv in pipeline]
    except os_sandbox.TooManyFiles as exc:
        return error_payload(f"command refused: {exc}", command=command)
    run = _execute(wrapped, cwd, timeout, ctx.cancel, _child_env(box.active, extra_env),
                   [argv[0] for argv in pipeline])
    if "error" in run:
        return error_payload(run["error"], command=command)
    # the count of what was printed, said: "count the .log files with a shell command" ran "ls -l *.log", and the
    # 0.5B answered with the two lines instead of "2" (test split)
    printed = sum(1 for line in run["stdout"].splitlines() if line.strip())
    result = {"status": "success", "command": command, "stdout": run["stdout"], "stdout_lines": printed,
              "stderr": run["stderr"],
              "return_code": run["return_code"],
              "has_errors": (run["return_code"] != 0 and not _means_no_match(pipeline[-1], run))
              or bool(run["stderr"].strip()),
              "duration_seconds": run["duration_seconds"], "timeout": timeout, "cwd": str(cwd),
              "output_truncated": run["output_truncated"]}
    if run["timed_out"]:
        result.update(status="error", error=f"command timed out after {timeout} s and was stopped; "
                                            "narrow it down or raise timeout")
    elif run["cancelled"]:
        result.update(status="error", error="command was cancelled")
    elif run["return_code"] != 0 and not _means_no_match(pipeline[-1], run):
        first = run["stderr"].strip().splitlines()[:1]
        result.update(status="error", error=f"command exited with code {run['return_code']}"
                                            + (f": {first[0][:200]}" if first else ""))
    return result


def _notice_once(ctx: ToolContext, box: os_sandbox.OsSandbox) -> None:
    """Without a kernel sandbox, say so once per session (a WARNING becomes a chat notice)."""
    if not box.active and ctx.shell_notice.claim():
        log.warning(os_sandbox.status_line(box))


def _precheck(ctx: ToolContext, command: str, working_directory: Optional[str] = None, **_: object) -> str | None:
    return policy_error(ctx, command, working_directory)


# The executor refuses a disallowed command before the confirmation prompt,
# so the user is never asked to approve something the policy would block.
run_shell_command.precheck = _precheck  # type: ignore[attr-defined]

TOOLS = [run_shell_command]
