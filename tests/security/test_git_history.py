"""Issue 30, item 1 (git): history, objects and ``--no-index`` go through the same checks as a read.

On main 5aec35f ``find .git/objects -type f`` then ``git show <sha>`` printed committed
credential files the path checks refuse by name; ``git log -p --full-diff`` showed them
beside an allowed path; ``git diff --no-index`` walked into ``nested/.netrc``; and with
``GAIA_SHELL_SANDBOX=off`` a partial clone's lazy fetch opened TCP connections and
``ps -p<pid> e`` printed the agent's API keys. Every test runs real git on real
repositories through run_shell_command, with the kernel sandbox and with the policy alone.
"""

from __future__ import annotations

import os
import socket
import threading
from pathlib import Path

import pytest

from gaia_lite.tools import shell
from gaia_lite.tools.shell import run_shell_command

from .conftest import git, make_repo, output_of

NETRC = "NETRC-CANARY-7c1d"
AWS = "AWS-CANARY-2b9e"
TOKEN = "TOKENFILE-CANARY-4f0a"
CANARIES = (NETRC, AWS, TOKEN)




@pytest.fixture
def repo(root: Path) -> Path:
    """Credential files committed, then deleted: they live on only in history and objects."""
    repo = make_repo(root / "repo")
    (repo / ".netrc").write_text(f"machine example.com login me password {NETRC}\n")
    (repo / ".aws").mkdir()
    (repo / ".aws" / "credentials").write_text(f"[default]\naws_secret = {AWS}\n")
    (repo / "token.txt").write_text(f"{TOKEN}\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "add config")
    git(repo, "tag", "netrc-blob", git(repo, "rev-parse", "HEAD:.netrc").strip())  # a tag that names a blob
    git(repo, "rm", "-rq", ".netrc", ".aws", "token.txt")
    (repo / "tracked.txt").write_text("one\ntwo\n")
    git(repo, "commit", "-qam", "remove config")
    return repo


def _shell(ctx, command: str) -> dict:
    return run_shell_command(ctx, command, working_directory="repo")


def _clean(result: dict) -> bool:
    return not any(c in output_of(result) for c in CANARIES)


def test_objects_found_under_git_objects_cannot_be_shown(ctx, repo, mode) -> None:
    listing = _shell(ctx, "find .git/objects -type f")
    assert listing["status"] == "success"
    shas = [p.split("/")[-2] + p.split("/")[-1] for p in listing["stdout"].split() if "/objects/" in p
            and len(p.split("/")[-2]) == 2]
    assert len(shas) >= 6, listing["stdout"]  # the attack has its material
    for sha in shas:
        for command in (f"git show {sha}", f"git diff {sha} {sha}", f"git log -p {sha}", f"git grep x {sha}",
                        f"git show {sha[:12]}"):
            result = _shell(ctx, command)
            assert _clean(result), (command, result)


@pytest.mark.parametrize("command", [
    "git log -p", "git log -p --all", "git log -p --all -- .", "git show HEAD~1", "git show HEAD~1 --stat -p",
    "git diff HEAD~1 HEAD", "git diff HEAD HEAD~1", "git log -p --full-diff -- tracked.txt",
    "git show netrc-blob", "git show HEAD~1:.netrc", "git show HEAD~1:.aws/credentials",
    "git show HEAD~1:token.txt", "git show HEAD~1:./.netrc", "git log -p -- .netrc", "git grep -e aws -e password HEAD~1",
    "git diff HEAD~1:.aws HEAD:.", "git blame HEAD~1 -- .netrc", "git cat-file -p HEAD~1:.netrc",
])
def test_history_of_credential_files_is_not_shown(ctx, repo, mode, command) -> None:
    assert _clean(_shell(ctx, command))


def test_ordinary_history_still_reads(ctx, repo, mode) -> None:
    assert "two" in _shell(ctx, "git show HEAD:tracked.txt")["stdout"]
    assert "remove config" in _shell(ctx, "git log --oneline")["stdout"]
    assert "+two" in _shell(ctx, "git log -p -- tracked.txt")["stdout"]
    result = _shell(ctx, "git show HEAD --stat")
    assert result["status"] == "success" and "tracked.txt" in result["stdout"]


# ---------------------------------------------------------------- git diff --no-index

def test_no_index_paths_get_the_checks_of_a_plain_read(ctx, root, mode) -> None:
    (root / "nested").mkdir()
    (root / "nested" / ".netrc").write_text(f"password {NETRC}\n")
    (root / "nested" / "notes.txt").write_text("a\n")
    (root / "other").mkdir()
    (root / "other" / "notes.txt").write_text("b\n")
    for command in ("git diff --no-index nested other", "git diff --no-index other nested",
                    "git diff --no-index nested/.netrc a.txt", "git diff --no-index -- a.txt nested/.netrc",
                    "git diff --no-index --stat -p nested other"):
        result = run_shell_command(ctx, command)
        assert result["status"] == "error" and NETRC not in output_of(result), (command, result)
    result = run_shell_command(ctx, "git diff --no-index other/notes.txt nested/notes.txt")
    assert "-b" in result["stdout"] and "+a" in result["stdout"]


# ---------------------------------------------------------------- the policy alone (GAIA_SHELL_SANDBOX=off)

def test_a_partial_clone_opens_no_connection(ctx, root, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("GAIA_SHELL_SANDBOX", "off")
    server = make_repo(tmp_path / "server")
    git(server, "config", "uploadpack.allowFilter", "true")
    git(root, "clone", "-q", "--filter=blob:none", "--no-checkout", f"file://{server}", "part")
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.settimeout(0.2)
    git(root / "part", "config", "remote.origin.url", f"git://127.0.0.1:{listener.getsockname()[1]}/server")
    accepted: list[object] = []
    stop = threading.Event()

    def count() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            accepted.append(conn)
            conn.close()

    counter = threading.Thread(target=count, daemon=True)
    counter.start()
    try:
        for command in ("git show HEAD:tracked.txt", "git log -p", "git grep one HEAD", "git diff HEAD~0 --stat"):
            run_shell_command(ctx, command, working_directory="part")
    finally:
        stop.set()
        counter.join(2)
        listener.close()
    assert accepted == []


def test_ps_cannot_print_the_agents_environment(ctx, monkeypatch) -> None:
    monkeypatch.setenv("GAIA_SHELL_SANDBOX", "off")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-AGENTKEY-CANARY-0f3e")  # the agent's own key
    pid = os.getpid()
    for command in (f"ps -p{pid} e", f"ps -p {pid} e", f"ps e -p {pid}", f"ps -p{pid} ewww", f"ps axe",
                    f"ps --pid {pid} e", f"ps -p{pid} -o environ", f"ps eo pid,args -p {pid}"):
        result = run_shell_command(ctx, command)
        assert "AGENTKEY-CANARY" not in output_of(result), command
        assert result["status"] == "error" and result["error"].startswith("command refused"), command
    assert run_shell_command(ctx, f"ps -p {pid} -o pid,comm")["status"] == "success"


def test_children_never_carry_the_agents_keys(monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-AGENTKEY-CANARY-0f3e")
    monkeypatch.setenv("GAIA_API_KEY", "AGENTKEY-CANARY-2")
    for confined in (True, False):
        assert "AGENTKEY-CANARY" not in str(shell._child_env(confined, {"GIT_DIR": "/x"}))
