"""request_user_input's timeout at the terminal: the question gives up instead of hanging the turn.

Real prompt-toolkit (with a pipe as its keyboard) and a real OS pipe as a non-terminal stdin."""

from __future__ import annotations

import os
import time

import pytest

from gaia_lite.cli.chat import _prompt_with_timeout, read_line_with_timeout


def test_a_silent_pipe_times_out_and_a_written_line_is_read() -> None:
    r, w = os.pipe()
    with os.fdopen(r) as reader, os.fdopen(w, "w") as writer:
        started = time.monotonic()
        assert read_line_with_timeout(reader, 0.2) is None
        assert time.monotonic() - started >= 0.19
        writer.write("blue\n")
        writer.flush()
        assert read_line_with_timeout(reader, 5) == "blue"
        writer.close()
        assert read_line_with_timeout(reader, 5) is None  # end of input


@pytest.fixture
def keyboard():
    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        yield pipe


def test_prompt_toolkit_question_gives_up_after_the_timeout(keyboard) -> None:
    started = time.monotonic()
    assert _prompt_with_timeout("Which file? > ", 0.3) is None
    assert 0.25 <= time.monotonic() - started < 5


def test_prompt_toolkit_answer_within_the_timeout(keyboard) -> None:
    keyboard.send_text("report.md\r")
    assert _prompt_with_timeout("Which file? > ", 5) == "report.md"
