"""A tool call that outlives its timeout must not leak into the agent's next request.

``analyze_image`` asks the vision model through the shared ChatClient. Here the vision model streams
slowly, the executor gives up on the call after half a second, and the agent sends its next request
while the vision stream is still running. That request must name the chat model, and the abandoned
vision call must stop soon after its timeout instead of streaming on in the background.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

from gaia_lite.agent.loop import Agent, AgentOptions
from gaia_lite.agent.selection import ToolSelector
from gaia_lite.events import ToolCallFinished, TurnFinished
from gaia_lite.llm.client import ChatClient
from gaia_lite.registry import ToolRegistry
from gaia_lite.registry.context import ToolContext
from gaia_lite.registry.execute import ToolExecutor
from gaia_lite.tools.vision import analyze_image
from tests.agent.wiring import OpenSandbox
from tests.fakes.openai_server import FakeOpenAIServer, slow_text_chunks, text_chunks, tool_call_chunks

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64


def _tool_threads_alive() -> bool:
    return any(t.name == "tool:analyze_image" and t.is_alive() for t in threading.enumerate())


def _wait_for_tool_threads(seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while _tool_threads_alive() and time.monotonic() < deadline:
        time.sleep(0.05)
    return not _tool_threads_alive()


def test_a_vision_call_past_its_timeout_neither_redirects_the_next_request_nor_runs_on(tmp_path: Path) -> None:
    (tmp_path / "chart.png").write_bytes(PNG)
    registry = ToolRegistry([analyze_image])
    with FakeOpenAIServer(models=("chat-model", "vision-model")) as srv:
        client = ChatClient(srv.base_url, model="chat-model", vision_model="vision-model")
        ctx = ToolContext(workdir=tmp_path, sandbox=OpenSandbox(), data_dir=tmp_path, llm=client)
        selector = ToolSelector(registry)
        executor = ToolExecutor(registry, ctx, default_timeout=0.5)
        agent = Agent(client, registry, executor, selector, AgentOptions(native_tools=True, workdir=tmp_path))
        srv.script += [tool_call_chunks("analyze_image", {"image_path": "chart.png"}),
                       slow_text_chunks("A bar chart of sales by quarter, rising to the right.", pieces=40,
                                        delay=0.25),
                       text_chunks("I could not look at the image in time.")]
        events = list(agent.run("what does chart.png show?"))
        stopped = _wait_for_tool_threads(3.0)
        models = [r["model"] for r in srv.requests]
    finished = [e for e in events if isinstance(e, ToolCallFinished)][0]
    assert finished.status == "error" and "did not finish within" in finished.result["error"]
    assert [e for e in events if isinstance(e, TurnFinished)][0].answer == "I could not look at the image in time."
    assert models == ["chat-model", "vision-model", "chat-model"]
    assert stopped, "the timed-out vision call kept streaming in the background"
