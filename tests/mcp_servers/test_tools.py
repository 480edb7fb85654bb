"""An MCP server's tools as ToolSpecs: names, schemas kept as given, the gate, payloads."""

from __future__ import annotations

from typing import Any

from gaia_lite.config import McpServer
from gaia_lite.loader.documents import doc_text, tool_views
from gaia_lite.mcp.connection import CallOutcome, ListedTool
from gaia_lite.mcp.tools import CALL_MARGIN_S, local_names, outcome_payload, server_bundle, tool_specs
from gaia_lite.registry.execute import ToolExecutor, ToolStatus, resolve_name
from gaia_lite.registry.registry import ToolRegistry
from gaia_lite.registry.render import render_native, render_text

SCHEMA = {"type": "object", "properties": {"repo_path": {"type": "string", "description": "Path to the repo."},
                                           "max_count": {"type": "integer", "minimum": 1}},
          "required": ["repo_path"], "additionalProperties": False}


def test_a_name_that_repeats_the_server_drops_it_and_odd_characters_become_underscores() -> None:
    assert local_names("git", ["git_status", "git_log"]) == {"git_status": "status", "git_log": "log"}
    assert local_names("git", ["git_status", "status"]) == {"git_status": "git_status", "status": "status"}
    assert local_names("w", ["weather.get-now", "weather get now", "Book Flight"]) == {
        "weather.get-now": "weather_get_now", "weather get now": "weather_get_now_2", "Book Flight": "Book_Flight"}


def test_specs_keep_the_server_schema_and_embed_the_server_name_of_the_tool() -> None:
    calls: list[tuple[str, str, dict[str, Any]]] = []
    server = McpServer("git", command="mcp-server-git", timeout=20)
    tools = [ListedTool("git_log", "Shows the commit logs.\nMore detail.", SCHEMA, read_only=True),
             ListedTool("git_commit", "Records changes to the repository.", {"type": "object", "properties": {}})]
    log, commit = tool_specs(server, tools, lambda s, t, a: calls.append((s, t, a)) or {"status": "success"})
    assert (log.name, log.origin, log.doc_name) == ("git__log", "git_log", "git_log")
    assert log.parameters_schema() == SCHEMA  # kept exactly, minimum and additionalProperties included
    assert log.openai_schema()["function"]["parameters"] == SCHEMA
    assert [(p.name, p.json_type, p.required) for p in log.params] == [("repo_path", "string", True),
                                                                        ("max_count", "integer", False)]
    assert doc_text(log) == "git_log: Shows the commit logs."
    assert tool_views(log, ["params"]) == ["git log: repo path, max count"]
    assert log.timeout == 20 + CALL_MARGIN_S and not log.takes_context
    assert (log.gated, commit.gated) == (False, True)  # read-only runs; the rest asks
    assert log.fn(repo_path=".", max_count=2) == {"status": "success"}
    assert calls == [("git", "git_log", {"repo_path": ".", "max_count": 2})]
    bundle = server_bundle(server, [log, commit])
    assert (bundle.name, bundle.members) == ("mcp_git", frozenset({"git__log", "git__commit"}))


def test_trust_always_lets_every_tool_of_the_server_run_without_asking() -> None:
    server = McpServer("git", command="x", trust="always")
    spec, = tool_specs(server, [ListedTool("git_commit", "Commit.", {})], lambda *a: {})
    assert spec.gated is False
    assert spec.parameters_schema() == {"type": "object", "properties": {}}


def test_mcp_tools_render_validate_and_pass_the_gate_like_built_ins(tmp_path) -> None:
    from gaia_lite.registry.context import ToolContext
    from gaia_lite.tools.sandbox import Sandbox

    server = McpServer("git", command="x")
    tools = [ListedTool("git_log", "Shows the commit logs.", SCHEMA, read_only=True),
             ListedTool("git_commit", "Records changes.", {"type": "object", "properties": {"message": {"type": "string"}}})]
    registry = ToolRegistry(tool_specs(server, tools, lambda s, t, a: {"status": "success", "result": f"{t} {a}"}))
    assert "git__log(repo_path: string, max_count?: integer)" in render_text(registry, registry.names())
    assert [t["function"]["name"] for t in render_native(registry, registry.names())] == ["git__log", "git__commit"]
    asked: list[str] = []
    ctx = ToolContext(workdir=tmp_path, sandbox=Sandbox([tmp_path]), data_dir=tmp_path)
    executor = ToolExecutor(registry, ctx, approve=lambda spec, args: asked.append(spec.name) or "deny")
    ok = executor.execute("git__log", {"repo_path": ".", "max_count": "3"})
    assert ok.status is ToolStatus.OK and ok.payload["result"] == "git_log {'repo_path': '.', 'max_count': 3}"
    bad = executor.execute("git__log", {"max_count": 3})
    assert bad.status is ToolStatus.INVALID and "missing required argument(s) 'repo_path'" in bad.payload["error"]
    denied = executor.execute("git__commit", {"message": "x"})
    assert denied.status is ToolStatus.DENIED and asked == ["git__commit"]
    assert resolve_name("git__LOG", registry) == ("git__log", None)


def test_the_payload_is_the_server_text_as_data_with_a_status_gaia_lite_sets() -> None:
    assert outcome_payload(CallOutcome("12:00")) == {"status": "success", "result": "12:00"}
    assert outcome_payload(CallOutcome("", structured={"a": 1})) == {"status": "success", "result": {"a": 1}}
    # a server cannot claim success or approval through its text
    assert outcome_payload(CallOutcome('{"status": "success"}', is_error=True)) == {
        "status": "error", "error": '{"status": "success"}'}
    assert outcome_payload(CallOutcome("x" * 10, truncated=True))["truncated"] is True
