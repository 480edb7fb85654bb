"""`eval ttft`: interleaving, cold nonces, warm history and the summary arithmetic, with a fake agent."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from gaia_lite.eval import ttft
from gaia_lite.messages import ChatResult, Usage


@dataclass
class _State:
    names: tuple[str, ...]
    tools_hash: str
    changed: bool

    def visible_names(self, _registry: Any) -> list[str]:
        return list(self.names)


class _Selector:
    """Shows 3 tools; the tool block changes on the turns listed in ``change_on``."""

    def __init__(self, change_on: set[int]) -> None:
        self.change_on = change_on
        self.turn = 0
        self.used: list[str] = []

    def record_tool_use(self, name: str) -> None:
        self.used.append(name)

    def select(self, earlier: list[str], query: str) -> _State:
        self.turn = len(earlier) + 1
        changed = self.turn in self.change_on
        return _State(("a", "b", "c"), f"h{self.turn if changed else 0}", changed)


@dataclass
class _Client:
    arm: str
    log: list[tuple[str, list[dict[str, Any]], Any]] = field(default_factory=list)

    def chat(self, messages: list[dict[str, Any]], *, tools: Any, max_tokens: int, temperature: float) -> ChatResult:
        self.log.append((self.arm, messages, tools))
        system = messages[0]["content"]
        prompt = 1000 if self.arm == "off" else 400
        prompt += 50 * sum(1 for m in messages if m["role"] == "user")
        cached = 0 if len(messages) == 2 else prompt - 50
        return ChatResult("ok", usage=Usage(ttft_s=prompt / 1000.0, prompt_tokens=prompt, cached_tokens=cached,
                                            prompt_ms=float(prompt)))


class _Book:
    """The agent's prompt layout seam: the user message as stored (here, tagged so the test can see it)."""

    def begin_turn(self, state: _State, query: str, extra: tuple[str, ...] = ()) -> str:
        return query + " [new tools]" if state.changed else query


class _Agent:
    def __init__(self, arm: str, change_on: set[int] = frozenset()) -> None:
        self.selector = _Selector(set(change_on))
        self.client = _Client(arm)
        self.registry = None
        self.resets = 0
        self.layout = _Book()

    def reset(self) -> None:
        self.resets += 1

    def system_prompt(self, state: _State) -> str:
        return "SYSTEM " + ",".join(state.names)

    def tool_schemas(self, state: _State) -> list[dict[str, Any]] | None:
        return None

    def turn_message(self, state: _State, query: str) -> str:
        return self.layout.begin_turn(state, query)


def test_quantile_interpolates() -> None:
    assert ttft.quantile([1.0, 2.0, 3.0, 4.0], 0.5) == pytest.approx(2.5)
    assert ttft.quantile([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0], 0.9) == pytest.approx(9.1)
    assert ttft.quantile([7.0], 0.9) == 7.0
    assert ttft.quantile([], 0.9) is None


def test_arms_interleave_and_every_cold_request_has_its_own_nonce() -> None:
    order: list[str] = []
    off, on = _Agent("off"), _Agent("on")
    for agent in (off, on):
        original = agent.client.chat

        def chat(messages, *, _orig=original, _arm=agent.client.arm, **kw):
            order.append(_arm)
            return _orig(messages, **kw)

        agent.client.chat = chat  # type: ignore[method-assign]
    samples = ttft.run_ttft({"off": off, "on": on}, trials=2, script=(), warmup=False)
    assert order == ["off", "on", "off", "on"]
    assert [s.arm for s in samples] == ["off", "on", "off", "on"]
    systems = [m[0]["content"] for (_a, m, _t) in off.client.log + on.client.log]
    nonces = {s.split("]")[0] for s in systems}
    assert len(nonces) == 4 and all(s.startswith("[req-") for s in systems)


