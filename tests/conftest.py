"""Every test runs against a throwaway gaia-lite home and a clean environment."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def gaia_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    home = tmp_path_factory.mktemp("gaia_home")
    monkeypatch.setenv("GAIA_HOME", str(home))
    for var in list(os.environ):
        if (var.startswith("GAIA_") and var != "GAIA_HOME" and var != "GAIA_LLAMA_SERVER") or var.startswith("LEMONADE_"):
            monkeypatch.delenv(var, raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    # warm workers (gaia_lite/warm) that a test's `ask` starts listen in this session's own folder
    run_dir = tmp_path_factory.getbasetemp() / "run"
    run_dir.mkdir(mode=0o700, exist_ok=True)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(run_dir))
    yield home
    # ask/chat keep their embedded server alive (GAIA_KEEP_ALIVE): no test may leave one behind or
    # hand one to the next test, whatever GAIA_HOME its subprocesses used under this session's temp dir
    from gaia_lite.runtime.kept import stop_keepers_under

    stop_keepers_under(tmp_path_factory.getbasetemp())
    from gaia_lite.warm.worker import stop_in

    stop_in(run_dir / "gaia-lite")


@pytest.fixture(scope="session")
def minilm():
    """The real in-process MiniLM ONNX embedder, loaded once (skips where it is not installed)."""
    pytest.importorskip("onnxruntime", reason="onnxruntime is not installed: pip install onnxruntime")
    from gaia_lite.embed import OnnxEmbedder, make_embedder

    emb = make_embedder("onnx")
    assert isinstance(emb, OnnxEmbedder)
    try:
        emb.embed_query("warm up")
    except Exception as exc:  # model files missing or broken
        pytest.skip(f"the MiniLM ONNX model is unavailable: {exc}")
    return emb
