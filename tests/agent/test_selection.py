"""The agent's selection seam: off-states are the legacy path byte for byte,
load_tools exists only while the loader is active, and a mid-turn load is
visible to the very next model step."""

from __future__ import annotations

import json
from pathlib import Path

from gaia_lite.agent.loop import Agent, AgentOptions
from gaia_lite.agent.prefix import MORE_TOOLS_HEADER
from gaia_lite.agent.selection import ToolSelector
from gaia_lite.embed.hashing import FixedEmbedder
from gaia_lite.events import ToolsLoaded, ToolsSelected, TurnFinished, to_dict
from gaia_lite.llm.client import ChatClient
from gaia_lite.loader.bundles import ToolBundle
from gaia_lite.loader.loader import ToolLoader
from gaia_lite.loader.presets import PRESETS
from gaia_lite.registry import ToolRegistry, tool
from gaia_lite.registry.context import ToolContext
from gaia_lite.registry.execute import ToolExecutor
from gaia_lite.tools.load import load_tools
from tests.fakes.openai_server import FakeOpenAIServer, text_chunks, tool_call_chunks


def _make(name: str, summary: str):
    def fn(ctx) -> dict:
        return {"status": "success", "tool": name}

    fn.__name__ = name
    fn.__doc__ = summary
    return tool(fn)


TOOLS = [_make("remember", "Store a fact."), _make("read_file", "Read a file."),
         _make("write_clipboard", "Set the clipboard."), _make("read_clipboard", "Get the clipboard."),
         _make("analyze_data_file", "Sum a CSV.")]
CORE = {"remember", "read_file", "load_tools"}
BUNDLES = [ToolBundle("clipboard", frozenset({"write_clipboard", "read_clipboard"}), "Clipboard text."),
           ToolBundle("data", frozenset({"analyze_data_file"}), "Tables."),
           ToolBundle("core_stuff", frozenset({"remember", "read_file"}), "")]
# unit vectors: the query "sum csv" points at analyze_data_file only
TABLE = {"analyze_data_file:": [1.0, 0.0, 0.0], "sum csv": [1.0, 0.0, 0.0],
         "write_clipboard:": [0.0, 1.0, 0.0], "read_clipboard:": [0.0, 1.0, 0.0]}


class OpenSandbox:
    roots = ()
    approved = ()

    def check(self, path, *, write=False):
        return Path(path)


def _agent(srv, tmp_path, *, with_loader: bool, fail_embedder: bool = False, native: bool = True):
    loader = None
    if with_loader:
        emb = FixedEmbedder(TABLE, dim=3)
        emb.fail = fail_embedder
        loader = ToolLoader(CORE, BUNDLES, emb, settings=PRESETS["gaia"].replace(max_tools=6))
    registry = ToolRegistry([*TOOLS[:2], load_tools, *TOOLS[2:]] if with_loader else TOOLS)
    selector = ToolSelector(registry, loader)
    ctx = ToolContext(workdir=tmp_path, sandbox=OpenSandbox(), data_dir=tmp_path, loader=selector)
    executor = ToolExecutor(registry, ctx, on_invoke=selector.record_tool_use)
    return Agent(ChatClient(srv.base_url), registry, executor, selector,
                 AgentOptions(native_tools=native, workdir=tmp_path))


def _first_request(tmp_path, **kw):
    with FakeOpenAIServer() as srv:
        srv.script.append(text_chunks("ok"))
        events = list(_agent(srv, tmp_path, **kw).run("sum csv"))
        return srv.requests[0], events


def test_embedder_failure_is_the_legacy_path_byte_for_byte(tmp_path):
    for native in (True, False):
        legacy, _ = _first_request(tmp_path, with_loader=False, native=native)
        failed, events = _first_request(tmp_path, with_loader=True, fail_embedder=True, native=native)
        assert json.dumps(legacy["messages"]) == json.dumps(failed["messages"])
        assert json.dumps(legacy.get("tools")) == json.dumps(failed.get("tools"))
        sel = [e for e in events if isinstance(e, ToolsSelected)][0]
        assert sel.off_state == "embedder_failed" and "load_tools" not in sel.loaded


def test_active_loader_filters_both_paths_and_shows_menu(tmp_path):
    req, events = _first_request(tmp_path, with_loader=True)
    names = [t["function"]["name"] for t in req["tools"]]
    # GAIA 0.25.1's order: CORE in registry order, then admissions; then the stable layout's bridge
    assert names == ["remember", "read_file", "load_tools", "analyze_data_file", "call_tool"]
    assert "LOADABLE TOOL BUNDLES" in req["messages"][0]["content"]
    sel = [e for e in events if isinstance(e, ToolsSelected)][0]
    assert sel.off_state is None and sel.record.admitted and sel.tools_hash == sel.record.tools_hash
    assert to_dict(sel)["record"] == sel.record.payload()  # serialised as its TOOL_LOADER line logs it
    json.dumps(to_dict(sel))
    text_req, _ = _first_request(tmp_path, with_loader=True, native=False)
    system = text_req["messages"][0]["content"]
    tool_block = system.rsplit("\n\n", 1)[1]  # the filtered tool block is last, load_tools at its end
    assert tool_block.startswith("==== AVAILABLE TOOLS ====") and "- analyze_data_file(): Sum a CSV." in tool_block
    assert tool_block.splitlines()[-1].startswith("- load_tools(")
    assert system.index("RESPONSE FORMAT") < system.index("AVAILABLE TOOLS")


