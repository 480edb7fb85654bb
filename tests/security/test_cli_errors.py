"""Class 6: one line and an exit code for every bad input at the CLI.

Each case runs the real `gaia-lite ask` in a subprocess with GAIA_HOME in a
temporary folder, against the scripted fake server where a server is needed,
and checks the exit code, a single `gaia-lite: error:` line naming the
problem, and no traceback.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, text_chunks
from tests.hang import HANG_GUARD_S

pytestmark = pytest.mark.network


def gaia(home: Path, *args: str, env: dict[str, str] | None = None, timeout: float = HANG_GUARD_S) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if not k.startswith(("GAIA_", "LEMONADE_"))}
    full.update(GAIA_HOME=str(home), GAIA_AUTO_START_SERVER="0", **(env or {}))
    return subprocess.run([sys.executable, "-m", "gaia_lite", *args], capture_output=True, text=True,
                          env=full, timeout=timeout, stdin=subprocess.DEVNULL)


def assert_one_line_error(run: subprocess.CompletedProcess, code: int, *needles: str) -> None:
    assert run.returncode == code, (run.returncode, run.stderr)
    assert "Traceback" not in run.stderr and "Traceback" not in run.stdout
    errors = [line for line in run.stderr.splitlines() if line.startswith("gaia-lite: error:")]
    assert len(errors) == 1, run.stderr
    for needle in needles:
        assert needle in errors[0], (needle, errors[0])


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "gaia-home"


@pytest.fixture
def server():
    with FakeOpenAIServer() as srv:
        yield srv


# ---------------------------------------------------------------- settings

@pytest.mark.parametrize("url", ["http://local host:13305/api/v1", "http://localhost:13305/v\x01",
                                 "http://localhost:99999/v1", "http://[::1/v1", "ftp://localhost/v1",
                                 "http://local\thost:13305/api/v1"])
def test_bad_base_urls(home, url) -> None:
    assert_one_line_error(gaia(home, "ask", "hi", "--base-url", url), 2, "--base-url")


def test_bad_base_url_from_the_environment(home) -> None:
    run = gaia(home, "ask", "hi", env={"LEMONADE_BASE_URL": "http://a b/"})
    assert_one_line_error(run, 2, "LEMONADE_BASE_URL")


@pytest.mark.parametrize("value", ["inf", "-inf", "nan", "1e999", "0", "-5", "999999999"])
def test_bad_tool_timeouts(home, value) -> None:
    run = gaia(home, "ask", "hi", env={"GAIA_AGENT_TOOL_TIMEOUT": value})
    assert_one_line_error(run, 2, "GAIA_AGENT_TOOL_TIMEOUT")


def test_non_ascii_api_key_is_refused_and_not_echoed(home) -> None:
    run = gaia(home, "ask", "hi", env={"LEMONADE_API_KEY": "sk-clé-secrète"})
    assert_one_line_error(run, 2, "LEMONADE_API_KEY")
    assert "secrète" not in run.stderr


def test_gaia_home_pointing_at_a_file(home, tmp_path) -> None:
    afile = tmp_path / "a-file"
    afile.write_text("x")
    assert_one_line_error(gaia(afile, "ask", "hi"), 2, "GAIA_HOME", "not a folder")


@pytest.mark.parametrize("where", ["/proc/gaia", "/proc/self", "/sys/gaia", "/dev/null"])
def test_gaia_home_in_kernel_folders(where) -> None:
    assert_one_line_error(gaia(Path(where), "ask", "hi"), 2, "GAIA_HOME")


# ---------------------------------------------------------------- servers that are not what they seem

@pytest.mark.parametrize("body", [("text/html", "<html><body>Welcome to nginx!</body></html>"),
                                  ("application/json", "{not json"), ("application/json", "[1, 2]")])
def test_models_endpoint_that_is_not_json(home, server, body) -> None:
    server.models_body = body
    assert_one_line_error(gaia(home, "ask", "hi", "--base-url", server.base_url), 1, "/models", "--base-url")


@pytest.mark.parametrize("reply", ["html", "garbage_stream"])
def test_chat_replies_that_are_not_a_stream(home, server, reply) -> None:
    server.script.append(reply)
    run = gaia(home, "ask", "hi", "--base-url", server.base_url)
    assert_one_line_error(run, 1, "--base-url")
    assert run.stdout.strip() == ""


def test_a_server_that_never_answers_times_out_with_a_status(home, server) -> None:
    server.script.append("hang")
    run = gaia(home, "ask", "hi", "--base-url", server.base_url, env={"GAIA_FIRST_BYTE_TIMEOUT": "6"})
    assert_one_line_error(run, 1, "sent nothing for 6 s", "GAIA_FIRST_BYTE_TIMEOUT")
    assert "waiting for the model" in run.stderr


def test_a_good_server_still_answers(home, server) -> None:
    server.script.append(text_chunks("All good."))
    run = gaia(home, "ask", "hi", "--base-url", server.base_url)
    assert run.returncode == 0 and "All good." in run.stdout and "Traceback" not in run.stderr


# ---------------------------------------------------------------- damaged data files

@pytest.mark.parametrize("name,content", [
    ("memory.db", b"\x00garbage" * 700),
    ("memory.db", b"SQLite format 3\x00" + b"\xff" * 8192),
    ("rag.db", b"not a database at all" * 300),
    ("rag.db", b"SQLite format 3\x00" + b"\x01" * 8192),
])
def test_damaged_databases_are_named_and_kept(home, server, name, content) -> None:
    data = home / "data"
    data.mkdir(parents=True)
    (data / name).write_bytes(content)
    run = gaia(home, "ask", "hi", "--base-url", server.base_url)
    assert_one_line_error(run, 1, name, "move it aside", ".broken")
    assert (data / name).read_bytes() == content  # the original is left for recovery
