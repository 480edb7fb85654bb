"""Issue 30, item 4: a model stream that just stops is not an answer.

Attack: the server sends part of a reply and then ends the stream with no ``finish_reason`` and no
``[DONE]`` (a crashed or killed server, a proxy that cut the body). On 5aec35f the partial text was
printed, stored in memory and in the turn log as the answer, and ``ask`` exited 0; a chunked body cut
mid-way said "cannot reach the model server". Evidence checked absent: exit 0, a traceback, the partial
text in memory.db or stored as a finished turn, and the misleading "cannot reach" line.

Real ``gaia-lite ask`` processes against the SCRIPTED FAKE OpenAI server (a protocol test).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gaia_lite.errors import GaiaError
from gaia_lite.llm.client import ChatClient
from tests.fakes.openai_server import FakeOpenAIServer, cut_chunks, text_chunks

from .test_bounded_inputs import db_rows
from .test_cli_errors import assert_one_line_error, gaia

pytestmark = pytest.mark.network

PARTIAL = "The capital of France is Par"


def _stored_answers(home: Path) -> list[str]:
    return db_rows(home, "SELECT content FROM conversations WHERE role = 'assistant'")


def _turn_records(home: Path) -> list[dict]:
    log = home / "state" / "turns.jsonl"
    return [json.loads(ln) for ln in log.read_text().splitlines() if ln.strip()] if log.is_file() else []


class TestStreamThatEndsWithoutAFinish:
    @pytest.mark.parametrize("chunked", [False, True], ids=["clean-close", "chunked-cut"])
    def test_ask_fails_with_one_line_and_keeps_nothing_as_complete(self, tmp_path: Path, chunked: bool) -> None:
        home = tmp_path / "home"
        with FakeOpenAIServer() as srv:
            srv.script.append(cut_chunks(PARTIAL, chunked=chunked))
            run = gaia(home, "ask", "what is the capital of France?", "--base-url", srv.base_url,
                       "--text-tools", "--tool-calls", "free")
        assert_one_line_error(run, 1, "cut off" if not chunked else "lost mid-reply")
        assert "cannot reach" not in run.stderr
        assert not any(PARTIAL in a for a in _stored_answers(home))
        records = _turn_records(home)
        assert records and all(r["status"] == "failed" and PARTIAL not in r["answer"] for r in records)

    def test_a_finished_stream_is_still_an_answer(self, tmp_path: Path) -> None:
        home = tmp_path / "home"
        with FakeOpenAIServer() as srv:
            srv.script.append(text_chunks("Paris is the capital of France."))
            run = gaia(home, "ask", "what is the capital of France?", "--base-url", srv.base_url,
                       "--text-tools", "--tool-calls", "free")
        assert run.returncode == 0, run.stderr
        assert "Paris is the capital" in run.stdout
        assert [r["status"] for r in _turn_records(home)] == ["ok"]

    @pytest.mark.parametrize("chunked", [False, True])
    def test_the_client_raises_reply_cut_off_with_what_it_got(self, chunked: bool) -> None:
        with FakeOpenAIServer() as srv:
            srv.script.append(cut_chunks(PARTIAL, chunked=chunked))
            with pytest.raises(GaiaError) as caught:  # on 5aec35f: no error at all, or ServerUnreachable
                ChatClient(srv.base_url, model="fake-model").chat([{"role": "user", "content": "hi"}])
        assert type(caught.value).__name__ == "ReplyCutOff"  # never a ModelError: not retried as a refusal
        message = str(caught.value)
        assert ("lost mid-reply" if chunked else f"after {len(PARTIAL)} characters") in message
        assert "cannot reach" not in message and "\n" not in message
