"""Class 4: patterns and sizes from the model cannot freeze the agent.

A catastrophic regex under Python's backtracking engine holds the GIL, so the
executor's tool timeout never fires; the tools use RE2 (linear time) instead.
The guard here is pytest-timeout on the test, not a timed assertion: on the
old engine each of these runs for minutes; the calls must also come back as
results, not as the executor's timeout error.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gaia_lite.embed.hashing import HashEmbedder
from gaia_lite.memory.rag import RagIndex
from gaia_lite.registry.execute import ToolExecutor
from gaia_lite.registry.registry import ToolRegistry
from gaia_lite.registry.spec import spec_of
from gaia_lite.tools import data as data_tools
from gaia_lite.tools import files as file_tools
from gaia_lite.tools import rag as rag_tools

CATASTROPHIC = ["(a+)+$", "(a|aa)+$", "(a*)*b", "(x+x+)+y", "^(\\w+\\s?)*$", "(a|a?)+$", "((a+)+)+!"]


@pytest.fixture
def bait(root: Path) -> Path:
    (root / "bait.txt").write_text(("a" * 30_000 + "!\n") + ("x" * 5_000 + "\n") + ("word " * 4_000 + "!\n"))
    (root / ("a" * 200 + ".txt")).write_text("name bait\n")
    return root


def _run(ctx, fn, **args) -> dict:
    executor = ToolExecutor(ToolRegistry([spec_of(fn)]), ctx, default_timeout=20)
    result = executor.execute(spec_of(fn).name, args).payload
    assert not result.get("timeout"), result
    return result


@pytest.mark.timeout(60)
@pytest.mark.parametrize("regex", [False, True], ids=["as-text-then-regex", "regex"])
@pytest.mark.parametrize("pattern", CATASTROPHIC)
def test_search_file_content_runs_in_linear_time(ctx, bait, pattern, regex) -> None:
    result = _run(ctx, file_tools.search_file_content, pattern=pattern, directory=".", regex=regex)
    assert result["status"] == "success"


@pytest.mark.timeout(60)
@pytest.mark.parametrize("pattern", CATASTROPHIC)
def test_search_file_name_patterns_run_in_linear_time(ctx, bait, pattern) -> None:
    assert _run(ctx, file_tools.search_file, file_pattern=pattern)["status"] == "success"


def test_regex_on_request_works_and_unsupported_syntax_is_refused_in_one_line(ctx, root) -> None:
    (root / "code.py").write_text("def alpha():\n    return 1  # (?<=x)\n")
    hit = _run(ctx, file_tools.search_file_content, pattern=r"def \w+\(", directory=".", regex=True)
    assert hit["count"] == 1 and "code.py:1: def alpha():" in hit["message"]
    literal = _run(ctx, file_tools.search_file_content, pattern="(?<=x)", directory=".")  # text by default
    assert literal["count"] == 1 and "code.py:2: return 1  # (?<=x)" in literal["message"]
    refused = _run(ctx, file_tools.search_file_content, pattern="(?<=x)", directory=".", regex=True)  # not RE2
    assert refused["status"] == "error" and "\n" not in refused["error"]
    assert "invalid perl operator: (?<" in refused["error"] and "regex=false" in refused["error"]


def test_over_long_patterns_are_refused_in_one_line(ctx, bait) -> None:
    result = _run(ctx, file_tools.search_file_content, pattern="a" * 100_000, directory=".")
    assert result["status"] == "error" and "limit" in result["error"]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("date_range", ["Q1" + " " * 1_000_000 + "2025", "2025 " + " " * 500_000 + "to 2026", "-" * 1_000_000,
                                        "2025-01-01.." * 100_000])
def test_huge_date_ranges_are_refused_quickly(ctx, root, date_range) -> None:
    (root / "sales.csv").write_text("date,amount\n2025-01-05,10\n2025-02-05,20\n")
    result = _run(ctx, data_tools.analyze_data_file, file_path="sales.csv", date_range=date_range)
    assert result["status"] == "error" and "date_range" in result["error"] and len(result["error"]) < 300


@pytest.mark.timeout(60)
def test_indexed_chunk_search_bounds_its_pattern(ctx, root, tmp_path) -> None:
    ctx.rag = RagIndex(tmp_path / "rag", HashEmbedder(dim=128))
    try:
        ctx.rag.index_file(root / "docs" / "notes.md")
        long = _run(ctx, rag_tools.search_indexed_chunks, pattern="%_" * 100_000)
        assert long["status"] == "error" and "limit" in long["error"]
        assert _run(ctx, rag_tools.search_indexed_chunks, pattern="nothing secret")["total_matches"] == 1
    finally:
        ctx.rag.close()
