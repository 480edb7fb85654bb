"""Command-line options shared by several commands, each defined once.

Every option that sets a setting is named after it: ``--max-tools`` is the
``max_tools`` key of the config file (the env vars keep their documented
names; docs/settings.md has the table). ``agent_command`` gives ``ask`` and
``chat`` the options they share and hands them one resolved ``Settings``.
"""

from __future__ import annotations

import functools
import inspect
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, List, Optional, TypeVar

import typer
from typing_extensions import Annotated

if TYPE_CHECKING:  # type-only: config is imported when a command runs, not for --help
    from gaia_lite.config import Settings

__all__ = ["BaseUrlOpt", "ModelOpt", "TauOpt", "MaxToolsOpt", "PresetOpt", "AGENT_OPTIONS", "agent_command", "settings_from_flags"]

T = TypeVar("T")

BaseUrlOpt = Annotated[Optional[str], typer.Option("--base-url", help="OpenAI-compatible server URL (env LEMONADE_BASE_URL). `/api/v1` is appended when the path is missing.", show_default=False)]
TauOpt = Annotated[Optional[float], typer.Option("--tau", help="Similarity threshold for semantic tool matches (env GAIA_DYNAMIC_TOOLS_TAU). Default: the preset's.", show_default=False)]
MaxToolsOpt = Annotated[Optional[int], typer.Option("--max-tools", help="Cap on the tools the first turn loads, and on what one later turn may add, CORE included, >= 11 (env GAIA_DYNAMIC_TOOLS_MAX). Default: the preset's.", show_default=False)]
PresetOpt = Annotated[Optional[str], typer.Option("--preset", help="Loader preset (env GAIA_DYNAMIC_TOOLS_PRESET): `default` (tuned for the built-in embedder), `lean` (fewer tools when one clearly wins), `examples` (default, with worked examples shown beside the message: for models bigger than 0.5B) or `gaia` (GAIA's tau 0.20, cap 14).", show_default=False)]
ModelOpt = Annotated[Optional[str], typer.Option("--model", "-m", help="Model id on the server (env GAIA_MODEL). Default: the first model the server lists.", show_default=False)]
DynamicOpt = Annotated[Optional[bool], typer.Option("--dynamic-tools/--no-dynamic-tools", help="Load only the tools each turn needs (env GAIA_DYNAMIC_TOOLS; GAIA_DYNAMIC_TOOLS=0 turns it off). On by default; off with --preset gaia, as in GAIA.", show_default=False)]

# The options ask and chat share: parameter name (= the setting's name) -> its typer annotation.
AGENT_OPTIONS: dict[str, Any] = {
    "model": ModelOpt,
    "base_url": BaseUrlOpt,
    "dynamic_tools": DynamicOpt,
    "tau": TauOpt,
    "max_tools": MaxToolsOpt,
    "preset": PresetOpt,
    "native_tools": Annotated[Optional[bool], typer.Option("--native-tools/--text-tools", help="Force OpenAI tool calling, or tool calls written as JSON text (env GAIA_NATIVE_TOOLS). Default: from the model table.", show_default=False)],
    "tool_calls": Annotated[Optional[str], typer.Option("--tool-calls", help="Text-path tool calls (env GAIA_TOOL_CALLS): `constrained` (replies held to a JSON schema of every tool whose first key is the choice, a tool or none: always a well-formed call or an answer), `free` (calls read from the model's text) or `auto` (constrained when the server supports it). Default: auto.", show_default=False)],
    "vision_model": Annotated[Optional[str], typer.Option("--vision-model", help="Model id the image tools use (env GAIA_VISION_MODEL). Default: the chat model.", show_default=False)],
    "allowed_paths": Annotated[Optional[List[str]], typer.Option("--allowed-paths", help="Extra folders tools may touch (repeatable; added to GAIA_ALLOWED_PATHS). The working directory is always allowed.", show_default=False)],
    "max_steps": Annotated[Optional[int], typer.Option("--max-steps", help="Most model calls per question, the final answer included (env GAIA_AGENT_MAX_STEPS, default 50).", show_default=False)],
    "local_server": Annotated[Optional[bool], typer.Option("--local-server/--no-local-server", help="Start the embedded llama-server when no server answers (env GAIA_AUTO_START_SERVER, default on).", show_default=False)],
    "auto_approve": Annotated[Optional[bool], typer.Option("--auto-approve", "--yes", "-y", help="Approve shell, write and edit tools without asking (env GAIA_AUTO_APPROVE_TOOLS).", show_default=False)],
}
LOG_OPTION = Annotated[Optional[Path], typer.Option("--log", help="Also write TOOL_LOADER and TOOL_CALLS lines to this file (for `gaia-lite eval log`).", show_default=False)]


def settings_from_flags(flags: dict[str, Any]) -> Settings:
    """Settings with these flags on top (flag > env > config file > default). ``--allowed-paths``
    adds to the configured folders instead of replacing them."""
    from gaia_lite.config import load_settings  # kept lazy: --help does not need the config module

    extra = tuple(flags.pop("allowed_paths", None) or ())
    settings = load_settings(flags)
    return settings.replace(allowed_paths=settings.allowed_paths + extra) if extra else settings


def agent_command(fn: Callable[..., T]) -> Callable[..., T]:
    """Give ``fn`` the AGENT_OPTIONS and ``--log``. ``fn`` declares ``settings`` and ``log`` (without
    typer annotations) and receives the resolved Settings and the log path."""
    injected = ("settings", "log")
    own = [p for p in inspect.signature(fn, eval_str=True).parameters.values() if p.name not in injected]
    shared = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=annotation)
              for name, annotation in {**AGENT_OPTIONS, "log": LOG_OPTION}.items()]

    @functools.wraps(fn)
    def command(**kwargs: Any) -> T:
        flags = {name: kwargs.pop(name) for name in AGENT_OPTIONS}
        return fn(settings=settings_from_flags(flags), log=kwargs.pop("log"), **kwargs)

    params = [*own, *shared]
    command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in params}
    return command
