"""The compact reply grammar against a REAL llama-server with the REAL 0.5B model: the grammar probe says
yes, the server parses the grammar of the full registry, and the reply it holds the model to is one
JSON object on one line that the constrained mode reads (with ``response_format`` the 0.5B model often
indented it over six lines). Bounded: a short prompt, greedy, 96 tokens at most, a request time limit.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gaia_lite.runtime import runtime_status

pytestmark = pytest.mark.slow

_status = runtime_status()


@pytest.mark.skipif(not _status.ready, reason="embedded runtime not installed: " + "; ".join(_status.lines())
                    + " (run scripts/setup.sh)")
def test_llama_server_holds_a_reply_to_the_compact_grammar(gaia_home: Path) -> None:
    from gaia_lite.agent.constrained import TOOL_FIRST, ConstrainedReplies, reply_schema
    from gaia_lite.agent.replies import FreeReplies
    from gaia_lite.cli.services import connect
    from gaia_lite.cli.wiring import build_registry
    from gaia_lite.config import load_settings
    from gaia_lite.llm.structured import probe_grammar

    env = {"GAIA_HOME": str(gaia_home), "LEMONADE_BASE_URL": "http://127.0.0.1:9/api/v1", "GAIA_KEEP_ALIVE": "0"}
    settings = load_settings({}, env)
    client, server = connect(settings, announce=lambda _m: None)
    assert server is not None
    try:
        assert probe_grammar(client) is True
        registry = build_registry(settings, with_loader=True)
        mode = ConstrainedReplies(registry, FreeReplies(registry.names).parse, shape=TOOL_FIRST, grammar=True)
        extra = mode.request_extra(None)
        assert set(extra) == {"grammar"} and len(reply_schema(registry, shape=TOOL_FIRST)["anyOf"]) == len(registry) + 1
        messages = [{"role": "system", "content": TOOL_FIRST.format_note},
                    {"role": "user", "content": "list the files in the folder /tmp/prof/work"}]
        result = client.chat(messages, max_tokens=96, temperature=0.0, timeout=120, **extra)
        assert result.finish_reason == "stop", result  # the grammar ended the reply, not the token limit
        assert "\n" not in result.content, result.content  # one line: no indent between the JSON tokens
        value = json.loads(result.content)
        assert value.get("tool") in [*registry.names(), "none"], value
        reply = mode.parse(result)
        assert reply.calls or reply.text, result.content
    finally:
        server.stop()
