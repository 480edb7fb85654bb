"""A long chat against a REAL llama-server with a small context window (2,048 tokens): the agent
drops its oldest turns instead of failing every later turn, as GAIA's unbounded history does."""

from __future__ import annotations

from pathlib import Path

import pytest

from gaia_lite.runtime import runtime_status

pytestmark = pytest.mark.slow

_status = runtime_status()


@pytest.mark.skipif(not _status.ready, reason="embedded runtime not installed: " + "; ".join(_status.lines())
                    + " (run scripts/setup.sh)")
def test_a_chat_longer_than_the_window_keeps_answering(gaia_home: Path, tmp_path: Path) -> None:
    from gaia_lite.cli.services import build_services, connect
    from gaia_lite.config import load_settings
    from gaia_lite.events import Notice, TurnFailed, TurnFinished

    env = {"GAIA_HOME": str(gaia_home), "LEMONADE_BASE_URL": "http://127.0.0.1:9/api/v1", "GAIA_CTX_SIZE": "2048"}
    settings = load_settings({"max_tokens": 48, "dynamic_tools": True, "native_tools": False}, env)
    client, server = connect(settings, announce=lambda _m: None)
    assert server is not None
    services = build_services(settings, client, server=server, workdir=tmp_path)
    try:
        assert services.agent.options.context_tokens == 2048
        filler = "Here is some background you can ignore: " + "the quick brown fox jumps over the lazy dog. " * 30
        dropped = []
        for i in range(5):
            events = list(services.agent.run(f"{filler}\nQuestion {i}: what is {i} plus {i}? Answer with the number."))
            assert not [e for e in events if isinstance(e, TurnFailed)], events[-1]
            assert [e for e in events if isinstance(e, TurnFinished)]
            dropped += [e.message for e in events if isinstance(e, Notice) and "oldest turn" in e.message]
        assert dropped, "five ~500-token turns cannot fit 2,048 tokens: turns should have been dropped"
        assert "2,048-token context" in dropped[0]
    finally:
        services.close()
