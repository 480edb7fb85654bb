"""Embeddings from an OpenAI-compatible ``/embeddings`` endpoint.

This is the path for Lemonade Server and ``llama-server --embedding``. It uses
the stdlib ``http.client`` with one kept-alive connection: a query embedding
is a few milliseconds of work, so a new TCP connection per call would be a
visible share of it, and the openai SDK is reserved for ``llm/``.
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
from urllib.parse import urlsplit

import numpy as np

from .base import Embedder, EmbedderError, EmbedderSpec

__all__ = ["HttpEmbedder", "LEMONADE_EMBED_MODEL"]

LEMONADE_EMBED_MODEL = "user.embeddinggemma-300m-GGUF"

# Errors that mean "the kept-alive connection went stale": retry once on a new one.
_STALE = (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError, http.client.CannotSendRequest)


class HttpEmbedder(Embedder):
    """POSTs ``{"model", "input": [...]}`` to ``{base_url}/embeddings`` in batches."""

    kind = "http"

    def __init__(
        self,
        spec: EmbedderSpec,
        *,
        base_url: str,
        api_key: str | None = None,
        timeout: float = 30.0,
        batch_size: int = 64,
        cache_size: int = 2048,
    ) -> None:
        super().__init__(spec, cache_size=cache_size)
        parts = urlsplit(base_url.rstrip("/"))
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise EmbedderError(f"bad embedder base_url {base_url!r}: use e.g. http://127.0.0.1:13305/api/v1")
        self.base_url = base_url.rstrip("/")
        self._scheme = parts.scheme
        self._host = parts.hostname
        self._port = parts.port
        self._path = f"{parts.path}/embeddings"
        self._api_key = api_key
        self._timeout = timeout
        self._batch_size = batch_size
        self._conn: http.client.HTTPConnection | None = None
        self._lock = threading.Lock()  # one connection, so one request at a time

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def _embed_raw(self, texts: list[str]) -> np.ndarray:
        rows: list[np.ndarray] = []
        for start in range(0, len(texts), self._batch_size):
            rows.append(self._post(texts[start : start + self._batch_size]))
        if not rows:
            return np.zeros((0, self.spec.dim or 0), dtype=np.float32)
        out = np.concatenate(rows, axis=0)
        if self.spec.dim is not None and out.shape[1] != self.spec.dim:
            raise EmbedderError(
                f"{self.base_url} returned {out.shape[1]}-d vectors for {self.spec.model} but the config says "
                f"dim={self.spec.dim}: fix the embedder dim"
            )
        return out

    def _post(self, batch: list[str]) -> np.ndarray:
        body = json.dumps({"model": self.spec.model, "input": batch}).encode("utf-8")
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        with self._lock:
            status, payload = self._request(body, headers)
        where = f"{self.base_url}/embeddings"
        if status != 200:
            snippet = payload[:200].decode("utf-8", "replace").replace("\n", " ")
            raise EmbedderError(f"{where} answered HTTP {status} for model {self.spec.model!r}: {snippet}")
        try:
            data = json.loads(payload)["data"]
            # The spec allows any order; "index" says where each vector belongs.
            data = sorted(data, key=lambda d: d.get("index", 0))
            matrix = np.asarray([d["embedding"] for d in data], dtype=np.float32)
        except (ValueError, KeyError, TypeError) as exc:
            raise EmbedderError(f"{where} sent a reply that is not an embeddings response: {exc}") from exc
        if matrix.ndim != 2 or matrix.shape[0] != len(batch):
            raise EmbedderError(f"{where} returned {len(data)} vectors for {len(batch)} inputs")
        return matrix

    def _request(self, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
        for attempt in (1, 2):
            reused = self._conn is not None
            try:
                conn = self._connection()
                conn.request("POST", self._path, body=body, headers=headers)
                resp = conn.getresponse()
                return resp.status, resp.read()
            except _STALE as exc:
                self._drop()
                if attempt == 2 or not reused:
                    raise self._unreachable(exc) from exc
            except (OSError, http.client.HTTPException) as exc:
                self._drop()
                raise self._unreachable(exc) from exc
        raise AssertionError("unreachable")

    def _connection(self) -> http.client.HTTPConnection:
        if self._conn is None:
            cls = http.client.HTTPSConnection if self._scheme == "https" else http.client.HTTPConnection
            self._conn = cls(self._host, self._port, timeout=self._timeout)
        return self._conn

    def _drop(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def _unreachable(self, exc: BaseException) -> EmbedderError:
        reason = "timed out" if isinstance(exc, (socket.timeout, TimeoutError)) else (str(exc) or type(exc).__name__)
        return EmbedderError(
            f"embedding server {self.base_url} is unreachable ({reason}): start it (e.g. gaia-lite serve --embedding "
            "--model FILE.gguf) or fix the embedder base_url"
        )
