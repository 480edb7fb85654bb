"""Real MCP servers for the tests: mcp-server-time and mcp-server-git from PyPI (installed by
scripts/setup.sh), and the judged-set fixture server (gaia_lite/eval/mcp_fixture.py)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from gaia_lite.config import McpServer
from gaia_lite.mcp.connection import resolve_command

REPO = Path(__file__).resolve().parents[2]


def installed(command: str) -> str:
    found = resolve_command(command)
    if found is None:
        pytest.fail(f"{command} is not installed: run scripts/setup.sh (the mcp-servers extra)")
    return found


@pytest.fixture
def time_server() -> McpServer:
    return McpServer("time", command=installed("mcp-server-time"), args=("--local-timezone", "Europe/Paris"))


@pytest.fixture
def git_repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path)


def make_repo(tmp_path: Path) -> Path:
    """A git repository with one commit and one unstaged change."""
    import subprocess

    repo = tmp_path / "repo"
    repo.mkdir()
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True, env=env)
    (repo / "notes.md").write_text("first line\n")
    subprocess.run(["git", "-C", str(repo), "add", "notes.md"], check=True, env=env)
    subprocess.run(["git", "-C", str(repo), "commit", "-q", "-m", "add the notes"], check=True, env=env)
    (repo / "notes.md").write_text("first line\nsecond line\n")
    return repo


@pytest.fixture
def git_server(git_repo: Path) -> McpServer:
    return McpServer("git", command=installed("mcp-server-git"), args=("--repository", str(git_repo)))


@pytest.fixture
def small_set(tmp_path: Path) -> Path:
    """A judged set with three tools in the evaldata format (one with a name MCP-hostile characters)."""
    tools = [
        {"name": "get_weather", "description": "Get the weather forecast for a city.",
         "parameters": {"type": "dict", "properties": {"city": {"type": "string", "description": "The city."},
                                                        "days": {"type": "integer", "description": "Days ahead."}},
                        "required": ["city"]}},
        {"name": "book.flight-now", "description": "Book a flight between two airports.",
         "parameters": {"type": "object", "properties": {"origin": {"type": "string"},
                                                          "destination": {"type": "string"}}}},
        {"name": "slow_tool", "description": "A tool that never answers.", "parameters": {}},
    ]
    path = tmp_path / "small_set.json"
    path.write_text(json.dumps({"tools": tools, "cases": []}))
    return path


def fixture_server(name: str, dataset: Path, *extra: str, timeout: float = 60.0) -> McpServer:
    """The judged-set fixture server, run with this Python."""
    return McpServer(name, command=sys.executable, args=("-m", "gaia_lite.eval.mcp_fixture", str(dataset), *extra),
                     cwd=str(REPO), timeout=timeout)


def server_children(pattern: str) -> list[int]:
    """Live (not zombie) processes whose parent is this test process and whose command line has ``pattern``."""
    return [pid for pid, ppid, state, cmd in _processes() if ppid == os.getpid() and pattern in cmd and state != "Z"]


def alive(pid: int) -> bool:
    """Running and not a zombie (a killed child nobody reaped yet is gone for our purposes)."""
    return any(p == pid and state != "Z" for p, _, state, _ in _processes())


def _processes() -> list[tuple[int, int, str, str]]:
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        out.append((int(entry.name), int(fields[1]), fields[0], cmd))
    return out
