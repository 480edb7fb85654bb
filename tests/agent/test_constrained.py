"""Constrained replies (design a: JSON only) on the wire, against a SCRIPTED FAKE OpenAI server.

The fake server does not run a grammar; it plays the replies a grammar allows. That the real
llama-server holds the model to the schema is checked by the slow test in tests/integration.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

import pytest

from gaia_lite.agent.constrained import (FALLBACK_NOTICE, GRAMMAR_MODE, TOOL_FIRST, AnswerView, ConstrainedReplies,
                                         choose_replies, decode_partial_string, reply_schema)
from gaia_lite.agent.loop import Agent, AgentOptions
from gaia_lite.agent.replies import FreeReplies, Reply
from gaia_lite.agent.selection import ToolSelector
from gaia_lite.events import Notice, TextDelta, ToolCallFinished, TurnFinished
from gaia_lite.llm.client import ChatClient
from gaia_lite.llm.structured import (Capabilities, CapabilityCache, probe_response_format, server_capabilities,
                                      supports_response_format)
from gaia_lite.messages import ChatResult
from gaia_lite.registry import ToolRegistry, ToolSpec, tool
from gaia_lite.registry.context import ToolContext
from gaia_lite.registry.execute import ToolExecutor
from tests.fakes.openai_server import FakeOpenAIServer, text_chunks


@tool
def read_file(ctx, file_path: str) -> dict:
    """Read a text file.

    Args:
        file_path: Path of the file.
    """
    return {"status": "success", "content": (ctx.workdir / file_path).read_text()}


@tool
def analyze_data_file(ctx, file_path: str, analysis_type: Literal["summary", "spending"] = "summary") -> dict:
    """Totals from a CSV.

    Args:
        file_path: The CSV.
        analysis_type: What to compute.
    """
    return {"status": "success", "total": 270}


class OpenSandbox:
    roots = ()
    approved = ()

    def check(self, path, *, write=False):
        return Path(path)


def _registry() -> ToolRegistry:
    return ToolRegistry([read_file, analyze_data_file])


def _agent(srv: FakeOpenAIServer, workdir: Path, replies=None, notices=()) -> Agent:
    registry = _registry()
    selector = ToolSelector(registry)
    ctx = ToolContext(workdir=workdir, sandbox=OpenSandbox(), data_dir=workdir)
    executor = ToolExecutor(registry, ctx, on_invoke=selector.record_tool_use)
    client = ChatClient(srv.base_url)
    mode = replies(registry) if replies else ConstrainedReplies(registry, FreeReplies(registry.names).parse)
    return Agent(client, registry, executor, selector, AgentOptions(native_tools=False, max_steps=4, workdir=workdir),
                 replies=mode, notices=notices)


def _tool_first_agent(srv: FakeOpenAIServer, workdir: Path) -> Agent:
    return _agent(srv, workdir, replies=lambda r: ConstrainedReplies(r, FreeReplies(r.names).parse, shape=TOOL_FIRST))


def test_the_schema_offers_an_answer_or_a_call_to_any_tool_with_its_own_arguments() -> None:
    schema = reply_schema(_registry())
    answer, *calls = schema["anyOf"]
    assert answer["required"] == ["answer"]
    assert [c["properties"]["name"]["const"] for c in calls] == ["read_file", "analyze_data_file"]
    data = calls[1]["properties"]["arguments"]
    assert data["properties"]["analysis_type"]["enum"] == ["summary", "spending"]  # 'sum' cannot be written
    assert data["required"] == ["file_path"] and data["additionalProperties"] is False
    assert reply_schema(_registry(), answer_only=True) == answer


@pytest.mark.parametrize(("raw", "text", "closed"), [
    ('Hello', "Hello", False),
    ('Hel\\"lo" , "x"', 'Hel"lo', True),
    ('line\\', "line", False),  # an escape cut in half waits for the next chunk
    ('caf\\u00e', "caf", False),
    ('caf\\u00e9!"', "café!", True),
])
def test_decode_partial_string(raw: str, text: str, closed: bool) -> None:
    assert decode_partial_string(raw) == (text, closed)


def _feed(view: AnswerView, reply: str, size: int = 5) -> str:
    shown = "".join(view.feed(reply[i:i + size]) for i in range(0, len(reply), size))
    return shown + view.finish(ChatResult(reply))


def test_the_answer_streams_as_text_without_its_json() -> None:
    reply = json.dumps({"answer": "The total of q1 is 270, from sales.csv. North sold 120 and south 150."})
    view = AnswerView(["read_file"])
    first = [view.feed(reply[i:i + 5]) for i in range(0, len(reply), 5)]
    assert "".join(first) + view.finish(ChatResult(reply)) == json.loads(reply)["answer"]
    assert any(first[:-3]), "the answer is shown while it arrives, not only at the end"


def test_an_answer_that_names_a_tool_is_never_shown() -> None:
    assert _feed(AnswerView(["list_recent_files"]), '{"answer": "list_recent_files"}') == ""
    narrated = '{"answer": "To list the files, you can use the `browse_directory` tool with these arguments."}'
    assert _feed(AnswerView(["browse_directory"]), narrated) == ""


def test_a_call_is_never_shown() -> None:
    assert _feed(AnswerView(["read_file"]), '{"name": "read_file", "arguments": {"file_path": "a.txt"}}') == ""


def test_parse_reads_calls_answers_and_a_cut_off_answer() -> None:
    mode = ConstrainedReplies(_registry(), FreeReplies(_registry().names).parse)
    call = mode.parse(ChatResult('{"name": "read_file", "arguments": {"file_path": "a.txt"}}'))
    assert [(c.name, c.arguments) for c in call.calls] == [("read_file", {"file_path": "a.txt"})]
    assert mode.parse(ChatResult('{"answer": " 270 "}')).text == "270"
    assert mode.parse(ChatResult('{"answer": "It is 27')).text == "It is 27"  # max_tokens hit


def test_a_constrained_turn_sends_the_schema_runs_the_call_and_streams_the_answer(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("buy milk")
    with FakeOpenAIServer() as srv:
        srv.script += [text_chunks('{"name": "read_file", "arguments": {"file_path": "notes.md"}}'),
                       text_chunks('{"answer": "Your notes say: buy milk. That is the only item on the list."}',
                                   pieces=6)]
        events = list(_agent(srv, tmp_path).run("show me notes.md"))
    finished = next(e for e in events if isinstance(e, TurnFinished))
    assert finished.answer == "Your notes say: buy milk. That is the only item on the list."
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == finished.answer
    assert [e.outcome for e in events if isinstance(e, ToolCallFinished)] == ["ok"]
    for body in srv.requests:
        schema = body["response_format"]["json_schema"]["schema"]
        assert len(schema["anyOf"]) == 3  # the answer + both tools of the full registry


def test_a_server_without_response_format_is_probed_once_and_cached(tmp_path: Path) -> None:
    cache = CapabilityCache(tmp_path / "state/capabilities.json")
    with FakeOpenAIServer(reject_response_format=True) as srv:
        client = ChatClient(srv.base_url)
        assert supports_response_format(client, cache, "srv|fake-model") == (False, True)
        assert supports_response_format(client, cache, "srv|fake-model") == (False, False)
        assert len(srv.requests) == 1
    assert json.loads((tmp_path / "state/capabilities.json").read_text())["srv|fake-model"]["response_format"] is False


@pytest.mark.parametrize(("reply", "capable"), [('{"ok": true}', True), ("Yes, water is wet.", False),
                                                ('{"ok": true, "why": "x"}', False)])
def test_the_probe_trusts_only_a_reply_held_to_the_schema(reply: str, capable: bool) -> None:
    with FakeOpenAIServer() as srv:
        srv.script.append(text_chunks(reply))
        assert probe_response_format(ChatClient(srv.base_url)) is capable
        assert srv.requests[0]["response_format"]["type"] == "json_schema"


def test_auto_falls_back_to_the_free_parser_with_one_notice(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("buy milk")
    registry = _registry()
    with FakeOpenAIServer(reject_response_format=True) as srv:
        client = ChatClient(srv.base_url)
        cache = CapabilityCache(tmp_path / "capabilities.json")
        replies, notice = choose_replies("auto", native=False, registry=registry,
                                         capable=lambda: server_capabilities(client, cache, "k"))
        assert isinstance(replies, FreeReplies) and notice == FALLBACK_NOTICE
        srv.script += [text_chunks('{"name": "read_file", "arguments": {"file_path": "notes.md"}}'),
                       text_chunks("Your notes say: buy milk."),
                       text_chunks("Nothing else.")]
        agent = _agent(srv, tmp_path, replies=lambda _r: replies, notices=(notice,))
        first = list(agent.run("show me notes.md"))
        second = list(agent.run("anything else?"))
    assert [e.message for e in first if isinstance(e, Notice)] == [FALLBACK_NOTICE]
    assert not [e for e in second if isinstance(e, Notice)]
    assert next(e for e in first if isinstance(e, TurnFinished)).answer == "Your notes say: buy milk."
    assert all("response_format" not in body for body in srv.requests[1:])


def test_choose_replies() -> None:
    registry = _registry()

    def never() -> Capabilities:
        raise AssertionError("no probe expected")

    def sent(mode: str, capable=never) -> str:
        replies = choose_replies(mode, native=False, registry=registry, capable=capable)[0]
        assert isinstance(replies, ConstrainedReplies)
        return next(iter(replies.request_extra(None)))

    assert choose_replies("auto", native=True, registry=registry, capable=never)[1] is None
    assert isinstance(choose_replies("free", native=False, registry=registry, capable=never)[0], FreeReplies)
    assert sent("constrained") == "response_format"  # forced: no probe, the field every such server reads
    assert sent(GRAMMAR_MODE) == "grammar"  # the task suite's arms, on a server it probed beforehand
    assert sent("auto", lambda: Capabilities(response_format=True)) == "response_format"
    assert sent("auto", lambda: Capabilities(response_format=True, grammar=True)) == "grammar"
    assert isinstance(choose_replies("auto", native=False, registry=registry, capable=lambda: Capabilities())[0],
                      FreeReplies)


def test_a_server_that_honours_grammar_gets_the_schema_as_a_compact_grammar() -> None:
    from gaia_lite.agent.grammar import schema_grammar

    registry = _registry()
    plain = ConstrainedReplies(registry, FreeReplies(registry.names).parse, shape=TOOL_FIRST)
    held = ConstrainedReplies(registry, FreeReplies(registry.names).parse, shape=TOOL_FIRST, grammar=True)
    for kwargs in ({}, {"has_result": True}, {"calls_only": True}, {"forced": True}):
        schema = plain.request_extra(None, **kwargs)["response_format"]["json_schema"]["schema"]
        opening = held.reply_opening(**kwargs)
        # every first key is "tool" but after a result (then "answer" or "tool"): that reply starts unopened
        assert opening == ("" if kwargs.get("has_result") else '{"tool": "'), kwargs
        assert plain.reply_opening(**kwargs) == "", "response_format cannot say what follows an opening"
        expected = schema_grammar(schema, after_opening=bool(opening))
        assert held.request_extra(None, **kwargs) == {"grammar": expected}, kwargs
    first = held.request_extra(None)["grammar"]
    assert held.request_extra(None)["grammar"] is first  # built once while the registry stays the same
    registry.remove("read_file")  # rebuilt when the registry changes
    assert "read_file" not in held.request_extra(None)["grammar"] and "analyze_data_file" in first


def test_every_built_in_tool_can_be_said_by_the_compact_grammar() -> None:
    # a keyword the grammar writer does not know (a "minimum", say) would quietly cost every request the saving
    from gaia_lite.tools.catalog import doc_tool_specs

    registry = ToolRegistry(doc_tool_specs(memory_enabled=True, with_loader=True))
    held = ConstrainedReplies(registry, FreeReplies(registry.names).parse, shape=TOOL_FIRST, grammar=True)
    assert len(registry) > 30 and "grammar" in held.request_extra(None)


def test_a_tool_whose_schema_the_grammar_cannot_say_keeps_response_format() -> None:
    registry = _registry()
    registry.add(ToolSpec("mcp_fetch", "Fetch a page.", "Fetch a page.", (), lambda **_: {}, schema={
        "type": "object", "properties": {"url": {"type": "string", "format": "uri"}}, "required": ["url"]}))
    held = ConstrainedReplies(registry, FreeReplies(registry.names).parse, shape=TOOL_FIRST, grammar=True)
    assert "response_format" in held.request_extra(None)  # the server's converter knows "format"
    assert "grammar" in held.request_extra(None, forced=True)  # the answer alone it can say


@pytest.mark.parametrize("reply", ['{"tool":"none","answer":"The total of q1 is 270, from sales.csv. North sold 120."}',
                                   '{"tool": "none", "answer": "The total of q1 is 270, from sales.csv. North sold 120."}'])
def test_compact_replies_stream_and_parse_as_spaced_ones(reply: str) -> None:
    mode = ConstrainedReplies(_registry(), FreeReplies(_registry().names).parse, shape=TOOL_FIRST, grammar=True)
    assert _feed(mode.view(), reply, size=3) == "The total of q1 is 270, from sales.csv. North sold 120."
    assert mode.parse(ChatResult(reply)).text == "The total of q1 is 270, from sales.csv. North sold 120."
    call = '{"tool":"read_file","arguments":{"file_path":"a.txt"}}'
    assert _feed(mode.view(), call, size=3) == ""
    assert [(c.name, c.arguments) for c in mode.parse(ChatResult(call)).calls] == [("read_file", {"file_path": "a.txt"})]
    assert mode.parse(ChatResult('{"answer":"It is 27')).text == "It is 27"  # cut off by max_tokens


def test_a_server_refusing_the_schema_mid_session_falls_back_to_free_calls(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("buy milk")
    with FakeOpenAIServer() as srv:
        srv.script += ["http_500", text_chunks('{"name": "read_file", "arguments": {"file_path": "notes.md"}}'),
                       text_chunks("Your notes say: buy milk.")]  # read first: the judge asks for a read otherwise
        events = list(_agent(srv, tmp_path).run("show me notes.md"))
        requests = list(srv.requests)
    assert "response_format" in requests[0] and "response_format" not in requests[1]
    assert [e.message[:40] for e in events if isinstance(e, Notice)] == ["the server refused the reply constraint "]
    assert next(e for e in events if isinstance(e, TurnFinished)).answer == "Your notes say: buy milk."


def test_constrained_replies_get_their_own_reply_format_in_the_system_prompt(tmp_path: Path) -> None:
    from gaia_lite.agent.prompt import RESPONSE_FORMAT

    with FakeOpenAIServer() as srv:
        srv.script += [text_chunks('{"answer": "Paris is the capital of France."}')]
        list(_agent(srv, tmp_path).run("capital of France?"))
        system = srv.requests[0]["messages"][0]["content"]
    assert RESPONSE_FORMAT not in system  # "answer in plain sentences (not JSON)" contradicts the schema
    assert 'To answer the user: {"answer": "<your answer, in plain sentences>"}' in system


def test_the_tool_first_schema_starts_every_reply_with_the_choice() -> None:
    schema = reply_schema(_registry(), shape=TOOL_FIRST)
    answer, *calls = schema["anyOf"]
    assert list(answer["properties"]) == ["tool", "answer"] and answer["properties"]["tool"] == {"const": "none"}
    assert [list(c["properties"]) for c in calls] == [["tool", "arguments"], ["tool", "arguments"]]
    assert [c["properties"]["tool"]["const"] for c in calls] == ["read_file", "analyze_data_file"]
    assert reply_schema(_registry(), answer_only=True, shape=TOOL_FIRST) == answer


def test_tool_first_replies_are_read_and_their_answer_streams_without_json() -> None:
    mode = ConstrainedReplies(_registry(), FreeReplies(_registry().names).parse, shape=TOOL_FIRST)
    call = mode.parse(ChatResult('{"tool": "read_file", "arguments": {"file_path": "a.txt"}}'))
    assert [(c.name, c.arguments) for c in call.calls] == [("read_file", {"file_path": "a.txt"})]
    assert mode.parse(ChatResult('{"tool": "none", "answer": " 270 "}')) == Reply((), "270")
    assert mode.parse(ChatResult('{"tool": "none", "answer": "It is 27')).text == "It is 27"  # max_tokens hit
    reply = json.dumps({"tool": "none", "answer": "The total of q1 is 270, from sales.csv. North sold 120."})
    assert _feed(mode.view(), reply) == json.loads(reply)["answer"]
    assert _feed(mode.view(), '{"tool": "read_file", "arguments": {"file_path": "a.txt"}}') == ""


def test_a_tool_first_turn_tells_the_model_its_format(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("buy milk")
    with FakeOpenAIServer() as srv:
        srv.script += [text_chunks('{"tool": "read_file", "arguments": {"file_path": "notes.md"}}'),
                       text_chunks('{"answer": "Your notes say: buy milk."}')]
        events = list(_tool_first_agent(srv, tmp_path).run("show me notes.md"))
        first, after = srv.requests
    system = first["messages"][0]["content"]
    assert next(e for e in events if isinstance(e, TurnFinished)).answer == "Your notes say: buy milk."
    assert '{"tool": "none", "answer": "<your answer, in plain sentences>"}' in system
    # with a result in hand, the first key chooses between answering and calling on
    assert first["response_format"]["json_schema"]["schema"]["anyOf"][0]["required"] == ["tool", "answer"]
    assert after["response_format"]["json_schema"]["schema"]["anyOf"][0]["required"] == ["answer"]


def test_a_narrated_constrained_reply_is_asked_again_held_to_a_call_with_no_words(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("buy milk")
    with FakeOpenAIServer() as srv:
        srv.script += [text_chunks('{"tool": "none", "answer": "You can use read_file to read notes.md."}'),
                       text_chunks('{"tool": "read_file", "arguments": {"file_path": "notes.md"}}'),
                       text_chunks('{"tool": "none", "answer": "Your notes say: buy milk."}')]
        events = list(_tool_first_agent(srv, tmp_path).run("show me notes.md"))
        first, retry, last = srv.requests
    assert retry["messages"] == first["messages"]  # nothing the model could echo was added
    assert "none" not in json.dumps(retry["response_format"])  # held to a call
    assert "answer" in json.dumps(last["response_format"])
    assert next(e for e in events if isinstance(e, TurnFinished)).answer == "Your notes say: buy milk."
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Your notes say: buy milk."


def test_a_copied_reply_format_is_asked_for_the_answer_not_held_to_a_call(tmp_path: Path) -> None:
    with FakeOpenAIServer() as srv:
        srv.script += [text_chunks('{"tool": "none", "answer": "<your answer, in plain sentences>"}'),
                       text_chunks('{"tool": "none", "answer": "Rome is the capital of Italy."}')]
        events = list(_tool_first_agent(srv, tmp_path).run("what is the capital of Italy?"))
        first, retry = srv.requests
    assert "none" in json.dumps(retry["response_format"])  # still free to answer without a tool
    assert "what is the capital of Italy?" in retry["messages"][-1]["content"]
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Rome is the capital of Italy."


def test_a_constrained_answer_that_is_json_data_is_held_for_the_loop() -> None:
    view = AnswerView(["read_file"], shape=TOOL_FIRST)
    raw = '{"tool": "none", "answer": "{\\"size_bytes\\": 8, \\"content\\": \\"buy milk. Then more.\\"}"}'
    assert "".join(view.feed(raw[i:i + 5]) for i in range(0, len(raw), 5)) + view.finish(ChatResult(raw)) == ""


# --- our own after-result line, copied into an answer (bench_first_ask --sequence, "show me notes.md") ---

COPIED = '{"tool": "none", "answer": "The content of notes.md is:\\n\\nBuy stamps.\\n(If this answers the request, reply {'


@pytest.mark.parametrize("size", [1, 3, 7, 50])
def test_a_copied_after_result_line_never_reaches_the_screen(size: int) -> None:
    from gaia_lite.agent.constrained import TOOL_FIRST_AFTER_RESULT
    from gaia_lite.agent.replies import OwnLinesView

    view = OwnLinesView(AnswerView(["read_file"], shape=TOOL_FIRST), [TOOL_FIRST_AFTER_RESULT])
    pieces = [view.feed(COPIED[i:i + size]) for i in range(0, len(COPIED), size)]
    assert "".join(pieces) + view.finish(ChatResult(COPIED)) == "The content of notes.md is:\n\nBuy stamps."


def test_text_that_only_starts_like_our_line_is_shown_once_it_cannot_be_it() -> None:
    from gaia_lite.agent.constrained import TOOL_FIRST_AFTER_RESULT
    from gaia_lite.agent.replies import OwnLinesView

    reply = '{"tool": "none", "answer": "Buy stamps (If needed) and milk."}'
    view = OwnLinesView(AnswerView(["read_file"], shape=TOOL_FIRST), [TOOL_FIRST_AFTER_RESULT])
    held = [view.feed(reply[i:i + 4]) for i in range(0, len(reply), 4)]
    assert "".join(held) + view.finish(ChatResult(reply)) == "Buy stamps (If needed) and milk."


def test_a_turn_whose_answer_copies_the_after_result_line_shows_the_answer_once(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("Buy stamps.")
    with FakeOpenAIServer() as srv:
        srv.script += [text_chunks('{"tool": "read_file", "arguments": {"file_path": "notes.md"}}'),
                       text_chunks(COPIED, pieces=9)]
        events = list(_tool_first_agent(srv, tmp_path).run("show me notes.md"))
        requests = list(srv.requests)
    finished = next(e for e in events if isinstance(e, TurnFinished))
    assert finished.answer == "The content of notes.md is:\n\nBuy stamps."
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == finished.answer, "shown once, no copy"
    # and the server stops decoding at the copy: every token of it is time the user waits
    assert all(body["stop"] == ["(If this answers"] for body in requests)


def test_a_call_on_a_made_up_file_is_not_run_and_the_next_reply_answers(tmp_path: Path) -> None:
    # the 0.5B, test split: the poem it was asked for, written to a file nobody named (invented_file)
    write = text_chunks('{"tool": "write_file", "arguments": {"file_path": "sea.txt", "content": "The sea is vast"}}')
    with FakeOpenAIServer() as srv:
        srv.script += [write, text_chunks('{"tool": "none", "answer": "The sea is vast and deep."}')]
        events = list(_tool_first_agent(srv, tmp_path).run("Write me a two-line poem about the sea."))
        requests = list(srv.requests)
    assert not [e for e in events if isinstance(e, ToolCallFinished)], "the write never ran"
    assert not (tmp_path / "sea.txt").exists()
    assert next(e for e in events if isinstance(e, TurnFinished)).answer == "The sea is vast and deep."
    assert len(requests) == 2
    assert requests[1]["messages"][-1]["content"] == "No file sea.txt exists, and I asked for none. Answer without " \
                                                    "tools: Write me a two-line poem about the sea."
