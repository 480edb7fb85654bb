"""``gaia-lite models``: the server's models, the one in use and how each calls tools,
then the embedded runtime's models and how to add more. ``models list`` shows only the
embedded models (no server asked); ``models pull NAME`` installs one (models_pull.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

from gaia_lite.cli.options import BaseUrlOpt, ModelOpt
from gaia_lite.errors import GaiaError
from gaia_lite.llm.capabilities import is_native_tool_model
from gaia_lite.runtime import DEFAULT_MODEL, ModelStatus, kept_servers, runtime_status
from gaia_lite.runtime.kept import describe as describe_kept
from gaia_lite.warm.worker import status as warm_status

from .models_pull import pull
from .outcome import JsonOpt, emit, fail, json_option, settings_or_fail

if TYPE_CHECKING:  # type-only: config is imported when a command runs, not for --help
    from gaia_lite.config import Settings

__all__ = ["models_app", "models", "models_list", "server_models", "runtime_models", "embedded_rows"]

NO_SERVER = 3

models_app = typer.Typer()  # its help is the callback's docstring (models below)
models_app.command("pull")(pull)
ListJson = json_option('Print [{"id", "size_gb", "default", "parts_installed", "assembled", "state", "path", "pull", '
                       '"description", "tool_calls"}].')


def _state(m: ModelStatus) -> str:
    return "ready" if m.assembled else "installed" if m.parts_installed else "not installed"


def embedded_rows() -> list[dict[str, Any]]:
    """Each model gaia-lite can pull: size, whether its parts are installed here and whether the
    shared cache holds it assembled, the default, and the command that pulls it."""
    return [{"id": m.name, "description": m.description, "default": m.name == DEFAULT_MODEL,
             "size_gb": round(m.size / 1e9, 2), "parts_installed": m.parts_installed, "assembled": m.assembled,
             "state": _state(m), "path": str(m.path), "pull": f"gaia-lite models pull {m.name}",
             "tool_calls": "native" if is_native_tool_model(m.name) else "text"}
            for m in runtime_status().models]


def server_models(settings: Settings) -> dict[str, Any]:
    """What the configured server offers: reachable, models, the one in use, tool-call path, window."""
    from gaia_lite.llm.client import ChatClient  # kept lazy: --help imports this module; openai is slow to load

    client = ChatClient(settings.base_url, api_key=settings.api_key, model=settings.model)
    out: dict[str, Any] = {"base_url": settings.base_url, "reachable": client.health(), "models": [],
                           "in_use": None, "context_tokens": None, "error": None}
    if not out["reachable"]:
        return out
    try:
        ids = client.list_models()
    except GaiaError as exc:
        out["error"] = str(exc)
        return out
    in_use = settings.model or (ids[0] if ids else None)
    out["in_use"] = in_use
    out["context_tokens"] = settings.context_tokens or client.context_size()
    for mid in ids:
        native = settings.native_tools if (mid == in_use and settings.native_tools is not None) \
            else is_native_tool_model(mid)
        out["models"].append({"id": mid, "in_use": mid == in_use, "tool_calls": "native" if native else "text"})
    if in_use and in_use not in ids:
        out["error"] = f"the configured model {in_use!r} is not on the server; choose one listed here"
    return out


def runtime_models() -> dict[str, Any]:
    """The embedded runtime: llama-server binary and each bundled model's state."""
    status = runtime_status()
    return {
        "llama_server": str(status.server) if status.server else None,
        "llama_server_fix": status.server_fix,
        "ready": status.ready,
        "models": [{**row, "install": None if row["parts_installed"] else row["pull"]} for row in embedded_rows()],
        "kept": [{"model": k.state.alias, "base_url": k.state.base_url, "pid": k.state.keeper_pid,
                  "in_use": k.in_use, "idle_s": round(k.idle_s, 1), "idle_left_s": round(k.idle_left_s, 1),
                  "keep_alive_s": k.state.keep_alive, "line": describe_kept(k)} for k in kept_servers()],
        "warm": [{"pid": w.pid, "current": w.current, "in_use": w.in_use, "idle_left_s": round(w.idle_left_s, 1),
                  "line": w.describe()} for w in warm_status()],
        "add_more": "`gaia-lite models pull NAME` installs a model listed here, or serve any .gguf file with "
                    "`gaia-lite serve --model PATH.gguf` (port 13305, gaia-lite's default URL)",
    }


