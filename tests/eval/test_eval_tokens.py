"""Token counters: the proxy, the wordpiece tokenizer and llama-server's /tokenize."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from gaia_lite.eval.tokens import (CharTokenCounter, ServerTokenCounter, TokenCounterError, WordPieceTokenCounter,
                                   make_token_counter, tokenize_url)


def test_tokenize_url_sits_next_to_v1() -> None:
    assert tokenize_url("http://127.0.0.1:8080/v1") == "http://127.0.0.1:8080/tokenize"
    assert tokenize_url("http://127.0.0.1:13305/api/v1/") == "http://127.0.0.1:13305/api/tokenize"
    assert tokenize_url("http://h:1") == "http://h:1/tokenize"


def test_char_counter_is_ceil_chars_over_four() -> None:
    assert CharTokenCounter().count("") == 0
    assert CharTokenCounter().count("abcde") == 2


def test_wordpiece_counter_counts_without_special_tokens_or_padding() -> None:
    assert WordPieceTokenCounter().count("hello world") == 2


@pytest.mark.network
def test_server_counter_posts_content_and_counts_tokens() -> None:
    seen: list[dict] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server API
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            seen.append({"path": self.path, **body})
            out = json.dumps({"tokens": list(range(len(body["content"].split())))}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

        def log_message(self, *args: object) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{server.server_port}/api/v1"
        counter = make_token_counter("auto", base)
        assert isinstance(counter, ServerTokenCounter)
        assert counter.count("one two three") == 3
        assert counter.count("one two three") == 3  # memoised: one request for the text
        assert [s["path"] for s in seen].count("/api/tokenize") == 2  # the probe + one count
    finally:
        server.shutdown()
        server.server_close()


def test_auto_falls_back_to_chars_when_no_server_answers() -> None:
    assert isinstance(make_token_counter("auto", "http://127.0.0.1:9/v1"), CharTokenCounter)
    with pytest.raises(TokenCounterError):
        make_token_counter("server", "http://127.0.0.1:9/v1")
    with pytest.raises(ValueError):
        make_token_counter("nope")
