"""Class 1, second line of defence: the kernel sandbox alone, with the argv policy OFF.

Every command here would be refused by the read-only policy; these tests hand
the raw argv straight to the OS sandbox (the same wrapping and execution code
run_shell_command uses) to show the attack fails even if the policy had a
hole: outside files do not exist, credentials inside the root are empty,
nothing can be written but a private /tmp, there is no network, and host
processes are invisible.
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
import uuid
from pathlib import Path

import pytest

from gaia_lite.registry.context import ToolContext
from gaia_lite.tools import os_sandbox, shell

from .conftest import ENV_SECRET, KEY_SECRET, SECRET, git, make_repo

BOX = os_sandbox.detect()
pytestmark = pytest.mark.skipif(not BOX.active, reason=f"no OS sandbox on this machine: {BOX.reason}")


def unpoliced(ctx: ToolContext, *argv: str, cwd: Path | None = None) -> dict:
    """Run argv in the OS sandbox exactly as the shell tool does, skipping the argv policy."""
    where = cwd or ctx.workdir
    roots = [*ctx.sandbox.roots]
    return shell._execute([BOX.wrap(list(argv), roots, where)], where, 20, threading.Event(),
                          shell._child_env(True), [argv[0]])


def shown(run: dict) -> str:
    return run.get("stdout", "") + run.get("stderr", "") + run.get("error", "")


# ---------------------------------------------------------------- reading outside the root

@pytest.mark.parametrize("argv", [
    ("cat", "{o}/secret.txt"),
    ("date", "-f", "{o}/secret.txt"),                 # an option that takes a file
    ("head", "-n", "5", "{o}/secret.txt"),
    ("grep", "-r", "SECRET", "{o}"),
    ("sort", "{o}/secret.txt"),
    ("cat", "{o}/home/.ssh/id_rsa"),
    ("sh", "-c", "cat {o}/*"),
], ids=["cat", "date-f", "head", "grep-r", "sort", "ssh-key", "shell-glob"])
def test_files_outside_the_root_do_not_exist(ctx, outside, argv) -> None:
    run = unpoliced(ctx, *(a.format(o=outside) for a in argv))
    assert SECRET not in shown(run)
    assert run["return_code"] != 0


def test_a_symlink_out_of_the_root_leads_nowhere(ctx, root, outside) -> None:
    (root / "link").symlink_to(outside)
    for argv in (["cat", "link/secret.txt"], ["grep", "-R", "SECRET", "."], ["find", "-L", ".", "-name", "*.txt"]):
        run = unpoliced(ctx, *argv)
        assert SECRET not in shown(run) and "secret.txt" not in run["stdout"], argv


def test_home_is_not_mounted(ctx, outside, monkeypatch) -> None:
    monkeypatch.setenv("HOME", str(outside / "home"))
    run = unpoliced(ctx, "sh", "-c", f"cat ~/.ssh/id_rsa {outside}/home/.ssh/id_rsa")
    assert SECRET not in shown(run) and run["return_code"] != 0


@pytest.mark.parametrize("path", ["/etc/shadow", "/etc/gshadow", "/etc/hosts", "/var/log"])
def test_system_files_outside_the_allow_list_are_not_mounted(ctx, path) -> None:
    if not os.path.exists(path):
        pytest.skip(f"{path} does not exist on this machine, so its absence proves nothing")
    run = unpoliced(ctx, "ls", "-la", path) if os.path.isdir(path) else unpoliced(ctx, "cat", path)
    assert run["return_code"] != 0 and run["stdout"] == ""


# ---------------------------------------------------------------- credentials inside the root

@pytest.mark.parametrize("argv", [
    ("cat", ".env"),
    ("grep", "-r", "SECRET", "."),
    ("grep", "-r", "--include=.en?", "SECRET", "."),     # a glob aimed past the exclusions
    ("cat", ".ssh/id_rsa"),
    ("sh", "-c", "cat .e*"),
], ids=["cat-env", "grep-r", "glob-include", "ssh-dir", "shell-glob"])
def test_credentials_inside_the_root_are_hidden(ctx, argv) -> None:
    run = unpoliced(ctx, *argv)
    assert ENV_SECRET not in shown(run) and KEY_SECRET not in shown(run)


# ---------------------------------------------------------------- writing

@pytest.mark.parametrize("argv", [
    ("touch", "{r}/canary"),
    ("sh", "-c", "echo pwned > {r}/canary"),
    ("sort", "-o", "{r}/canary", "{r}/a.txt"),
    ("find", "{r}", "-maxdepth", "0", "-fprint", "{r}/canary"),
    ("cp", "{r}/a.txt", "{r}/canary"),
    ("touch", "{o}/canary"),
    ("tree", "-o", "{r}/canary", "{r}"),
], ids=["touch", "sh-redirect", "sort-o", "find-fprint", "cp", "outside", "tree-o"])
def test_nothing_can_be_written(ctx, root, outside, argv) -> None:
    if shutil.which(argv[0]) is None:
        pytest.skip(f"{argv[0]} is not installed (scripts/ci-apt.sh installs it)")
    run = unpoliced(ctx, *(a.format(r=root, o=outside) for a in argv))
    assert run["return_code"] != 0
    assert not (root / "canary").exists() and not (outside / "canary").exists()


def test_existing_files_cannot_be_changed_or_removed(ctx, root) -> None:
    for argv in (["rm", "-f", "a.txt"], ["sh", "-c", "echo x >> a.txt"], ["mv", "a.txt", "b.txt"]):
        assert unpoliced(ctx, *argv)["return_code"] != 0
    assert (root / "a.txt").read_text() == "alpha\nbeta\ngamma\n"


def test_tmp_is_private_and_writable(ctx) -> None:
    name = f"/tmp/gaia-canary-{uuid.uuid4().hex}"
    run = unpoliced(ctx, "sh", "-c", f"echo x > {name} && cat {name}")
    assert run["return_code"] == 0 and run["stdout"] == "x\n"
    assert not Path(name).exists()  # it never reached the host's /tmp


# ---------------------------------------------------------------- git

def test_git_cannot_discover_a_parent_repository(ctx, tmp_path) -> None:
    parent = make_repo(tmp_path / "parent", message=SECRET)
    inner = parent / "project"
    inner.mkdir()
    (inner / "x.txt").write_text("x\n")
    inner_ctx = ToolContext(workdir=inner, sandbox=type(ctx.sandbox)([inner]), data_dir=inner / ".d")
    run = unpoliced(inner_ctx, "git", "log")
    assert SECRET not in shown(run) and run["return_code"] != 0


def test_git_file_pointing_outside_fails(ctx, root, outside) -> None:
    make_repo(outside / "real", message=SECRET)
    (root / "checkout").mkdir()
    (root / "checkout" / ".git").write_text(f"gitdir: {outside}/real/.git\n")
    run = unpoliced(ctx, "git", "log", cwd=root / "checkout")
    assert SECRET not in shown(run) and run["return_code"] != 0


def _hostile_repo(root: Path, outside: Path) -> Path:
    """A cloned repository whose own config runs a program on diff, status and checkout."""
    repo = make_repo(root / "clone")
    (repo / ".gitattributes").write_text("*.txt filter=evil diff=evil\n")
    hook = f"sh -c 'cat {outside}/secret.txt; touch {root}/canary {outside}/canary; cat'"
    git(repo, "config", "filter.evil.clean", hook)
    git(repo, "config", "filter.evil.smudge", hook)
    git(repo, "config", "diff.evil.textconv", hook.replace("; cat'", "; cat \"$0\"'"))
    git(repo, "config", "core.fsmonitor", f"touch {root}/canary")
    (repo / "tracked.txt").write_text("two\n")
    os.utime(repo / "tracked.txt", (0, 0))
    return repo


@pytest.mark.parametrize("sub", [["status"], ["diff"], ["log", "-p"], ["show"], ["blame", "tracked.txt"]])
def test_repository_config_commands_are_contained(ctx, root, outside, sub) -> None:
    repo = _hostile_repo(root, outside)
    run = unpoliced(ctx, "git", *sub, cwd=repo)
    assert SECRET not in shown(run)
    assert not (root / "canary").exists() and not (outside / "canary").exists()


# ---------------------------------------------------------------- network and processes

def test_no_network(ctx) -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        server.settimeout(0.5)
        port = server.getsockname()[1]
        run = unpoliced(ctx, "bash", "-c", f"echo hi > /dev/tcp/127.0.0.1/{port}")
        with pytest.raises(socket.timeout):
            server.accept()
    assert run["return_code"] != 0


def test_host_processes_are_invisible(ctx, monkeypatch) -> None:
    run = unpoliced(ctx, "sh", "-c", f"cat /proc/{os.getpid()}/environ; kill -0 {os.getpid()}")
    assert run["return_code"] != 0 and "PATH=" not in run["stdout"]
