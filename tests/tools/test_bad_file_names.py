"""A file whose name is not valid UTF-8 is listed as skipped, with its reason and an escaped name, by
both ways of indexing a folder: the agent's ``index_directory`` tool (RagIndex.index_directory) and
``gaia-lite index``. Real files (created with a bytes path), the real index, the real sandbox.

Before: the tool counted the file among ``files`` and put it in ``failed`` under its raw name, a
string with a lone surrogate that UTF-8 (SQLite, the turn log, a terminal) cannot encode.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gaia_lite.embed.hashing import HashEmbedder
from gaia_lite.memory.rag import RagIndex
from gaia_lite.registry.context import ToolContext
from gaia_lite.registry.execute import Decision, ToolExecutor
from gaia_lite.registry.registry import ToolRegistry
from gaia_lite.registry.spec import spec_of
from gaia_lite.tools import rag as rag_tools
from gaia_lite.tools.sandbox import Sandbox

BAD = b"bad\xff name.txt"
SHOWN = "bad\\xff name.txt"
REASON = "name is not valid UTF-8"


def _make_bad_file(folder: Path) -> None:
    fd = os.open(os.path.join(os.fsencode(folder), BAD), os.O_CREAT | os.O_WRONLY, 0o644)
    os.write(fd, b"a file whose name is not UTF-8\n")
    os.close(fd)


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    _make_bad_file(folder)
    (folder / "good.txt").write_text("the spring sale starts on 1 April\n")
    return folder


def _tool(tmp_path: Path, folder: Path) -> Any:
    index = RagIndex(tmp_path / "index", HashEmbedder(dim=256))
    ctx = ToolContext(workdir=folder, sandbox=Sandbox([folder]), data_dir=tmp_path / "data", rag=index)
    executor = ToolExecutor(ToolRegistry([spec_of(rag_tools.index_directory)]), ctx,
                            approve=lambda spec, args: Decision.ALLOW)
    return index, lambda **args: executor.execute("index_directory", args).payload


def _utf8_json(payload: Any) -> str:
    """The payload as the turn log and memory.db keep it: this fails on a name that is not UTF-8."""
    return json.dumps(payload, ensure_ascii=False).encode("utf-8").decode("utf-8")


def test_the_index_lists_the_bad_name_as_skipped(tmp_path: Path, docs: Path) -> None:
    index = RagIndex(tmp_path / "index", HashEmbedder(dim=256))
    try:
        result = index.index_directory(docs)
        listed = [Path(d.path).name for d in index.list_documents()]
    finally:
        index.close()
    assert result["skipped"] == [{"file": str(docs / SHOWN), "reason": REASON}]
    assert (result["files"], result["indexed"], result["failed"]) == (1, 1, [])
    assert listed == ["good.txt"]
    _utf8_json(result)


def test_the_tool_result_names_it_escaped_with_its_reason(tmp_path: Path, docs: Path) -> None:
    index, index_directory = _tool(tmp_path, docs)
    try:
        payload = index_directory(directory_path=str(docs))
    finally:
        index.close()
    assert payload["status"] == "success", payload
    assert payload["skipped"] == [{"file": str(docs / SHOWN), "reason": REASON}]
    assert payload["files"] == 1 and payload["failed"] == []
    _utf8_json(payload)


def test_a_folder_of_only_bad_names_says_so(tmp_path: Path) -> None:
    folder = tmp_path / "only"
    folder.mkdir()
    _make_bad_file(folder)
    index, index_directory = _tool(tmp_path, folder)
    try:
        payload = index_directory(directory_path=str(folder))
    finally:
        index.close()
    assert payload["status"] == "no_files"
    assert payload["skipped"] == [{"file": str(folder / SHOWN), "reason": REASON}]


def test_a_folder_without_bad_names_has_no_skipped_key(tmp_path: Path) -> None:
    folder = tmp_path / "clean"
    folder.mkdir()
    (folder / "good.txt").write_text("fine\n")
    index, index_directory = _tool(tmp_path, folder)
    try:
        payload = index_directory(directory_path=str(folder))
    finally:
        index.close()
    assert payload["status"] == "success" and "skipped" not in payload


def test_gaia_lite_index_gives_the_same_reason(tmp_path: Path, docs: Path, gaia_home: Path) -> None:
    env = {"GAIA_HOME": str(gaia_home), "PATH": "/usr/bin:/bin"}
    run = subprocess.run([sys.executable, "-m", "gaia_lite", "index", str(docs), "--json"], capture_output=True,
                         env=env, cwd=docs, timeout=120)
    assert run.returncode == 0, run.stderr.decode(errors="replace")
    out = json.loads(run.stdout.decode("utf-8"))
    assert out["skipped"] == [{"path": str(docs / SHOWN), "reason": REASON}]
    assert out["indexed"] == 1
