"""Issue 30, item 7b: a NUL byte in any path argument is one clean refusal.

The OS cannot take a path with a NUL byte in it, and Python says so with
``ValueError: embedded null byte``; 16 path tools passed that on to the model as
"read_file failed: ValueError: embedded null byte". The one path resolver now
refuses it first, so every path parameter of every registered tool (the shell's
working folder and the document index included) answers with the same sentence.
The loop below walks the real registry, so a tool added later is covered too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from gaia_lite.embed.hashing import HashEmbedder
from gaia_lite.memory.rag import RagIndex
from gaia_lite.registry.context import ToolContext
from gaia_lite.registry.execute import Decision, ToolExecutor
from gaia_lite.registry.limits import RateLimiter
from gaia_lite.registry.registry import ToolRegistry
from gaia_lite.tools.catalog import doc_tool_specs
from gaia_lite.tools.sandbox import Sandbox, SandboxError

NUL_PATH = "notes\x00.md"


def _is_path_param(name: str) -> bool:
    return name.endswith(("path", "directory")) or name in ("location", "search_root")


class _NoModel:
    """A model port that must never be reached: the path check comes first."""

    def complete(self, *args, **kwargs) -> str:
        raise AssertionError("the model was called with a NUL path")

    def describe_image(self, *args, **kwargs) -> str:
        raise AssertionError("the model was called with a NUL path")


@pytest.fixture(scope="module")
def executor(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ToolExecutor]:
    base = tmp_path_factory.mktemp("nul")
    root = base / "root"
    root.mkdir()
    (root / "notes.md").write_text("# notes\nplain text\n")
    ctx = ToolContext(workdir=root, sandbox=Sandbox([root]), data_dir=base / "data",
                      rag=RagIndex(base / "rag", HashEmbedder(dim=64)), llm=_NoModel(),
                      shell_limiter=RateLimiter(limits=((10_000, 10.0),)))
    ctx.rag.index_file(root / "notes.md")
    yield ToolExecutor(ToolRegistry(doc_tool_specs()), ctx, approve=lambda spec, args: Decision.ALLOW,
                       default_timeout=30)
    ctx.rag.close()


def _path_calls(executor: ToolExecutor) -> list[tuple[str, dict]]:
    calls = []
    for spec in executor.registry:
        for param in spec.params:
            if param.json_type == "string" and _is_path_param(param.name):
                args = {q.name: "notes.md" for q in spec.params if q.required}
                if spec.name == "run_shell_command":
                    args["command"] = "ls"
                calls.append((spec.name, {**args, param.name: NUL_PATH}))
    return calls


def test_every_path_parameter_refuses_a_nul_byte_in_one_sentence(executor: ToolExecutor) -> None:
    calls = _path_calls(executor)
    assert len(calls) >= 16, [name for name, _ in calls]  # the 16 tools of the report, at least
    bad, named = {}, 0
    for name, args in calls:
        payload = executor.execute(name, args).payload
        error = str(payload.get("error", ""))
        named += "NUL byte" in error
        # A tool that looks a name up in the index ("is not indexed") is clean too; a raw exception is not.
        if not (payload.get("status") == "error" and error and "\n" not in error
                and "ValueError" not in error and "embedded null byte" not in error and "failed:" not in error):
            bad[f"{name}({', '.join(args)})"] = payload
    assert not bad, bad
    assert named >= 16, named


def test_the_sandbox_itself_refuses_it(tmp_path: Path) -> None:
    with pytest.raises(SandboxError, match="NUL byte"):
        Sandbox([tmp_path]).check(tmp_path / NUL_PATH)
