"""set_loop_state and request_user_input: dict results, the directive in ctx.loop."""

from __future__ import annotations

import pytest

from gaia_lite.tools.loop import request_user_input, set_loop_state


class ScriptedUser:
    """An ask_user port that returns queued answers and records the questions."""

    def __init__(self, *answers):
        self.answers = list(answers)
        self.asked: list[tuple[str, object]] = []
        self.timeouts: list[float | None] = []

    def __call__(self, message, choices=None, *, timeout=None):
        self.asked.append((message, choices))
        self.timeouts.append(timeout)
        answer = self.answers.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        return answer


@pytest.mark.parametrize("state", ["idle", "paused", " PAUSED "])
def test_idle_and_paused_have_no_wake_time(tool_ctx, state: str) -> None:
    result = set_loop_state(tool_ctx, state, reason="done for now", wake_in_seconds=600)
    assert result == {"status": "success", "state": state.strip().lower(), "reason": "done for now",
                      "wake_in_seconds": 0}
    assert tool_ctx.loop.directive.state == state.strip().lower()
    assert tool_ctx.loop.directive.wake_at is None


@pytest.mark.parametrize("asked, stored", [(5, 30), (30, 30), (3600, 3600), (10**7, 86400), ("120", 120)])
def test_scheduled_wake_is_clamped(tool_ctx, asked, stored: int) -> None:
    result = set_loop_state(tool_ctx, "scheduled", wake_in_seconds=asked)
    assert result["status"] == "success" and result["wake_in_seconds"] == stored
    assert ("note" in result) == (str(asked) != str(stored))
    assert tool_ctx.loop.directive.wake_in_seconds == stored
    assert tool_ctx.loop.directive.wake_at is not None


@pytest.mark.parametrize("state", ["running", "", "sleep", None])
def test_invalid_state_is_an_error(tool_ctx, state) -> None:
    result = set_loop_state(tool_ctx, state)
    assert result["status"] == "error" and "idle, scheduled, paused" in result["error"]
    assert tool_ctx.loop.directive is None


def test_invalid_wake_is_an_error(tool_ctx) -> None:
    assert set_loop_state(tool_ctx, "scheduled", wake_in_seconds="later")["status"] == "error"


def test_answer_goes_through_ask_user(tool_ctx) -> None:
    tool_ctx.ask_user = user = ScriptedUser("  blue  ")
    result = request_user_input(tool_ctx, "Favourite colour?")
    assert result == {"status": "answered", "response": "blue"}
    assert user.asked == [("Favourite colour?", None)]


@pytest.mark.parametrize("answer, expected, matched", [("YES", "yes", True), ("2", "no", True),
                                                       ("maybe later", "maybe later", False)])
def test_choices_are_matched_by_text_or_number(tool_ctx, answer, expected, matched) -> None:
    tool_ctx.ask_user = user = ScriptedUser(answer)
    result = request_user_input(tool_ctx, "Proceed?", choices=["yes", "no"])
    assert result["response"] == expected and result["matched_choice"] is matched
    assert user.asked == [("Proceed?", ["yes", "no"])]


@pytest.mark.parametrize("silence", [None, "", "   ", EOFError()], ids=["none", "empty", "blank", "eof"])
def test_no_response_uses_the_default(tool_ctx, silence) -> None:
    tool_ctx.ask_user = ScriptedUser(silence)
    result = request_user_input(tool_ctx, "Which file?", default_if_no_response="report.md")
    assert result == {"status": "no_response", "response": "report.md", "used_default": True, "continue": True}


def test_no_response_without_default_and_stop(tool_ctx) -> None:
    tool_ctx.ask_user = ScriptedUser(None)
    result = request_user_input(tool_ctx, "Which file?", continue_if_no_response=False)
    assert result["status"] == "no_response" and result["response"] is None
    assert result["continue"] is False and "stop" in result["note"]


def test_default_ask_user_means_no_one_is_there(tool_ctx) -> None:
    assert request_user_input(tool_ctx, "Anyone?")["status"] == "no_response"


def test_empty_message_is_an_error(tool_ctx) -> None:
    assert request_user_input(tool_ctx, "  ")["status"] == "error"


def test_comma_separated_choices_string_is_accepted(tool_ctx) -> None:
    tool_ctx.ask_user = user = ScriptedUser("b")
    request_user_input(tool_ctx, "Pick", choices="a, b")
    assert user.asked == [("Pick", ["a", "b"])]


@pytest.mark.parametrize("asked, waited", [(1, 5.0), (120, 120.0), ("30", 30.0), (10**6, 3600.0)])
def test_timeout_seconds_reaches_the_asker_clamped(tool_ctx, asked, waited: float) -> None:
    tool_ctx.ask_user = user = ScriptedUser(None)
    request_user_input(tool_ctx, "Still there?", timeout_seconds=asked)
    assert user.timeouts == [waited]


def test_a_non_numeric_timeout_is_an_error(tool_ctx) -> None:
    result = request_user_input(tool_ctx, "Still there?", timeout_seconds="soon")
    assert result["status"] == "error" and "timeout_seconds" in result["error"]


def test_the_executor_gives_the_question_longer_than_its_own_timeout() -> None:
    from gaia_lite.registry.spec import spec_of
    from gaia_lite.tools.loop import MAX_WAIT_SECONDS

    assert spec_of(request_user_input).timeout > MAX_WAIT_SECONDS
