"""A server-sent event over 1 MB ends the reply at once with one line (llm/event_limit.py).

Before: the SDK buffered a 10 MB ``data:`` line and waited for its end until the first-byte timeout
(300 s), in silence. Protocol tests against the SCRIPTED FAKE OpenAI server (tests/fakes), plus the
counter itself on chunk boundaries.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from gaia_lite.errors import GaiaError, ReplyCutOff
from gaia_lite.llm.client import ChatClient
from gaia_lite.llm.event_limit import EventLimit
from tests.fakes.openai_server import FakeOpenAIServer, text_chunks
from tests.security.test_cli_errors import assert_one_line_error, gaia

LIMIT_WORDS = ("more than 1 MB", "OpenAI-compatible")


@pytest.mark.network
@pytest.mark.parametrize("mode", ["huge_event", "huge_chunk"])
def test_a_10_mb_event_ends_the_reply_within_seconds(mode: str) -> None:
    with FakeOpenAIServer() as srv:
        srv.script.append(mode)
        client = ChatClient(srv.base_url, model="fake-model", first_byte_timeout=120)
        started = time.monotonic()
        with pytest.raises(ReplyCutOff) as caught:
            client.chat([{"role": "user", "content": "hi"}])
        took = time.monotonic() - started
    assert took < 10, f"the reply took {took:.1f} s to end"
    message = str(caught.value)
    assert all(w in message for w in LIMIT_WORDS) and "\n" not in message, message


@pytest.mark.network
def test_a_long_reply_of_small_events_is_not_limited() -> None:
    text = "word " * 400_000  # 2 MB in ~4,000 events of 500 bytes
    with FakeOpenAIServer() as srv:
        srv.script.append(text_chunks(text, pieces=4000))
        result = ChatClient(srv.base_url, model="fake-model").chat([{"role": "user", "content": "hi"}])
    assert result.content == text


@pytest.mark.network
def test_ask_prints_one_line_and_exits_1(tmp_path: Path) -> None:
    with FakeOpenAIServer() as srv:
        srv.script.append("huge_event")
        started = time.monotonic()
        # without the limit ask waits out the first-byte timeout: 120 s, past this run's 60
        run = gaia(tmp_path / "home", "ask", "hello?", "--base-url", srv.base_url, "--text-tools",
                   "--tool-calls", "free", env={"GAIA_FIRST_BYTE_TIMEOUT": "120"}, timeout=60)
        took = time.monotonic() - started
    assert_one_line_error(run, 1, *LIMIT_WORDS)
    assert took < 30, f"ask took {took:.1f} s (start-up and a first run in a new home included)"


def _fed(*chunks: bytes, limit: int = 10) -> EventLimit:
    counter = EventLimit("http://server/v1", limit)
    for chunk in chunks:
        counter.feed(chunk)
    return counter


@pytest.mark.parametrize("end", [b"\n\n", b"\r\n\r\n", b"\r\r"])
def test_each_blank_line_ends_an_event(end: bytes) -> None:
    assert _fed(b"data: 1234" + end + b"data: 5", b"6" + end + b"data").pending == 4


def test_an_event_end_split_across_chunks_still_ends_it() -> None:
    # unseen, the end would leave 19 + 8 bytes open: over the limit of 20
    assert _fed(b"data: 1234567890\r\n\r", b"\ndata: 5", b"6\r\n", b"\r\ndata", limit=20).pending == 4


def test_an_open_event_is_counted_across_chunks() -> None:
    with pytest.raises(GaiaError, match="more than"):
        _fed(b"data: 12", b"345", b"6")  # 11 bytes with no end


def test_a_whole_big_event_inside_one_chunk_is_caught() -> None:
    with pytest.raises(ReplyCutOff):
        _fed(b"data: 1\n\ndata: 123456789\n\ndata: 2\n\n")
