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


def _record(item: Any) -> str:
    """One list entry on one line: its name first, then its other short fields."""
    if not isinstance(item, dict):
        return _scalar(item)
    name_key = next((k for k in _NAME_KEYS if isinstance(item.get(k), (str, int)) and item.get(k) != ""), None)
    head = str(item[name_key]) if name_key else ""
    if name_key and item.get("type") in ("folder", "directory", "dir"):
        head += "/"
    rest = [f"{k}={_scalar(v)}" for k, v in item.items()
            if k not in (name_key, "type") and v not in (None, "", [], {})]
    if name_key and item.get("type") not in (None, "folder", "directory", "dir"):
        rest.insert(0, f"type={item['type']}")
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
