"""Protocol tests against a SCRIPTED FAKE OpenAI server (tests/fakes/openai_server.py)."""

from __future__ import annotations

import socket

import pytest

from gaia_lite.errors import ModelError, ServerUnreachable
from gaia_lite.llm.client import ChatClient
from tests.fakes.openai_server import FakeOpenAIServer, text_chunks, tool_call_chunks


def _drain(gen):
    deltas = []
    while True:
        try:
            deltas.append(next(gen))
        except StopIteration as stop:
            return deltas, stop.value


def test_streamed_text_records_ttft_and_server_timings():
    with FakeOpenAIServer() as srv:
        srv.script.append(text_chunks("Hello there, friend.", timings={"prompt_n": 30, "cache_n": 90,
                                                                        "prompt_ms": 12.5}))
        client = ChatClient(srv.base_url)
        deltas, result = _drain(client.stream_chat([{"role": "user", "content": "hi"}]))
    assert "".join(deltas) == "Hello there, friend." and len(deltas) >= 3
    assert result.usage.ttft_s is not None and result.usage.ttft_s <= result.usage.total_s
    assert (result.usage.prompt_tokens, result.usage.cached_tokens) == (120, 90)  # prompt_n + cache_n
    assert result.usage.prompt_ms == 12.5


def test_usage_cached_tokens_when_no_timings():
    with FakeOpenAIServer() as srv:
        srv.script.append(text_chunks("ok"))
        result = ChatClient(srv.base_url).chat([{"role": "user", "content": "hi"}])
    assert (result.usage.prompt_tokens, result.usage.cached_tokens) == (120, 100)


def test_streamed_tool_call_deltas_are_reassembled():
    with FakeOpenAIServer() as srv:
        srv.script.append(tool_call_chunks("read_file", {"file_path": "notes/today.md", "max_lines": 40}))
        client = ChatClient(srv.base_url)
        result = client.chat([{"role": "user", "content": "read it"}],
                             tools=[{"type": "function", "function": {"name": "read_file", "parameters": {}}}])
        sent = srv.requests[0]
    assert [(c.id, c.name, c.arguments) for c in result.tool_calls] == [
        ("call_1", "read_file", {"file_path": "notes/today.md", "max_lines": 40})]
    assert result.finish_reason == "tool_calls"
    assert sent["tools"][0]["function"]["name"] == "read_file" and sent["stream"] is True


def test_model_is_taken_from_the_server_list_when_not_configured():
    with FakeOpenAIServer(models=("qwen-test", "other")) as srv:
        srv.script.append(text_chunks("ok"))
        client = ChatClient(srv.base_url)
        client.chat([{"role": "user", "content": "hi"}])
        assert srv.requests[0]["model"] == "qwen-test"


def test_server_error_mid_stream_is_a_model_error():
    with FakeOpenAIServer() as srv:
        srv.script.append(text_chunks("partial answer")[:2] + ["mid_stream_error"])
        with pytest.raises(ModelError):
            ChatClient(srv.base_url).chat([{"role": "user", "content": "hi"}])


def test_http_500_is_a_model_error_with_status():
    with FakeOpenAIServer() as srv:
        srv.script.append("http_500")
        with pytest.raises(ModelError, match="HTTP 500"):
            ChatClient(srv.base_url).chat([{"role": "user", "content": "hi"}])


def _dead_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def test_connection_refused_is_server_unreachable_with_fix_hint():
    client = ChatClient(f"http://127.0.0.1:{_dead_port()}/api/v1", model="m")
    assert client.health() is False
    with pytest.raises(ServerUnreachable) as info:
        client.chat([{"role": "user", "content": "hi"}])
    assert "gaia-lite serve" in str(info.value) and "lemonade-server" in str(info.value)
    assert info.value.exit_code == 3
