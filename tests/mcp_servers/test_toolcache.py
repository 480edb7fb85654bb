"""The tool-list cache: a second start registers a server's tools before the server answers, and the
live list confirms them or replaces what changed."""

from __future__ import annotations

import json
import time
from pathlib import Path

from gaia_lite.agent.selection import ToolSelector
from gaia_lite.config import McpServer
from gaia_lite.mcp.connection import ListedTool
from gaia_lite.mcp.manager import McpManager
from gaia_lite.mcp.toolcache import ToolListCache
from gaia_lite.registry.registry import ToolRegistry
from gaia_lite.registry.spec import ToolSpec
from tests.hang import HANG_GUARD_S

from .conftest import fixture_server


def started(server: McpServer, cache: Path, *, grace: float = 60.0, prepared: list | None = None) -> McpManager:
    prepare = None if prepared is None else (lambda specs: prepared.extend(s.name for s in specs))
    manager = McpManager([server], cache_dir=cache, grace=grace, connect_timeout=HANG_GUARD_S, prepare=prepare)
    manager.start()
    return manager


def run_once(server: McpServer, cache: Path) -> None:
    """A first start: waits for the live list, which is written to the cache."""
    manager = started(server, cache)
    try:
        assert manager.wait(60) and manager.joins()
    finally:
        manager.close()


def test_a_cached_list_is_read_back_only_for_the_same_config(tmp_path: Path) -> None:
    cache = ToolListCache(tmp_path)
    server = McpServer("git", command="mcp-server-git", args=("--repository", "."))
    tools = (ListedTool("git_status", "Shows the status.", {"type": "object", "properties": {}}, True),)
    assert cache.read(server) is None
    cache.write(server, tools)
    assert cache.read(server) == tools
    assert cache.read(McpServer("git", command="mcp-server-git", args=("--repository", "/elsewhere"))) is None
    assert cache.read(McpServer("git", command="mcp-server-git", args=("--repository", "."),
                                env=(("GIT_DIR", "x"),))) is None
    (tmp_path / "git.json").write_text("{torn")
    assert cache.read(server) is None


def test_a_second_start_joins_the_cached_tools_before_the_slow_server_answers(small_set: Path,
                                                                               tmp_path: Path) -> None:
    slow = fixture_server("slow", small_set, "--slow", "3", "--read-only")
    run_once(slow, tmp_path)
    prepared: list[str] = []
    second = started(slow, tmp_path, prepared=prepared)
    try:
        begun = time.monotonic()
        join, = second.joins()
        assert time.monotonic() - begun < 2.5  # the server lists only after 3 s
        assert join.notice.message == ("MCP server slow: 3 tools joined (bundle mcp_slow; as listed last time, "
                                       "the server is starting)")
        assert prepared == []  # their documents were embedded by the run that listed them
        spec = next(s for s in join.specs if s.name == "slow__get_weather")
        answer = spec.fn(city="Oslo")  # waits for the server, then runs
        assert answer["status"] == "success" and '"city": "Oslo"' in answer["result"]
        assert second.wait(30) and second.joins() == []  # the live list matched: nothing more joins
        assert prepared == []  # nothing embedded twice
    finally:
        second.close()


def test_a_changed_list_replaces_only_what_changed(small_set: Path, tmp_path: Path) -> None:
    server = fixture_server("fx", small_set, "--read-only")
    run_once(server, tmp_path / "cache")
    data = json.loads(small_set.read_text())
    data["tools"][0]["description"] = "Get the weather forecast for a city, hour by hour."  # changed
    del data["tools"][2]  # slow_tool is gone
    data["tools"].append({"name": "get_tide", "description": "Tide times for a harbour.", "parameters": {}})
    small_set.write_text(json.dumps(data))  # same config, so the cache is read: the server differs

    prepared: list[str] = []
    manager = started(server, tmp_path / "cache", prepared=prepared)
    registry = ToolRegistry([ToolSpec("read_file", "Reads a file.", "", (), lambda: None)])
    selector = ToolSelector(registry, None, joins=manager.joins)
    try:
        first = selector.absorb_joins()
        assert [n.message for n in first] == ["MCP server fx: 3 tools joined (bundle mcp_fx; as listed last time, "
                                              "the server is starting)"]
        assert registry.names() == ["read_file", "fx__get_weather", "fx__book_flight_now", "fx__slow_tool"]
        assert manager.wait(60)
        then = selector.absorb_joins()
        assert [n.message for n in then] == ["MCP server fx: its tools changed since last time: 1 new, "
                                             "1 changed, 1 gone (bundle mcp_fx)"]
        # the changed tool kept its place, the gone one left, the new one came last
        assert registry.names() == ["read_file", "fx__get_weather", "fx__book_flight_now", "fx__get_tide"]
        assert "hour by hour" in registry["fx__get_weather"].summary
        assert prepared == ["fx__get_weather", "fx__get_tide"]  # only what changed is embedded again
        shown = selector.select([], "tides in Brest")  # no loader: every tool, as the registry has it now
        assert shown.visible_names(registry) == registry.names() and set(shown.reasons) == set(registry.names())
        assert registry["fx__get_tide"].fn()["status"] == "success"
    finally:
        manager.close()
    again = started(server, tmp_path / "cache")
    try:
        join, = again.joins()  # the corrected list was kept for the next start
        assert sorted(s.name for s in join.specs) == ["fx__book_flight_now", "fx__get_tide", "fx__get_weather"]
    finally:
        again.close()


