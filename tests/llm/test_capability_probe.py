"""The capability probes (response_format, then grammar) and their cache, with a SCRIPTED FAKE chat client:
it is not a server, it answers each request from a script by the fields the request carries."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gaia_lite.errors import ServerTooSlow
from gaia_lite.llm.structured import Capabilities, CapabilityCache, probe_grammar, server_capabilities
from gaia_lite.messages import ChatResult

HONOURS_BOTH = {"response_format": '{"ok": true}', "grammar": "zebra-quartz-42"}


class FakeChatClient:
    """Answers a request with ``response_format`` or ``grammar`` from ``replies`` (a string, or an
    exception to raise), and records which field each request carried."""

    first_byte_timeout = 300.0

    def __init__(self, replies: dict[str, Any]) -> None:
        self.replies = replies
        self.asked: list[str] = []

    def chat(self, messages: list[dict[str, Any]], **kwargs: Any) -> ChatResult:
        what = "grammar" if "grammar" in kwargs else "response_format"
        self.asked.append(what)
        reply = self.replies[what]
        if isinstance(reply, Exception):
            raise reply
        return ChatResult(reply)


def test_a_server_that_honours_both_is_probed_once_for_each_then_read_from_the_cache(tmp_path: Path) -> None:
    cache = CapabilityCache(tmp_path / "capabilities.json")
    client = FakeChatClient(HONOURS_BOTH)
    assert server_capabilities(client, cache, "srv|m") == Capabilities(response_format=True, grammar=True)
    assert server_capabilities(client, cache, "srv|m") == Capabilities(True, True)
    assert client.asked == ["response_format", "grammar"]
    entry = json.loads((tmp_path / "capabilities.json").read_text())["srv|m"]
    assert entry["response_format"] is True and entry["grammar"] is True


@pytest.mark.parametrize("reply", ["Yes, water is wet.", '{"ok": true}', "zebra-quartz-42 ", "zebra"])
def test_only_the_exact_word_counts_as_honouring_the_grammar(reply: str) -> None:
    # a proxy that drops the unknown field lets the model answer as it likes (here: as to the schema probe)
    assert probe_grammar(FakeChatClient({"grammar": reply})) is False


def test_a_refused_grammar_is_not_capable_and_the_schema_is_still_sent(tmp_path: Path) -> None:
    cache = CapabilityCache(tmp_path / "capabilities.json")
    client = FakeChatClient({**HONOURS_BOTH, "grammar": RuntimeError("400: unknown field grammar")})
    assert server_capabilities(client, cache, "srv|m") == Capabilities(response_format=True, grammar=False)
    assert server_capabilities(client, cache, "srv|m") == Capabilities(True, False)
    assert client.asked == ["response_format", "grammar"]  # the "no" is cached too


def test_the_grammar_is_not_asked_of_a_server_without_response_format(tmp_path: Path) -> None:
    cache = CapabilityCache(tmp_path / "capabilities.json")
    client = FakeChatClient({"response_format": "Yes, water is wet."})
    assert server_capabilities(client, cache, "srv|m") == Capabilities()
    assert client.asked == ["response_format"]
    assert "grammar" not in json.loads((tmp_path / "capabilities.json").read_text())["srv|m"]


def test_a_cache_written_before_the_grammar_probe_gets_only_that_probe(tmp_path: Path) -> None:
    path = tmp_path / "capabilities.json"
    path.write_text(json.dumps({"srv|m": {"response_format": True, "checked": 1764800000},
                                "other|m": {"response_format": False, "checked": 1764800000}}))
    client = FakeChatClient(HONOURS_BOTH)
    assert server_capabilities(client, CapabilityCache(path), "srv|m") == Capabilities(True, True)
    assert client.asked == ["grammar"]
    data = json.loads(path.read_text())
    assert data["srv|m"]["response_format"] is True and data["srv|m"]["grammar"] is True
    assert data["other|m"] == {"response_format": False, "checked": 1764800000}  # the others stay as they were


@pytest.mark.parametrize("damaged", ['{"srv|m": {"response_format": true, "grammar": "yes"}}',
                                     '{"srv|m": ["response_format"]}', "[]", "{not json"])
def test_a_damaged_cache_is_asked_again_never_a_crash(tmp_path: Path, damaged: str) -> None:
    path = tmp_path / "capabilities.json"
    path.write_text(damaged)
    assert server_capabilities(FakeChatClient(HONOURS_BOTH), CapabilityCache(path), "srv|m") == Capabilities(True, True)


def test_a_slow_grammar_probe_keeps_response_format_and_is_asked_again_next_time(tmp_path: Path) -> None:
    cache = CapabilityCache(tmp_path / "capabilities.json")
    slow = FakeChatClient({**HONOURS_BOTH, "grammar": ServerTooSlow("no first byte within 3 s")})
    assert server_capabilities(slow, cache, "srv|m") == Capabilities(response_format=True, grammar=False)
    assert cache.get("srv|m") is True and cache.get("srv|m", "grammar") is None  # not cached as "no"
    again = FakeChatClient(HONOURS_BOTH)
    assert server_capabilities(again, cache, "srv|m") == Capabilities(True, True)
    assert again.asked == ["grammar"]
