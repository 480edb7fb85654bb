"""The saved-prefix protocol (runtime/prefix_cache.py) against a scripted fake of llama-server's
``/completion`` and ``/slots`` endpoints (it writes and reads slot files as the real one does, and,
like it, "crashes" on a file it cannot read). The real server is in
tests/integration/test_keepalive_real.py."""

from __future__ import annotations

import json
import logging
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator

import pytest

from gaia_lite.runtime.prefix_cache import KEEP_FILES, prefix_key, prepare


class FakeSlots:
    """``POST /api/completion`` fills the slot with the prompt's "tokens" (its words); save writes them to a
    file in ``folder``; restore reads one back, and a file it cannot parse ends the fake (as a real abort)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.slot: list[str] = []
        self.calls: list[str] = []
        self.crashed = False

    def handle(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        self.calls.append(path.split("?")[0] + ("?" + path.split("action=")[1] if "action=" in path else ""))
        if self.crashed:
            return 503, {}
        if path == "/api/completion":
            self.slot = body["prompt"].split()
            return 200, {"tokens_evaluated": len(self.slot)}
        target = self.folder / body["filename"]
        if path.endswith("action=save"):
            target.write_text(json.dumps(self.slot))
            return 200, {"n_saved": len(self.slot)}
        if path.endswith("action=restore"):
            try:
                self.slot = json.loads(target.read_text())
            except ValueError:
                self.crashed = True
                return 500, {}
            return 200, {"n_restored": len(self.slot)}
        return 404, {}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, FakeSlots]]:
    fake = FakeSlots(tmp_path / "prefix")
    fake.folder.mkdir()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            code, out = fake.handle(self.path, body)
            data = json.dumps(out).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", fake
    httpd.shutdown()


PREFIX = "<|im_start|>system\nrules and core tools\n"


def _prepare(url: str, fake: FakeSlots, prefix: str = PREFIX, build: str = "b1") -> Any:
    return prepare(url, "", fake.folder, model_id="m.gguf:1", build=build, prefix=prefix)


def test_built_once_then_restored(server: tuple[str, FakeSlots]) -> None:
    url, fake = server
    built = _prepare(url, fake)
    assert built.action == "built" and built.tokens == len(PREFIX.split())
    restored = _prepare(url, fake)
    assert restored.action == "restored" and restored.tokens == built.tokens
    assert fake.calls == ["/api/completion", "/api/slots/0?save", "/api/slots/0?restore"]
    side = json.loads((fake.folder / f"prefix-{built.key}.json").read_text())
    assert side["tokens"] == built.tokens and len(side["sha256"]) == 64


@pytest.mark.parametrize("damage", ["truncate", "garbage", "sidecar", "no_sidecar"])
def test_a_damaged_file_is_never_restored_but_rebuilt_and_logged_once(
        server: tuple[str, FakeSlots], damage: str, caplog: pytest.LogCaptureFixture) -> None:
    url, fake = server
    key = _prepare(url, fake).key
    data, side = fake.folder / f"prefix-{key}.bin", fake.folder / f"prefix-{key}.json"
    if damage == "truncate":
        data.write_text(data.read_text()[:5])
    elif damage == "garbage":
        data.write_text("x" * len(data.read_text()))  # same size, other bytes
    elif damage == "sidecar":
        side.write_text("{not json")
    else:
        side.unlink()
    fake.calls.clear()
    with caplog.at_level(logging.INFO, logger="gaia_lite.runtime.prefix"):
        again = _prepare(url, fake)
    assert again.action == "built" and not fake.crashed
    assert "/api/slots/0?restore" not in fake.calls  # the server never sees the damaged file
    assert sum("PREFIX_CACHE ignoring" in r.getMessage() for r in caplog.records) == 1
    assert _prepare(url, fake).action == "restored"


def test_another_build_or_prefix_is_another_file(server: tuple[str, FakeSlots]) -> None:
    url, fake = server
    first = _prepare(url, fake)
    assert _prepare(url, fake, build="b2").action == "built"
    assert _prepare(url, fake, prefix=PREFIX + "one more tool\n").action == "built"
    assert len({first.key, prefix_key("m.gguf:1", "b2", PREFIX), prefix_key("m.gguf:1", "b1", PREFIX + "x")}) == 3
    assert len(list(fake.folder.glob("prefix-*.bin"))) == 3


def test_old_files_are_pruned(server: tuple[str, FakeSlots]) -> None:
    url, fake = server
    for i in range(KEEP_FILES + 3):
        assert _prepare(url, fake, prefix=f"{PREFIX}variant {i}\n").action == "built"
    assert len(list(fake.folder.glob("prefix-*.json"))) == KEEP_FILES
    assert len(list(fake.folder.glob("prefix-*.bin"))) == KEEP_FILES


def test_a_server_that_fails_costs_only_the_prefill(tmp_path: Path) -> None:
    outcome = prepare("http://127.0.0.1:9", "", tmp_path, model_id="m", build="b", prefix=PREFIX)
    assert outcome.action == "failed" and outcome.note
