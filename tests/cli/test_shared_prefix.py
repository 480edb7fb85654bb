"""The shared prompt prefix at the byte level (issue 29): on both render paths, the first request of
every conversation, whatever its question and loaded tools and whatever folder it runs in, starts
with the bytes ``shared_prefix_text`` computes (system prompt and CORE tools), so one saved KV cache
serves them all; and a conversation continued by another process (``ask -c``) sends the previous
request's bytes first, so a kept-alive server prefills only what is new.

The agent is the real one (registry, loader with a deterministic hash embedder, layouts) against the
scripted fake OpenAI server; the chat template is a stand-in shaped like Qwen2.5's (system message,
then the tools array, then the turns). The real template is checked with llama-server's own
``/apply-template`` in tests/integration/test_keepalive_real.py."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from gaia_lite.agent.loop import Agent, AgentOptions
from gaia_lite.cli.resume import resume, save_state
from gaia_lite.cli.shared_prefix import common_lines, shared_prefix_text
from gaia_lite.embed.hashing import HashEmbedder
from gaia_lite.loader.bundles import load_bundles
from gaia_lite.loader.documents import load_examples
from gaia_lite.loader.loader import ToolLoader
from gaia_lite.loader.presets import PRESETS
from gaia_lite.llm.client import ChatClient
from gaia_lite.memory.store import MemoryStore
from tests.agent.wiring import doc_stack
from tests.fakes.openai_server import FakeOpenAIServer, text_chunks, tool_call_chunks


def render(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> str:
    """A chat template shaped like Qwen2.5's: the tools array is rendered inside the system turn."""
    out = f"<|im_start|>system\n{messages[0]['content']}"
    if tools:
        out += "\n\n# Tools\n<tools>\n" + "\n".join(json.dumps(t) for t in tools) + "\n</tools>"
    out += "<|im_end|>\n"
    for m in messages[1:]:
        calls = json.dumps(m["tool_calls"]) if m.get("tool_calls") else ""
        out += f"<|im_start|>{m['role']}\n{m.get('content') or ''}{calls}<|im_end|>\n"
    return out + "<|im_start|>assistant\n"


def _agent(srv: FakeOpenAIServer, workdir: Path, *, native: bool, memory: MemoryStore | None = None) -> Agent:
    config = load_bundles("doc")
    loader = ToolLoader(config.core, config.bundles, HashEmbedder(dim=256), settings=PRESETS["default"],
                        examples=load_examples("doc"))
    stack = doc_stack(loader, workdir, native=native)
    return Agent(ChatClient(srv.base_url, model="fake-model"), stack.registry, stack.executor, stack.selector,
                 AgentOptions(native_tools=native, workdir=workdir, prompt_layout="stable"), memory=memory)


QUESTIONS = ("list the files in this folder", "how much did we sell in Q1? the numbers are in sales.csv",
             "remember that my plate is KX-4821", "what is 12 times 12?")


@pytest.mark.parametrize("native", [False, True], ids=["text", "native"])
def test_every_first_request_starts_with_the_shared_prefix(native: bool, tmp_path: Path) -> None:
    firsts = []
    for i, question in enumerate(QUESTIONS):
        workdir = tmp_path / f"folder{i}"  # a different folder each time: the prefix must not name it
        workdir.mkdir()
        with FakeOpenAIServer() as srv:
            agent = _agent(srv, workdir, native=native)
            srv.script.append(text_chunks("Fine."))
            list(agent.run(question))
            body = srv.requests[0]
            firsts.append((render(body["messages"], body.get("tools")), body, agent))
    prefix = shared_prefix_text(firsts[0][2], render)
    core = sorted(firsts[0][2].selector.loader.core)
    assert prefix and prefix.endswith("\n")
    for prompt, body, agent in firsts:
        assert prompt.startswith(prefix), "a first request does not start with the shared bytes"
        assert shared_prefix_text(agent, render) == prefix  # the same bytes from every folder
        assert str(agent.options.workdir) not in prefix
        user = body["messages"][1]["content"]
        assert f"Working directory: {agent.options.workdir}" in user  # the folder is named, after the prefix
    # the prefix holds the CORE tools (the text path lists load_tools last, after the turn's own tools),
    # not only the rules before the tool list
    for name in core if native else [n for n in core if n != "load_tools"]:
        assert (f'"name": "{name}"' if native else f"- {name}(") in prefix, name
    lengths = [len(p) for p, _, _ in firsts]
    assert len(prefix) > 0.6 * min(lengths), "the shared prefix is most of a first prompt"