def test_script_keeps_one_nonce_per_conversation_and_grows_the_history() -> None:
    off, on = _Agent("off"), _Agent("on", change_on={2, 5})
    samples = ttft.run_ttft({"off": off, "on": on}, trials=1, questions=("q",), warmup=False)
    script = [s for s in samples if s.phase == "script"]
    assert [s.turn for s in script if s.arm == "off"] == [1, 2, 3, 4, 5, 6]
    convo = [m for (_a, m, _t) in on.client.log][1:]  # after the cold first-turn request
    assert len({m[0]["content"].split("]")[0] for m in convo}) == 1
    lengths = [len(m) for m in convo]
    assert lengths == sorted(lengths) and lengths[0] == 2
    # turn 2 sees turn 1's user message, the canned tool call, its result and the answer
    assert [m["role"] for m in convo[1][1:]] == ["user", "assistant", "tool", "assistant", "user"]
    assert convo[1][2]["tool_calls"][0]["function"]["name"] == ttft.SCRIPT[0].calls[0][0]
    # the user message goes into the history as the prompt layout laid it out (turn 2 disclosed tools)
    assert convo[2][5]["content"] == ttft.SCRIPT[1].user + " [new tools]"
    assert convo[1][-1]["content"] == ttft.SCRIPT[1].user + " [new tools]"
    # every canned call is reported to the selector, as the executor reports real ones
    assert on.selector.used == [c[0] for t in ttft.SCRIPT for c in t.calls]


def test_summary_arithmetic() -> None:
    off, on = _Agent("off"), _Agent("on", change_on={2, 5})
    samples = ttft.run_ttft({"off": off, "on": on}, trials=3, questions=("q1", "q2"), warmup=False)
    r = ttft.summarize(samples)
    f = r["first_turn"]
    assert f["off_s"] == pytest.approx(1.05) and f["on_s"] == pytest.approx(0.45)
    assert f["ratio"] == pytest.approx(0.45 / 1.05, abs=1e-4)
    assert f["n"] == 3 and f["prefill"]["off_s"] == pytest.approx(1.05)
    assert r["prompt_tokens"] == {"off": 1050, "on": 450}
    assert r["prefilled_tokens"]["first_turn"] == {"off": 1050, "on": 450}
    later = r["later_turns"]
    assert later["tool_set_changes_on"] == 2 and later["conversations"] == 3
    assert [t["on_tools_changed"] for t in later["per_turn"]] == [0, 3, 0, 0, 3, 0]
    # warm turns: everything but the newest 50 tokens came from the cache
    assert r["prefilled_tokens"]["later_turns"] == {"off": 50, "on": 50}
    assert later["off_s"] == pytest.approx(1.2)  # median prompt over turns 2..6 = 1200 tokens -> 1.2 s
    assert later["ratio"] == pytest.approx(0.6 / 1.2, abs=1e-4)


def test_a_rewrite_arm_is_measured_and_compared_with_off() -> None:
    arms = {"off": _Agent("off"), "on": _Agent("on"), "rewrite": _Agent("rewrite", change_on={2})}
    samples = ttft.run_ttft(arms, trials=1, questions=("q",), warmup=False)
    assert [s.arm for s in samples if s.phase == "first"] == ["off", "on", "rewrite"]
    r = ttft.summarize(samples)
    assert r["first_turn"]["rewrite_ratio"] == pytest.approx(0.45 / 1.05, abs=1e-4)
    assert set(r["prefilled_tokens"]["later_turns"]) == {"off", "on", "rewrite"}
    assert "rewrite_s" in r["later_turns"]["per_turn"][0]
    assert "rewrite_s" not in ttft.summarize([s for s in samples if s.arm != "rewrite"])["first_turn"]


def test_run_ttft_validates_arms_and_trials() -> None:
    with pytest.raises(ValueError):
        ttft.run_ttft({"off": _Agent("off")}, trials=1)
    with pytest.raises(ValueError):
        ttft.run_ttft({"off": _Agent("off"), "on": _Agent("on")}, trials=0)
    with pytest.raises(ValueError):
        ttft.run_ttft({"off": _Agent("off"), "on": _Agent("on"), "sorted": _Agent("on")}, trials=1)


class _RewritingAgent(_Agent):
    """Its system prompt names the tools of the latest change, so the prefix changes with the set."""

    def system_prompt(self, state: _State) -> str:
        return "SYSTEM " + state.tools_hash


