"""Replies constrained by a JSON schema: every reply is one call or one answer.

llama-server (and Lemonade's llamacpp backend) turn ``response_format`` with a
JSON schema into a grammar, so the model cannot write anything else. The
schema is ``anyOf`` one branch per tool of the **full** registry,
``{"name": <that tool>, "arguments": <its parameter schema>}``, plus
``{"answer": "..."}``:

- a call names a real tool, and its arguments have the right types, enums
  and required fields (``analysis_type: "sum"`` cannot be sampled);
- tools the loader did not list stay callable (the grammar costs no prompt
  tokens), so the free recovery of unlisted tools stays;
- there is no prose around a call, so nothing narrated reaches the screen.

Answers still stream: ``AnswerView`` decodes the ``answer`` string as it
arrives and shows its text, never the JSON around it. When the model must
answer (the last step), the schema has the answer branch only.
"""

from __future__ import annotations

import json
import re
import uuid
from typing import Any, Callable, Iterable

from gaia_lite.messages import ChatResult, ToolCall
from gaia_lite.registry.registry import ToolRegistry

from .replies import FreeReplies, Reply, ReplyMode, is_result_echo, names_a_tool

__all__ = ["reply_schema", "response_format", "ConstrainedReplies", "AnswerView", "decode_partial_string",
           "CONSTRAINED_FORMAT_NOTE", "choose_replies", "FALLBACK_NOTICE"]

# The system prompt's reply-format block in this mode (it replaces the free-text one, which tells the
# model to answer "in plain sentences (not JSON)": held to the schema, a small model then fills the
# answer with that block's own text).
CONSTRAINED_FORMAT_NOTE = """==== RESPONSE FORMAT ====
Every reply is one JSON object.
To call a tool: {"name": "<tool name>", "arguments": {"<argument>": <value>}}
Example, to read notes.txt: {"name": "read_file", "arguments": {"file_path": "notes.txt"}}
To answer the user: {"answer": "<your answer, in plain sentences>"}
After a tool result: if it holds what the user asked for, answer with it; otherwise call another tool."""

_ANSWER = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"],
           "additionalProperties": False}


def _arguments_schema(params: dict[str, Any]) -> dict[str, Any]:
    """A tool's parameter schema, as strict as the grammar converter reads it: no extra keys, and
    descriptions dropped (they change nothing the grammar enforces)."""
    props = {}
    for name, prop in (params.get("properties") or {}).items():
        props[name] = {k: v for k, v in prop.items() if k not in ("description", "default")}
    return {"type": "object", "properties": props, "required": list(params.get("required") or []),
            "additionalProperties": False}


def reply_schema(registry: ToolRegistry, *, answer_only: bool = False) -> dict[str, Any]:
    """``anyOf`` a call to any tool of ``registry`` (name first, so the name is chosen before the
    arguments) or an answer."""
    if answer_only:
        return dict(_ANSWER)
    calls = [{"type": "object",
              "properties": {"name": {"const": spec.name}, "arguments": _arguments_schema(spec.parameters_schema())},
              "required": ["name", "arguments"], "additionalProperties": False}
             for spec in registry]
    return {"anyOf": [_ANSWER, *calls]}


def response_format(schema: dict[str, Any]) -> dict[str, Any]:
    """The OpenAI ``response_format`` field llama-server reads."""
    return {"type": "json_schema", "json_schema": {"name": "reply", "strict": True, "schema": schema}}


_SENTENCE_END = re.compile(r".{12}[.!?:](\s|$)|\n", re.DOTALL)
_STRING_START = re.compile(r'^\s*\{\s*"answer"\s*:\s*"')


def decode_partial_string(raw: str) -> tuple[str, bool]:
    """Decode the body of a JSON string that may still be arriving: (text so far, closed?).
    An escape cut in half is left for the next chunk."""
    i, n = 0, len(raw)
    while i < n:
        c = raw[i]
        if c == '"':
            return json.loads('"' + raw[:i] + '"'), True
        if c == "\\":
            if i + 1 >= n:
                break
            step = 6 if raw[i + 1] == "u" else 2
            if i + step > n:
                break
            i += step
            continue
        i += 1
    try:
        return json.loads('"' + raw[:i] + '"'), False
    except ValueError:  # a lone surrogate half: wait for its pair
        return json.loads('"' + raw[:max(0, i - 6)] + '"'), False


