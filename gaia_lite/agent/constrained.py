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

A server known to honour llama-server's ``grammar`` field (probed once, like
``response_format``) gets the same schema as a compact GBNF grammar instead:
the server's own converter lets the model indent, and the 0.5B model often
wrote a call over six lines (33 tokens instead of 21, ~0.6 s at 50 ms a token).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from gaia_lite.llm.structured import Capabilities
from gaia_lite.messages import ChatResult, ToolCall, new_call_id
from gaia_lite.registry.registry import ToolRegistry

from .grammar import GrammarReplies, open_string_grammar, schema_grammar, schema_opening
from .judge import Evidence, hiding_guard
from .replies import FreeReplies, ReplyMode, first_sentence_pending
from .reply import Reply

__all__ = ["reply_schema", "response_format", "ConstrainedReplies", "AnswerView", "decode_partial_string",
           "CONSTRAINED_FORMAT_NOTE", "choose_replies", "FALLBACK_NOTICE", "GRAMMAR_MODE"]

# The system prompt's reply-format block in this mode (it replaces the free-text one, which tells the
# model to answer "in plain sentences (not JSON)": held to the schema, a small model then fills the
# answer with that block's own text).
CONSTRAINED_FORMAT_NOTE = """==== RESPONSE FORMAT ====
Every reply is one JSON object.
To call a tool: {"name": "<tool name>", "arguments": {"<argument>": <value>}}
Example, to read notes.txt: {"name": "read_file", "arguments": {"file_path": "notes.txt"}}
To answer the user: {"answer": "<your answer, in plain sentences>"}
After a tool result: if it holds what the user asked for, answer with it; otherwise call another tool."""

# The tool-first shape: the first key is the choice, so the first thing the model writes is a tool's
# name or "none" (with the answer-first shape, the 0.5B model wrote `{"answer"` at once and invented
# file contents: it never had to look at the tool list). The block is in every text-path prompt, loader
# on or off, so it is kept short: the same rules in 138 tokens on the 0.5B model's tokenizer (164 in its
# first wording, which had a generic call template beside the example; the schema enforces the shape).
# The placeholders stay whole phrases: with a bare "<plain sentences>" the 0.5B model answered
# "capital of Italy?" with those two words.
NO_TOOL = "none"
TOOL_FIRST_FORMAT_NOTE = """==== RESPONSE FORMAT ====
Reply with one JSON object. Its first key, "tool", is your choice.
To call a tool, e.g. to read notes.txt: {"tool": "read_file", "arguments": {"file_path": "notes.txt"}}
To answer: {"tool": "none", "answer": "<your answer, in plain sentences>"}
After a tool result: {"answer": "<your answer, from the result>"}, or call the next tool if it is not enough.
Call a tool when the answer depends on the user's files, data, memory or computer (never guess them); "none" for general knowledge, math and chit-chat."""


def _arguments_schema(params: dict[str, Any]) -> dict[str, Any]:
    """A tool's parameter schema, as strict as the grammar converter reads it: no extra keys, and
    descriptions dropped (they change nothing the grammar enforces)."""
    props = {}
    for name, prop in (params.get("properties") or {}).items():
        props[name] = {k: v for k, v in prop.items() if k not in ("description", "default")}
    return {"type": "object", "properties": props, "required": list(params.get("required") or []),
            "additionalProperties": False}


