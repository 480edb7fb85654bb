"""What the judge's verdicts ask of a turn's next model call (books.Steer): one value, a new one after each verdict."""

from __future__ import annotations

from gaia_lite.agent.books import Steer
from gaia_lite.agent.judge import Accept, AskAgain, FromResults, HoldToCall, RunCalls, Stage
from gaia_lite.messages import ToolCall

NARRATED = "To list the files, use the browse_directory tool."


def test_a_reply_asked_again_goes_back_off_the_record_and_the_next_one_is_final() -> None:
    steer = Steer().after(AskAgain("narrated", "Do not describe a tool call."), NARRATED)
    assert steer.transient == ({"role": "assistant", "content": NARRATED},
                               {"role": "user", "content": "Do not describe a tool call."})
    assert (steer.stage(forced=False), Steer().stage(forced=False)) == (Stage.FINAL, Stage.DRAFT)
    assert steer.after(RunCalls((ToolCall("c1", "browse_directory", {}),)), "") == Steer(redone=True)


def test_a_reply_held_to_a_call_asks_for_a_call_with_no_words() -> None:
    steer = Steer().after(HoldToCall("narrated"), NARRATED)
    assert steer == Steer(redone=True, calls_only=True)
    assert steer.after(Accept("Rome."), "Rome.") == Steer(redone=True)


def test_a_call_asked_about_runs_the_second_time_and_an_answer_built_from_results_ends_the_steer() -> None:
    asked = Steer().after(AskAgain("invented_file", "No file sea.txt exists, and I asked for none."), "")
    assert asked.stage(forced=False) is Stage.FINAL and asked.stage(forced=True) is Stage.FORCED
    assert asked.after(RunCalls((ToolCall("c1", "write_file", {}),)), "") == Steer(redone=True)
    assert Steer().after(FromResults("result_echo"), '{"status": "success"}') == Steer()
