"""``call_tool(name, arguments)``: unwrapped into the direct call it stands for, and checked by the
executor exactly as that direct call would be."""

from __future__ import annotations

from pathlib import Path

from gaia_lite.messages import ToolCall
from gaia_lite.registry import ToolRegistry, tool
from gaia_lite.registry.bridge import BRIDGE, bridge_schema, unwrap, unwrap_call
from gaia_lite.registry.context import ToolContext
from gaia_lite.registry.execute import ToolExecutor, ToolStatus


@tool
def count_rows(file_path: str, limit: int = 10) -> dict:
    """Count the rows of a table.

    Args:
        file_path: The table.
        limit: At most this many.
    """
    return {"status": "success", "rows": min(limit, 3), "file": file_path}


class _Open:
    roots = ()
    approved = ()

    def check(self, path, *, write=False):
        return Path(path)


def _executor(tmp_path: Path, seen: list[str]) -> ToolExecutor:
    ctx = ToolContext(workdir=tmp_path, sandbox=_Open(), data_dir=tmp_path)
    return ToolExecutor(ToolRegistry([count_rows]), ctx, on_invoke=seen.append)


def test_the_schema_names_the_bridge_and_can_enumerate_the_names() -> None:
    fn = bridge_schema()["function"]
    assert fn["name"] == BRIDGE and fn["parameters"]["required"] == ["name", "arguments"]
    assert "enum" not in fn["parameters"]["properties"]["name"]
    assert bridge_schema(["a", "b"])["function"]["parameters"]["properties"]["name"]["enum"] == ["a", "b"]


def test_unwrap_reads_the_shapes_small_models_send() -> None:
    assert unwrap("count_rows", {"file_path": "a"}).bridged is False
    plain = unwrap(BRIDGE, {"name": "count_rows", "arguments": {"file_path": "a"}})
    assert (plain.name, plain.arguments, plain.bridged, plain.error) == ("count_rows", {"file_path": "a"}, True, None)
    assert unwrap(BRIDGE, {"name": "count_rows", "arguments": '{"file_path": "a"}'}).arguments == {"file_path": "a"}
    assert unwrap(BRIDGE, {"tool": "count_rows", "args": {"file_path": "a"}}).arguments == {"file_path": "a"}
    spread = unwrap("Call_Tool", {"name": "count_rows", "file_path": "a"})
    assert (spread.name, spread.arguments) == ("count_rows", {"file_path": "a"})
    assert unwrap(BRIDGE, {"name": "count_rows", "arguments": None}).arguments == {}


def test_a_malformed_bridge_call_says_how_to_call_it() -> None:
    assert "name is missing" in unwrap(BRIDGE, {"arguments": {}}).error
    assert "not a JSON object" in unwrap(BRIDGE, {"name": "x", "arguments": "{oops"}).error
    assert "must be an object" in unwrap(BRIDGE, {"name": "x", "arguments": [1]}).error
    assert "cannot call itself" in unwrap(BRIDGE, {"name": BRIDGE, "arguments": {}}).error


def test_unwrap_call_keeps_the_id_and_leaves_malformed_calls_alone() -> None:
    call = ToolCall("c1", BRIDGE, {"name": "count_rows", "arguments": {"file_path": "a"}})
    assert unwrap_call(call) == ToolCall("c1", "count_rows", {"file_path": "a"})
    bad = ToolCall("c2", BRIDGE, {"arguments": {}})
    assert unwrap_call(bad) is bad


def test_the_executor_runs_a_bridged_call_as_the_direct_call(tmp_path) -> None:
    seen: list[str] = []
    ex = _executor(tmp_path, seen)
    direct = ex.execute("count_rows", {"file_path": "t.csv", "limit": "2"})
    bridged = ex.execute(BRIDGE, {"name": "count_rows", "arguments": {"file_path": "t.csv", "limit": "2"}})
    assert bridged.ok and (bridged.requested, bridged.name) == ("count_rows", "count_rows")
    assert (bridged.arguments, bridged.payload) == (direct.arguments, direct.payload)  # "2" coerced alike
    assert seen == ["count_rows", "count_rows"]  # the loader hook sees the real tool


def test_bad_arguments_through_the_bridge_get_the_direct_calls_repair_message(tmp_path) -> None:
    ex = _executor(tmp_path, [])
    direct = ex.execute("count_rows", {"filename": "t.csv"})
    bridged = ex.execute(BRIDGE, {"name": "count_rows", "arguments": {"filename": "t.csv"}})
    assert bridged.status is ToolStatus.INVALID and bridged.payload == direct.payload
    assert "Expected: count_rows(file_path: string" in bridged.payload["error"]
    unknown = ex.execute(BRIDGE, {"name": "count_row", "arguments": {}})
    assert unknown.payload == ex.execute("count_row", {}).payload  # same suggestion as a direct call
    broken = ex.execute(BRIDGE, {"arguments": {"file_path": "t.csv"}})
    assert broken.status is ToolStatus.INVALID and f"Use {BRIDGE}(name=" in broken.payload["error"]
