"""The one line of a config file (INI, YAML, TOML, JSON, .env) that a ``key = value`` or ``key: value`` sets.

"Turn off debug in config/app.yaml" is one line's change, and the small models know the new line ("debug:
false") but not the old one: the 1.5B sent edit_file an empty old_content, and update_memory the new line
with the file as its id. The file's own line for that key is found here (when one line sets it), and a key
set in several places is said with the section each is under, so the next call can pick one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gaia_lite.registry.context import ToolContext
    from gaia_lite.registry.spec import Redirect

__all__ = ["Setting", "setting_of", "lines_setting", "key_set_to", "restyled", "key_alone", "replaced", "under",
           "MAX_SET_BYTES", "config_text", "set_line_call"]

MAX_SET_BYTES = 64_000  # a config file whose one line another tool's call may stand for

_SETTING = re.compile(r"""^(?P<indent>\s*)["']?(?P<key>[\w.-]+)["']?\s*[:=]""")
_SECTION = re.compile(r"^\s*\[[^\]]+\]\s*$")
_KEY_ALONE = re.compile(r"""^["']?(?P<key>[\w.-]+)["']?\s*[:=]?$""")


@dataclass(frozen=True)
class Setting:
    """A line of the file that sets the key: its index, and its text without the indentation."""

    index: int
    text: str


def setting_of(line: str) -> str | None:
    """The key a one-line ``key: value`` or ``key = value`` sets (casefolded), else None."""
    m = _SETTING.match(line)
    return m.group("key").casefold() if m and "\n" not in line.strip() else None


def lines_setting(text: str, new: str) -> list[Setting]:
    """The lines of ``text`` that set the key ``new`` sets, in order; [] when ``new`` sets none."""
    key = setting_of(new.strip())
    return [] if key is None else _setting_key(text, key)


def _setting_key(text: str, key: str) -> list[Setting]:
    """The lines of ``text`` that set ``key`` (casefolded), in order."""
    return [Setting(i, ln.strip()) for i, ln in enumerate(text.splitlines()) if setting_of(ln) == key]


_VALUE = re.compile(r"""^(?P<head>["']?[\w.-]+["']?\s*[:=]\s*)(?P<quote>["']?).*?(?P=quote)(?P<tail>\s*,?)\s*$""")


def key_set_to(text: str, key: str, value: str) -> str | None:
    """The line that sets ``key`` to ``value``, in the file's own style (its separator, its quotes, a JSON
    line's comma), when one line of ``text`` sets ``key``; else None. update_memory("version", "2.1.0") was
    the 1.5B's call for "setup.cfg - bump the version to 2.1.0": the key as the id, the value as the content."""
    value = value.strip()
    found = _setting_key(text, key.strip().casefold())
    if len(found) != 1 or not value or "\n" in value or setting_of(value) is not None:
        return None
    m = _VALUE.match(found[0].text)
    if m is None:
        return None
    quote = m.group("quote")
    return f"{m.group('head')}{quote}{value.strip(quote) if quote else value}{quote}{m.group('tail')}"


def restyled(text: str, old: str, new: str) -> str | None:
    """``new``, a ``key: value`` line for the key ``old`` sets too, written in the file's own style, when one line
    of ``text`` sets that key; else None. Shown settings.json, the 0.5B wrote old_content "theme: light" and
    new_content "theme: dark" for the file's ``"theme": "light",``."""
    key = setting_of(old.strip())
    m = _SETTING.match(new.strip())
    if key is None or m is None or setting_of(new.strip()) != key:
        return None
    return key_set_to(text, key, new.strip()[m.end():].strip().strip("\"'"))


def key_alone(text: str, old: str, new: str) -> str | None:
    """``new`` in the file's own style, when ``old`` is nothing but a key (``host``, ``"theme":``, ``port =``) that
    ``text`` sets and ``new`` is a line setting that same key; else None. Given old_content "host" and new_content
    "host = 0.0.0.0", a replace of the text would write "host = 0.0.0.0 = localhost": the key stands for its line.
    A key set in several places gives ``new`` as written, so the caller can say where."""
    m = _KEY_ALONE.match(old.strip())
    key = m.group("key").casefold() if m else None
    if key is None or setting_of(new.strip()) != key or not _setting_key(text, key):
        return None
    return restyled(text, f"{key}:", new) or new.strip()


def replaced(text: str, at: Setting, new: str) -> tuple[str, str]:
    """``text`` with the line ``at`` set to ``new`` (its indentation kept, a JSON line's comma kept), and
    the new line as written."""
    lines = text.splitlines(keepends=True)
    old = lines[at.index]
    written = new.strip() + ("," if at.text.endswith(",") and not new.strip().endswith(",") else "")
    indent = old[:len(old) - len(old.lstrip())]
    ending = old[len(old.rstrip("\r\n")):]
    lines[at.index] = indent + written + ending
    return "".join(lines), written


def under(text: str, at: Setting) -> str:
    """The section a line is under: ``[primary]`` (INI, TOML) or its parent key (YAML, JSON), else ""."""
    lines = text.splitlines()
    depth = len(lines[at.index]) - len(lines[at.index].lstrip())
    for ln in reversed(lines[:at.index]):
        if _SECTION.match(ln):
            return ln.strip()
        if ln.strip() and len(ln) - len(ln.lstrip()) < depth and setting_of(ln) is not None:
            return ln.strip().rstrip("{").strip()
    return ""


def config_text(ctx: ToolContext, file_path: str) -> tuple[Path, str] | None:
    """The file ``file_path`` names inside the allowed folders and its text, when it is a text file of at most
    ``MAX_SET_BYTES``; else None. What a call that stands for one line's change reads first."""
    from .sandbox import SandboxError, resolve_user_path

    try:
        path = resolve_user_path(ctx, file_path)
        if not path.is_file() or path.stat().st_size > MAX_SET_BYTES:
            return None
        return path, path.read_text(encoding="utf-8")
    except (SandboxError, OSError, UnicodeDecodeError):
        return None


def set_line_call(file_path: str, line: str, why: str, *, stands: bool = False) -> Redirect:
    """edit_file's call that sets the one line of ``file_path`` the key of ``line`` is set on (an empty
    old_content: edit_file finds that line), for a call to another tool that meant it."""
    from gaia_lite.registry.spec import Redirect

    return Redirect("edit_file", {"file_path": file_path, "old_content": "", "new_content": line}, why, stands=stands)
