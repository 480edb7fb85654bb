"""Issue 30, item 3: MCP names and descriptions fit the wire, and a noisy server is one warning.

Attacks, each through a real MCP server process (the judged-set fixture server from
gaia_lite/eval/mcp_fixture.py) and the real ``gaia-lite ask``, against the SCRIPTED FAKE OpenAI server:
- a 200-character tool name (on 5aec35f sent as a 206-character function name; OpenAI-style servers
  allow 64 of ``[A-Za-z0-9_-]``), and two long names that share their first 100 characters;
- a 100 KB tool description and a 50 KB parameter description (sent whole on 5aec35f);
- a server that prints 150 lines of garbage on stdout before the handshake and more after each
  message (3,200 lines and 150 tracebacks on stderr on 5aec35f).
Evidence checked absent: a function name over 64 characters or outside the alphabet, a description
over the cap in the request, a traceback or more than one warning on stderr; and the call still
reaches the server under the tool's real name.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gaia_lite.mcp.tools import local_names
from tests.fakes.openai_server import FakeOpenAIServer, text_chunks, tool_call_chunks
from tests.hang import HANG_GUARD_S

pytestmark = pytest.mark.network

REPO = Path(__file__).resolve().parents[2]
LONG = "fetch_" + "very_long_segment_" * 11   # 204 characters
LONG_TWIN = LONG + "_twin"
WIRE_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")

# A proxy in front of the fixture server: garbage on stdout before the handshake, and after every
# message the server sends; the server's own lines pass through whole.
NOISY = '''
import subprocess, sys, threading
child = subprocess.Popen([sys.executable, "-m", "gaia_lite.eval.mcp_fixture", *sys.argv[1:]],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE)
def pump_in():
    for line in sys.stdin.buffer:
        child.stdin.write(line); child.stdin.flush()
    child.stdin.close()
threading.Thread(target=pump_in, daemon=True).start()
out = sys.stdout.buffer
for i in range(150):
    out.write(b"starting up... %d {not json\\n" % i)
out.flush()
for line in child.stdout:
    out.write(line)
    for i in range(20):
        out.write(b"debug: handled a message %d\\n" % i)
    out.flush()
'''


def tool_set(folder: Path) -> Path:
    tools = [
        {"name": LONG, "description": "Fetch a page. " + "Lorem ipsum dolor sit amet. " * 3700,
         "parameters": {"type": "object", "properties": {"url": {"type": "string",
                                                                  "description": "The address. " + "x" * 50_000}}}},
        {"name": LONG_TWIN, "description": "The twin.", "parameters": {"type": "object", "properties": {}}},
        {"name": "ping", "description": "Answer pong.", "parameters": {"type": "object", "properties": {}}},
    ]
    path = folder / "set.json"
    path.write_text(json.dumps({"tools": tools, "cases": []}))
    return path


def ask(home: Path, command: list[str], script: list, *args: str) -> tuple[subprocess.CompletedProcess, list]:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        f"[mcp.servers.junk]\ncommand = {json.dumps(command[0])}\nargs = {json.dumps(command[1:])}\n"
        f"cwd = {json.dumps(str(REPO))}\ntrust = \"always\"\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GAIA_", "LEMONADE_"))}
    env.update(GAIA_HOME=str(home), GAIA_AUTO_START_SERVER="0", GAIA_MCP_WAIT="120")
    with FakeOpenAIServer() as srv:
        srv.script.extend(script)
        run = subprocess.run([sys.executable, "-m", "gaia_lite", "ask", "--base-url", srv.base_url, "--native-tools",
                              "--no-dynamic-tools", "--json", *args, "fetch the page"], capture_output=True,
                             text=True, env=env, timeout=HANG_GUARD_S, stdin=subprocess.DEVNULL, cwd=REPO)
        return run, list(srv.requests)


class TestMcpNamesAndDescriptionsFitTheWire:
    def test_names_are_short_unique_stable_and_descriptions_capped(self, tmp_path: Path) -> None:
        wire = f"junk__{local_names('junk', [LONG, LONG_TWIN, 'ping'])[LONG]}"
        run, requests = ask(tmp_path / "home", [sys.executable, "-m", "gaia_lite.eval.mcp_fixture",
                                                str(tool_set(tmp_path))],
                            [tool_call_chunks(wire, {"url": "https://example.org"}), text_chunks("Fetched.")])
        assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
        sent = [t["function"] for t in requests[0]["tools"]]
        names = [f["name"] for f in sent if f["name"].startswith("junk__")]
        assert len(names) == 3 and len(set(names)) == 3
        assert all(WIRE_NAME.fullmatch(n) for n in names), names
        assert wire in names
        long_fn = next(f for f in sent if f["name"] == wire)
        assert len(long_fn["description"]) <= 1000
        assert len(long_fn["parameters"]["properties"]["url"]["description"]) <= 300
        assert len(json.dumps(requests[0])) < 40_000  # the 150 KB of descriptions did not go out
        # the call reached the server under the tool's real name
        assert json.loads(run.stdout)["tools_called"] == [wire]
        tool_reply = next(m for m in requests[1]["messages"] if m["role"] == "tool")
        assert LONG in tool_reply["content"] and LONG_TWIN not in tool_reply["content"]

    def test_the_mapping_is_stable_across_list_orders(self) -> None:
        one = local_names("junk", [LONG, LONG_TWIN, "ping"])
        two = local_names("junk", ["ping", LONG_TWIN, LONG])
        assert one == two and len({*one.values()}) == 3


class TestStrayServerOutputIsOneWarning:
    def test_garbage_on_stdout_before_and_after_the_handshake(self, tmp_path: Path) -> None:
        proxy = tmp_path / "noisy_server.py"
        proxy.write_text(NOISY)
        home = tmp_path / "home"
        run, _ = ask(home, [sys.executable, str(proxy), str(tool_set(tmp_path))],
                     [tool_call_chunks("junk__ping", {}), text_chunks("pong it is.")])
        assert run.returncode == 0, run.stderr
        assert "Traceback" not in run.stderr
        lines = [ln for ln in run.stderr.splitlines() if ln.strip()]
        warnings = [ln for ln in lines if "not an MCP message" in ln]
        assert len(warnings) == 1, run.stderr
        assert len(lines) <= 3, run.stderr  # the tool line and the one warning, not thousands
        assert json.loads(run.stdout)["tools_called"] == ["junk__ping"]
        log = (home / "state" / "mcp-junk.log").read_text()
        assert "Traceback" not in log and log.count("\n") >= 150  # kept, one line each

    def test_mcp_tools_shows_the_description_whole(self, tmp_path: Path) -> None:
        home = tmp_path / "home"
        home.mkdir()
        (home / "config.toml").write_text(
            f"[mcp.servers.junk]\ncommand = {json.dumps(sys.executable)}\n"
            f"args = {json.dumps(['-m', 'gaia_lite.eval.mcp_fixture', str(tool_set(tmp_path))])}\n"
            f"cwd = {json.dumps(str(REPO))}\n")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GAIA_", "LEMONADE_"))}
        env.update(GAIA_HOME=str(home), GAIA_AUTO_START_SERVER="0")
        run = subprocess.run([sys.executable, "-m", "gaia_lite", "mcp", "tools", "junk", "--json"], capture_output=True,
                             text=True, env=env, timeout=HANG_GUARD_S, stdin=subprocess.DEVNULL, cwd=REPO)
        assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
        row = next(r for r in json.loads(run.stdout) if r["server_name"] == LONG)
        assert len(row["description"]) > 100_000 and WIRE_NAME.fullmatch(row["name"])
