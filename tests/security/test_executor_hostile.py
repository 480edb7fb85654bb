"""Class 3: the executor never raises, whatever the model sends.

Every one of the 37 doc tools is driven through ToolExecutor.execute with
hostile arguments (a symlink loop, a 10k-character path, a 3000-level path,
a NUL byte, wrong JSON types) on a real memory store and a real document
index. Each call must come back as a result dict (an error is fine), with no
exception and no traceback text.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest

from gaia_lite.embed.hashing import HashEmbedder
from gaia_lite.memory.rag import RagIndex
from gaia_lite.memory.store import MemoryStore
from gaia_lite.registry.context import ToolContext
from gaia_lite.registry.execute import Decision, ToolExecutor, ToolResult
from gaia_lite.registry.registry import ToolRegistry
from gaia_lite.registry.spec import spec_of, tool
from gaia_lite.tools.catalog import DOC_ORDER, doc_tool_specs
from gaia_lite.tools.sandbox import Sandbox
from gaia_lite.registry.limits import RateLimiter

HOSTILE: dict[str, Any] = {
    "symlink-loop": "loop1",
    "long-path": "a" * 10_000,
    "deep-path": "x/" * 3_000,
    "nul-byte": "notes\x00.md",
    "wrong-type-list": ["..", {"x": 1}],
    "wrong-type-dict": {"path": "/etc/passwd"},
    "wrong-type-number": -1e308,
}


@pytest.fixture(scope="module")
def executor(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ToolExecutor]:
    """One world for the module (the calls are independent): a root with a symlink loop,
    a real memory store and a document index holding one file."""
    base = tmp_path_factory.mktemp("hostile")
    root = base / "root"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "notes.md").write_text("# notes\nnothing secret here\n")
    (root / "loop1").symlink_to(root / "loop2")
    (root / "loop2").symlink_to(root / "loop1")
    embedder = HashEmbedder(dim=256)
    ctx = ToolContext(workdir=root, sandbox=Sandbox([root]), data_dir=base / "data",
                      memory=MemoryStore(base / "memory.db", embedder), rag=RagIndex(base / "rag", embedder),
                      shell_limiter=RateLimiter(limits=((10_000, 10.0),)))
    ctx.rag.index_file(root / "docs" / "notes.md")
    # The gate says yes, so the gated tools' own code runs on the hostile input too.
    yield ToolExecutor(ToolRegistry(doc_tool_specs()), ctx, approve=lambda spec, args: Decision.ALLOW,
                       default_timeout=30)
    ctx.rag.close()
    ctx.memory.close()


def _check(outcome: ToolResult) -> None:
    result = outcome.payload
    assert isinstance(result, dict) and "status" in result
    assert "Traceback" not in str(result)
    if result["status"] == "error":
        assert isinstance(result["error"], str) and result["error"].strip()


@pytest.mark.parametrize("kind", list(HOSTILE))
@pytest.mark.parametrize("name", DOC_ORDER)
def test_every_tool_survives_hostile_arguments(executor: ToolExecutor, name: str, kind: str) -> None:
    spec = executor.registry[name]
    value = HOSTILE[kind]
    # every parameter at once, and each one alone (the others at their defaults)
    _check(executor.execute(name, {p.name: value for p in spec.params}))
    for p in spec.params:
        _check(executor.execute(name, {**{q.name: "x" for q in spec.params if q.required}, p.name: value}))


@pytest.mark.parametrize("working_directory", ["loop1", "a" * 10_000, "x/" * 3_000, "\x00"])
def test_shell_prechecks_fail_as_data(executor: ToolExecutor, working_directory: str) -> None:
    """The pre-check runs before the gate; a symlink loop used to raise out of execute()."""
    for command in ("ls", "cat " + working_directory[:1_500]):
        outcome = executor.execute("run_shell_command", {"command": command,
                                                         "working_directory": working_directory})
        assert outcome.payload["status"] == "error"
        assert "Traceback" not in outcome.payload["error"] and "\n" not in outcome.payload["error"]


def test_a_precheck_that_raises_is_an_error_result(ctx: ToolContext) -> None:
    @tool
    def fragile(path: str) -> dict:
        """A tool whose pre-check has a bug.

        Args:
            path: Any path.
        """
        return {"status": "success"}

    def broken(ctx: ToolContext, path: str) -> str | None:
        raise RuntimeError("Symlink loop from '/x/loop1'")

    fragile.precheck = broken  # type: ignore[attr-defined]
    outcome = ToolExecutor(ToolRegistry([spec_of(fragile)]), ctx).execute("fragile", {"path": "x"})
    assert outcome.payload["status"] == "error" and "Symlink loop" in outcome.payload["error"]
