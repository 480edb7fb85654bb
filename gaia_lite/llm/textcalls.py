"""Lift tool calls out of message text.

Small local models (Qwen2.5-Coder 0.5B/1.5B on llama-server) leave
``tool_calls`` empty and write the call into the content instead: bare JSON,
```json fences, ``<tool_call>`` tags, GAIA's planning format
``{"tool", "tool_args"}`` or a Python-style ``name(key=value)`` line. This
module turns all of those into ToolCall values and returns whatever prose is
left over as the answer text.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from typing import Any, Iterable

from gaia_lite.messages import ToolCall, new_call_id

__all__ = ["parse_text_calls", "strip_think", "TextParse"]

_THINK = re.compile(r"<think>.*?(</think>|$)", re.DOTALL | re.IGNORECASE)
_TAGGED = re.compile(r"<tool_call>\s*(.*?)\s*(</tool_call>|$)", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[ \t]*\n?(.*?)(```|$)", re.DOTALL)
_PYCALL = re.compile(r"(?<![\w.])([A-Za-z_][A-Za-z0-9_]*)\s*\((.*?)\)\s*$", re.DOTALL)

_NAME_KEYS = ("name", "tool", "tool_name", "function", "function_name")
_ARG_KEYS = ("arguments", "tool_args", "args", "parameters", "params", "input", "tool_input")


@dataclass(frozen=True)
class TextParse:
    calls: tuple[ToolCall, ...]
    text: str  # the prose left once calls are removed (the answer when there are no calls)
    answer: str | None = None  # an explicit {"answer": ...} from the planning format


def strip_think(text: str) -> str:
    """Remove <think>...</think> blocks (and an unterminated trailing one)."""
    return _THINK.sub("", text).strip()


def _loads_lenient(raw: str) -> Any:
    """json.loads, then with trailing commas removed, then as a Python literal."""
    raw = raw.strip()
    for candidate in (raw, re.sub(r",\s*([}\]])", r"\1", raw)):
        try:
            return json.loads(candidate)
        except ValueError:
            pass
    try:
        return ast.literal_eval(re.sub(r"\btrue\b", "True", re.sub(r"\bfalse\b", "False",
                                re.sub(r"\bnull\b", "None", raw))))
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None


def _balanced_objects(text: str) -> Iterable[tuple[int, int, str]]:
    """Yield (start, end, source) of each top-level {...} or [...] block, string-aware."""
    i, n = 0, len(text)
    while i < n:
        if text[i] not in "{[":
            i += 1
            continue
        depth, j, in_str, quote, esc = 0, i, False, "", False
        opener = text[i]
        while j < n:
            c = text[j]
            if in_str:
                if esc:
                    esc = False
                elif c == "\\":
                    esc = True
                elif c == quote:
                    in_str = False
            elif c in "\"'":
                in_str, quote = True, c
            elif c in "{[":
                depth += 1
            elif c in "}]":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        if depth == 0 and j < n:
            yield i, j + 1, text[i:j + 1]
            i = j + 1
        else:
            if opener == "{" and depth > 0:
                # Unbalanced (truncated output): offer the tail with closers added.
                yield i, n, text[i:] + "}" * depth
            i += 1


def _as_call(obj: Any, known: set[str] | None) -> ToolCall | None:
    if not isinstance(obj, dict):
        return None
    if "function" in obj and isinstance(obj["function"], dict):  # OpenAI-shaped
        return _as_call(obj["function"], known)
    name = next((obj[k] for k in _NAME_KEYS if isinstance(obj.get(k), str) and obj[k].strip()), None)
    if name is None:
        return None
    args: Any = next((obj[k] for k in _ARG_KEYS if k in obj), None)
    has_args_key = any(k in obj for k in _ARG_KEYS)
    # A dict with only "name" is data, not a call, unless it names a known tool.
    if not has_args_key and not (known and name.strip() in known):
        return None
    if isinstance(args, str):
        parsed = _loads_lenient(args) if args.strip() else {}
        args = parsed if isinstance(parsed, dict) else {"input": args}
    if args is None:
        args = {}
    if not isinstance(args, dict):
        return None
    return ToolCall(id=str(obj.get("id") or new_call_id()), name=name.strip(), arguments=args, source="text")


def _calls_from_value(value: Any, known: set[str] | None) -> tuple[list[ToolCall], str | None]:
    """Calls (and a planning-format answer) found in one decoded JSON value."""
    if isinstance(value, list):
        calls = [c for c in (_as_call(v, known) for v in value) if c]
        return calls, None
    if not isinstance(value, dict):
        return [], None
    call = _as_call(value, known)
    if call:
        return [call], None
    plan = value.get("plan")
    if isinstance(plan, list):
        calls = [c for c in (_as_call(v, known) for v in plan) if c]
        if calls:
            return calls[:1], None  # run the first planned step; the model re-plans after it
    answer = value.get("answer")
    if isinstance(answer, (str, int, float)):
        return [], str(answer)
    return [], None


def _pycall(text: str, known: set[str]) -> ToolCall | None:
    """``read_file(file_path="a.txt")`` for a registered tool name, literal keywords only."""
    for line in reversed(text.strip().splitlines()[-3:]):
        m = _PYCALL.search(line.strip().strip("`"))
        if not m or m.group(1) not in known:
            continue
        try:
            node = ast.parse(f"f({m.group(2)})", mode="eval").body
        except SyntaxError:
            return None
        if not isinstance(node, ast.Call) or node.args:
            return None
        try:
            kwargs = {kw.arg: ast.literal_eval(kw.value) for kw in node.keywords if kw.arg}
        except ValueError:
            return None
        return ToolCall(id=new_call_id(), name=m.group(1), arguments=kwargs, source="text")
    return None


def parse_text_calls(content: str, known_tools: Iterable[str] | None = None) -> TextParse:
    """Find every tool call written in ``content``.

    ``known_tools`` (the FULL registry's names) lets a bare ``{"name": ...}``
    or a Python-style call count as a call. Unknown names in an explicit
    ``{"name", "arguments"}`` object are still returned: executing them gives
    the model an "unknown tool" error it can repair from.
    """
    known = set(known_tools) if known_tools is not None else None
    text = strip_think(content or "")
    calls: list[ToolCall] = []
    answer: str | None = None
    spans: list[tuple[int, int]] = []

    for m in _TAGGED.finditer(text):
        value = _loads_lenient(m.group(1))
        found, ans = _calls_from_value(value, known)
        if found:
            calls += found
            spans.append(m.span())
        answer = answer or ans

    if not calls:
        for m in _FENCE.finditer(text):
            lang, body = m.group(1).lower(), m.group(2)
            if lang and lang not in ("json", "json5", "tool_call", "javascript", "js", "python", "py", "tool"):
                continue
            for _, _, src in _balanced_objects(body):
                found, ans = _calls_from_value(_loads_lenient(src), known)
                if found:
                    calls += found
                    spans.append(m.span())
                answer = answer or ans
            if not any(s == m.span() for s in spans) and known and lang in ("python", "py", ""):
                call = _pycall(body, known)
                if call:
                    calls.append(call)
                    spans.append(m.span())

    if not calls:
        for start, end, src in _balanced_objects(text):
            found, ans = _calls_from_value(_loads_lenient(src), known)
            if found:
                calls += found
                spans.append((start, end))
            elif ans is not None and answer is None:
                answer = ans
                spans.append((start, end))

    if not calls and known:
        call = _pycall(text, known)
        if call:
            calls.append(call)
            spans.append((0, len(text)))

    rest = text
    for start, end in sorted(spans, reverse=True):
        rest = rest[:start] + rest[end:]
    rest = re.sub(r"\n{3,}", "\n\n", rest).strip()
    return TextParse(tuple(calls), rest, answer)
