"""Golden: the TOOL_LOADER / TOOL_CALLS lines (an interface log readers and evals parse) and the
prompt each model call carries stay byte-identical for a fixed script of turns.

The doc registry, its bundles and examples, a deterministic hash embedder and fake clocks drive the
real agent, selector and loader against the scripted fake server. Two sessions: a native model with
the sticky default preset (load_tools mid-turn, an escape hatch, /load, reset, close) and a text-path
model with GAIA's evicting preset at a small cap. Set UPDATE_GOLDEN=1 to rewrite the files after
an intended change of the line shapes.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import logging
import platform
from pathlib import Path
from typing import Any

import pytest

from gaia_lite.agent.loop import Agent, AgentOptions
from gaia_lite.embed.hashing import HashEmbedder
from gaia_lite.loader.bundles import load_bundles
from gaia_lite.loader.documents import load_examples
from gaia_lite.loader.loader import ToolLoader
from gaia_lite.loader.presets import PRESETS
from gaia_lite.loader.worked import load_worked
from gaia_lite.llm.client import ChatClient
from tests.agent.wiring import OpenSandbox, doc_stack
from tests.fakes.openai_server import FakeOpenAIServer, text_chunks, tool_call_chunks
from tests.golden import check_golden

GOLDEN = Path(__file__).parent / "golden"
WORKDIR = Path("/golden/work")  # what the system prompt names; the tools run in a temp dir


class _Ticks:
    """A clock that advances a fixed step per reading, so selection_ms is the same on every run."""

    def __init__(self, start: float, step: float) -> None:
        self._values = itertools.count()
        self.start, self.step = start, step

    def __call__(self) -> float:
        return self.start + next(self._values) * self.step


def _loader(preset: str, max_tools: int | None = None) -> ToolLoader:
    config = load_bundles("doc")
    settings = PRESETS[preset]
    examples = load_examples("doc") if "examples" in settings.views else {}
    return ToolLoader(config.core, config.bundles, HashEmbedder(dim=256), settings=settings,
                      max_tools=max_tools, examples=examples, worked=load_worked("doc") if settings.worked else (),
                      clock=_Ticks(1000.0, 1.0),
                      perf_clock=_Ticks(50.0, 0.00125))


def _agent(srv: FakeOpenAIServer, tmp_path: Path, loader: ToolLoader, *, native: bool, layout: str) -> Agent:
    stack = doc_stack(loader, tmp_path, native=native)
    return Agent(ChatClient(srv.base_url, model="fake-model"), stack.registry, stack.executor, stack.selector,
                 AgentOptions(native_tools=native, workdir=WORKDIR, session_id="golden", prompt_layout=layout))


def _prompt_digest(body: dict[str, Any]) -> str:
    """What the prompt layout decides: system prompt, tools array and user messages (tool results vary)."""
    here = f"{platform.system()} {platform.release()}"
    shown = [body["messages"][0]["content"].replace(here, "<os>"), body.get("tools"),
             [m["content"] for m in body["messages"] if m["role"] == "user"]]
    return hashlib.sha256(json.dumps(shown, sort_keys=True).encode()).hexdigest()[:16]


def _session_native(srv: FakeOpenAIServer, tmp_path: Path) -> None:
    agent = _agent(srv, tmp_path, _loader("default"), native=True, layout="stable")
    srv.script += [tool_call_chunks("load_tools", {"bundle": "clipboard"}, call_id="c1"),
                   tool_call_chunks("read_clipboard", {}, call_id="c2"),
                   text_chunks("Done.")]
    list(agent.run("how much did we sell in Q1? the numbers are in sales.csv"))
    srv.script += [tool_call_chunks("list_indexed_documents", {}, call_id="c3"),
                   tool_call_chunks("list_windows", {}, call_id="c4"), text_chunks("None yet.")]
    list(agent.run("which documents have I indexed so far?"))
    srv.script += [text_chunks("You're welcome.")]
    list(agent.run("thanks"))
    agent.load("data")
    agent.reset()
    srv.script += [text_chunks("Look in the docs folder.")]
    list(agent.run("find the employee handbook and summarise the leave policy"))
    agent.close()


def _session_text(srv: FakeOpenAIServer, tmp_path: Path) -> None:
    agent = _agent(srv, tmp_path, _loader("gaia", max_tools=12), native=False, layout="rewrite")
    srv.script += [text_chunks('{"name": "load_tools", "arguments": {"bundle": "file_browse"}}'),
                   text_chunks('{"name": "browse_directory", "arguments": {"directory_path": "."}}'),
                   text_chunks("An empty folder.")]
    list(agent.run("what files are in this folder?"))
    srv.script += [text_chunks('{"name": "get_system_info", "arguments": {}}'), text_chunks("A computer.")]
    list(agent.run("copy the report title to the clipboard"))
    for query in ("describe the chart in chart.png", "show me the CPU and memory of this machine",
                  "read aloud the summary as speech"):
        srv.script += [text_chunks("Sure.")]
        list(agent.run(query))
    agent.close()


def _lines(records: list[logging.LogRecord]) -> list[str]:
    out = []
    for r in records:
        msg = r.getMessage()
        if msg.startswith(("TOOL_LOADER", "TOOL_CALLS", '{"event": "TOOL_LOADER_ESCAPE_HATCH"')):
            out.append(msg)
    return out


@pytest.mark.parametrize("session", [_session_native, _session_text], ids=["native-sticky", "text-gaia"])
def test_loader_lines_and_prompts_are_byte_identical(session, tmp_path, caplog) -> None:
    caplog.set_level(logging.INFO, logger="gaia_lite")
    with FakeOpenAIServer() as srv:
        session(srv, tmp_path)
        digests = [_prompt_digest(body) for body in srv.requests]
    tag = session.__name__.removeprefix("_session_")
    check_golden(GOLDEN / f"tool_loader_{tag}.log", "\n".join(_lines(caplog.records)) + "\n")
    check_golden(GOLDEN / f"prompts_{tag}.txt", "\n".join(digests) + "\n")
