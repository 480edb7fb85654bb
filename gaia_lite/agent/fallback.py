"""An answer built from a tool's result, for when the model's reply is not one.

Qwen2.5-Coder 0.5B often replies to a tool result by repeating it as JSON.
Asking again costs a full model call and usually gets the same JSON back, so
the agent answers from the tool result itself. It never invents content, and
it reads only what every tool may carry: ``status``/``error``, ``message``
(the tool's own short statement of what it found, used as the answer),
``count`` (0: an empty search), a file's ``content`` and ``path``; anything
else is rendered field by field, the way the model sees it (results.py).

Every answer the agent builds or amends goes through ``for_people``: a lead sentence and the lines it
rests on, paths relative to the working folder, and none of the labels a result carries for the model
(``status:``, ``note:``, ``chunks (2):``, ``text=``) or an absolute temp path. A regex check passed
"chunks (1): ... (text=...)" built from a result; a person would not.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from .results import MAX_ITEMS, label, scalar, to_the_model

__all__ = ["answer_from_result", "plain_name", "for_people"]

# A list's header line in a rendered result ("chunks (2):", "matches (14):"): a label, not an answer
_LIST_HEADER = re.compile(r"^[a-z_ ]+ \(\d+\):$")
# A record's field written for the model ("text=...", "source_file=...") keeps its value only
_FIELD_LABEL = re.compile(r"\b(?:text|content|snippet|chunk|passage|source_file|file_path)=")
# An absolute path in a temp folder no person chose: the file's name says it
_TEMP_PATH = re.compile(r"(?<![\w.~])/(?:tmp|var/tmp|var/folders|private/var/folders)/[^\s,;:'\")\]]*/([^\s,;:'\")\]/]+)")
_MAX_LINES = 20

# Fields for the agent, not the user: flags, and the paging of a long result
_SKIP = {"status", "display_message", "truncated", "output_truncated", "has_errors", "offset", "has_more"}


def plain_name(tool: str) -> str:
    """A tool's name as words ("read file"): an answer that names a tool reads as a call described."""
    return tool.replace("__", " ").replace("_", " ")


def for_people(text: str, workdir: Path | None = None) -> str:
    """``text`` as a person should read it: paths under ``workdir`` relative to it, temp paths as their
    file's name, the lines and labels a result carries for the model left out, at most ``_MAX_LINES``
    lines after the lead."""
    if workdir is not None:
        for base in dict.fromkeys((str(workdir), str(Path(workdir).resolve()))):
            text = text.replace(base.rstrip("/") + "/", "").replace(base.rstrip("/"), "this folder")
    text = _TEMP_PATH.sub(lambda m: m.group(1), text)
    kept = []
    for line in text.splitlines():
        bare = line.strip().lstrip("-* ").strip()
        if _LIST_HEADER.match(bare) or to_the_model(bare):
            continue
        kept.append(_FIELD_LABEL.sub("", line).rstrip())
    while kept and not kept[-1].strip():
        kept.pop()
    if len(kept) > _MAX_LINES + 1:
        kept = [*kept[:_MAX_LINES + 1], f"(+{len(kept) - _MAX_LINES - 1} more lines)"]
    return "\n".join(kept).strip()


def answer_from_result(tool: str, result: dict[str, Any], workdir: Path | None = None) -> str:
    """One tool result as an answer a person reads: a lead sentence and the lines it rests on."""
    return for_people(_from_result(tool, result), workdir)


def _from_result(tool: str, result: dict[str, Any]) -> str:
    if result.get("status") == "denied":  # its error tells the model what to do next, not the user
        return f"You did not approve {plain_name(tool)}, so it did not run."
    if result.get("status") == "error":
        return f"{plain_name(tool)} failed: {result.get('error', result.get('status'))}"
    content = result.get("content")
    if isinstance(content, str) and content.strip() and (result.get("file_path") or result.get("path")):
        # a file read: its text is the answer, not a list of its size, line count and path
        name = str(result.get("file_path") or result.get("path")).rstrip("/")
        matching = result.get("lines_matching_request")
        if isinstance(matching, list) and matching:  # a long text: the lines on the question, not all of it
            return f"From {name}, the lines on your question:\n" + "\n".join(f"- {line}" for line in matching)
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
