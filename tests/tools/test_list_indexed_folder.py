"""list_indexed_documents asked about a folder the index does not hold: the folder's listing comes with it."""

from __future__ import annotations

from pathlib import Path

from gaia_lite.registry.context import ToolContext
from gaia_lite.tools.rag import index_document, list_indexed_documents


def _docs(work: Path) -> None:
    for name in ("docs/a.md", "docs/b.md", "docs/guides/c.md"):
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text("# x\nsome text\n")


def test_a_folder_the_index_does_not_hold_is_listed(rag_ctx: ToolContext) -> None:
    _docs(rag_ctx.workdir)
    rag_ctx.request.message = "what's in the docs folder?"
    result = list_indexed_documents(rag_ctx)
    # the 0.5B called this tool for that question and, with an empty index, answered "The docs folder is empty"
    assert result["count"] == 0
    assert result["message"].startswith("No indexed document is in docs/, a folder here. docs holds 1 folder: guides/ "
                                        "and 2 files: a.md, b.md."), result["message"]


def test_a_folder_with_indexed_documents_is_the_index_as_before(rag_ctx: ToolContext) -> None:
    _docs(rag_ctx.workdir)
    index_document(rag_ctx, "docs/a.md")
    rag_ctx.request.message = "which documents from the docs folder are indexed?"
    result = list_indexed_documents(rag_ctx)
    assert result["count"] == 1 and "message" not in result


def test_no_folder_named_is_the_index_as_before(rag_ctx: ToolContext) -> None:
    rag_ctx.request.message = "list my indexed documents"
    assert list_indexed_documents(rag_ctx) == {"status": "success", "count": 0, "documents": []}


def test_a_folder_named_in_words_deep_in_the_tree_is_listed_with_its_largest_file(rag_ctx: ToolContext) -> None:
    setlists = rag_ctx.workdir / "music-stuff" / "band" / "setlists"
    setlists.mkdir(parents=True)
    for name, size in (("open-mic.txt", 107), ("pub-night.txt", 218), ("wedding-gig.txt", 556)):
        (setlists / name).write_text("x" * size)
    rag_ctx.request.message = "Which of the band's setlists is the biggest file?"   # the 1.5B's call: this tool
    result = list_indexed_documents(rag_ctx)
    assert result["message"].startswith("No indexed document is in music-stuff/band/setlists/, a folder here."), result
    assert [e["name"] for e in result["entries"] if e.get("largest")] == ["wedding-gig.txt"]
