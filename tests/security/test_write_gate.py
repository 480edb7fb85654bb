"""Class 2: every tool that writes or overwrites a file passes the confirmation gate,
and an approved overwrite keeps a backup of what was there."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gaia_lite.embed.hashing import HashEmbedder
from gaia_lite.memory.rag import RagIndex
from gaia_lite.registry.execute import Decision, ToolExecutor
from gaia_lite.registry.registry import ToolRegistry
from gaia_lite.tools.catalog import doc_tool_specs

# The tools whose job includes creating or replacing a file (or running a program).
WRITERS = {"write_file", "edit_file", "run_shell_command", "dump_document", "text_to_speech"}


@pytest.fixture
def rag_ctx(ctx, root, tmp_path):
    ctx.rag = RagIndex(tmp_path / "rag", HashEmbedder(dim=128))
    ctx.rag.index_file(root / "docs" / "notes.md")
    yield ctx
    ctx.rag.close()


def _executor(ctx, decision: Decision) -> ToolExecutor:
    return ToolExecutor(ToolRegistry(doc_tool_specs()), ctx, approve=lambda spec, args: decision)


def test_every_writing_tool_is_gated() -> None:
    gated = {s.name for s in doc_tool_specs() if s.gated}
    assert WRITERS <= gated


@pytest.mark.parametrize("call", [
    ("dump_document", {"file_name": "notes.md", "output_path": "docs/notes.md"}),     # over its own source
    ("dump_document", {"file_name": "notes.md", "output_path": "a.txt"}),
    ("dump_document", {"file_name": "notes.md", "output_path": "canary.md"}),
    ("text_to_speech", {"text": "hello", "output_path": "canary.wav"}),
    ("text_to_speech", {"text": "hello", "output_path": "a.wav"}),
    ("write_file", {"file_path": "a.txt", "content": "pwned"}),
    ("write_file", {"file_path": "canary.txt", "content": "pwned"}),
    ("edit_file", {"file_path": "a.txt", "old_content": "alpha", "new_content": "pwned"}),
], ids=lambda c: f"{c[0]}->{c[1].get('output_path') or c[1].get('file_path')}" if isinstance(c, tuple) else None)
def test_denied_writes_change_nothing(rag_ctx, root, call) -> None:
    (root / "a.wav").write_bytes(b"RIFF-original")
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file() and ".gaia-data" not in p.parts}
    outcome = _executor(rag_ctx, Decision.DENY).execute(*call)
    assert outcome.payload["status"] == "denied"
    after = {p: p.read_bytes() for p in root.rglob("*") if p.is_file() and ".gaia-data" not in p.parts}
    assert after == before
    assert not any(root.glob("canary*"))


def test_an_approved_overwrite_keeps_a_backup(rag_ctx, root) -> None:
    result = _executor(rag_ctx, Decision.ALLOW).execute(
        "dump_document", {"file_name": "notes.md", "output_path": "a.txt"}).payload
    assert result["status"] == "success" and "nothing secret here" in (root / "a.txt").read_text()
    assert Path(result["backup_path"]).read_text() == "alpha\nbeta\ngamma\n"


def test_dump_document_never_overwrites_its_source(rag_ctx, root) -> None:
    result = _executor(rag_ctx, Decision.ALLOW).execute(
        "dump_document", {"file_name": "notes.md", "output_path": "docs/notes.md"}).payload
    assert result["status"] == "error" and "the document itself" in result["error"]
    assert (root / "docs" / "notes.md").read_text() == "# notes\nnothing secret here\n"


@pytest.mark.skipif(not (shutil.which("espeak-ng") or shutil.which("espeak")), reason="espeak-ng not installed")
def test_text_to_speech_overwrite_keeps_a_backup(ctx, root) -> None:
    (root / "a.wav").write_bytes(b"RIFF-original")
    result = _executor(ctx, Decision.ALLOW).execute("text_to_speech", {"text": "hi", "output_path": "a.wav"}).payload
    assert result["status"] == "success" and Path(result["backup_path"]).read_bytes() == b"RIFF-original"
