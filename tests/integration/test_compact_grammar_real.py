"""The compact reply grammar against a REAL llama-server with the REAL 0.5B model: the grammar probe says
yes, the server parses the grammar of the full registry, and the reply it holds the model to is one
JSON object on one line that the constrained mode reads (with ``response_format`` the 0.5B model often
indented it over six lines). Bounded: a short prompt, greedy, 96 tokens at most, a request time limit.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import pytest

from gaia_lite.runtime import runtime_status

pytestmark = pytest.mark.slow

_status = runtime_status()


@pytest.fixture
def held(gaia_home: Path) -> Iterator[tuple[Any, Any, Any]]:
    """The embedded llama-server's client, the doc profile's registry, and the constrained mode held to grammar."""
    if not _status.ready:
        pytest.skip("embedded runtime not installed: " + "; ".join(_status.lines()) + " (run scripts/setup.sh)")
    from gaia_lite.agent.constrained import TOOL_FIRST, ConstrainedReplies
    from gaia_lite.agent.replies import FreeReplies
    from gaia_lite.cli.services import connect
    from gaia_lite.cli.wiring import build_registry
    from gaia_lite.config import load_settings

    env = {"GAIA_HOME": str(gaia_home), "LEMONADE_BASE_URL": "http://127.0.0.1:9/api/v1", "GAIA_KEEP_ALIVE": "0"}
    settings = load_settings({}, env)
    client, server = connect(settings, announce=lambda _m: None)
    assert server is not None
    try:
        registry = build_registry(settings, with_loader=True)
        yield client, registry, ConstrainedReplies(registry, FreeReplies(registry.names).parse, shape=TOOL_FIRST,
                                                   grammar=True)
    finally:
        server.stop()


def test_llama_server_holds_a_reply_to_the_compact_grammar(held: tuple[Any, Any, Any]) -> None:
    from gaia_lite.agent.constrained import TOOL_FIRST, reply_schema
    from gaia_lite.agent.grammar import schema_grammar
    from gaia_lite.llm.structured import probe_grammar

    client, registry, mode = held
    assert probe_grammar(client) is True
    assert set(mode.request_extra(None)) == {"grammar"}
    schema = reply_schema(registry, shape=TOOL_FIRST)
    assert len(schema["anyOf"]) == len(registry) + 1
    extra = {"grammar": schema_grammar(schema)}  # the whole reply (the next test sends its opening first)
    messages = [{"role": "system", "content": TOOL_FIRST.format_note},
                {"role": "user", "content": "list the files in the folder /tmp/prof/work"}]
    result = client.chat(messages, max_tokens=96, temperature=0.0, timeout=120, **extra)
    assert result.finish_reason == "stop", result  # the grammar ended the reply, not the token limit
    assert "\n" not in result.content, result.content  # one line: no indent between the JSON tokens
    value = json.loads(result.content)
    assert value.get("tool") in [*registry.names(), "none"], value
    reply = mode.parse(result)
    assert reply.calls or reply.text, result.content


def test_llama_server_continues_the_shared_opening_under_the_grammar_of_the_rest(held: tuple[Any, Any, Any]) -> None:
    # the opening {"tool": " goes as the start of the assistant's message: the server reads it with the prompt
    # (4 tokens prefilled, not decoded) and sends it back with the rest, which the grammar after it holds
    from gaia_lite.agent.constrained import TOOL_FIRST

    client, registry, mode = held
    opening = mode.reply_opening()
    assert opening == '{"tool": "'
    messages = [{"role": "system", "content": TOOL_FIRST.format_note},
                {"role": "user", "content": "list the files in the folder /tmp/prof/work"},
                {"role": "assistant", "content": opening}]
    result = client.chat(messages, max_tokens=96, temperature=0.0, timeout=120, **mode.request_extra(None))
    assert result.finish_reason == "stop", result
    assert result.content.startswith(opening), result.content  # llama-server sends the opening back
    assert json.loads(result.content).get("tool") in [*registry.names(), "none"], result.content
    reply = mode.parse(result)
    assert reply.calls or reply.text, result.content


def test_llama_server_writes_a_held_query_and_nothing_else(held: tuple[Any, Any, Any]) -> None:
    # a question about a table: the call is written up to the query's first word, the model writes the rest of
    # the string, and the grammar closes the call
    reply, whole = _held_reply(held, "analyze_data_file", "sales.csv", ("query",), "SELECT",
                               "CREATE TABLE data (region TEXT, amount REAL)\nregion is one of: north, south\nQuestion: "
                               "what did the north region sell in total?\nWrite one SQLite SELECT over data that "
                               "answers the question.")
    assert len(reply.calls) == 1 and reply.calls[0].name == "analyze_data_file", whole
    assert reply.calls[0].arguments["file_path"] == "sales.csv"
    assert reply.calls[0].arguments["query"].startswith("SELECT") and "FROM" in reply.calls[0].arguments["query"]


def test_llama_server_writes_a_held_edit_with_both_of_its_strings(held: tuple[Any, Any, Any]) -> None:
    # a change to a small file: the call is written up to old_content's opening quote; the grammar makes the model
    # close that string, write new_content and close the call
    reply, whole = _held_reply(held, "edit_file", "config.ini", ("old_content", "new_content"), "",
                               "config.ini holds:\n[server]\nport = 8080\nRequest: change the port to 9090\nWrite the "
                               "edit for it: old_content is the exact text to change, copied from the file; "
                               "new_content is the text that replaces it.")
    assert len(reply.calls) == 1 and reply.calls[0].name == "edit_file", whole
    assert set(reply.calls[0].arguments) == {"file_path", "old_content", "new_content"}, whole


def test_llama_server_starts_a_held_edit_from_one_of_the_files_lines(held: tuple[Any, Any, Any]) -> None:
    # with the file's lines as the options, old_content can only be one of them (the 0.5B wrote our request's
    # words there when it was free)
    lines = ("[server]", "host = localhost", "port = 8080")
    reply, whole = _held_reply(held, "edit_file", "config.ini", ("old_content", "new_content"), "",
                               "config.ini holds:\n" + "\n".join(lines) + "\nRequest: change the port to 9090\nWrite "
                               "the edit for it: old_content is the exact text to change, copied from the file; "
                               "new_content is the text that replaces it.", options=lines)
    assert len(reply.calls) == 1 and reply.calls[0].arguments["old_content"] in lines, whole


def _held_reply(held: tuple[Any, Any, Any], tool: str, file_path: str, writes: tuple[str, ...], start: str,
                asked: str, options: tuple[str, ...] = ()) -> tuple[Any, str]:
    """The model's reply held to ``tool``'s call on ``file_path`` after ``asked``, as the agent reads it, and the
    call's whole text (llama-server may or may not send the opening back)."""
    from dataclasses import replace

    client, _registry, mode = held
    opening, extra = mode.call_opening(tool, {"file_path": file_path}, writes, start, options)
    messages = [{"role": "user", "content": asked}, {"role": "assistant", "content": opening}]
    result = client.chat(messages, max_tokens=64, temperature=0.0, timeout=120, **extra)
    assert result.finish_reason == "stop", result
    whole = result.content if result.content.startswith("{") else opening + result.content
    return mode.parse(replace(result, content=whole)), whole