def _print(server: dict[str, Any], runtime: dict[str, Any], auto_start: bool) -> None:
    if not server["reachable"]:
        typer.echo(f"No server answers at {server['base_url']}.")
    elif server["models"]:
        typer.echo(f"Server {server['base_url']}:")
        width = max(len(m["id"]) for m in server["models"])
        for m in server["models"]:
            typer.echo(f"  {'*' if m['in_use'] else ' '} {m['id']:<{width}}  {m['tool_calls']} tool calls"
                       + ("  (in use)" if m["in_use"] else ""))
        ctx = server["context_tokens"]
        typer.echo(f"  context window: {f'{ctx:,} tokens' if ctx else 'not reported (set GAIA_CTX_SIZE)'}")
    else:
        typer.echo(f"Server {server['base_url']} lists no models; load one there.")
    if server["error"]:
        typer.echo(f"  problem: {server['error']}")
    started = " (started when no server answers)" if auto_start else " (off: --no-local-server)"
    typer.echo(f"\nEmbedded runtime{started}:")
    typer.echo(f"  llama-server: {runtime['llama_server'] or 'missing - ' + str(runtime['llama_server_fix'])}")
    width = max(len(m["id"]) for m in runtime["models"])
    for m in runtime["models"]:
        state = {"ready": f"ready at {m['path']}", "installed": "installed, assembled on first use",
                 "not installed": f"not installed: {m['install']}"}[m["state"]]
        typer.echo(f"  {'*' if m['default'] else ' '} {m['id']:<{width}}  {m['size_gb']:.1f} GB  "
                   f"{m['tool_calls']} tool calls · {state}")
    for k in runtime["kept"] + runtime["warm"]:
        typer.echo(f"  running: {k['line']}")
    typer.echo(f"  add more: {runtime['add_more']}")


@models_app.callback(invoke_without_command=True)
def models(
    ctx: typer.Context,
    base_url: BaseUrlOpt = None,
    model: ModelOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """The server's models, marking the one in use and whether it calls tools natively or as text;
    then the embedded runtime's models, their size and state, and how to add more.

    Example: `gaia-lite models --base-url http://localhost:8080`; `gaia-lite models pull qwen2.5-coder-1.5b`
    Exit codes: 0 a model is available, 1 the configured model is missing, 3 no server and no embedded runtime.
    """
    if ctx.invoked_subcommand is not None:
        return
    settings = settings_or_fail({"base_url": base_url, "model": model})
    server = server_models(settings)
    runtime = runtime_models()
    emit({"server": server, "embedded": runtime}, json_out, lambda: _print(server, runtime, settings.local_server))
    if not server["reachable"] and not (settings.local_server and runtime["ready"]):
        fail(f"no server at {settings.base_url} and the embedded runtime is not ready; "
             "start a server or run scripts/setup.sh", NO_SERVER)
    if server["error"]:
        raise typer.Exit(1)


def _print_list(rows: list[dict[str, Any]]) -> None:
    typer.echo("Models gaia-lite can pull (* the default):")
    width = max(len(r["id"]) for r in rows)
    for r in rows:
        where = {(True, True): "installed, assembled", (True, False): "installed, assembled on first use",
                 (False, True): "assembled (parts not installed here)",
                 (False, False): "not installed"}[(r["parts_installed"], r["assembled"])]
        pull = "" if r["parts_installed"] else f" · {r['pull']}"
        typer.echo(f"  {'*' if r['default'] else ' '} {r['id']:<{width}}  {r['size_gb']:.1f} GB  {where}{pull}")


@models_app.command("list")
def models_list(
    json_out: ListJson = False,
) -> None:
    """The models the embedded runtime can pull: size, installed or not, assembled or not, the
    default, and the pull command. Asks no server.

    Example: `gaia-lite models list`
    """
    rows = embedded_rows()
    emit(rows, json_out, lambda: _print_list(rows))