def _object(props: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": list(props), "additionalProperties": False}


# Each tool result's last line on the text path, in this mode's words. "In plain sentences": without it, after
# browse_directory listed a folder for "list the files in this folder", the 0.5B's answer string copied
# list_recent_files' line of the tool list (6 samples of 6; with it, 6 of 6 named the three files).
TOOL_FIRST_AFTER_RESULT = ('\n(If this answers the request, reply {"answer": "..."} with it, in plain sentences; '
                           'otherwise call the next tool.)')


@dataclass(frozen=True)
class Shape:
    """How a constrained reply is laid out: the key that names the tool (``name`` or ``tool``), and
    whether the answer branch carries that key too (``"tool": "none"``, so every reply starts with
    the choice) or is ``{"answer"}`` alone."""

    key: str
    choice_first: bool
    format_note: str
    after_result: str | None = None  # the line after each tool result (None: the loop's own)

    def answer_branch(self) -> dict[str, Any]:
        if self.choice_first:
            return _object({self.key: {"const": NO_TOOL}, "answer": {"type": "string"}})
        return _object({"answer": {"type": "string"}})

    def call_branch(self, name: str, params: dict[str, Any]) -> dict[str, Any]:
        return _object({self.key: {"const": name}, "arguments": _arguments_schema(params)})

    @property
    def answer_start(self) -> re.Pattern[str]:
        """Where the answer string's body starts in a streamed reply."""
        head = rf'("{self.key}"\s*:\s*"{NO_TOOL}"\s*,\s*)?' if self.choice_first else ""
        return re.compile(rf'^\s*\{{\s*{head}"answer"\s*:\s*"')

    def read(self, value: dict[str, Any]) -> Reply | None:
        """The reply a parsed JSON object stands for (None: not this shape)."""
        name, args = value.get(self.key), value.get("arguments")
        if isinstance(value.get("answer"), str) and name in (None, NO_TOOL):
            return Reply((), value["answer"].strip())
        if isinstance(name, str) and name != NO_TOOL and isinstance(args, dict):
            return Reply((ToolCall(new_call_id(), name, args, source="text"),), "")
        return None


ANSWER_FIRST = Shape("name", False, CONSTRAINED_FORMAT_NOTE)  # design (a): {"name", "arguments"} | {"answer"}
TOOL_FIRST = Shape("tool", True, TOOL_FIRST_FORMAT_NOTE, TOOL_FIRST_AFTER_RESULT)  # {"tool": <name>, "arguments"} | {"tool": "none", "answer"}
SHAPES = {"answer-first": ANSWER_FIRST, "tool-first": TOOL_FIRST}


def reply_schema(registry: ToolRegistry, *, answer_only: bool = False, shape: Shape = ANSWER_FIRST,
                 calls_only: bool = False, has_result: bool = False) -> dict[str, Any]:
    """``anyOf`` a call to any tool of ``registry`` (name first, so the name is chosen before the
    arguments) or an answer; ``answer_only`` / ``calls_only`` keep one side.

    ``has_result``: this turn already has a tool result. The tool-first shape then offers a bare
    ``{"answer"}`` beside the calls, so the first key is again the choice, now between answering
    (``"answer"``) and calling on (``"tool"``): a small model held to ``"tool"`` first kept calling
    after the result it needed (browse_directory, then list_recent_files, then "no files found")."""
    if answer_only:
        return shape.answer_branch()
    calls = [shape.call_branch(spec.name, spec.parameters_schema()) for spec in registry]
    if calls_only:
        return {"anyOf": calls}
    answer = _object({"answer": {"type": "string"}}) if has_result and shape.choice_first else shape.answer_branch()
    return {"anyOf": [answer, *calls]}


def response_format(schema: dict[str, Any]) -> dict[str, Any]:
    """The OpenAI ``response_format`` field llama-server reads."""
    return {"type": "json_schema", "json_schema": {"name": "reply", "strict": True, "schema": schema}}


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

    The first sentence is held until it cannot be a narrated call, and what a guard of the judge catches is
    never shown: the loop asks again or answers from the tool results."""

    def __init__(self, tool_names: Iterable[str], shape: Shape = ANSWER_FIRST) -> None:
        self._start = shape.answer_start
        self._raw = ""
        self._shown = 0
        self._evidence = Evidence(tuple(tool_names))
        self._blocked = False

    def feed(self, delta: str) -> str:
        self._raw += delta
        m = self._start.match(self._raw)
        if m is None or self._blocked:
            return ""
        text, closed = decode_partial_string(self._raw[m.end():])
        if self._shown == 0 and not closed and first_sentence_pending(text):
            return ""
        if hiding_guard(text, self._evidence) is not None:
            self._blocked = True
            return ""
        if not closed:  # a word still arriving may yet become a tool's name: keep it back
            text = text[:re.search(r"[\w`]*$", text).start()]  # type: ignore[union-attr]
        out = text[self._shown:]
        self._shown = max(self._shown, len(text))
        return out

    def finish(self, result: ChatResult) -> str:
        """What is left to show once the reply is complete (the rest of a short answer)."""
        m = self._start.match(self._raw)
        if m is None or self._blocked:
            return ""
        text, _closed = decode_partial_string(self._raw[m.end():])
        if hiding_guard(text, self._evidence) is not None:
            return ""
        out = text[self._shown:]
        self._shown = len(text)
        return out


class ConstrainedReplies:
    """Design (a): JSON only, a call or an answer, in one of two ``Shape``s: via ``response_format``, or with
    ``grammar`` (the server honours the field) as the same schema in a compact GBNF grammar."""

    design = "json"
    forces_calls = True

    def __init__(self, registry: ToolRegistry, fallback_parse: Callable[[ChatResult], Reply], *,
                 shape: Shape = ANSWER_FIRST, grammar: bool = False) -> None:
        self.shape = shape
        self.response_format_text = shape.format_note
        self.call_key = shape.key
        self.after_result = shape.after_result
        self._registry = registry
        self._fallback = fallback_parse  # for a reply that is not the JSON asked for (a server ignoring the schema)
        self._grammar = grammar
        self._built: dict[tuple[str, ...], Any] = {}  # schemas and grammars, by what the request asks for
        self._names: tuple[str, ...] = ()

    def _cached(self, key: tuple[str, ...], build: Callable[[], Any]) -> Any:
        names = tuple(self._registry.names())
        if names != self._names:  # rebuilt only when the registry changes
            self._built, self._names = {}, names
        if key not in self._built:
            self._built[key] = build()
        return self._built[key]

    def _schema(self, forced: bool, calls_only: bool, has_result: bool) -> tuple[str, dict[str, Any]]:
        kind = "answer" if forced else "calls" if calls_only else "after-result" if has_result else "full"
        return kind, self._cached(("schema", kind), lambda: reply_schema(
            self._registry, answer_only=forced, calls_only=calls_only and not forced, shape=self.shape,
            has_result=has_result))

    def reply_opening(self, *, forced: bool = False, calls_only: bool = False, has_result: bool = False) -> str:
        """With a grammar (a llama.cpp server, which continues a last assistant message), the opening every
        reply of this request shares (``{"tool": "`` on a first step); "" otherwise."""
        if not self._grammar:
            return ""
        kind, schema = self._schema(forced, calls_only, has_result)
        start = self._cached(("opening", kind), lambda: schema_opening(schema))
        return start if start and self._cached(("grammar-after-opening", kind), lambda: schema_grammar(
            schema, after_opening=True)) is not None else ""

    def request_extra(self, tools: list[dict[str, Any]] | None, *, forced: bool = False,
                      calls_only: bool = False, has_result: bool = False) -> dict[str, Any]:
        kind, schema = self._schema(forced, calls_only, has_result)
        if self._grammar:
            after_opening = bool(self.reply_opening(forced=forced, calls_only=calls_only, has_result=has_result))
            grammar = self._cached(("grammar-after-opening" if after_opening else "grammar", kind),
                                   lambda: schema_grammar(schema, after_opening=after_opening))
            if grammar is not None:  # None: the schema says more than the grammar writer knows
                return {"grammar": grammar}
        return {"response_format": response_format(schema)}

    def call_opening(self, tool: str, arguments: dict[str, str], writes: tuple[str, ...],
                     start: str, options: tuple[str, ...] = ()) -> tuple[str, dict[str, Any]] | None:
        """With a grammar only: the call written up to ``start`` in the first string of ``writes``, and a grammar
        for the rest of it (one of ``options``, when given), the others and the closing braces (a server without
        one could write any reply after the opening)."""
        if not self._grammar or not writes:
            return None
        written = "".join(f"{json.dumps(k)}: {json.dumps(v)}, " for k, v in arguments.items())
        opening = (f'{{{json.dumps(self.call_key)}: {json.dumps(tool)}, "arguments": {{{written}'
                   f'{json.dumps(writes[0])}: {json.dumps(start)[:-1]}')
        rest = tuple(o[len(start):] for o in options if o.startswith(start))
        return opening, {"grammar": open_string_grammar(writes[1:], rest)}

    def holds(self, head: str) -> bool:
        return True

    def view(self) -> AnswerView:
        return AnswerView(self._registry.names(), shape=self.shape)

    def parse(self, result: ChatResult) -> Reply:
        if result.tool_calls:
            return Reply(tuple(result.tool_calls), "")
        try:
            value = json.loads(result.content)
        except ValueError:
            value = None
        reply = self.shape.read(value) if isinstance(value, dict) else None
        if reply is not None:
            return reply
        m = self.shape.answer_start.match(result.content or "")
        if m is not None:  # cut off by max_tokens inside the answer: keep what was written
            return Reply((), decode_partial_string(result.content[m.end():])[0].strip())
        return self._fallback(result)


FALLBACK_NOTICE = ("this server does not hold replies to a JSON schema (response_format), so tool calls are "
                   "read from the model's free text; set GAIA_TOOL_CALLS=free to skip the check")

# ``constrained`` on a server already known to honour ``grammar``: the task suite's on and off arms, whose
# fresh homes have no capability cache (the suite probes once, beforehand). Not a user setting.
GRAMMAR_MODE = "constrained-grammar"


def choose_replies(mode: str, *, native: bool, registry: ToolRegistry,
                   capable: Callable[[], Capabilities]) -> tuple[ReplyMode, str | None]:
    """The reply mode for ``GAIA_TOOL_CALLS`` (auto|constrained|free) and the one notice to show.

    Native tool-callers keep their ``tool_calls``; on the text path ``auto`` asks ``capable`` (cached
    probes) and falls back to the free parser, with a notice, where the server cannot hold replies to a
    schema; where it honours ``grammar`` too, the schema goes as a compact grammar. ``constrained``
    probes nothing and sends ``response_format``."""
    free = FreeReplies(registry.names, hold_all=not native)
    if native or mode == "free":
        return free, None
    if mode == "gbnf":  # design (b), for the task suite's comparison (not a user setting)
        return GrammarReplies(registry, free.parse), None
    if mode == "answer-first":  # design (a) as first built, for the task suite's comparison
        return ConstrainedReplies(registry, free.parse, shape=ANSWER_FIRST), None
    if mode in ("constrained", GRAMMAR_MODE):
        return ConstrainedReplies(registry, free.parse, shape=TOOL_FIRST, grammar=mode == GRAMMAR_MODE), None
    found = capable()
    if found.response_format:
        return ConstrainedReplies(registry, free.parse, shape=TOOL_FIRST, grammar=found.grammar), None
    return free, FALLBACK_NOTICE
