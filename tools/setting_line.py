"""The one line of a config file (INI, YAML, TOML, JSON, .env) that a ``key = value`` or ``key: value`` sets.

"Turn off debug in config/app.yaml" is one line's change, and the small models know the new line ("debug:
false") but not the old one: the 1.5B sent edit_file an empty old_content, and update_memory the new line
with the file as its id. The file's own line for that key is found here (when one line sets it), and a key
set in several places is said with the section each is under, so the next call can pick one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Setting", "setting_of", "lines_setting", "replaced", "under"]

_SETTING = re.compile(r"""^(?P<indent>\s*)["']?(?P<key>[\w.-]+)["']?\s*[:=]""")
_SECTION = re.compile(r"^\s*\[[^\]]+\]\s*$")


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
    if key is None:
        return []
    return [Setting(i, ln.strip()) for i, ln in enumerate(text.splitlines()) if setting_of(ln) == key]


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
