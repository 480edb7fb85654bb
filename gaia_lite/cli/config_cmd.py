"""``gaia-lite config show|path|set|unset``: the settings, where each value comes from, and the file.

``show`` resolves settings exactly as start-up does (``config.setting_sources``
wraps ``load_settings``), so a value it prints is the value ``chat`` and ``ask``
use, and a bad value fails here with the same one-line error. ``set`` and
``unset`` edit the TOML file with tomlkit, which keeps the user's other keys,
comments and layout, validate the result as start-up would, and replace the
file atomically (a crash leaves either the old file or the new one).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import typer
from typing_extensions import Annotated

from gaia_lite.cli.options import BaseUrlOpt, MaxToolsOpt, ModelOpt, PresetOpt, TauOpt
from gaia_lite.errors import ConfigError, GaiaError

from .outcome import BAD_INPUT, JsonOpt, emit, fail

if TYPE_CHECKING:  # type-only: config is imported when a command runs, not for --help
    from gaia_lite.config import Settings

__all__ = ["config_app", "write_setting", "edit_config"]

config_app = typer.Typer(
    help="Show, locate and edit gaia-lite's settings (flag > env > config file > default).\n\n"
         "Example: `gaia-lite config set model qwen2.5-coder-1.5b`, then `gaia-lite config show`.",
    no_args_is_help=True,
)

SECRET_SETTINGS = frozenset({"api_key"})
KeyArg = Annotated[str, typer.Argument(help="A setting's name, e.g. model, base_url, dynamic_tools (see `config show`).")]


def _shown(key: str, value: Any) -> Any:
    """The value as JSON shows it: tuples as lists, secrets hidden."""
    if key in SECRET_SETTINGS and value:
        return "***"
    return list(value) if isinstance(value, tuple) else value


def _text(value: Any) -> str:
    if value is None:
        return "(auto)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, str)):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _resolve(cli: dict[str, Any]) -> tuple[Settings, dict[str, str]]:
    from gaia_lite.config import setting_sources  # kept lazy: --help imports this module

    try:
        return setting_sources(cli)
    except GaiaError as exc:
        fail(str(exc), exc.exit_code)


def _paths(settings: Settings) -> dict[str, str]:
    p = settings.paths
    return {"config_file": str(p.config_file), "data_dir": str(p.data_dir), "state_dir": str(p.state_dir),
            "cache_dir": str(p.cache_dir), "memory_db": str(p.memory_db), "rag_db": str(p.rag_db),
            "log_file": str(p.log_file), "turns_file": str(p.turns_file)}


@config_app.command("show")
def show_cmd(json_out: JsonOpt = False, model: ModelOpt = None, base_url: BaseUrlOpt = None,
             preset: PresetOpt = None, tau: TauOpt = None, max_tools: MaxToolsOpt = None) -> None:
    """Every setting with its value and source (flag, env, file or default), then the paths.

    Example: `GAIA_MODEL=qwen2.5-coder-1.5b gaia-lite config show` marks model as `env`.
    """
    from gaia_lite.config import SETTING_NAMES, setting_env_var  # kept lazy: --help imports this module

    cli = {"model": model, "base_url": base_url, "preset": preset, "tau": tau, "max_tools": max_tools}
    settings, sources = _resolve(cli)
    rows = [(key, _shown(key, getattr(settings, key)), sources[key], setting_env_var(key)) for key in SETTING_NAMES]
    emit({"settings": {k: {"value": v, "source": s, "env": e} for k, v, s, e in rows}, "paths": _paths(settings)},
         json_out, lambda: _print_settings(settings, rows))


def _print_settings(settings: Settings, rows: list[tuple[str, Any, str, str | None]]) -> None:
    config_file = settings.paths.config_file
    typer.echo(f"# config file: {config_file}" + ("" if config_file.is_file() else " (not created yet)"))
    width = max(len(k) + len(_text(v)) for k, v, _, _ in rows) + 3
    for key, value, source, env in rows:
        line = f"{key} = {_text(value)}"
        typer.echo(f"{line:<{width}}  # {source:<7}" + (f" ${env}" if env else "").rstrip())
    typer.echo("\n# paths")
    for name, path in _paths(settings).items():
        typer.echo(f"{name:<12} {path}")


@config_app.command("path")
def path_cmd(json_out: JsonOpt = False) -> None:
    """Print the config file's path (GAIA_HOME moves it), then validate the settings as start-up does:
    an invalid setting still prints the path, and ends with a one-line error and exit code 2.

    Example: `$EDITOR "$(gaia-lite config path)"`
    """
    from gaia_lite.config import Paths, load_settings  # kept lazy: --help imports this module

    path = Paths.resolve(os.environ).config_file
    try:
        load_settings()
        error = None
    except GaiaError as exc:
        error = exc
    emit({"config_file": str(path), "exists": path.is_file(), "error": str(error) if error else None}, json_out,
         str(path))
    if error is not None:
        fail(str(error), error.exit_code)


@config_app.command("set")
def set_cmd(key: KeyArg,
            value: Annotated[str, typer.Argument(help="The value, written as for the env var (true/false, numbers, text; allowed_paths: folders joined by the path separator).")],
            json_out: JsonOpt = False) -> None:
    """Write one setting to the config file, validated as at start-up; other keys and comments are kept.

    Example: `gaia-lite config set dynamic_tools true`
    """
    from gaia_lite.config import Paths, parse_setting, setting_name  # kept lazy: --help imports this module

    path = Paths.resolve(os.environ).config_file
    try:
        name = setting_name(key)
        written = write_setting(path, name, _toml_value(parse_setting(name, value)))
    except ConfigError as exc:
        fail(str(exc), BAD_INPUT)
    except OSError as exc:
        fail(f"cannot write {path}: {exc.strerror or exc}")
    emit({"config_file": str(path), "key": name, "value": _shown(name, written)}, json_out,
         f"{name} = {_text(_shown(name, written))} written to {path}")


@config_app.command("unset")
def unset_cmd(key: KeyArg, json_out: JsonOpt = False) -> None:
    """Remove one setting from the config file (its default, or env var, applies again).

    Example: `gaia-lite config unset model`
    """
    from gaia_lite.config import Paths, setting_name  # kept lazy: --help imports this module

    path = Paths.resolve(os.environ).config_file
    try:
        name = setting_name(key)
        write_setting(path, name, None)
    except ConfigError as exc:
        fail(str(exc), BAD_INPUT)
    except OSError as exc:
        fail(f"cannot write {path}: {exc.strerror or exc}")
    emit({"config_file": str(path), "key": name, "value": None}, json_out, f"{name} removed from {path}")


def _toml_value(parsed: Any) -> Any:
    """What to store in TOML for a parsed value: None removes the key (the setting's default)."""
    return list(parsed) if isinstance(parsed, tuple) else parsed


def write_setting(path: Path, key: str, value: Any) -> Any:
    """Set (or, with None, remove) setting ``key`` in the TOML file at ``path``; returns the value written.

    The current file must be valid (else ConfigError: fix or delete it); the new
    text is validated as start-up would before it replaces the old file. A key
    earlier versions wrote for the same setting (``loader_preset``) is removed,
    so the file names each setting once.
    """
    from gaia_lite.config import old_setting_keys  # kept lazy: --help imports this module

    def change(doc: Any) -> None:
        for old in old_setting_keys(key):
            doc.pop(old, None)
        if value is None:
            doc.pop(key, None)
        else:
            doc[key] = value

    edit_config(path, change)
    return value


def edit_config(path: Path, change: Callable[[Any], None]) -> None:
    """Apply ``change`` to the config file's tomlkit document and replace the file atomically.

    The current file must be valid (else ConfigError: fix or delete it); the new
    text is validated as start-up would before it replaces the old one. tomlkit
    keeps the user's other keys, comments and layout.
    """
    # kept lazy: --help imports this module, and only the commands that write need tomlkit
    import tomlkit
    from gaia_lite.config import read_config_file

    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    if text:
        read_config_file(path)  # refuse to edit a file start-up would reject
    try:
        doc = tomlkit.parse(text)
    except tomlkit.exceptions.ParseError as exc:
        raise ConfigError(f"config file {path} is not valid TOML ({exc}); fix or delete it") from None
    change(doc)
    _replace_file(path, tomlkit.dumps(doc))


def _replace_file(path: Path, text: str) -> None:
    """Write ``text`` to a temp file next to ``path``, validate it, fsync, then rename over ``path``."""
    from gaia_lite.config import read_config_file  # kept lazy: --help imports this module

    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o600  # the file may hold api_key
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        try:
            read_config_file(tmp)
        except ConfigError as exc:
            raise ConfigError(str(exc).replace(str(tmp), str(path))) from None
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    _fsync_dir(path.parent)


def _fsync_dir(folder: Path) -> None:
    """Make the rename itself durable (POSIX); a no-op where directories cannot be opened."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
