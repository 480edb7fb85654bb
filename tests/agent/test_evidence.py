"""A step's looks at the user's files (agent/evidence.py): each made once, when a guard asks, and kept for the step."""

from __future__ import annotations

from pathlib import Path

from gaia_lite.agent.evidence import Lookups
from gaia_lite.agent.judge import AskAgain, Evidence, Reply, RunCalls, Stage, judge
from gaia_lite.messages import ToolCall
from gaia_lite.registry.context import ToolContext
from gaia_lite.tools.sandbox import Sandbox

POEM = "Write me a two-line poem about the sea."
WRITE = ToolCall("c1", "write_file", {"file_path": "sea.txt", "content": "The sea is vast ..."})


def _ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(workdir=tmp_path, sandbox=Sandbox([tmp_path]), data_dir=tmp_path)


def test_a_lookup_is_made_once_a_step_and_the_next_step_looks_again(tmp_path: Path) -> None:
    ctx = _ctx(tmp_path)
    looks = Lookups(ctx, (POEM,))
    assert looks.invented(WRITE) == "sea.txt"
    (tmp_path / "sea.txt").write_text("waves\n")  # the disk changes: this step keeps what it found
    assert looks.invented(WRITE) == "sea.txt"
    assert Lookups(ctx, (POEM,)).invented(WRITE) is None  # the next step sees the file


def test_each_call_is_looked_up_on_its_own(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("buy milk\n")
    looks = Lookups(_ctx(tmp_path), (POEM,))
    rewrite = ToolCall("c2", "write_file", {"file_path": "notes.md", "content": "buy milk"})
    assert looks.invented(WRITE) == "sea.txt" and looks.invented(rewrite) is None


def test_the_judge_reads_a_steps_lookups_through_evidence(tmp_path: Path) -> None:
    looks = Lookups(_ctx(tmp_path), (POEM,))
    ev = Evidence(("write_file", "read_file"), user_messages=(POEM,), invented=looks.invented)
    asked = judge(Reply((WRITE,), ""), ev, Stage.DRAFT)
    assert asked == AskAgain("invented_file", f"No file sea.txt exists, and I asked for none. Answer without tools: {POEM}")
    assert judge(Reply((WRITE,), ""), ev, Stage.FINAL) == RunCalls((WRITE,))  # asked once: the call runs
    read = Reply((ToolCall("c3", "read_file", {"file_path": "leaves.jpg"}),), "")
    asked = judge(read, ev, Stage.DRAFT)
    assert isinstance(asked, AskAgain) and asked.guard == "invented_file" and "leaves.jpg" in asked.request
