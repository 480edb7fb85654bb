"""Native tool calling against a REAL llama-server: every later turn of a conversation reuses the
previous request's cached prefix, by the server's own token counts, even on turns that admit tools.

The scripted conversation of ``eval ttft`` (canned assistant side, so the model only prefills) with
the loader on and the stable layout: the tools array stays fixed and later tools are disclosed in the
conversation, so nothing before the history changes and the server restores all of it from its cache.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gaia_lite.runtime import runtime_status

pytestmark = pytest.mark.slow

_status = runtime_status()
TURNS = 5  # up to and including the change of topic, which admits the data tools


@pytest.mark.skipif(not _status.ready, reason="embedded runtime not installed: " + "; ".join(_status.lines())
                    + " (run scripts/setup.sh)")
def test_every_later_native_turn_reuses_the_cached_prefix(gaia_home: Path, tmp_path: Path) -> None:
    from gaia_lite.cli.services import build_services, connect
    from gaia_lite.config import load_settings
    from gaia_lite.eval.ttft import SCRIPT

    env = {"GAIA_HOME": str(gaia_home), "LEMONADE_BASE_URL": "http://127.0.0.1:9/api/v1"}
    settings = load_settings({"dynamic_tools": True, "native_tools": True, "prompt_layout": "stable"}, env)
    client, server = connect(settings, announce=lambda _m: None)
    assert server is not None
    services = build_services(settings, client, server=server, workdir=tmp_path)
    agent = services.agent
    try:
        earlier: list[str] = []
        history: list[dict] = []
        seen: list[tuple[int, int, int, bool]] = []  # (turn, prompt tokens, cached tokens, tools admitted)
        for i, turn in enumerate(SCRIPT[:TURNS]):
            state = agent.selector.select(earlier, turn.user)
            content = agent.layout.begin_turn(state, turn.user)
            messages = [{"role": "system", "content": agent.system_prompt(state)}, *history,
                        {"role": "user", "content": content}]
            u = client.chat(messages, tools=agent.tool_schemas(state), max_tokens=4, temperature=0.0).usage
            assert u.prompt_tokens is not None and u.cached_tokens is not None, "llama-server reports timings"
            seen.append((i + 1, u.prompt_tokens, u.cached_tokens, state.changed))
            earlier.append(turn.user)
            history.append({"role": "user", "content": content})
            wire = [{"id": f"c{i}_{j}", "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
                    for j, (n, a, _r) in enumerate(turn.calls)]
            history.append({"role": "assistant", "content": None, "tool_calls": wire})
            history += [{"role": "tool", "tool_call_id": f"c{i}_{j}", "content": json.dumps(r)}
                        for j, (_n, _a, r) in enumerate(turn.calls)]
            history.append({"role": "assistant", "content": turn.answer})
        assert any(changed for (_t, _p, _c, changed) in seen[1:]), f"no later turn admitted a tool: {seen}"
        for (turn_no, _p, cached, changed), (_t, before, _c, _ch) in zip(seen[1:], seen):
            # the whole previous prompt is this one's prefix; the last few tokens of it (the generation
            # prompt the reply follows) are re-read with the canned assistant message
            assert cached >= before - 8, (f"turn {turn_no} (tools admitted: {changed}) restored {cached} of the "
                                          f"previous request's {before} tokens: {seen}")
    finally:
        services.close()
