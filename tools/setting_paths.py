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
import re
import tomllib
from pathlib import Path
from typing import Any, Iterator

__all__ = ["flat_settings", "keys_above", "SETTINGS_SUFFIXES"]

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


_KEY_LINE = re.compile(r"""^(?P<indent>[ \t]*)(?:-[ \t]+)?["']?(?P<key>[\w.-][\w .-]{0,40}?)["']?[ \t]*[:=]""")
_SECTION = re.compile(r"^\s*\[+(?P<name>[^\]]{1,60})\]+\s*$")


def keys_above(name: str, lines: list[str], at: int) -> str:
    """The keys a settings file nests line ``at`` (from 0) under, outer first ("sensors > outdoor"), by the
    indentation of the lines above it and the [section] it is in; "" for a line at the top or another file. A grep
    of a JSON config for "humidity" gave three "humidity_offset_pct" lines, and not which sensor each was (probe54)."""
    if Path(name).suffix.lower() not in SETTINGS_SUFFIXES or at >= len(lines) or _SECTION.match(lines[at]):
        return ""
    width = _indent(lines[at])
    label = _label_beside(lines, at, width)
    keys: list[str] = [label] if label else []
    for line in reversed(lines[:at]):
        if (section := _SECTION.match(line)) is not None:
            keys.append(section.group("name").strip())
            break
        indent = _indent(line)
        if line.strip() and indent < width and (m := _KEY_LINE.match(line)) is not None:
            if not line.lstrip().startswith("- "):   # a list item's first key is no key above it
                keys.append(m.group("key").strip())
            width = indent
    return " > ".join(reversed(keys))


_LABEL = re.compile(r"""^\s*(?:-\s+)?["']?(?:name|id|title|label)["']?\s*[:=]\s*["']?(?P<value>[^"',{}\[\]]{1,40})""")


def _label_beside(lines: list[str], at: int, width: int) -> str:
    """The name of the list item line ``at`` is in ({"name": "outdoor", ...}): a name, id, title or label key
    beside it at its indentation; "" when there is none or the line is no item's."""
    if width == 0:   # a top-level line is no list item's: an INI's "name = inventory" named every section (probe54)
        return ""
    for step in (-1, 1):
        i = at + step
        while 0 <= i < len(lines) and not _SECTION.match(lines[i]) and (not lines[i].strip() or _indent(lines[i]) >= width
                                       or (step < 0 and _item_indent(lines[i]) == width)):
            if _item_indent(lines[i]) == width and (m := _LABEL.match(lines[i])) is not None and i != at:
                return m.group("value").strip()
            i += step
    return ""


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _item_indent(line: str) -> int:
    """A line's indentation, a list item's "- " counted in: "  - name: x" stands where its keys below it stand."""
    return _indent(line) + (2 if line.lstrip().startswith("- ") else 0)


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
