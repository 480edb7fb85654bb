"""An answer built from a tool's result, for when the model's reply is not one.

Qwen2.5-Coder 0.5B often replies to a tool result by repeating it as JSON.
Asking again costs a full model call and usually gets the same JSON back, so
the agent answers from the tool result itself. It never invents content, and
it reads only what every tool may carry: ``status``/``error``, ``message``
(the tool's own short statement of what it found, used as the answer),
``count`` (0: an empty search), a file's ``content`` and ``path``; anything
else is rendered field by field, the way the model sees it (results.py).
"""

from __future__ import annotations

from typing import Any

from .results import MAX_ITEMS, label, scalar

__all__ = ["answer_from_result", "plain_name"]

# Fields for the agent, not the user: flags, and the paging of a long result
_SKIP = {"status", "display_message", "truncated", "output_truncated", "has_errors", "offset", "has_more"}


def plain_name(tool: str) -> str:
    """A tool's name as words ("read file"): an answer that names a tool reads as a call described."""
    return tool.replace("__", " ").replace("_", " ")


def answer_from_result(tool: str, result: dict[str, Any]) -> str:
    """One tool result as short plain text."""
    if result.get("status") in ("error", "denied"):
        return f"{plain_name(tool)} failed: {result.get('error', result.get('status'))}"
    content = result.get("content")
    if isinstance(content, str) and content.strip() and (result.get("file_path") or result.get("path")):
        # a file read: its text is the answer, not a list of its size, line count and path
        name = str(result.get("file_path") or result.get("path")).rstrip("/").rsplit("/", 1)[-1]
        matching = result.get("lines_matching_request")
        if isinstance(matching, list) and matching:  # a long text: the lines on the question, not all of it
            return f"{name}, on your question:\n" + "\n".join(f"- {line}" for line in matching)
        return f"{name} says:\n{content.strip()}"
    message = result.get("message")
    message = message.strip() if isinstance(message, str) else ""
    if result.get("count") == 0:
        return _empty_search(result, message)
    if message:
        return message
    lines = [_line(key, value) for key, value in result.items() if key not in _SKIP and value not in (None, "", [], {})]
    # no tool name in it: this is the user's answer, and a name reads as a call described
    return "Here is what I found:\n" + "\n".join(f"- {line}" for line in lines) if lines else "I found nothing."


def _line(key: str, value: Any) -> str:
    name = key.replace("_", " ")
    if isinstance(value, list):
        more = f" (+{len(value) - MAX_ITEMS} more)" if len(value) > MAX_ITEMS else ""
        return f"{name}: {', '.join(label(v) for v in value[:MAX_ITEMS])}{more}"
    if isinstance(value, dict):
        return f"{name}: " + ", ".join(f"{k}: {label(v)}" for k, v in list(value.items())[:MAX_ITEMS])
    return f"{name}: {scalar(value)}"


def _empty_search(result: dict[str, Any], message: str) -> str:
    """An empty search says so, without echoing its request (a model-made pattern such as "search_file.txt"
    read as a tool named in the answer). What it found beside (the files its message lists, text it
    returned) is the answer instead."""
    texts = [v.strip() for k, v in result.items() if k != "message" and isinstance(v, str) and "\n" in v.strip()]
    listed = any(isinstance(v, list) and v and all(str(i) in message for i in v) for v in result.values())
    if message and (texts or listed):
        return "\n".join([message, *texts])
    return f"I found nothing. {message}".strip()
