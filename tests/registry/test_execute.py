"""Execution always resolves against the FULL registry, and every failure is data."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

import pytest

from gaia_lite.registry import ToolRegistry, tool
from gaia_lite.registry.context import ToolContext
from gaia_lite.registry.execute import Decision, ToolExecutor, ToolResult, ToolStatus, resolve_name, validate_arguments


class OpenSandbox:
    roots = ()
    approved = ()

    def check(self, path, *, write=False):
        return Path(path)


@tool
def read_file(ctx, file_path: str, max_lines: int = 100, strict: bool = False) -> dict:
    """Read a file.

    Args:
        file_path: The file.
        max_lines: Line cap.
        strict: Fail on odd bytes.
    """
    return {"status": "success", "file_path": file_path, "max_lines": max_lines, "strict": strict}


@tool
def mcp_time_get_current_time(ctx) -> dict:
    """Current time."""
    return {"status": "success"}


@tool
def search_file(ctx, pattern: str) -> dict:
    """Find files.

    Args:
        pattern: Name pattern.
    """
    return {"status": "success"}


@tool
def search_directory(ctx, name: str) -> dict:
    """Find folders.

    Args:
        name: Folder name.
    """
    return {"status": "success"}


@tool(gated=True)
def write_file(ctx, file_path: str, content: str) -> dict:
    """Write a file.

    Args:
        file_path: The file.
        content: The text.
    """
    return {"status": "success"}


@tool(timeout=0.2)
def slow_tool(ctx) -> dict:
    """Sleep too long."""
    time.sleep(2)
    return {"status": "success"}


@tool
def broken_tool(ctx) -> dict:
    """Always raises."""
    raise RuntimeError("boom")


def _registry() -> ToolRegistry:
    return ToolRegistry([read_file, mcp_time_get_current_time, search_file, search_directory,
                         write_file, slow_tool, broken_tool])


def _executor(approve=None, on_invoke=None) -> ToolExecutor:
    ctx = ToolContext(workdir=Path("."), sandbox=OpenSandbox(), data_dir=Path("."))
    return ToolExecutor(_registry(), ctx, approve=approve, on_invoke=on_invoke)


@pytest.mark.parametrize("raw, expected", [
    ("read_file", "read_file"),
    ("read_file()", "read_file"),
    ("read-file", "read_file"),
    ("READ_FILE", "read_file"),
    (" `read_file` ", "read_file"),
    ("get_current_time", "mcp_time_get_current_time"),  # MCP-style prefix
])
def test_names_resolve(raw, expected):
    assert resolve_name(raw, _registry()) == (expected, None)


def test_ambiguous_prefix_lists_candidates():
    name, error = resolve_name("search", _registry())
    assert name is None and "search_directory, search_file" in error


def test_unknown_name_says_to_use_listed_tools():
    name, error = resolve_name("fly_to_moon", _registry())
    assert name is None and "AVAILABLE TOOLS" in error


def test_missing_argument_is_named_with_expected_signature():
    _, error = validate_arguments(_registry()["read_file"], {})
    assert "missing required argument(s) 'file_path'" in error
    assert "Expected: read_file(file_path: string, max_lines?: integer, strict?: boolean)" in error


def test_a_name_path_or_query_over_its_limit_is_refused_and_text_to_write_is_not():
    _, error = validate_arguments(_registry()["read_file"], {"file_path": "x" * 1_000_000})
    assert error == ("read_file: argument 'file_path' is 1,000,000 characters; the limit is 4,096 for a name, path, "
                     "pattern or query: send a shorter one")
    assert validate_arguments(_registry()["read_file"], {"file_path": "x" * 4096})[1] is None

    @tool
    def write_file(ctx, file_path: str, content: str) -> dict:
        """Write a file.

        Args:
            file_path: The file.
            content: Its text.
        """
        return {"status": "success"}

    kwargs, error = validate_arguments(ToolRegistry([write_file])["write_file"], {"file_path": "a.txt",
                                                                                  "content": "x" * 1_000_000})
    assert error is None and len(kwargs["content"]) == 1_000_000
    # an MCP server's tool keeps its own schema and bounds: a long "code" or "sql" may be what it takes
    outside = replace(_registry()["read_file"], schema={"type": "object", "properties": {"file_path": {"type": "string"}}})
    assert validate_arguments(outside, {"file_path": "x" * 1_000_000})[1] is None


def test_unknown_argument_is_named():
    _, error = validate_arguments(_registry()["read_file"], {"file_path": "a", "path": "b"})
    assert "unknown argument(s) 'path'" in error and "Expected:" in error


def test_a_short_name_of_one_parameter_is_read_as_it():
    kwargs, error = validate_arguments(_registry()["read_file"], {"path": "notes.md"})
    assert error is None and kwargs == {"file_path": "notes.md"}


def test_a_short_name_two_parameters_share_stays_unknown():
    spec = _registry()["read_file"]
    twins = replace(spec, params=(*spec.params, replace(spec.params[0], name="folder_path")))
    _, error = validate_arguments(twins, {"path": "notes.md"})
    assert "unknown argument(s) 'path'" in error


def test_a_place_named_path_is_read_as_the_one_place_parameter():
    # search_file_content takes a directory; the 1.5B wrote "path" (probe55)
    spec = _registry()["read_file"]
    grep = replace(spec, params=(replace(spec.params[0], name="pattern"), replace(spec.params[0], name="directory")))
    kwargs, error = validate_arguments(grep, {"pattern": "TODO", "path": "src"})
    assert error is None and kwargs == {"pattern": "TODO", "directory": "src"}
    given = validate_arguments(grep, {"pattern": "TODO", "directory": "src", "folder": "lib"})[1]
    assert "unknown argument(s) 'folder'" in given   # the place is given already: no second one


def test_numeric_and_bool_strings_are_coerced():
    kwargs, error = validate_arguments(_registry()["read_file"],
                                       {"file_path": "a", "max_lines": "25", "strict": "yes"})
    assert error is None and kwargs == {"file_path": "a", "max_lines": 25, "strict": True}


@pytest.mark.parametrize("value", ["ten", "2.5", True])
def test_bad_integer_is_an_error_naming_the_argument(value):
    _, error = validate_arguments(_registry()["read_file"], {"file_path": "a", "max_lines": value})
    assert "argument 'max_lines'" in error and "whole number" in error


def test_unlisted_tool_still_runs_and_hook_sees_it():
    seen = []
    out = _executor(on_invoke=seen.append).execute("search-file", {"pattern": "*.md"})
    assert out.ok and out.name == "search_file" and seen == ["search_file"]


def test_gated_tool_denied_without_approval_and_hook_not_called():
    seen = []
    out = _executor(on_invoke=seen.append).execute("write_file", {"file_path": "a", "content": "b"})
    assert out.status is ToolStatus.DENIED and seen == [] and out.invoked is False


def test_bad_arguments_still_reach_the_hook_as_in_gaia():
    """GAIA calls the loader hook before checking arguments: the model reached for the tool."""
    seen = []
    out = _executor(on_invoke=seen.append).execute("search_file", {"query": "x"})
    assert out.status is ToolStatus.INVALID and seen == ["search_file"] and out.invoked is True
    unknown = _executor(on_invoke=seen.append).execute("no_such_tool", {})
    assert unknown.name is None and seen == ["search_file"] and unknown.invoked is False


def test_always_approval_is_remembered():
    asked = []

    def approve(spec, args):
        asked.append(spec.name)
        return Decision.ALWAYS

    ex = _executor(approve=approve)
    assert ex.execute("write_file", {"file_path": "a", "content": "b"}).ok
    assert ex.execute("write_file", {"file_path": "c", "content": "d"}).ok
    assert asked == ["write_file"]


def test_timeout_and_exceptions_become_error_dicts():
    ex = _executor()
    slow = ex.execute("slow_tool", {})
    assert slow.status is ToolStatus.TIMEOUT and slow.payload["timeout"] is True and not slow.ok
    broken = ex.execute("broken_tool", {})
    assert broken.status is ToolStatus.ERROR and "RuntimeError: boom" in broken.payload["error"]
    assert broken.shown_status == slow.shown_status == "error"


def test_shell_policy_refuses_before_the_user_is_asked(tmp_path):
    from gaia_lite.tools.sandbox import Sandbox
    from gaia_lite.tools.shell import run_shell_command

    asked = []
    ctx = ToolContext(workdir=tmp_path, sandbox=Sandbox([tmp_path]), data_dir=tmp_path)
    ex = ToolExecutor(ToolRegistry([run_shell_command]), ctx,
                      approve=lambda spec, args: asked.append(spec.name) or Decision.ALLOW)
    out = ex.execute("run_shell_command", {"command": "ls; rm -rf /"})
    assert out.status is ToolStatus.REFUSED and out.shown_status == "error" and asked == []
    ok = ex.execute("run_shell_command", {"command": "ls"})
    assert ok.ok and asked == ["run_shell_command"]


def test_list_for_a_string_argument_is_joined():
    @tool
    def analyze(ctx, columns: str = "") -> dict:
        """Analyze.

        Args:
            columns: Comma-separated column names.
        """

    kwargs, error = validate_arguments(analyze.__tool_spec__, {"columns": ["amount", "region"]})
    assert error is None and kwargs == {"columns": "amount, region"}


def test_only_a_tool_that_ran_without_reporting_an_error_is_ok(tmp_path):
    @tool
    def finder(ctx, name: str) -> dict:
        """Find a thing.

        Args:
            name: What to find.
        """
        return {"status": "not_found"} if name == "x" else {"status": "error", "error": "bad name"}

    ex = ToolExecutor(ToolRegistry([finder]), ToolContext(workdir=tmp_path, sandbox=None, data_dir=tmp_path))
    found = ex.execute("finder", {"name": "x"})
    assert found.status is ToolStatus.OK and found.ok and found.shown_status == "not_found"
    failed = ex.execute("finder", {"name": "y"})
    assert failed.status is ToolStatus.ERROR and not failed.ok
    assert [s for s in ToolStatus if ToolResult("t", "t", {}, {}, s, 0.0).ok] == [ToolStatus.OK]


def test_a_tool_failure_reaches_the_model_word_for_word(tmp_path):
    from gaia_lite.registry.failure import ToolFailure

    @tool
    def opener(ctx, path: str) -> dict:
        """Open a file.

        Args:
            path: The file.
        """
        raise ToolFailure(f"'{path}' is not a file: it is a folder. Browse it instead.", hint="browse")

    ex = ToolExecutor(ToolRegistry([opener]), ToolContext(workdir=tmp_path, sandbox=None, data_dir=tmp_path))
    out = ex.execute("opener", {"path": "docs"})
    assert out.status is ToolStatus.ERROR and not out.ok
    assert out.payload == {"status": "error", "error": "'docs' is not a file: it is a folder. Browse it instead.",
                           "hint": "browse"}