def test_cached_tools_of_a_server_that_no_longer_starts_answer_with_a_clear_error(small_set: Path,
                                                                                 tmp_path: Path) -> None:
    server = fixture_server("fx", small_set, "--read-only")
    run_once(server, tmp_path / "cache")
    small_set.unlink()  # the fixture exits at once: it cannot read its set
    manager = started(server, tmp_path / "cache")
    try:
        join, = manager.joins()
        answer = join.specs[0].fn(city="Oslo")  # waits for the start, which fails
        assert answer["status"] == "error" and answer["error"].startswith("MCP server fx is not available")
        assert manager.wait(30)
        failed, = manager.joins()
        assert failed.notice.level == "warning" and "Its tools answer with an error" in failed.notice.message
    finally:
        manager.close()


def test_the_real_git_server_joins_from_the_cache_and_its_calls_wait_for_it(git_server: McpServer,
                                                                              tmp_path: Path) -> None:
    run_once(git_server, tmp_path / "cache")
    manager = started(git_server, tmp_path / "cache")
    try:
        join, = manager.joins()
        status = next(s for s in join.specs if s.name == "git__status")
        answer = status.fn(repo_path=git_server.args[1])
        assert answer["status"] == "success" and "notes.md" in answer["result"]
        assert manager.wait(30) and manager.joins() == []
    finally:
        manager.close()


def test_the_loader_scores_a_replaced_tool_by_its_new_text_and_forgets_a_removed_one() -> None:
    from gaia_lite.loader.joins import ToolJoin
    from gaia_lite.embed.hashing import HashEmbedder
    from gaia_lite.events import Notice
    from gaia_lite.loader.bundles import ToolBundle
    from gaia_lite.loader.loader import ToolLoader
    from gaia_lite.loader.presets import PRESETS

    def tool(name: str, summary: str) -> ToolSpec:
        return ToolSpec(name, summary, "", (), lambda: None)

    def bundle(*names: str) -> ToolBundle:
        return ToolBundle("mcp_fx", frozenset(names), f"MCP server fx ({len(names)} tools)")

    pending: list[ToolJoin] = []
    registry = ToolRegistry([tool("read_file", "Reads a file.")])
    loader = ToolLoader(["read_file"], [], HashEmbedder(dim=256), settings=PRESETS["default"], threshold=0.3)
    selector = ToolSelector(registry, loader, joins=lambda: [pending.pop(0)] if pending else [])
    pending.append(ToolJoin((tool("fx__tides", "Tide times for a harbour."), tool("fx__moon", "Moon phases.")),
                            bundle("fx__tides", "fx__moon"), Notice("info", "joined")))
    assert {"fx__tides", "fx__moon"} <= set(selector.select([], "tide times and moon phases").filter)
    new_tides = tool("fx__tides", "Train timetables between stations.")
    pending.append(ToolJoin((new_tides,), bundle("fx__tides", "fx__moon"), Notice("info", "changed")))
    selector.select([], "and tomorrow?")
    scores = {q: loader.score(q, registry)["fx__tides"] for q in ("train timetables between stations",
                                                                  "tide times for a harbour")}
    assert scores["train timetables between stations"] > 0.8 > 0.3 > scores["tide times for a harbour"]
    pending.append(ToolJoin((), bundle("fx__tides"), Notice("info", "gone"), removed=("fx__moon",)))
    selector.select([], "and the day after?")
    assert registry.names() == ["read_file", "fx__tides"] and "fx__moon" not in loader.loaded