class AnswerView:
    """Shows the ``answer`` string of a constrained reply as it streams, nothing else.

    The first sentence (at most ``gate`` characters) is held until it cannot be a narrated call: an
    answer that names a tool is left to the loop (which asks again or answers from the tool
    results), so it is never on the screen first."""

    def __init__(self, tool_names: Iterable[str], gate: int = 160) -> None:
        self._raw = ""
        self._shown = 0
        self._gate = gate
        self._names = list(tool_names)
        self._blocked = False

    def _names_tool(self, text: str) -> bool:
        return names_a_tool(text, self._names)

    def feed(self, delta: str) -> str:
        self._raw += delta
        m = _STRING_START.match(self._raw)
        if m is None or self._blocked:
            return ""
        text, closed = decode_partial_string(self._raw[m.end():])
        if self._shown == 0 and not closed and len(text) < self._gate and not _SENTENCE_END.search(text):
            return ""  # the first sentence is held: a narrated call names its tool there
        if self._names_tool(text):
            self._blocked = True
            return ""
        if not closed:  # a word still arriving may yet become a tool's name: keep it back
            text = text[:re.search(r"[\w`]*$", text).start()]  # type: ignore[union-attr]
        out = text[self._shown:]
        self._shown = max(self._shown, len(text))
        return out

    def finish(self, result: ChatResult) -> str:
        """What is left to show once the reply is complete (the rest of a short answer)."""
        m = _STRING_START.match(self._raw)
        if m is None or self._blocked:
            return ""
        text, _closed = decode_partial_string(self._raw[m.end():])
        if self._names_tool(text) or is_result_echo(text):
            return ""
        out = text[self._shown:]
        self._shown = len(text)
        return out


class ConstrainedReplies:
    """Design (a): JSON only, ``{"name", "arguments"}`` or ``{"answer"}``, via ``response_format``."""

    design = "json"
    response_format_text = CONSTRAINED_FORMAT_NOTE

    def __init__(self, registry: ToolRegistry, fallback_parse: Callable[[ChatResult], Reply]) -> None:
        self._registry = registry
        self._fallback = fallback_parse  # for a reply that is not the JSON asked for (a server ignoring the schema)
        self._schema: dict[str, Any] | None = None
        self._names: tuple[str, ...] = ()

    def _full_schema(self) -> dict[str, Any]:
        names = tuple(self._registry.names())
        if self._schema is None or names != self._names:  # rebuilt only when the registry changes
            self._schema, self._names = reply_schema(self._registry), names
        return self._schema

    def request_extra(self, tools: list[dict[str, Any]] | None, *, forced: bool = False) -> dict[str, Any]:
        schema = reply_schema(self._registry, answer_only=True) if forced else self._full_schema()
        return {"response_format": response_format(schema)}

    def holds(self, head: str) -> bool:
        return True

    def view(self) -> AnswerView:
        return AnswerView(self._registry.names())

    def parse(self, result: ChatResult) -> Reply:
        if result.tool_calls:
            return Reply(tuple(result.tool_calls), "")
        try:
            value = json.loads(result.content)
        except ValueError:
            value = None
        if isinstance(value, dict):
            if isinstance(value.get("answer"), str):
                return Reply((), value["answer"].strip())
            name, args = value.get("name"), value.get("arguments")
            if isinstance(name, str) and isinstance(args, dict):
                return Reply((ToolCall("call_" + uuid.uuid4().hex[:12], name, args, source="text"),), "")
        m = _STRING_START.match(result.content or "")
        if m is not None:  # cut off by max_tokens inside the answer: keep what was written
            return Reply((), decode_partial_string(result.content[m.end():])[0].strip())
        return self._fallback(result)


FALLBACK_NOTICE = ("this server does not hold replies to a JSON schema (response_format), so tool calls are "
                   "read from the model's free text; set GAIA_TOOL_CALLS=free to skip the check")


def choose_replies(mode: str, *, native: bool, registry: ToolRegistry,
                   capable: Callable[[], bool]) -> tuple[ReplyMode, str | None]:
    """The reply mode for ``GAIA_TOOL_CALLS`` (auto|constrained|free) and the one notice to show.

    Native tool-callers keep their ``tool_calls``; on the text path ``auto`` asks ``capable`` (a
    cached probe) and falls back to the free parser, with a notice, where the server cannot."""
    free = FreeReplies(registry.names, hold_all=not native)
    if native or mode == "free":
        return free, None
    if mode == "gbnf":  # design (b), for the task suite's comparison (not a user setting)
        from .grammar import GrammarReplies  # kept lazy: only the eval's gbnf arm uses it

        return GrammarReplies(registry, free.parse), None
    if mode == "constrained" or capable():
        return ConstrainedReplies(registry, free.parse), None
    return free, FALLBACK_NOTICE
