"""What the ``gaia-lite eval`` commands share: options, settings, the live server, table printing."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any, Iterator, Optional

import typer
from typing_extensions import Annotated

from gaia_lite.errors import ServerUnreachable

# options (own copies of the chat ones: app.py imports the eval modules)
ModelOpt = Annotated[Optional[str], typer.Option("--model", "-m", help="Model id on a running server; when gaia-lite starts its embedded server: qwen2.5-coder-0.5b (default), qwen2.5-coder-1.5b or a .gguf path.", show_default=False)]
LocalOpt = Annotated[Optional[bool], typer.Option("--local-server/--no-local-server", help="Start the embedded llama-server when no server answers (default on); it is stopped afterwards.", show_default=False)]
NativeOpt = Annotated[Optional[bool], typer.Option("--native-tools/--text-tools", help="Measure only this render path. Default: both.", show_default=False)]
TokenizerOpt = Annotated[str, typer.Option("--tokenizer", help="auto (the server's /tokenize when one answers, else chars/4), server, chars or minilm.")]
CtxOpt = Annotated[int, typer.Option("--ctx", help="Context size of the embedded server, when gaia-lite starts it.")]


def settings_from(**flags: Any) -> Any:
    """Settings from the flags an eval command was given (each flag is named after its setting)."""
    # kept lazy: --help imports this module
    from gaia_lite.config import load_settings

    return load_settings(flags)


def scratch_paths(settings: Any, root: Path) -> Any:
    """Fresh config/data/state dirs under ``root``; the tool-vector cache stays shared (it is pure)."""
    # kept lazy: --help imports this module
    from gaia_lite.config import Paths

    return Paths(root / "config.toml", root / "data", root / "state", settings.paths.cache_dir)


def say(msg: str) -> None:
    typer.echo(msg, err=True)


@contextlib.contextmanager
def live_client(settings: Any, model: str | None, ctx: int) -> Iterator[tuple[Any, Any]]:
    """(ChatClient, LocalServer or None): the configured server, else the embedded one (stopped on exit)."""
    # kept lazy: --help imports this module
    from gaia_lite.llm.client import ChatClient

    sampling = {"repeat_penalty": 1.1}  # as the chat client of `ask` and `chat`
    client = ChatClient(settings.base_url, api_key=settings.api_key, model=model or settings.model,
                        sampling=sampling)
    if client.health():
        yield client, None
        return
    if not settings.local_server:
        raise ServerUnreachable(settings.base_url)
    # kept lazy: --help imports this module
    from gaia_lite import runtime

    try:
        server = runtime.ensure_local_server(None, model=model or runtime.DEFAULT_MODEL, ctx_size=ctx)
    except runtime.LocalRuntimeError as exc:
        raise ServerUnreachable(settings.base_url, str(exc)) from None
    assert server is not None
    try:
        say(f"started the embedded llama-server at {server.base_url} (model {server.alias}, ctx {ctx})")
        yield ChatClient(server.base_url, model=server.alias, sampling=sampling), server
    finally:
        server.stop()


def table(title: str, columns: list[str], rows: list[list[Any]]) -> Any:
    # kept lazy: --help imports this module
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    for i, col in enumerate(columns):
        table.add_column(col, justify="left" if i == 0 else "right")
    for row in rows:
        table.add_row(*("-" if v is None else str(v) for v in row))
    return table


def print_all(*renderables: Any) -> None:
    # kept lazy: --help imports this module
    from rich.console import Console

    console = Console()
    for r in renderables:
        console.print(r)


def pct(v: float | None) -> str:
    return "-" if v is None else f"{100 * v:.1f} %"


def num(v: float | None, nd: int = 2) -> str:
    return "-" if v is None else f"{v:.{nd}f}"


def quiet_services(settings: Any, client: Any, workdir: Path, approve: Any = None) -> Any:
    # kept lazy: --help imports this module
    from gaia_lite.cli.services import build_services

    return build_services(settings, client, workdir=workdir, approve=approve)


def require_skill_files(seeds: Path) -> None:
    """``--skills DIR`` must name a folder with skill files in it."""
    if not (seeds.is_dir() and any(seeds.glob("*.md"))):
        # kept lazy: --help imports this module
        from gaia_lite.errors import ConfigError

        raise ConfigError(f"--skills {seeds}: no *.md skill files there; point --skills at a folder of them")


def r_or(v: Any) -> str:
    return "-" if v is None else (f"{v:.0f}" if isinstance(v, float) else str(v))