def test_common_lines_stops_at_a_whole_line() -> None:
    assert common_lines("a\nb\ncx", "a\nb\ncy") == "a\nb\n"
    assert common_lines("abc", "abd") == ""
    assert common_lines("same\n", "same\n") == "same\n"


@pytest.mark.parametrize("native", [False, True], ids=["text", "native"])
def test_a_continued_conversation_sends_the_previous_request_first(native: bool, tmp_path: Path) -> None:
    """``ask`` then ``ask -c`` in two processes (two agents here): the follow-up's request starts with
    every byte of the previous request (system prompt, tools, history), then adds only the new turn."""
    (tmp_path / "notes.md").write_text("# Notes\nBuy stamps.\n")
    memory = MemoryStore(tmp_path / "data" / "memory.db")
    try:
        with FakeOpenAIServer() as srv:
            first = _agent(srv, tmp_path, native=native, memory=memory)
            call = {"file_path": "notes.md"}
            srv.script += [tool_call_chunks("read_file", call) if native
                           else text_chunks(json.dumps({"name": "read_file", "arguments": call})),
                           text_chunks("It says: buy stamps.")]
            list(first.run("what is in notes.md?"))
            save_state(SimpleNamespace(memory=memory, agent=first, client=first.client))
            previous = srv.requests[-1]
            second = _agent(srv, tmp_path, native=native, memory=memory)
            resumed = resume(SimpleNamespace(memory=memory, agent=second), None)
            assert resumed.exact and resumed.turns == 1
            assert resumed.session_id == first.options.session_id
            srv.script.append(text_chunks("20 bytes."))
            list(second.run("and how big is it?"))
            follow = srv.requests[-1]
        old, new = render(previous["messages"], previous.get("tools")), render(follow["messages"], follow.get("tools"))
        head = old.removesuffix("<|im_start|>assistant\n")
        assert new.startswith(head), "the follow-up does not start with the previous request's bytes"
        added = new[len(head):]
        assert "and how big is it?" in added and "It says: buy stamps." in added
        assert len(added) < 0.2 * len(new)
        assert second.options.session_id == first.options.session_id  # memory files it under the same id
    finally:
        memory.close()


def test_without_a_saved_prompt_the_turns_in_memory_are_the_history(tmp_path: Path) -> None:
    memory = MemoryStore(tmp_path / "memory.db")
    try:
        memory.add_turn("abc123", "user", "what is in notes.md?")
        memory.add_turn("abc123", "assistant", "It says: buy stamps.")
        with FakeOpenAIServer() as srv:
            agent = _agent(srv, tmp_path, native=False, memory=memory)
            resumed = resume(SimpleNamespace(memory=memory, agent=agent), "abc123")
        assert not resumed.exact and resumed.turns == 1
        assert agent.history == [{"role": "user", "content": "what is in notes.md?"},
                                 {"role": "assistant", "content": "It says: buy stamps."}]
    finally:
        memory.close()


def test_no_conversation_to_continue_is_a_one_line_error(tmp_path: Path) -> None:
    from gaia_lite.cli.resume import NoConversation

    memory = MemoryStore(tmp_path / "memory.db")
    try:
        with FakeOpenAIServer() as srv:
            agent = _agent(srv, tmp_path, native=False, memory=memory)
            with pytest.raises(NoConversation, match="no earlier conversation"):
                resume(SimpleNamespace(memory=memory, agent=agent), None)
            with pytest.raises(NoConversation, match="memory list -c"):
                resume(SimpleNamespace(memory=memory, agent=agent), "nope")
    finally:
        memory.close()
