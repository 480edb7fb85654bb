"""Tool results as the model reads them: compact lines under a size cap, not a JSON dump.

A small model copies what it is shown. Given ``{"status": "success",
"entries": [{"name": ..., "type": ..., "size": ...}, ...]}`` it tends to echo
JSON back; given one line per file it tends to answer with the files. So a
result goes back as ``key: value`` lines, a list of records as one ``- name
(field=value, ...)`` line each, and long text as itself, the whole cut at
``cap`` characters with a note saying how much was left out.

The answers built from tool results (fallback.py) use the same pieces and limits: ``scalar`` for
numbers, ``label`` for what an entry is called, ``MAX_ITEMS`` for long lists.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["compact_result", "RESULT_CHAR_CAP", "MAX_ITEMS", "scalar", "label"]

RESULT_CHAR_CAP = 4000  # what goes back to a small-context model per result
_NAME_KEYS = ("name", "path", "file", "file_path", "title", "source_file", "id")
MAX_ITEMS = 60  # entries of one list shown, then "(+N more)"
_FOLDERS = ("folder", "directory", "dir")


def scalar(value: Any) -> str:
    """One value as text: floats to at most 4 decimals with thousands separators, objects as JSON."""
    if isinstance(value, float):
        return f"{value:,.4f}".rstrip("0").rstrip(".")
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False, default=str)
    return str(value)


_TEXT_KEYS = ("text", "content", "snippet", "chunk", "passage")


def _named(item: dict[str, Any], key: str) -> str:
    """An entry's name, with a "/" when it is a folder."""
    return str(item[key]) + ("/" if item.get("type") in _FOLDERS else "")


def label(item: Any) -> str:
    """What a person calls a list entry: its name, path or title, else its text, else its id; an entry
    with none of them is its short fields."""
    if not isinstance(item, dict):
        return scalar(item)
    key = next((k for k in (*_NAME_KEYS[:-1], *_TEXT_KEYS, "id") if item.get(k) not in (None, "")), None)
    if key is not None:
        return _named(item, key)
    return ", ".join(f"{k}: {scalar(v)}" for k, v in item.items() if not isinstance(v, (dict, list)))
_NOISE_KEYS = {"relevance_score", "score", "rank"}  # the model copied these into answers; the order says it
_LONG_TEXT = 60


def _size(n: Any) -> str:
    if not isinstance(n, (int, float)):
        return str(n)
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:,.0f} {unit}" if unit == "B" else f"{n:,.1f} {unit}"
        n /= 1024
    return str(n)


_ISO_TIME = re.compile(r"(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(:\d{2}(\.\d+)?)?([+-]\d{2}:?\d{2}|Z)?")


def _field(key: str, value: Any) -> str:
    """A record's short field in words a person would write (a model copies them): ``21 B``, not
    ``size_bytes=21``; ``modified 2026-12-02 04:07``, not ``modified=2026-12-02T04:07:50``."""
    if key in ("size_bytes", "size"):
        return _size(value)
    if value is True:  # a flag says its name: "q2.txt (1,212 B, largest)"
        return key
    if isinstance(value, str) and _ISO_TIME.fullmatch(value):
        m = _ISO_TIME.fullmatch(value)
        return f"{key} {m.group(1)} {m.group(2)}"  # type: ignore[union-attr]
    return f"{key}={scalar(value)}"


def _record(item: Any) -> str:
    """One list entry on one line: its name first, then its other short fields. An entry that carries
    a passage (a search hit) is the passage first, then where it came from."""
    if not isinstance(item, dict):
        return scalar(item)
    text_key = next((k for k in _TEXT_KEYS if isinstance(item.get(k), str) and len(item[k]) >= _LONG_TEXT), None)
    name_key = next((k for k in _NAME_KEYS if isinstance(item.get(k), (str, int)) and item.get(k) != ""), None)
    head = _named(item, name_key) if name_key else ""
    kind = item.get("type")
    rest = [_field(k, v) for k, v in item.items()
            if k not in (name_key, text_key, "type") and k not in _NOISE_KEYS and v not in (None, "", [], {})]
    if name_key and kind not in (None, "file", *_FOLDERS):  # a file is the default
        rest.insert(0, str(kind))
    if text_key:
        where = ", ".join([head, *rest]) if head else ", ".join(rest)
        return f"{item[text_key].strip()}" + (f"\n  (source: {where})" if where else "")
    if not head:
        return ", ".join(rest)
    return f"{head} ({', '.join(rest)})" if rest else head


def _lines(payload: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for key, value in payload.items():
        if value is None or value == "" or value == [] or value == {}:
            continue
        if isinstance(value, list):
            items = value[:MAX_ITEMS]
            more = f" (+{len(value) - MAX_ITEMS} more)" if len(value) > MAX_ITEMS else ""
            if all(not isinstance(v, (dict, list)) for v in items):
                out.append(f"{key}: {', '.join(scalar(v) for v in items)}{more}")
            else:
                out.append(f"{key} ({len(value)}):")
                out += [f"- {_record(v)}" for v in items]
                if more:
                    out.append(more.strip())
        elif isinstance(value, dict):
            inner = ", ".join(f"{k}={scalar(v)}" for k, v in value.items())
            out.append(f"{key}: {inner}")
        elif isinstance(value, str) and "\n" in value:
            out.append(f"{key}:\n{value.rstrip()}")
        else:
            out.append(f"{key}: {scalar(value)}")
    return out


# The fields of a result that speak to the model (how the result came about and how to use it), never to the user
TO_THE_MODEL = ("status", "query", "instruction", "hint", "note")


def to_the_model(line: str) -> bool:
    """Whether a rendered line is one of a result's fields for the model ("note: ...", "hint: ...")."""
    return ": " in line and line.partition(": ")[0] in TO_THE_MODEL


def lines_to_the_model(rendered: str) -> list[str]:
    """The lines of a rendered result (``compact_result``) that are its fields for the model: "instruction: Answer
    only from these chunks ...", "note: ... was not indexed; it is now."."""
    return [ln for ln in rendered.splitlines() if to_the_model(ln)]


def compact_result(payload: Any, cap: int = RESULT_CHAR_CAP) -> str:
    """``payload`` (a tool's result) as short text, at most about ``cap`` characters."""
    text = "\n".join(_lines(payload)) if isinstance(payload, dict) else scalar(payload)
    if len(text) > cap:
        text = text[:cap].rstrip() + f"\n[... {len(text) - cap} more characters not shown]"
    return text
