"""An update of a saved memory by an id the model made up changes the memory it stands for (issue 42, probe53).

Told "remember my daughter Zoe's swim practice is on tuesdays at 5pm", then "actually scratch that, it moved to
thursdays at 5:30 pm", the 1.5B called update_memory("my_daughter_zoe_swim_practice", ...), was told no memory had
that id, and in a new conversation answered Tuesday. A real MemoryStore (hashing embedder).
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from gaia_lite.embed.hashing import HashEmbedder
from gaia_lite.memory.store import MemoryStore
from gaia_lite.registry.context import ToolContext, TurnRequest
from gaia_lite.tools.memory import update_memory
from gaia_lite.tools.sandbox import Sandbox

from tests.tools.called import as_called

update = as_called(update_memory)


@pytest.fixture
def ctx(tmp_path: Path) -> Iterator[ToolContext]:
    work = tmp_path / "work"
    work.mkdir()
    store = MemoryStore(tmp_path / "memory.db", HashEmbedder(dim=1024))
    yield ToolContext(workdir=work, sandbox=Sandbox([work]), data_dir=tmp_path / "data", memory=store,
                      request=TurnRequest("actually it moved to thursdays at 5:30 pm. pls update what u remember"))
    store.close()


def test_a_made_up_id_updates_the_one_memory_the_new_text_changes(ctx: ToolContext) -> None:
    swim = ctx.memory.remember("my daughter Zoe's swim practice is on tuesdays at 5pm")
    bike = ctx.memory.remember("my bike lock code is 4719")
    result = update(ctx, "my_daughter_zoe_swim_practice", content="Zoe's swim practice is on thursdays at 5:30 pm")
    assert result["status"] == "updated" and result["knowledge_id"] == swim.id, result
    assert "tuesdays at 5pm" in result["message"] and "thursdays at 5:30 pm" in result["message"]
    assert ctx.memory.get(swim.id).content == "Zoe's swim practice is on thursdays at 5:30 pm"
    assert ctx.memory.get(bike.id).content == "my bike lock code is 4719"


def test_a_made_up_id_with_no_memory_close_changes_nothing(ctx: ToolContext) -> None:
    bike = ctx.memory.remember("my bike lock code is 4719")
    result = update(ctx, "zoe_swim", content="Zoe's swim practice is on thursdays at 5:30 pm")
    assert result["status"] == "not_found", result
    assert ctx.memory.get(bike.id).content == "my bike lock code is 4719"
