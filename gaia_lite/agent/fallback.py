"""A readable answer when a small model echoes a tool's JSON instead of answering.

Qwen2.5-Coder 0.5B often replies to a tool result by repeating it as JSON.
Asking again costs a full model call and usually gets the same JSON back, so
the agent answers from the tool result itself: the fields a person would
read, with lists of named entries shown as names. It never invents content.
"""

from __future__ import annotations

from typing import Any

__all__ = ["answer_from_result", "plain_name"]

# Fields for the agent, not the user: flags, and the paging of a long result
_SKIP = {"status", "display_message", "truncated", "output_truncated", "has_errors", "offset", "has_more"}
_MAX_ITEMS = 40


def _scalar(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:,.2f}".rstrip("0").rstrip(".")
    return str(value)


def _item(value: Any) -> str:
    if isinstance(value, dict):
        name = value.get("name") or value.get("path") or value.get("source_file") or value.get("content")
        if name is not None:
            kind = value.get("type")
            return f"{name}{'/' if kind in ('folder', 'directory', 'dir') else ''}"
        return ", ".join(f"{k}: {_scalar(v)}" for k, v in value.items() if not isinstance(v, (dict, list)))
    return _scalar(value)


def plain_name(tool: str) -> str:
    """A tool's name as words ("read file"): an answer that names a tool reads as a call described."""
    return tool.replace("__", " ").replace("_", " ")


def answer_from_result(tool: str, result: dict[str, Any]) -> str:
    """Render one tool result as short plain text."""
    if result.get("status") in ("error", "denied"):
        return f"{plain_name(tool)} failed: {result.get('error', result.get('status'))}"
    if result.get("status") == "stored" and result.get("message"):
        return str(result["message"])  # the tool's own confirmation ("Remembered: ...")
    content = result.get("content")
    if isinstance(content, str) and content.strip() and (result.get("file_path") or result.get("path")):
        # a file read: its text is the answer, not a list of its size, line count and path
        name = str(result.get("file_path") or result.get("path")).rstrip("/").rsplit("/", 1)[-1]
        return f"{name} says:\n{content.strip()}"
    if result.get("count") == 0 and result.get("mentioned_in"):
        return str(result["message"])  # no name matched, but files hold the words
    if result.get("count") == 0 and result.get("first_lines"):
        return f"{result.get('message', '')}\n{result['first_lines']}".strip()  # not in any text, but a file is named so
    if result.get("count") == 0 and result.get("message"):
        # a search that found nothing: say so, without echoing the request (a model-made pattern such
        # as "search_file.txt" read as a tool named in the answer)
        return f"I found nothing. {result['message']}"
    if result.get("count") == 0:  # a memory search with no hits: not "count: 0, offset: 0, has more: False"
        return "I found nothing."
    lines: list[str] = []
    for key, value in result.items():
        if key in _SKIP or value in (None, "", [], {}):
            continue
        label = key.replace("_", " ")
        if isinstance(value, list):
            items = [_item(v) for v in value[:_MAX_ITEMS]]
            more = f" (+{len(value) - _MAX_ITEMS} more)" if len(value) > _MAX_ITEMS else ""
            lines.append(f"{label}: {', '.join(items)}{more}")
        elif isinstance(value, dict):
            inner = ", ".join(f"{k}: {_item(v)}" for k, v in list(value.items())[:_MAX_ITEMS])
            lines.append(f"{label}: {inner}")
        else:
            lines.append(f"{label}: {_scalar(value)}")
    # no tool name in it: this is the user's answer, and a name reads as a call described
    return "Here is what I found:\n" + "\n".join(f"- {line}" for line in lines) if lines else "I found nothing."
