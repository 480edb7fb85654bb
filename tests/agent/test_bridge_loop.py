"""The call_tool bridge in a real agent session (doc registry, real loader with a hash embedder,
SCRIPTED FAKE OpenAI server): the native prefix stays byte-stable, and the user never sees the bridge."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from gaia_lite.agent.loop import Agent, AgentOptions
from gaia_lite.embed.hashing import HashEmbedder
from gaia_lite.events import ToolCallFinished, ToolCallStarted, TurnFinished
from gaia_lite.llm.client import ChatClient
from gaia_lite.loader.loader import build_doc_loader
from gaia_lite.logline import parse_line
from gaia_lite.registry.bridge import BRIDGE
from tests.agent.wiring import doc_stack
from tests.fakes.openai_server import FakeOpenAIServer, text_chunks, tool_call_chunks


def _agent(srv: FakeOpenAIServer, tmp_path: Path, layout: str = "stable") -> Agent:
    stack = doc_stack(build_doc_loader(HashEmbedder(dim=256)), tmp_path, native=True)
    return Agent(ChatClient(srv.base_url, model="fake-model"), stack.registry, stack.executor, stack.selector,
                 AgentOptions(native_tools=True, workdir=tmp_path, prompt_layout=layout))


def _bridged(name: str, arguments: dict, call_id: str) -> list:
    return tool_call_chunks(BRIDGE, {"name": name, "arguments": arguments}, call_id=call_id)


def _session(srv: FakeOpenAIServer, agent: Agent) -> list:
    srv.script += [tool_call_chunks("load_tools", {"bundle": "clipboard"}, call_id="c1"),
                   _bridged("read_clipboard", {}, "c2"), text_chunks("Done.")]
    events = list(agent.run("how much did we sell in Q1? the numbers are in sales.csv"))
    srv.script += [_bridged("list_windows", {}, "c3"), text_chunks("None.")]
    events += list(agent.run("which documents have I indexed up to now?"))
    srv.script += [text_chunks("Bye.")]
    events += list(agent.run("thanks"))
    return events


def test_the_bytes_before_the_conversation_never_change_on_the_native_path(tmp_path) -> None:
    with FakeOpenAIServer() as srv:
        agent = _agent(srv, tmp_path)
        _session(srv, agent)
        requests = srv.requests
    prefixes = {json.dumps([r["messages"][0], r["tools"]]) for r in requests}
    assert len(requests) == 6 and len(prefixes) == 1
    assert requests[0]["tools"][-1]["function"]["name"] == BRIDGE
    # the mid-turn load is disclosed in the load_tools result, for the bridge to reach
    load_result = next(m for m in requests[1]["messages"] if m.get("tool_call_id") == "c1")
    assert "- read_clipboard(" in load_result["content"] and f"{BRIDGE}(name, arguments)" in load_result["content"]
    # the history keeps the model's own words: the bridged call goes back as it was written
    assert requests[2]["messages"][-2]["tool_calls"][0]["function"]["name"] == BRIDGE


def test_without_the_bridge_the_tools_array_grows(tmp_path) -> None:
    with FakeOpenAIServer() as srv:
        agent = _agent(srv, tmp_path, layout="append")
        srv.script += [tool_call_chunks("load_tools", {"bundle": "clipboard"}, call_id="c1"), text_chunks("ok")]
        list(agent.run("how much did we sell in Q1? the numbers are in sales.csv"))
        first, second = srv.requests
    assert BRIDGE not in json.dumps(first["tools"])
    assert len(second["tools"]) > len(first["tools"])


def test_the_user_sees_and_the_logs_name_the_real_tool(tmp_path, caplog) -> None:
    caplog.set_level(logging.INFO, logger="gaia_lite")
    with FakeOpenAIServer() as srv:
        agent = _agent(srv, tmp_path)
        events = _session(srv, agent)
        loaded_at_turn_2 = set(agent.selector.state.filter or ())
    started = [e.name for e in events if isinstance(e, ToolCallStarted)]
    finished = [e for e in events if isinstance(e, ToolCallFinished)]
    assert started == [e.name for e in finished] == ["load_tools", "read_clipboard", "list_windows"]
    assert [e.tools_called for e in events if isinstance(e, TurnFinished)][:2] == [
        ("load_tools", "read_clipboard"), ("list_windows",)]
    # read_clipboard was loaded (by load_tools), so calling it through the bridge is no escape hatch;
    # list_windows was not, so it is one, counted under its own name
    assert finished[1].escape_hatch is False
    assert finished[2].escape_hatch is ("list_windows" not in loaded_at_turn_2) is True
    lines = [r.getMessage() for r in caplog.records]
    assert not any(BRIDGE in line for line in lines if "TOOL_" in line)
    calls = [json.loads(line.split(" ", 1)[1])["called"] for line in lines if line.startswith("TOOL_CALLS")]
    assert calls == [["load_tools", "read_clipboard"], ["list_windows"], []]
    hatches = [p.payload for p in map(parse_line, lines) if p is not None and p.kind == "escape_hatch"]
    assert [h["tool"] for h in hatches] == ["list_windows"]
