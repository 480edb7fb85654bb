"""A settings file (YAML, TOML, INI, JSON) as one line per value, each under the whole path of its keys.

A nested file read line by line loses the keys above a line: in a heating schedule, the line
``weekdays: {start: "06:15"}`` says nothing of the bedroom it is under, and a search for "bedroom heating
weekdays" found the living room's and the kids' room's lines as readily (probe52). Written as
``heating bedroom weekdays start: 06:15`` every line carries its keys, and the passages that answer are
found by their words.
"""

from __future__ import annotations

import configparser
import json
import tomllib
from pathlib import Path
from typing import Any, Iterator

__all__ = ["flat_settings", "SETTINGS_SUFFIXES"]

SETTINGS_SUFFIXES = frozenset({".yaml", ".yml", ".toml", ".ini", ".cfg", ".json"})
MAX_LINES = 400   # a larger file stays as written: its lines are not all settings a person asks about


def flat_settings(name: str, text: str) -> str | None:
    """``text`` of the settings file ``name`` as ``key path: value`` lines, or None when it is no such file, does
    not parse, holds no mapping, or is too long."""
    suffix = Path(name).suffix.lower()
    if suffix not in SETTINGS_SUFFIXES:
        return None
    try:
        data = _parsed(suffix, text)
    except (ValueError, configparser.Error, TypeError):
        return None
    if not isinstance(data, dict) or not data:
        return None
    lines = [f"{' '.join(path)}: {value}" for path, value in _leaves(data, ())]
    return "\n".join(lines) if 0 < len(lines) <= MAX_LINES else None


def _parsed(suffix: str, text: str) -> Any:
    if suffix in (".yaml", ".yml"):
        import yaml   # PyYAML, a dependency already (edits check YAML with it)

        try:
            return yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise ValueError(str(exc)) from None
    if suffix == ".toml":
        return tomllib.loads(text)
    if suffix == ".json":
        return json.loads(text)
    parser = configparser.ConfigParser(interpolation=None)
    parser.read_string(text)
    return {s: dict(parser[s]) for s in parser.sections()} | ({"default": dict(parser.defaults())}
                                                              if parser.defaults() else {})


def _leaves(data: Any, path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], str]]:
    """(key path, value) for every value under ``data``; a list of plain values is one value."""
    if isinstance(data, dict):
        for key, value in data.items():
            yield from _leaves(value, (*path, str(key)))
    elif isinstance(data, list) and any(isinstance(v, (dict, list)) for v in data):
        for i, value in enumerate(data, 1):
            yield from _leaves(value, (*path, str(i)))
    elif path:
        yield path, ", ".join(map(str, data)) if isinstance(data, list) else str(data)
