"""SkillService inside the real agent loop, against the scripted fake OpenAI server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gaia_lite.agent.loop import Agent, AgentOptions
from gaia_lite.agent.selection import ToolSelector
from gaia_lite.events import TurnFinished
from gaia_lite.llm.client import ChatClient
from gaia_lite.registry import ToolRegistry, tool
from gaia_lite.registry.context import ToolContext
from gaia_lite.registry.execute import ToolExecutor
from gaia_lite.skills.procedure import ProcedureSpec
from gaia_lite.skills.recall import SkillService
from tests.fakes.openai_server import FakeOpenAIServer, text_chunks, tool_call_chunks


@tool
def read_file(ctx, file_path: str) -> dict:
    """Read a text file.

    Args:
        file_path: Path of the file.
    """
    return {"status": "success", "content": (ctx.workdir / file_path).read_text()}


class OpenSandbox:
    roots = ()
    approved = ()

    def check(self, path, *, write=False):
        return Path(path)


def _agent(srv: FakeOpenAIServer, workdir: Path, skills: SkillService, registry: ToolRegistry,
           layout: str = "stable") -> Agent:
    ctx = ToolContext(workdir=workdir, sandbox=OpenSandbox(), data_dir=workdir)
    selector = ToolSelector(registry)
    executor = ToolExecutor(registry, ctx, on_invoke=selector.record_tool_use)
    return Agent(ChatClient(srv.base_url), registry, executor, selector,
                 AgentOptions(native_tools=True, max_steps=4, workdir=workdir, prompt_layout=layout),
                 skills=skills)


@pytest.mark.parametrize("layout", ["stable", "rewrite"])
def test_a_recalled_procedure_reaches_the_prompt_and_the_turn_is_recorded(tmp_path: Path, memory: Any,
                                                                          embedder: Any, layout: str) -> None:
    (tmp_path / "notes.md").write_text("buy milk")
    registry = ToolRegistry([read_file])
    skills = SkillService(memory, embedder, registry)
    skills.store.add(ProcedureSpec("read-my-notes", "Read my notes file and tell me what it says",
                                   "1. Call read_file on notes.md.\n2. Quote it.", ("read_file",)))
    with FakeOpenAIServer() as srv:
        srv.script += [tool_call_chunks("read_file", {"file_path": "notes.md"}), text_chunks("It says: buy milk.")]
        events = list(_agent(srv, tmp_path, skills, registry, layout).run("Read my notes file and tell me what it says"))
        first = srv.requests[0]
    system, user = first["messages"][0]["content"], first["messages"][1]["content"]
    # stable layout: the block rides with this turn's user message, so the cached system prompt is untouched
    holder, other = (user, system) if layout == "stable" else (system, user)
    assert "## Recalled procedures" in holder and "### read-my-notes" in holder
    assert "Recalled procedures" not in other
    assert user.startswith("Read my notes file and tell me what it says")
    finished = [e for e in events if isinstance(e, TurnFinished)][0]
    assert finished.answer == "It says: buy milk."
    assert finished.stats == {"skills": ["read-my-notes"]}  # what eval tasks counts as a fired skill
    (span,) = skills.store.open_spans()
    assert span.calls == (("read_file", {"file_path": "str"}, True),) and span.success
    proc = skills.store.get("read-my-notes")
    assert proc is not None and (proc.attempt_count, proc.success_count) == (1, 1)


def test_without_procedures_the_system_prompt_has_no_skill_block(tmp_path: Path, memory: Any,
                                                                embedder: Any) -> None:
    registry = ToolRegistry([read_file])
    skills = SkillService(memory, embedder, registry)
    with FakeOpenAIServer() as srv:
        srv.script += [text_chunks("Hello!")]
        events = list(_agent(srv, tmp_path, skills, registry).run("hi there"))
        system = srv.requests[0]["messages"][0]["content"]
    assert "Recalled procedures" not in system
    assert [e for e in events if isinstance(e, TurnFinished)][0].stats == {}
    assert skills.store.span_count() == 0  # no tools called: nothing to learn from
