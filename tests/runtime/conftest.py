"""Fixtures for the embedded runtime: the real binary and model, and a fake server.

The real model is assembled into the user cache dir chosen *before* the
autouse GAIA_HOME fixture points it at a temp dir, so a test session reuses
the file assembled by scripts/setup.sh instead of writing 470 MB per test.
"""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from gaia_lite.runtime import DEFAULT_MODEL, ModelInstallError, assemble_model, find_llama_server, get_model_spec
from gaia_lite.runtime.model import models_dir, part_paths

_REAL_MODELS_DIR = models_dir()  # evaluated at import, before GAIA_HOME is redirected


@pytest.fixture(scope="session")
def llama_server_bin() -> Path:
    path = find_llama_server()
    if path is None:
        pytest.skip("llama-server is not installed: pip install -e '.[local]' (see scripts/setup.sh)")
    return path


@pytest.fixture(scope="session")
def qwen_gguf() -> Path:
    spec = get_model_spec(DEFAULT_MODEL)
    try:
        part_paths(spec)
    except ModelInstallError as exc:
        pytest.skip(f"default model parts are not installed: {exc}")
    return assemble_model(spec, dest_dir=_REAL_MODELS_DIR)


# A stand-in for llama-server: parses --port and answers /api/health, or
# misbehaves on purpose. It lets the lifecycle tests run in well under a second.
_FAKE_SERVER = '''
import http.server, os, sys, threading, time
args = sys.argv[1:]
port = int(args[args.index("--port") + 1])
mode = {mode!r}
print("fake llama-server starting", " ".join(args), flush=True)
if mode == "crash":
    print("error: fake failure to load model", flush=True)
    sys.exit(3)
if mode == "hang":
    time.sleep(120)
if mode == "brief":  # healthy, then dies on its own
    threading.Timer(1.0, os._exit, [5]).start()

key = None
if "--api-key-file" in args:  # like llama-server: every request needs the key
    key = open(args[args.index("--api-key-file") + 1]).read().strip()

class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        code = 200 if self.path in ("/api/health", "/api/v1/models") else 404
        if key is not None and self.headers.get("Authorization") != "Bearer " + key:
            code = 401
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b'{{"status": "ok"}}')

    def log_message(self, *args):
        pass

http.server.HTTPServer(("127.0.0.1", port), Handler).serve_forever()
'''

FakeServerFactory = Callable[[str], Path]


@pytest.fixture
def fake_llama_server(tmp_path: Path) -> FakeServerFactory:
    """``fake_llama_server(mode)`` -> an executable: mode is "ok", "crash", "hang" or "brief"."""

    def make(mode: str = "ok") -> Path:
        script = tmp_path / f"fake-llama-server-{mode}"
        script.write_text(f"#!{sys.executable}\n" + textwrap.dedent(_FAKE_SERVER.format(mode=mode)))
        script.chmod(0o755)
        return script

    return make


@pytest.fixture
def fake_model(tmp_path: Path) -> Path:
    path = tmp_path / "fake.gguf"
    path.write_bytes(b"GGUF fake")
    return path
