"""The main pane: conversation entries as rich renderables (pure functions).

A tool call is one compact line (tool, key arguments, status, duration);
with details on, its full arguments and result follow it, indented.
"""

from __future__ import annotations

import json
from typing import Any, Sequence

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.text import Text

from .view import Entry, ToolCallView

__all__ = ["render_entry", "render_entries", "tool_line", "error_line", "key_args", "DETAIL_CHARS"]

DETAIL_CHARS = 1500  # result text shown with details on, per call
_STATUS = {"success": ("✓", "green"), "error": ("✗", "red"), "denied": ("denied", "yellow"),
           "timeout": ("timeout", "red"), "cancelled": ("cancelled", "yellow")}


def _short(value: Any, limit: int) -> str:
    if isinstance(value, str):
        text = repr(value if len(value) <= limit else value[: limit - 1] + "…")
    else:
        text = json.dumps(value, ensure_ascii=False, default=str)
        if len(text) > limit:
            text = text[: limit - 1] + "…"
    return text


def key_args(arguments: dict[str, Any], limit: int = 60, per_value: int = 32) -> str:
    """``k='v', n=3`` for the first arguments, cut to ``limit`` characters."""
    text = ", ".join(f"{k}={_short(v, per_value)}" for k, v in arguments.items())
    return text if len(text) <= limit else text[: limit - 1].rstrip("…") + "…"


def tool_line(call: ToolCallView, width: int | None = None) -> Text:
    """``  → name(k='v')  ✓ 0.12s``: one line. With ``width`` the arguments shrink first,
    so tool, status and duration stay visible."""
    tail = Text()
    if call.status is None:
        tail.append("  running…", style="yellow")
    else:
        mark, style = _STATUS.get(call.status, (call.status, "yellow"))
        tail.append(f"  {mark}", style=style)
        if call.duration_s is not None:
            tail.append(f" {call.duration_s:.2f}s", style="dim")
        if call.escape_hatch:
            tail.append("  [escape hatch]", style="yellow")
    limit = 60
    if width is not None:
        limit = max(8, min(limit, width - (4 + len(call.name) + 2 + tail.cell_len)))
    line = Text("  → ", style="dim", no_wrap=True, overflow="ellipsis")
    line.append(call.name, style="bold")
    line.append(f"({key_args(call.arguments, limit=limit)})", style="dim")
    line.append_text(tail)
    if width is not None and line.cell_len > width:
        line.truncate(width, overflow="ellipsis")
    return line


def error_line(call: ToolCallView, width: int | None = None) -> Text | None:
    """The reason a call did not succeed, on its own line under the call (cut to one line)."""
    if call.status in (None, "success") or not call.result:
        return None
    err = " ".join(str(call.result.get("error") or "").split())
    if not err:
        return None
    line = Text(f"    {err}", style=_STATUS.get(call.status, ("", "yellow"))[1], no_wrap=True, overflow="ellipsis")
    line.truncate(width or 120, overflow="ellipsis")
    return line


class _ToolLine:
    """A tool line sized to the width it is rendered at (a frame pane or the full terminal)."""

    def __init__(self, call: ToolCallView) -> None:
        self.call = call

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield tool_line(self.call, options.max_width)
        err = error_line(self.call, options.max_width)
        if err is not None:
            yield err


def _details(call: ToolCallView) -> list[Text]:
    args = json.dumps(call.arguments, ensure_ascii=False, indent=None, default=str)
    out = [Text(f"      args   {args}", style="dim")]
    if call.result is not None:
        res = json.dumps(call.result, ensure_ascii=False, default=str)
        if len(res) > DETAIL_CHARS:
            res = res[:DETAIL_CHARS] + f"… [{len(res) - DETAIL_CHARS} more chars]"
        out.append(Text(f"      result {res}", style="dim"))
    return out


def render_entry(entry: Entry, details: bool = False) -> RenderableType:
    if entry.kind == "user":
        return Text(f"› {entry.text}", style="bold cyan")
    if entry.kind == "assistant":
        return Text(entry.text.strip("\n"))
    if entry.kind == "tool" and entry.call is not None:
        line = _ToolLine(entry.call)
        return Group(line, *_details(entry.call)) if details else line
    if entry.kind == "notice":
        return Text(f"! {entry.text}", style="yellow" if entry.level == "warning" else "dim")
    if entry.kind == "error":
        return Text(f"✗ {entry.text}", style="red")
    return Text(entry.text, style="dim")


def render_entries(entries: Sequence[Entry], details: bool = False) -> RenderableType:
    return Group(*(render_entry(e, details) for e in entries))
