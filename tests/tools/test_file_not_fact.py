"""A request to save a named file is a file written, not a fact remembered (issue 42, probe53).

Told "remember this: whenever I ask you to save a note, put it in the journal folder", then in a new conversation
"save a note called reading.md that says: finished Dune on Sunday, starting Piranesi next", the 1.5B called
remember with the request as the fact, and no file was written. A real MemoryStore (hashing embedder: close means
sharing words), real folders, a real ToolExecutor holding both tools.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from gaia_lite.embed.hashing import HashEmbedder
from gaia_lite.memory.store import MemoryStore
from gaia_lite.registry.context import ToolContext, TurnRequest
from gaia_lite.registry.execute import Decision, ToolExecutor
from gaia_lite.registry.registry import ToolRegistry
from gaia_lite.registry.spec import spec_of
from gaia_lite.tools.files import write_file
from gaia_lite.tools.memory import remember
from gaia_lite.tools.sandbox import Sandbox

SAVE = "save a note called reading.md that says: finished Dune on Sunday, starting Piranesi next"


@pytest.fixture
def ctx(tmp_path: Path) -> Iterator[ToolContext]:
    work = tmp_path / "work"
    for folder in ("journal", "notes"):
        (work / folder).mkdir(parents=True)
    store = MemoryStore(tmp_path / "memory.db", HashEmbedder(dim=1024))
    yield ToolContext(workdir=work, sandbox=Sandbox([work]), data_dir=tmp_path / "data", memory=store)
    store.close()


def _remember(ctx: ToolContext, fact: str) -> dict:
    executor = ToolExecutor(ToolRegistry([spec_of(remember), spec_of(write_file)]), ctx,
                            approve=lambda s, a: Decision.ALLOW)
    return executor.execute("remember", {"fact": fact}).payload


def test_a_named_file_to_save_is_written_in_the_folder_a_saved_preference_names(ctx: ToolContext) -> None:
    ctx.memory.remember("whenever I ask you to save a note, put it in the journal folder")
    ctx.request = TurnRequest(SAVE)
    result = _remember(ctx, "Save a note called reading.md that says: finished Dune on Sunday, starting Piranesi next")
    written = Path(ctx.workdir) / "journal" / "reading.md"
    assert written.read_text() == "finished Dune on Sunday, starting Piranesi next\n", result
    assert not (Path(ctx.workdir) / "notes" / "reading.md").exists()
    assert ctx.memory.relevant_facts("reading.md Dune Piranesi") == [] or all(
        "reading.md" not in f.content for f in ctx.memory.relevant_facts("reading.md Dune Piranesi"))


def test_without_a_preference_the_file_goes_in_the_working_folder(ctx: ToolContext) -> None:
    ctx.request = TurnRequest(SAVE)
    _remember(ctx, "Save a note called reading.md that says: finished Dune on Sunday, starting Piranesi next")
    assert (Path(ctx.workdir) / "reading.md").is_file()


def test_a_fact_about_a_file_is_remembered(ctx: ToolContext) -> None:
    ctx.request = TurnRequest("remember that my reading log is called reading.md")
    result = _remember(ctx, "my reading log is called reading.md")
    assert result["status"] == "stored", result
    assert not (Path(ctx.workdir) / "reading.md").exists()
