"""Issue 30, items 1 (scan limit) and 5 (memory and CPU caps) of the shell's sandbox.

On main 5aec35f a sandboxed ``sort`` of a 2 GB sparse file peaked at about 2 GiB RSS,
and in a root with more than 20,000 entries the kernel mask stopped looking for
credential files, so ``git diff --no-index`` read ones past the limit. Now every
command runs under ``prlimit`` (RLIMIT_DATA 512 MiB by default, RLIMIT_CPU the
timeout), and a root too big to check is narrowed to the working folder or refused.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from gaia_lite.registry.context import ToolContext
from gaia_lite.tools import os_sandbox, shell
from gaia_lite.tools.sandbox import Sandbox
from gaia_lite.tools.shell import run_shell_command

from .conftest import make_repo, output_of

BOX = os_sandbox.detect()
NETRC = "DEEP-NETRC-CANARY-51aa"
HAS_PRLIMIT = os_sandbox.resource_limits(30) != []

# Runs the shell tool in a fresh interpreter, so that process's RUSAGE_CHILDREN peak is the command's alone.
_PEAK = """
import json, resource, sys
from pathlib import Path
from gaia_lite.registry.context import ToolContext
from gaia_lite.registry.limits import RateLimiter
from gaia_lite.tools.sandbox import Sandbox
from gaia_lite.tools.shell import run_shell_command
root = Path(sys.argv[1])
ctx = ToolContext(workdir=root, sandbox=Sandbox([root]), data_dir=root / ".d",
                  shell_limiter=RateLimiter(limits=((100, 10.0),)))
result = run_shell_command(ctx, sys.argv[2], timeout=60)
peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"result": result, "peak_mib": peak_kib / 1024}))
"""




def _peak(root: Path, command: str) -> dict:
    run = subprocess.run([sys.executable, "-c", _PEAK, str(root), command], capture_output=True, text=True,
                         timeout=300, env={**os.environ, "PYTHONPATH": os.getcwd()})
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------- memory and CPU

@pytest.mark.skipif(not HAS_PRLIMIT, reason="prlimit (util-linux) is not installed")
def test_a_memory_hog_is_cut_off_and_normal_commands_run(root, mode) -> None:
    big = root / "disk.img"
    with open(big, "wb") as f:
        f.truncate(2 << 30)  # 2 GB, sparse: one line of zeros that sort must hold whole
    hog = _peak(root, "sort disk.img")
    assert hog["peak_mib"] < 1024, hog  # was ~2048 uncapped
    assert hog["result"]["status"] == "error" and "memory exhausted" in hog["result"]["stderr"], hog["result"]
    (root / "numbers.txt").write_text("".join(f"{n}\n" for n in range(300_000, 0, -1)))  # ~2 MB
    make_repo(root / "repo")
    for command in ("sort -n numbers.txt", "grep -c 9 numbers.txt", "git log --oneline", "wc -l numbers.txt"):
        cwd = "repo" if command.startswith("git") else None
        result = run_shell_command(_ctx(root), command, working_directory=cwd)
        assert result["status"] == "success", (command, result)


@pytest.mark.skipif(not (HAS_PRLIMIT and BOX.active and Path("/usr/bin/python3").exists()),
                    reason="needs prlimit, the kernel sandbox and the system python3")
def test_python_in_the_sandbox_gets_the_cap_too(root) -> None:
    """Not an allowed program: this drives the wrapping directly, as test_shell_kernel does
    (the system python3: a virtualenv's interpreter lives outside the mounted folders)."""
    ctx = _ctx(root)
    caps = os_sandbox.resource_limits(20)
    assert isinstance(caps, list)

    def run(code: str) -> dict:
        argv = [*caps, *BOX.wrap(["/usr/bin/python3", "-c", code], ctx.sandbox.roots, root)]
        return shell._execute([argv], root, 20, threading.Event(), shell._child_env(True), ["python"])

    small = run("b = bytearray(64 << 20); print(len(b))")
    assert small["return_code"] == 0 and small["stdout"].strip() == str(64 << 20)
    hog = run("b = bytearray(900 << 20); print('allocated')")
    assert hog["return_code"] != 0 and "MemoryError" in hog["stderr"] and "allocated" not in hog["stdout"]


def test_the_memory_cap_is_configurable(monkeypatch) -> None:
    monkeypatch.setenv("GAIA_SHELL_MEMORY_MB", "1024")
    caps = os_sandbox.resource_limits(30)
    if caps:
        assert f"--data={1024 << 20}" in caps and "--cpu=35" in caps
    monkeypatch.setenv("GAIA_SHELL_MEMORY_MB", "lots")
    assert "GAIA_SHELL_MEMORY_MB='lots' is not a number" in str(os_sandbox.resource_limits(30))


def test_a_bad_memory_setting_is_one_line_and_runs_nothing(root, monkeypatch) -> None:
    monkeypatch.setenv("GAIA_SHELL_MEMORY_MB", "-5")
    result = run_shell_command(_ctx(root), "cat a.txt")
    assert result["status"] == "error" and "GAIA_SHELL_MEMORY_MB" in result["error"] and "alpha" not in str(result)


# ---------------------------------------------------------------- the kernel mask's scan limit

@pytest.fixture
def big_root(root: Path) -> Path:
    bulk = root / "bulk"
    bulk.mkdir()
    for i in range(os_sandbox.SCAN_LIMIT + 50):
        (bulk / f"f{i}").touch()
    (root / "zz" / "nested").mkdir(parents=True)  # walked last: past the limit
    (root / "zz" / "nested" / ".netrc").write_text(f"password {NETRC}\n")
    (root / "zz" / "other").mkdir()
    (root / "small").mkdir()
    (root / "small" / "x.txt").write_text("small x\n")
    return root


@pytest.mark.skipif(not BOX.active, reason=f"no OS sandbox on this machine: {BOX.reason}")
def test_past_the_scan_limit_the_mask_fails_closed(big_root) -> None:
    ctx = _ctx(big_root)
    with pytest.raises(os_sandbox.TooManyFiles, match="more than 20,000"):
        BOX.wrap(["cat", "zz/nested/.netrc"], ctx.sandbox.roots, big_root)
    # From a small working folder only that folder is mounted: nothing past the limit exists.
    small = big_root / "small"
    for argv in (["cat", "../zz/nested/.netrc"], ["git", "diff", "--no-index", "../zz/nested", "../zz/other"],
                 ["sh", "-c", f"cat {big_root}/zz/nested/.netrc; grep -r NETRC {big_root}"]):
        run = shell._execute([BOX.wrap(argv, ctx.sandbox.roots, small)], small, 20, threading.Event(),
                             shell._child_env(True), [argv[0]])
        assert NETRC not in run["stdout"] + run["stderr"], argv
    assert "small x" in run_shell_command(ctx, "cat x.txt", working_directory="small")["stdout"]


@pytest.mark.skipif(not BOX.active, reason=f"no OS sandbox on this machine: {BOX.reason}")
def test_the_shell_tool_says_why_it_refuses_a_root_too_big(big_root) -> None:
    result = run_shell_command(_ctx(big_root), "grep -r NETRC .")
    assert result["status"] == "error" and "too many to check" in result["error"]
    assert NETRC not in output_of(result)


def _ctx(root: Path) -> ToolContext:
    from gaia_lite.registry.limits import RateLimiter

    return ToolContext(workdir=root, sandbox=Sandbox([root]), data_dir=root / ".gaia-data",
                       shell_limiter=RateLimiter(limits=((10_000, 10.0),)))
