"""A SCRIPTED FAKE OpenAI-compatible server for protocol unit tests.

It is not a model: each POST /chat/completions pops the next scripted reply
(a list of SSE chunk dicts, or an error mode) and records the request body,
so tests can check exactly what went over the wire. Real-model behaviour is
covered by the slow tests against llama-server.

Hostile modes for error handling: "html" (a 200 web page instead of a
stream), "garbage_stream" (SSE whose data is not JSON) and "hang" (accept the
request, never answer); ``models_body`` serves a raw (content type, body) for
/models; ``reject_response_format`` plays a server without JSON-schema replies;
``models_hang`` plays a server whose /models never answers; "huge_event" sends one
10 MB ``data:`` line that never ends and "huge_chunk" one well-formed 10 MB chunk, each then
holding the connection open (until release) as a server that is not a chat server may. A script may end
with "cut" (the stream stops: no finish_reason, no [DONE], the connection
closed) or "cut_chunked" (the same mid-body of a chunked reply, as a crashed
llama-server leaves it).
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


HUGE_BYTES = 10 << 20  # the "huge_event" and "huge_chunk" replies


def text_chunks(text: str, *, pieces: int = 3, timings: dict | None = None) -> list[dict[str, Any]]:
    """A streamed plain-text reply split into ``pieces`` deltas."""
    step = max(1, len(text) // pieces)
    parts = [text[i:i + step] for i in range(0, len(text), step)] or [""]
    chunks = [_chunk({"role": "assistant", "content": ""})]
    chunks += [_chunk({"content": p}) for p in parts]
    chunks.append(_chunk({}, finish="stop"))
    chunks.append(_usage_chunk(timings))
    return chunks


def tool_call_chunks(name: str, arguments: dict, *, call_id: str = "call_1", splits: int = 3) -> list[dict[str, Any]]:
    """Native ``tool_calls`` deltas with the arguments JSON split across chunks."""
    raw = json.dumps(arguments)
    step = max(1, len(raw) // splits)
    parts = [raw[i:i + step] for i in range(0, len(raw), step)]
    chunks = [_chunk({"role": "assistant", "content": None, "tool_calls": [
        {"index": 0, "id": call_id, "type": "function", "function": {"name": name, "arguments": ""}}]})]
    chunks += [_chunk({"tool_calls": [{"index": 0, "function": {"arguments": p}}]}) for p in parts]
    chunks.append(_chunk({}, finish="tool_calls"))
    chunks.append(_usage_chunk(None))
    return chunks


def slow_text_chunks(text: str, *, pieces: int, delay: float) -> list[Any]:
    """A plain-text reply whose deltas arrive ``delay`` seconds apart (a slow model)."""
    out: list[Any] = []
    for chunk in text_chunks(text, pieces=pieces):
        out += [delay, chunk]
    return out


def cut_chunks(text: str, *, chunked: bool = False) -> list[Any]:
    """The start of a plain-text reply, then the stream stops before any finish_reason: "cut" ends a
    close-delimited stream cleanly (no [DONE]); ``chunked`` drops a chunked one mid-body."""
    return [*text_chunks(text)[:-2], "cut_chunked" if chunked else "cut"]


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0, "model": "fake-model",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def _usage_chunk(timings: dict | None) -> dict[str, Any]:
    out: dict[str, Any] = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0,
                           "model": "fake-model", "choices": [],
                           "usage": {"prompt_tokens": 120, "completion_tokens": 5, "total_tokens": 125,
                                     "prompt_tokens_details": {"cached_tokens": 100}}}
    if timings is not None:
        out["timings"] = timings
    return out


@dataclass
class FakeOpenAIServer:
    """Start with ``with FakeOpenAIServer() as srv: srv.script.append(...)``."""

    script: list[Any] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    models: tuple[str, ...] = ("fake-model",)
    n_ctx: int | None = None  # served as llama-server's /props when set
    models_body: tuple[str, str] | None = None  # (content type, raw body) for /models
    release: threading.Event = field(default_factory=threading.Event)  # ends "hang" replies
    reject_response_format: bool = False  # answer 400 to a request with response_format (an old server, NPU/OGA)
    models_hang: bool = False  # GET /models accepts and never answers (until release)
    slot_actions: list[str] = field(default_factory=list)  # llama-server's POST /slots/0?action=..., by path

    def __enter__(self) -> "FakeOpenAIServer":
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _json(self, code: int, body: Any) -> None:
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _raw(self, content_type: str, body: str) -> None:
                data = body.encode()
                self.send_response(200)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                if self.path.endswith("/models") and server.models_hang:
                    server.release.wait(120)
                elif self.path.endswith("/models") and server.models_body is not None:
                    self._raw(*server.models_body)
                elif self.path.endswith("/health"):
                    self._json(200, {"status": "ok"})
                elif self.path.endswith("/props") and server.n_ctx:
                    self._json(200, {"default_generation_settings": {"n_ctx": server.n_ctx}, "total_slots": 1})
                elif self.path.endswith("/models"):
                    self._json(200, {"object": "list", "data": [
                        {"id": m, "object": "model", "created": 0, "owned_by": "fake"} for m in server.models]})
                else:
                    self._json(404, {"error": "not found"})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                if "/slots/" in self.path:  # llama-server's slot actions: no scripted reply is spent on them
                    server.slot_actions.append(self.path)
                    self._json(200, {"id_slot": 0, "n_erased": 0})
                    return
                server.requests.append(body)
                if server.reject_response_format and "response_format" in body:
                    self._json(400, {"error": {"message": "Unrecognized request argument supplied: response_format",
                                               "type": "invalid_request_error"}})
                    return
                reply = server.script.pop(0) if server.script else text_chunks("(script exhausted)")
                if reply == "html":
                    self._raw("text/html", "<html><body><h1>Welcome to nginx!</h1></body></html>")
                    return
                if reply == "hang":
                    server.release.wait(120)
                    return
                if reply == "garbage_stream":
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.end_headers()
                    self.wfile.write(b"data: this is not json\n\ndata: [DONE]\n\n")
                    return
                if reply in ("huge_event", "huge_chunk"):
                    self._huge(reply)
                    return
                if reply == "http_500":
                    self._json(500, {"error": {"message": "scripted failure", "type": "server_error"}})
                    return
                if reply == "context_overflow":  # llama-server's wording
                    self._json(400, {"error": {"code": 400, "type": "exceed_context_size_error", "message":
                                               "request (9000 tokens) exceeds the available context size "
                                               "(8192 tokens), try increasing it"}})
                    return
                if reply and reply[-1] == "cut_chunked":
                    self._chunked_cut(reply[:-1])
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                try:
                    self._stream(reply)
                except (BrokenPipeError, ConnectionResetError):  # the client stopped reading: fine
                    pass

            def _huge(self, mode: str) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                if mode == "huge_event":
                    body = b"data: " + b"x" * HUGE_BYTES  # no end of line: a reader waits for one
                else:
                    body = f"data: {json.dumps(_chunk({'content': 'y' * HUGE_BYTES}))}\n\n".encode()
                try:
                    self.wfile.write(body)
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):  # the client gave up reading: fine
                    return
                server.release.wait(120)

            def _chunked_cut(self, reply: list[Any]) -> None:
                """A chunked reply whose connection drops mid-body (no terminating chunk)."""
                self.protocol_version = "HTTP/1.1"
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                for item in reply:
                    data = f"data: {json.dumps(item)}\n\n".encode()
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                self.wfile.write(b"40\r\ndata: {\"id\": \"chatcmpl-fake\", \"obj")
                self.wfile.flush()
                self.close_connection = True

            def _stream(self, reply: list[Any]) -> None:
                for item in reply:
                    if isinstance(item, (int, float)):  # a pause between chunks (slow_text_chunks)
                        time.sleep(item)
                        continue
                    if item == "cut":  # the stream just stops: no finish_reason, no [DONE]
                        self.wfile.flush()
                        return
                    if item == "mid_stream_error":
                        payload = {"error": {"message": "scripted mid-stream failure", "type": "server_error"}}
                        self.wfile.write(f"data: {json.dumps(payload)}\n\n".encode())
                        self.wfile.flush()
                        return
                    self.wfile.write(f"data: {json.dumps(item)}\n\n".encode())
                    self.wfile.flush()
                self.wfile.write(b"data: [DONE]\n\n")

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/api/v1"

    def __exit__(self, *exc: Any) -> None:
        self.release.set()
        self._httpd.shutdown()
        self._httpd.server_close()
