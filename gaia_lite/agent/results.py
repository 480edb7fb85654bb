"""Tool results as the model reads them: compact lines under a size cap, not a JSON dump.

A small model copies what it is shown. Given ``{"status": "success",
"entries": [{"name": ..., "type": ..., "size": ...}, ...]}`` it tends to echo
JSON back; given one line per file it tends to answer with the files. So a
result goes back as ``key: value`` lines, a list of records as one ``- name
(field=value, ...)`` line each, and long text as itself, the whole cut at
``cap`` characters with a note saying how much was left out.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["compact_result", "RESULT_CHAR_CAP"]

RESULT_CHAR_CAP = 4000  # what goes back to a small-context model per result
_NAME_KEYS = ("name", "path", "file", "file_path", "title", "source_file", "id")
_MAX_ITEMS = 60


def _scalar(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:,.4f}".rstrip("0").rstrip(".")
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False, default=str)
    return str(value)


_TEXT_KEYS = ("text", "content", "snippet", "chunk", "passage")
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
    if isinstance(value, str) and _ISO_TIME.fullmatch(value):
        m = _ISO_TIME.fullmatch(value)
        return f"{key} {m.group(1)} {m.group(2)}"  # type: ignore[union-attr]
    return f"{key}={_scalar(value)}"


def _record(item: Any) -> str:
    """One list entry on one line: its name first, then its other short fields. An entry that carries
    a passage (a search hit) is the passage first, then where it came from."""
    if not isinstance(item, dict):
        return _scalar(item)
    text_key = next((k for k in _TEXT_KEYS if isinstance(item.get(k), str) and len(item[k]) >= _LONG_TEXT), None)
    name_key = next((k for k in _NAME_KEYS if isinstance(item.get(k), (str, int)) and item.get(k) != ""), None)
    head = str(item[name_key]) if name_key else ""
    kind = item.get("type")
    if name_key and kind in ("folder", "directory", "dir"):
        head += "/"
    rest = [_field(k, v) for k, v in item.items()
            if k not in (name_key, text_key, "type") and k not in _NOISE_KEYS and v not in (None, "", [], {})]
    if name_key and kind not in (None, "file", "folder", "directory", "dir"):  # a file is the default
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
            items = value[:_MAX_ITEMS]
            more = f" (+{len(value) - _MAX_ITEMS} more)" if len(value) > _MAX_ITEMS else ""
            if all(not isinstance(v, (dict, list)) for v in items):
                out.append(f"{key}: {', '.join(_scalar(v) for v in items)}{more}")
            else:
                out.append(f"{key} ({len(value)}):")
                out += [f"- {_record(v)}" for v in items]
                if more:
                    out.append(more.strip())
        elif isinstance(value, dict):
            inner = ", ".join(f"{k}={_scalar(v)}" for k, v in value.items())
            out.append(f"{key}: {inner}")
        elif isinstance(value, str) and "\n" in value:
            out.append(f"{key}:\n{value.rstrip()}")
        else:
            out.append(f"{key}: {_scalar(value)}")
    return out


def compact_result(payload: Any, cap: int = RESULT_CHAR_CAP) -> str:
    """``payload`` (a tool's result) as short text, at most about ``cap`` characters."""
    text = "\n".join(_lines(payload)) if isinstance(payload, dict) else _scalar(payload)
    if len(text) > cap:
        text = text[:cap].rstrip() + f"\n[... {len(text) - cap} more characters not shown]"
    return text