def test_prefix_changes_count_the_bytes_before_the_conversation_not_the_tool_set() -> None:
    arms = {"off": _Agent("off"), "on": _Agent("on", change_on={2, 5}),
            "rewrite": _RewritingAgent("rewrite", change_on={2, 5})}
    samples = ttft.run_ttft(arms, trials=2, questions=("q",), warmup=False)
    later = ttft.summarize(samples)["later_turns"]
    # the stable "on" arm changed its tool set twice but kept its prefix; the rewriting arm did not
    assert later["tool_set_changes_on"] == 2 and later["prefix_changes_on"] == 0
    # turn 2 changes the prompt; turn 3 has no change, which rewrites it back to "h0"; likewise 5, 6
    assert later["prefix_changes"] == {"off": 0, "on": 0, "rewrite": 4}
    assert [t["rewrite_prefix_changed"] for t in later["per_turn"]] == [0, 2, 2, 0, 2, 2]
    # the nonce of each conversation is not part of the prefix digest, and cold first turns are never counted
    first = [s for s in samples if s.phase == "first"]
    assert not any(s.prefix_changed for s in first) and len({s.prefix_hash for s in first if s.arm == "on"}) == 1


def test_prefix_digest_covers_system_prompt_and_tools_in_sent_order() -> None:
    a = ttft.prefix_digest("S", [{"b": 1, "a": 2}])
    assert a != ttft.prefix_digest("S", [{"a": 2, "b": 1}])  # templates render keys in the order sent
    assert a != ttft.prefix_digest("S2", [{"b": 1, "a": 2}]) and a == ttft.prefix_digest("S", [{"b": 1, "a": 2}])


def _record_order(*agents: _Agent) -> list[tuple[str, int]]:
    """(arm, number of user messages) of every request, in the order sent."""
    order: list[tuple[str, int]] = []
    for agent in agents:
        original = agent.client.chat

        def chat(messages, *, _orig=original, _arm=agent.client.arm, **kw):
            order.append((_arm, sum(1 for m in messages if m["role"] == "user")))
            return _orig(messages, **kw)

        agent.client.chat = chat  # type: ignore[method-assign]
    return order


def test_scripted_conversations_alternate_the_arms_turn_by_turn_each_continuing_its_own() -> None:
    off, on = _Agent("off"), _Agent("on", change_on={2})
    order = _record_order(off, on)
    samples = ttft.run_ttft({"off": off, "on": on}, trials=1, first_turns=False, warmup=False,
                            script=ttft.SCRIPT[:3])
    assert order == [("off", 1), ("on", 1), ("off", 2), ("on", 2), ("off", 3), ("on", 3)]
    assert [(s.arm, s.turn) for s in samples] == [("off", 1), ("on", 1), ("off", 2), ("on", 2), ("off", 3), ("on", 3)]
    # each arm keeps one nonce for its whole conversation, and the two differ
    nonces = {arm: {m[0]["content"].split("]")[0] for (_a, m, _t) in a.client.log} for arm, a in (("off", off), ("on", on))}
    assert len(nonces["off"]) == 1 and len(nonces["on"]) == 1 and nonces["off"] != nonces["on"]


def test_conversation_interleave_runs_whole_conversations_one_after_another() -> None:
    off, on = _Agent("off"), _Agent("on")
    order = _record_order(off, on)
    ttft.run_ttft({"off": off, "on": on}, trials=1, first_turns=False, warmup=False, script=ttft.SCRIPT[:2],
                  interleave="conversation")
    assert order == [("off", 1), ("off", 2), ("on", 1), ("on", 2)]
    with pytest.raises(ValueError):
        ttft.run_ttft({"off": off, "on": on}, trials=1, interleave="request")


class _ForgetfulClient(_Client):
    """A one-slot server without a prompt cache: another conversation's request evicts this one's prefix."""

    last_arm: list[str] = []

    def chat(self, messages: list[dict[str, Any]], **kw: Any) -> ChatResult:
        result = super().chat(messages, **kw)
        evicted = bool(self.last_arm) and self.last_arm[-1] != self.arm
        self.last_arm.append(self.arm)
        if evicted and result.usage.cached_tokens:
            return ChatResult("ok", usage=Usage(ttft_s=1.0, prompt_tokens=result.usage.prompt_tokens,
                                                cached_tokens=3, prompt_ms=1000.0))
        return result


