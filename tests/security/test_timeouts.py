"""Issue 30, item 7a: every call to the model server has a time limit, the probes included.

Attack: a server that answers /health but whose ``GET /models`` accepts and never answers. On 5aec35f
``ask`` waited the whole first-byte limit (300 s by default) in silence, then blamed the chat request.
Now the listing has its own limit and the one error line names it. The reply-format probe is bounded
too, and a probe that ran out of time is not cached as "not capable" for ever.

SCRIPTED FAKE OpenAI server (a protocol test); the limits below are hang guards, not speed goals.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gaia_lite.errors import GaiaError
from gaia_lite.llm.client import ChatClient
from gaia_lite.llm.structured import CapabilityCache, supports_response_format
from tests.fakes.openai_server import FakeOpenAIServer

from .test_cli_errors import assert_one_line_error, gaia

pytestmark = pytest.mark.network


class TestModelServerTimeLimits:
    def test_ask_names_a_hung_model_listing_instead_of_waiting_silently(self, tmp_path: Path) -> None:
        # a first-byte limit far above the listing's: the listing must give up on its own limit
        with FakeOpenAIServer(models_hang=True) as srv:
            run = gaia(tmp_path / "home", "ask", "hi", "--base-url", srv.base_url,
                       env={"GAIA_FIRST_BYTE_TIMEOUT": "200"}, timeout=150)
        assert_one_line_error(run, 1, "GET /models", "within 15 s")
        assert run.stdout.strip() == ""

    def test_the_listing_limit_never_exceeds_the_first_byte_limit(self) -> None:
        with FakeOpenAIServer(models_hang=True) as srv:
            client = ChatClient(srv.base_url, first_byte_timeout=2)
            with pytest.raises(GaiaError, match="GET /models.* 2 s") as caught:
                client.resolve_model()
        assert type(caught.value).__name__ == "ServerTooSlow"

    def test_a_probe_that_runs_out_of_time_is_bounded_and_not_cached(self, tmp_path: Path) -> None:
        cache = CapabilityCache(tmp_path / "capabilities.json")
        with FakeOpenAIServer() as srv:
            srv.script.append("hang")
            client = ChatClient(srv.base_url, model="fake-model", first_byte_timeout=3)
            capable, probed = supports_response_format(client, cache, "srv|fake-model")
        assert (capable, probed) == (False, True)
        assert cache.get("srv|fake-model") is None  # the next start asks again
