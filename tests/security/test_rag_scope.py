"""Class 7: one scope for the document index.

A document indexed in an earlier session under other roots stays in the
index, but no document tool shows it while it is outside the current roots.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gaia_lite.embed.hashing import HashEmbedder
from gaia_lite.memory.rag import RagIndex
from gaia_lite.registry.context import ToolContext
from gaia_lite.registry.execute import Decision, ToolExecutor
from gaia_lite.registry.registry import ToolRegistry
from gaia_lite.registry.spec import spec_of
from gaia_lite.tools import rag as rag_tools
from gaia_lite.tools.sandbox import Sandbox

from .conftest import SECRET


class Summarizer:
    def complete(self, prompt: str, *, system: str | None = None, max_tokens: int = 512) -> str:
        return prompt[:4000]  # echoes what it was given, so a leak would show

    def describe_image(self, data_url: str, question: str, *, max_tokens: int = 512) -> str:
        raise NotImplementedError


@pytest.fixture
def later_session(root: Path, outside: Path, tmp_path: Path):
    """Session 1 indexed a file outside today's roots; session 2 runs with root only."""
    (outside / "plans.md").write_text(f"# plans\nthe merger code word is {SECRET}\n")
    (root / "docs" / "public.md").write_text("# public\nthe merger is rumoured\n")
    index = RagIndex(tmp_path / "rag", HashEmbedder(dim=256))
    index.index_file(outside / "plans.md")
    index.index_file(root / "docs" / "public.md")
    ctx = ToolContext(workdir=root, sandbox=Sandbox([root]), data_dir=tmp_path / "data", rag=index,
                      llm=Summarizer())
    executor = ToolExecutor(ToolRegistry(spec_of(f) for f in rag_tools.TOOLS), ctx,
                            approve=lambda spec, args: Decision.ALLOW)
    yield lambda name, **args: executor.execute(name, args).payload
    index.close()


@pytest.mark.parametrize("name,args", [
    ("query_documents", {"query": "merger code word"}),
    ("search_indexed_chunks", {"pattern": "code word"}),
    ("search_indexed_chunks", {"pattern": SECRET}),
    ("list_indexed_documents", {}),
    ("query_specific_file", {"file_path": "plans.md", "query": "code word"}),
    ("summarize_document", {"file_path": "plans.md"}),
    ("dump_document", {"file_name": "plans.md"}),
])
def test_documents_outside_the_roots_stay_hidden(later_session, outside, name, args) -> None:
    result = later_session(name, **args)
    shown = str({k: v for k, v in result.items() if k not in ("pattern", "query")})  # minus the echo
    assert SECRET not in shown and str(outside) not in shown


def test_documents_inside_the_roots_are_still_found(later_session) -> None:
    hits = later_session("query_documents", query="merger")
    assert hits["status"] == "success" and all("public.md" in c["source_file"] for c in hits["chunks"])
    grep = later_session("search_indexed_chunks", pattern="merger")
    assert grep["total_matches"] == 1 and "public.md" in grep["matches"][0]["source_file"]