def test_load_tools_mid_turn_is_seen_by_the_next_step(tmp_path):
    with FakeOpenAIServer() as srv:
        srv.script += [tool_call_chunks("load_tools", {"bundle": "clipboard"}),
                       tool_call_chunks("write_clipboard", {}, call_id="call_2"),
                       text_chunks("Copied.")]
        agent = _agent(srv, tmp_path, with_loader=True)
        events = list(agent.run("sum csv"))
        first, second = srv.requests[0], srv.requests[1]
    # the tools array stays as it was (the server's cached prefix); the load_tools result lists the new
    # tools, which the model reaches directly or through call_tool
    assert second["tools"] == first["tools"]
    result = next(m for m in second["messages"] if m["role"] == "tool")
    assert "- read_clipboard(" in result["content"] and "- write_clipboard(" in result["content"]
    loaded = [e for e in events if isinstance(e, ToolsLoaded)][0]
    assert loaded.bundle == "clipboard" and set(loaded.admitted) >= {"write_clipboard"}
    assert [e for e in events if isinstance(e, TurnFinished)][0].tools_called == (
        "load_tools", "write_clipboard")


def test_text_path_load_keeps_the_system_prompt_and_lists_the_new_tools_in_the_result(tmp_path):
    """The stable layout: a mid-turn load must not rewrite the cached system prompt."""
    with FakeOpenAIServer() as srv:
        srv.script += [text_chunks('{"name": "load_tools", "arguments": {"bundle": "clipboard"}}'),
                       text_chunks('{"name": "write_clipboard", "arguments": {}}'),
                       text_chunks("Copied.")]
        events = list(_agent(srv, tmp_path, with_loader=True, native=False).run("sum csv"))
        first, second = srv.requests[0], srv.requests[1]
    assert second["messages"][0]["content"] == first["messages"][0]["content"]
    result = second["messages"][-1]
    assert result["role"] == "tool" and MORE_TOOLS_HEADER in result["content"]
    assert "- write_clipboard(" in result["content"] and "- read_clipboard(" in result["content"]
    assert [e for e in events if isinstance(e, TurnFinished)][0].tools_called == ("load_tools", "write_clipboard")


def test_unlisted_tool_runs_and_is_marked_as_escape_hatch(tmp_path, caplog):
    caplog.set_level("INFO", logger="gaia_lite")
    with FakeOpenAIServer() as srv:
        srv.script += [tool_call_chunks("read_clipboard", {}), text_chunks("Done.")]
        events = list(_agent(srv, tmp_path, with_loader=True).run("sum csv"))
    finished = [e for e in events if e.kind == "tool_call_finished"][0]
    assert finished.status == "success" and finished.escape_hatch is True
    assert any('"event": "TOOL_LOADER_ESCAPE_HATCH", "tool": "read_clipboard"' in r.message for r in caplog.records)


def test_load_tools_refuses_politely_when_loader_is_off(tmp_path):
    with FakeOpenAIServer() as srv:
        srv.script.append(text_chunks("ok"))
        agent = _agent(srv, tmp_path, with_loader=True, fail_embedder=True)
        list(agent.run("sum csv"))
        out = agent.load("clipboard")
    assert isinstance(out, str) and "already available" in out


def test_reset_logs_session_summary_and_clears_history(tmp_path, caplog):
    caplog.set_level("INFO", logger="gaia_lite")
    with FakeOpenAIServer() as srv:
        srv.script.append(text_chunks("ok"))
        agent = _agent(srv, tmp_path, with_loader=True)
        list(agent.run("sum csv"))
        agent.reset()
    assert agent.history == [] and agent.selector.state.filter is None
    assert any(r.message.startswith("TOOL_LOADER_SESSION ") for r in caplog.records)


def test_close_waits_for_the_background_warm_up(tmp_path):
    # left running into interpreter exit inside the embedder's native code, the warm-up aborted
    # `serve --warm` (exit code 134) after its work was done
    import threading

    class SlowEmbedder(FixedEmbedder):
        def __init__(self) -> None:
            super().__init__(TABLE, dim=3)
            self.started, self.release, self.finished = threading.Event(), threading.Event(), False

        def _embed_raw(self, texts):
            self.started.set()
            self.release.wait(10)
            out = super()._embed_raw(texts)
            self.finished = True
            return out

    registry = ToolRegistry()
    for spec in TOOLS:
        registry.add(spec)
    emb = SlowEmbedder()
    selector = ToolSelector(registry, ToolLoader(CORE, BUNDLES, emb, settings=PRESETS["gaia"]))
    selector.warm()
    assert emb.started.wait(10), "the warm-up never embedded"
    closer = threading.Thread(target=selector.close)
    closer.start()
    closer.join(0.3)
    assert closer.is_alive(), "close() returned while the warm-up was still embedding"
    emb.release.set()
    closer.join(10)
    assert not closer.is_alive() and emb.finished
