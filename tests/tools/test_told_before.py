"""A document question with nothing indexed is answered from what the user told us, when a saved fact is close.

Asked "What did I tell you about my diet?" after "Keep in mind that I'm vegetarian.", the 0.5B searched the empty
document index, then tried to index a diet.txt it made up (built-in test split). That pair is not close enough
for MiniLM (cosine 0.365, under relevant_facts' 0.5); "Do I prefer tea or coffee?" and its fact are (0.889). A real
MemoryStore and RagIndex in a temp folder (hashing embedder: close means sharing words here).
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from gaia_lite.embed.hashing import HashEmbedder
from gaia_lite.memory.rag import RagIndex
from gaia_lite.memory.store import MemoryStore
from gaia_lite.registry.context import ToolContext, TurnRequest
from gaia_lite.tools.rag import query_documents

from tests.tools.called import as_called

query = as_called(query_documents)


@pytest.fixture
def ctx(tmp_path: Path) -> Iterator[ToolContext]:
    work = tmp_path / "work"
    (work / "recipes").mkdir(parents=True)
    (work / "recipes" / "soup.md").write_text("# Soup\n\nOnions, carrots, stock.\n")
    store = MemoryStore(tmp_path / "memory.db", HashEmbedder(dim=1024))
    index = RagIndex(tmp_path / "index", HashEmbedder(dim=1024))
    from gaia_lite.tools.sandbox import Sandbox
    yield ToolContext(workdir=work, sandbox=Sandbox([work]), data_dir=tmp_path / "data", memory=store, rag=index)
    index.close()
    store.close()


def test_nothing_indexed_and_a_saved_fact_close_to_the_question_answers_it(ctx: ToolContext) -> None:
    ctx.memory.remember("my diet is vegetarian, no meat")
    ctx.request = TurnRequest("is my diet vegetarian?")
    told = query(ctx, "diet vegetarian")
    assert told["status"] == "success" and told["match"] == "saved_facts", told
    assert told["message"] == "No documents are indexed here, but you told me: my diet is vegetarian, no meat"


def test_with_no_fact_close_the_files_are_searched_as_before(ctx: ToolContext) -> None:
    ctx.memory.remember("my bike lock code is 4821")
    ctx.request = TurnRequest("which recipe uses carrots?")
    found = query(ctx, "carrots")
    assert found.get("match") != "saved_facts" and "soup.md" in str(found), found


def test_a_query_in_the_facts_own_words_finds_it_when_the_question_is_far(ctx: ToolContext) -> None:
    # "is there anything i can't eat?" is 0.44 from "I'm allergic to peanuts" (MiniLM), and the 0.5B queried the
    # fact's own words (probe46)
    ctx.memory.remember("I'm allergic to peanuts")
    ctx.request = TurnRequest("is there anything i can't eat?")
    told = query(ctx, "I'm allergic to peanuts")
    assert told["message"] == "No documents are indexed here, but you told me: I'm allergic to peanuts", told
    assert query(ctx, "what can't I eat").get("match") != "saved_facts"   # neither close: nothing told


def test_a_content_search_no_line_answers_is_answered_from_a_saved_fact_close_to_it(ctx: ToolContext) -> None:
    # "whats the combo for my bike lock again", in a new conversation: the 1.5B searched the files (probe51)
    from gaia_lite.tools.files import search_file_content

    ctx.memory.remember("my bike lock code is 4471")
    ctx.request = TurnRequest("whats the code for my bike lock again")
    told = as_called(search_file_content)(ctx, pattern="my bike lock code")
    assert told["message"] == "No line holds 'my bike lock code' or its words, but you told me: my bike lock code is " \
                              "4471", told
    ctx.request = TurnRequest("which recipe uses leeks?")
    assert "told me" not in as_called(search_file_content)(ctx, pattern="leeks")["message"]
