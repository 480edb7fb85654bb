"""Procedures as data, and the markdown file format that carries them.

A procedure (a learned skill) says *when* it applies (``when_to_use``, the
text that is embedded and matched against a user's goal), *how* to do the
job (``body``: markdown steps) and *which tools* it needs
(``tools_required``: what the loader's SKILL tier admits).

The file format, used by ``gaia-lite skills add`` and the seed files::

    ---
    name: sales-report-from-csv
    when_to_use: Summarise a CSV of sales by region and save the totals as a report
    tools_required: [analyze_data_file, write_file]
    ---
    1. Call analyze_data_file on the CSV with a group-by on the region column.
    2. Write the totals as a markdown table with write_file.

Front matter is a small YAML subset, parsed here without a YAML library:
``key: value`` lines, quoted values, ``>``/``|`` blocks and indented
continuation lines, and lists either inline (``[a, b]`` or ``a, b``) or as
``- item`` lines.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from gaia_lite.errors import InputError

__all__ = [
    "ProcedureSpec", "Procedure", "ToolStep", "SkillFormatError",
    "NAME_MAX", "is_valid_name", "slugify", "parse_front_matter", "parse_skill_file", "render_skill_file",
    "dedupe",
]

NAME_MAX = 64
_NAME_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_REQUIRED_KEYS = ("name", "when_to_use", "tools_required")


class SkillFormatError(InputError, ValueError):
    """A skill file (or an LLM's answer) does not have the expected shape; the message says why."""


@dataclass(frozen=True)
class ToolStep:
    """One recorded tool call: its name and the *shape* of its arguments (name -> type)."""

    tool: str
    args: Mapping[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"tool": self.tool, "args": dict(self.args)}

    @classmethod
    def from_json(cls, raw: Any) -> "ToolStep":
        if isinstance(raw, str):
            return cls(raw)
        return cls(str(raw.get("tool", "")), {str(k): str(v) for k, v in (raw.get("args") or {}).items()})


@dataclass(frozen=True)
class ProcedureSpec:
    """What a skill file or a distillation defines (pure data, nothing stored yet)."""

    name: str
    when_to_use: str
    body: str
    tools_required: tuple[str, ...]


@dataclass(frozen=True)
class Procedure:
    """One row of the ``procedures`` table."""

    name: str
    when_to_use: str
    body: str
    tools_required: tuple[str, ...]
    tool_sequence: tuple[ToolStep, ...] = ()
    success_count: int = 0
    attempt_count: int = 0
    enabled: bool = True
    provenance: str = "manual"
    created_at: str = ""
    last_used_at: str | None = None
    id: int = 0

    @property
    def spec(self) -> ProcedureSpec:
        return ProcedureSpec(self.name, self.when_to_use, self.body, self.tools_required)


def is_valid_name(name: str) -> bool:
    """kebab-case (lowercase letters, digits, single hyphens), at most 64 characters."""
    return 0 < len(name) <= NAME_MAX and bool(_NAME_RE.match(name))


def slugify(text: str, *, max_words: int = 6) -> str:
    """A kebab-case name made from ``text`` (empty if it has no letters or digits)."""
    words = re.findall(r"[a-z0-9]+", text.lower())[:max_words]
    slug = "-".join(words)[:NAME_MAX].strip("-")
    return slug


# ----------------------------------------------------------------------------- front matter

def _unquote(value: str) -> str:
    v = value.strip()
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "\"'":
        inner = v[1:-1]
        if v[0] == '"':
            try:
                return str(json.loads(v))
            except ValueError:
                return inner
        return inner.replace("''", "'")
    return v


def _as_list(value: Any) -> list[str]:
    """A tools_required value in any of the accepted spellings, as a list of names."""
    if isinstance(value, list):
        items = value
    else:
        text = str(value).strip()
        if text.startswith("[") and text.endswith("]"):
            try:
                parsed = json.loads(text)
            except ValueError:
                parsed = None
            items = parsed if isinstance(parsed, list) else text[1:-1].split(",")
        else:
            items = re.split(r"[,\s]+", text)
    out: list[str] = []
    for item in items:
        name = _unquote(str(item)).strip().strip("`")
        if name and name not in out:
            out.append(name)
    return out


def parse_front_matter(block: str) -> dict[str, Any]:
    """The YAML-subset mapping of a front-matter block (without the ``---`` lines)."""
    data: dict[str, Any] = {}
    key: str | None = None
    style = ""  # "" plain, ">" folded, "|" literal, "-" list
    lines: list[str] = []

    def close() -> None:
        if key is None:
            return
        if style == "-":
            data[key] = [_unquote(x) for x in lines]
        elif style == "|":
            data[key] = "\n".join(lines).strip()
        else:
            data[key] = " ".join(x.strip() for x in lines if x.strip())

    for raw in block.splitlines():
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        top = re.match(r"^([A-Za-z_][A-Za-z0-9_\-]*)\s*:(.*)$", raw)
        if top and not raw[0].isspace():
            close()
            key = top.group(1).strip().lower().replace("-", "_")
            rest = top.group(2).strip()
            if rest in (">", ">-", "|", "|-"):
                style, lines = rest[0], []
            elif rest == "":
                style, lines = "", []
            else:
                style, lines = "", [_unquote(rest)]
            continue
        if key is None:
            raise SkillFormatError(f"front matter line {raw.strip()!r} does not start with 'key:'")
        item = re.match(r"^\s*-\s+(.*)$", raw)
        if item and style in ("", "-") and (style == "-" or not lines):
            style = "-"
            lines.append(item.group(1).strip())
        else:
            lines.append(raw.strip() if style != "|" else raw.rstrip())
    close()
    return data


_FENCED = re.compile(r"^\s*---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|$)(.*)$", re.DOTALL)


def parse_skill_file(text: str, *, default_name: str = "") -> ProcedureSpec:
    """A ``ProcedureSpec`` from a skill file's text; raises SkillFormatError with the fix."""
    m = _FENCED.match(text.lstrip("\ufeff"))
    if not m:
        raise SkillFormatError("the file must start with front matter between '---' lines "
                               "(name, when_to_use, tools_required), then the markdown steps")
    meta = parse_front_matter(m.group(1))
    body = m.group(2).strip()
    if not meta.get("name") and default_name:
        meta["name"] = default_name
    missing = [k for k in _REQUIRED_KEYS if not meta.get(k)]
    if missing:
        raise SkillFormatError(f"front matter is missing {', '.join(missing)}")
    name = str(meta["name"]).strip()
    if not is_valid_name(name):
        raise SkillFormatError(f"name {name!r} must be kebab-case (a-z, 0-9, single hyphens), "
                               f"at most {NAME_MAX} characters, e.g. {slugify(name) or 'sales-report'!r}")
    when = " ".join(str(meta["when_to_use"]).split())
    tools = _as_list(meta["tools_required"])
    bad = [t for t in tools if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", t)]
    if bad:
        raise SkillFormatError(f"tools_required holds names that are not tool names: {', '.join(bad)}")
    if not body:
        raise SkillFormatError("the procedure has no steps: write them as markdown after the front matter")
    return ProcedureSpec(name, when, body, tuple(tools))


def render_skill_file(spec: ProcedureSpec | Procedure) -> str:
    """The skill-file text of a procedure (``parse_skill_file`` reads it back unchanged)."""
    tools = ", ".join(spec.tools_required)
    return (f"---\nname: {spec.name}\nwhen_to_use: {json.dumps(spec.when_to_use, ensure_ascii=False)}\n"
            f"tools_required: [{tools}]\n---\n{spec.body.strip()}\n")


def dedupe(names: Iterable[str]) -> list[str]:
    """Names in first-seen order, each once."""
    return list(dict.fromkeys(n for n in names if n))