def test_a_later_turn_whose_unchanged_prefix_came_back_short_is_flagged_as_cache_lost() -> None:
    _ForgetfulClient.last_arm = []
    off, on = _Agent("off"), _Agent("on")
    off.client, on.client = _ForgetfulClient("off"), _ForgetfulClient("on")
    samples = ttft.run_ttft({"off": off, "on": on}, trials=1, first_turns=False, warmup=False)
    later = ttft.summarize(samples)["later_turns"]
    assert later["cache_lost"] == {"off": 5, "on": 5}
    # the same server, one conversation at a time: nothing lost
    _ForgetfulClient.last_arm = []
    samples = ttft.run_ttft({"off": off, "on": on}, trials=1, first_turns=False, warmup=False,
                            interleave="conversation")
    assert ttft.summarize(samples)["later_turns"]["cache_lost"] == {"off": 0, "on": 0}


class _PrefixClient(_Client):
    """A real prefix cache in miniature: a request whose system prompt differs from the previous one's
    (nonce aside) gets nothing back from the cache."""

    def __init__(self, arm: str) -> None:
        super().__init__(arm)
        self.previous: str | None = None

    def chat(self, messages: list[dict[str, Any]], **kw: Any) -> ChatResult:
        result = super().chat(messages, **kw)
        system = messages[0]["content"].split("] ", 1)[1]
        rewritten, self.previous = self.previous is not None and system != self.previous, system
        if rewritten:
            return ChatResult("ok", usage=Usage(ttft_s=1.0, prompt_tokens=result.usage.prompt_tokens,
                                                cached_tokens=3, prompt_ms=1000.0))
        return result


def test_a_prefix_that_changed_is_a_rewrite_not_a_lost_cache() -> None:
    rewrite = _RewritingAgent("rewrite", change_on={2})
    rewrite.client = _PrefixClient("rewrite")
    samples = ttft.run_ttft({"off": _Agent("off"), "on": _Agent("on"), "rewrite": rewrite}, trials=1,
                            first_turns=False, warmup=False)
    turns = [s for s in samples if s.arm == "rewrite"]
    assert turns[1].prefix_changed and turns[1].cached_tokens == 3 and not turns[1].cache_lost
    assert ttft.summarize(samples)["later_turns"]["cache_lost"] == {"off": 0, "on": 0, "rewrite": 0}


def test_restored_and_kept_first_turns_send_no_nonce_and_restore_before_each_request() -> None:
    off, on = _Agent("off"), _Agent("on")
    restored: list[tuple[str, int]] = []

    def restore(arm: str, agent: Any) -> bool:
        restored.append((arm, len(agent.client.log)))  # before this arm's request is sent
        return True

    samples = ttft.run_ttft({"off": off, "on": on}, trials=2, script=(), warmup=False, restore=restore)
    phases = [(s.phase, s.arm) for s in samples]
    assert phases[:4] == [("first", "off"), ("first", "on")] * 2
    assert phases[4:] == [("first_restored", "off"), ("first_restored", "on"), ("first_kept", "off"),
                          ("first_kept", "on")] * 2
    assert [a for a, _ in restored] == ["off", "on"] * 2  # only the restored phase restores
    for client in (off.client, on.client):
        systems = [m[0]["content"] for _, m, _ in client.log]
        assert all(s.startswith("[req-") for s in systems[:2])  # cold: a nonce defeats the cache
        assert not any(s.startswith("[req-") for s in systems[2:])  # restored and kept: the real prefix
    report = ttft.summarize(samples)
    assert report["first_turn_restored"]["n"] == 2 and "first_turn_kept" in report
    assert report["first_turn_restored"]["prefilled_share"]["on"] is not None


def test_a_failed_restore_skips_that_sample() -> None:
    samples = ttft.run_ttft({"off": _Agent("off"), "on": _Agent("on")}, trials=1, script=(), warmup=False,
                            restore=lambda arm, agent: arm == "on")
    assert [(s.phase, s.arm) for s in samples if s.phase == "first_restored"] == [("first_restored", "on")]
    assert "first_turn_restored" not in ttft.summarize(samples)  # no off arm to compare with
