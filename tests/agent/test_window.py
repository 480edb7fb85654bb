"""Fitting the conversation into the model's context: whole turns go, oldest first; the current
question always stays; an overflow the estimate missed is recovered once."""

from __future__ import annotations

from pathlib import Path

import pytest

from gaia_lite.agent.loop import Agent, AgentOptions
from gaia_lite.agent.selection import ToolSelector
from gaia_lite.agent.window import TokenMeter, fit_history, is_context_overflow, split_turns
from gaia_lite.events import Notice, TurnFailed, TurnFinished
from gaia_lite.llm.client import ChatClient
from gaia_lite.registry import ToolRegistry, tool
from gaia_lite.registry.context import ToolContext
from gaia_lite.registry.execute import ToolExecutor
from tests.fakes.openai_server import FakeOpenAIServer, text_chunks

SYSTEM = {"role": "system", "content": "You are terse."}


def _turn(i: int, size: int = 300) -> list[dict]:
    return [{"role": "user", "content": f"question {i} " + "x" * size},
            {"role": "assistant", "content": None, "tool_calls": [{"id": f"c{i}", "type": "function",
                                                                  "function": {"name": "t", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": f"c{i}", "content": "y" * size},
            {"role": "assistant", "content": f"answer {i}"}]


def test_split_turns_keeps_tool_results_with_their_turn() -> None:
    history = _turn(1) + _turn(2)
    assert [len(t) for t in split_turns(history)] == [4, 4]
    assert split_turns([]) == []


def test_fit_drops_oldest_whole_turns_and_never_the_current_one() -> None:
    meter = TokenMeter(chars_per_token=3.0)
    history = _turn(1) + _turn(2) + _turn(3) + [{"role": "user", "content": "now?"}]
    full = meter.estimate([SYSTEM, *history])
    kept = fit_history(SYSTEM, history, None, budget=full, meter=meter, refill=1.0)
    assert kept.dropped_turns == 1  # the 10 % headroom costs the oldest turn
    assert kept.history[0]["content"].startswith("question 2")
    # a trim goes down to 60 % of the budget, so the next turns keep a stable (cached) start
    step = fit_history(SYSTEM, history, None, budget=full, meter=meter)
    assert step.dropped_turns == 2 and step.estimate * 1.1 <= 0.6 * full
    tiny = fit_history(SYSTEM, history, None, budget=10, meter=meter)
    assert tiny.dropped_turns == 3 and tiny.history == [{"role": "user", "content": "now?"}]
    roomy = fit_history(SYSTEM, history, None, budget=10 * full, meter=meter)
    assert roomy.dropped_turns == 0 and roomy.history == history


def test_the_meter_learns_the_servers_ratio_within_safe_bounds() -> None:
    meter = TokenMeter()
    meter.observe(4000, 1000)
    assert meter.chars_per_token == 4.0
    meter.observe(1000, 1000)  # one char per token would be absurd for text: stay cautious at 2
    assert meter.chars_per_token == 2.0
    meter.observe(1000, 10)  # too small a sample to learn from
    meter.observe(50_000, 120)  # a count that cannot be of this request (a fixed or cached-only number)
    assert meter.chars_per_token == 2.0
    meter.observe(6000, 1000)
    assert meter.chars_per_token == 5.0  # capped: over-estimating the room is what overflows


@pytest.mark.parametrize("message, overflow", [
    ("request (9000 tokens) exceeds the available context size (8192 tokens), try increasing it", True),
    ("This model's maximum context length is 4096 tokens. However, you requested 5000 tokens", True),
    ("context_length_exceeded", True),
    ("scripted failure", False),
])
def test_overflow_wording_of_common_servers(message: str, overflow: bool) -> None:
    assert is_context_overflow(message) is overflow


@tool
def noop(ctx) -> dict:
    """Do nothing."""
    return {"status": "success"}


class OpenSandbox:
    roots = ()
    approved = ()

    def check(self, path, *, write=False):
        return Path(path)


def _agent(srv: FakeOpenAIServer, tmp_path: Path, *, window: int | None) -> Agent:
    registry = ToolRegistry([noop])
    ctx = ToolContext(workdir=tmp_path, sandbox=OpenSandbox(), data_dir=tmp_path)
    selector = ToolSelector(registry)
    return Agent(ChatClient(srv.base_url), registry, ToolExecutor(registry, ctx), selector,
                 AgentOptions(native_tools=True, max_tokens=100, workdir=tmp_path, context_tokens=window))


def test_a_long_chat_drops_old_turns_and_says_so(tmp_path: Path) -> None:
    with FakeOpenAIServer() as srv:
        srv.script += [text_chunks("ok " * 300) for _ in range(8)]
        agent = _agent(srv, tmp_path, window=3000)
        notices = []
        for i in range(8):
            events = list(agent.run(f"question {i}: " + "words " * 150))
            assert any(isinstance(e, TurnFinished) for e in events), events
            notices += [e for e in events if isinstance(e, Notice)]
        sent = srv.requests[-1]["messages"]
    assert notices and "oldest turn" in notices[0].message and "3,000-token context" in notices[0].message
    assert len(notices) <= 3  # trims come in steps, not on every turn at the edge of the window
    assert sent[-1]["content"].startswith("question 7")  # the current question always goes
    assert not any(m["content"].startswith("question 0") for m in sent if m["role"] == "user")
    assert agent.meter.chars_per_token == 3.0  # the fake's fixed 120-token usage taught it nothing
    assert agent.meter.estimate(sent, srv.requests[-1]["tools"]) * 1.1 <= 3000 - 100


def test_without_a_known_window_nothing_is_dropped(tmp_path: Path) -> None:
    with FakeOpenAIServer() as srv:
        srv.script += [text_chunks("ok " * 300) for _ in range(4)]
        agent = _agent(srv, tmp_path, window=None)
        for i in range(4):
            list(agent.run(f"question {i}: " + "words " * 150))
        assert sum(m["role"] == "user" for m in srv.requests[-1]["messages"]) == 4


def test_an_overflow_the_estimate_missed_is_retried_once_with_half_the_history(tmp_path: Path) -> None:
    with FakeOpenAIServer() as srv:
        srv.script += [text_chunks("a1"), text_chunks("a2"), text_chunks("a3"), "context_overflow",
                       text_chunks("a4")]
        agent = _agent(srv, tmp_path, window=None)
        for i in range(3):
            list(agent.run(f"q{i}"))
        events = list(agent.run("q3"))
        retried = srv.requests[-1]["messages"]
    assert [e.answer for e in events if isinstance(e, TurnFinished)] == ["a4"]
    assert any(isinstance(e, Notice) and "did not fit" in e.message for e in events)
    assert [m["content"] for m in retried if m["role"] == "user"] == ["q2", "q3"]


def test_a_second_overflow_fails_the_turn_and_keeps_the_session(tmp_path: Path) -> None:
    with FakeOpenAIServer() as srv:
        srv.script += [text_chunks("a1"), "context_overflow", "context_overflow"]
        agent = _agent(srv, tmp_path, window=None)
        list(agent.run("q0"))
        events = list(agent.run("q1"))
    failed = [e for e in events if isinstance(e, TurnFailed)]
    assert failed and failed[0].recoverable and "context size" in failed[0].error


def test_the_window_is_asked_from_the_server(tmp_path: Path) -> None:
    with FakeOpenAIServer(n_ctx=4096) as srv:
        assert ChatClient(srv.base_url).context_size() == 4096
    with FakeOpenAIServer() as srv:
        assert ChatClient(srv.base_url).context_size() is None  # Lemonade and others may not say
