"""Design (b): a GBNF grammar where a reply is either prose or one call, decided by its first token.

llama-server accepts a ``grammar`` field. This one lets the model start with
``{`` and then write exactly one call, ``{"name": <a tool of the full
registry>, "arguments": <that tool's arguments>}``, or start with anything
else and write prose. Prose streams from the first token; a call never
reaches the screen. The argument rules are derived from each tool's JSON
schema here (types, enums, required and optional fields in the declared
order), so a call is as well-formed as in design (a).

Kept beside design (a) (``constrained``) because the task suite decides
between them: ``gaia-lite eval tasks --arms on,gbnf`` runs both.

``schema_grammar`` serves design (a) too: its reply schema as a compact GBNF
grammar, for a server known to honour ``grammar`` (see ``ConstrainedReplies``).
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable

from gaia_lite.messages import ChatResult, ToolCall, new_call_id
from gaia_lite.registry.registry import ToolRegistry

from .judge import Evidence, hiding_guard
from .replies import HoldingView, first_sentence_pending
from .reply import Reply

__all__ = ["reply_grammar", "schema_grammar", "schema_opening", "open_string_grammar", "GrammarReplies"]

_CHAR = r'''[^"\\\x7F\x00-\x1F] | "\\" ( ["\\/bfnrt] | "u" [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F] )'''
_BASE = (r'''
ws ::= [ ]?
string ::= "\"" ( ''' + _CHAR + r''' )* "\""
integer ::= "-"? [0-9]+
number ::= "-"? [0-9]+ ( "." [0-9]+ )? ( [eE] [-+]? [0-9]+ )?
boolean ::= "true" | "false"
null ::= "null"
value ::= string | number | boolean | null | array-any | object-any
array-any ::= "[" ws ( value ( ws "," ws value )* )? ws "]"
object-any ::= "{" ws ( string ws ":" ws value ( ws "," ws string ws ":" ws value )* )? ws "}"
''').strip()


def _lit(text: str) -> str:
    """A GBNF literal for ``text`` (JSON-encoded first when it is a JSON string)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _rule_name(*parts: str) -> str:
    return "-".join(re.sub(r"[^a-zA-Z0-9]+", "-", p).strip("-").lower() for p in parts if p)


class _Rules:
    def __init__(self) -> None:
        self.rules: dict[str, str] = {}

    def add(self, name: str, body: str) -> str:
        self.rules[name] = body
        return name

    def value(self, prefix: str, schema: dict[str, Any]) -> str:
        """A rule (or inline expression) for one JSON-schema value."""
        if "const" in schema:
            return _lit(json.dumps(schema["const"]))
        if schema.get("enum"):
            return "( " + " | ".join(_lit(json.dumps(v)) for v in schema["enum"]) + " )"
        kind = schema.get("type")
        if kind in ("string", "integer", "number", "boolean", "null"):
            return kind
        if kind == "array":
            item = self.value(prefix + "-item", schema.get("items") or {})
            return self.add(prefix, f'"[" ws ( {item} ( ws "," ws {item} )* )? ws "]"')
        if kind == "object" and (schema.get("properties") or schema.get("additionalProperties") is False):
            return self.object(prefix, schema)  # no properties and none extra: only {}
        return "value" if kind is None else ("object-any" if kind == "object" else "value")

    def object(self, prefix: str, schema: dict[str, Any]) -> str:
        """Properties in their declared order; any optional one may be left out, no required one may."""
        props = list((schema.get("properties") or {}).items())
        required = set(schema.get("required") or [])
        kv = [f'{_lit(json.dumps(name))} ws ":" ws {self.value(_rule_name(prefix, name), sub)}'
              for name, sub in props]
        n = len(props)

        def nexts(after: int) -> list[int]:
            """Which property may come next after index ``after`` (-1: the first one)."""
            out = []
            for j in range(after + 1, n):
                out.append(j)
                if props[j][0] in required:
                    break
            return out

        def may_end(after: int) -> bool:
            return all(props[j][0] not in required for j in range(after + 1, n))

        for i in range(n - 1, -1, -1):
            options = [f'ws "," ws {_rule_name(prefix, "from", str(j))}' for j in nexts(i)]
            tail = " | ".join(options)
            body = kv[i] + (f" ( {tail} )" + ("?" if may_end(i) else "") if options else "")
            self.add(_rule_name(prefix, "from", str(i)), body)
        first = " | ".join(_rule_name(prefix, "from", str(j)) for j in nexts(-1))
        if not first:
            return self.add(prefix, '"{" ws "}"')
        inner = f"( {first} )" + ("?" if may_end(-1) else "")
        return self.add(prefix, f'"{{" ws {inner} ws "}}"')


def reply_grammar(registry: ToolRegistry, *, answer_only: bool = False) -> str:
    """GBNF: prose (first character not ``{``) or one call to a tool of ``registry``."""
    rules = _Rules()
    calls = []
    for spec in registry:
        args = rules.object(_rule_name("args", spec.name), spec.parameters_schema()) \
            if spec.params else rules.add(_rule_name("args", spec.name), '"{" ws "}"')
        calls.append(rules.add(_rule_name("call", spec.name),
                               f'{_lit(json.dumps(spec.name))} ws "," ws "\\"arguments\\"" ws ":" ws {args}'))
    prose = 'prose ::= [^{ \\t\\n] [^\\x00]*'
    if answer_only or not calls:
        return "root ::= prose\n" + prose
    call = 'call ::= "{" ws "\\"name\\"" ws ":" ws ( ' + " | ".join(calls) + ' ) ws "}"'
    lines = ["root ::= call | prose", prose, call, *(f"{k} ::= {v}" for k, v in rules.rules.items()), _BASE]
    return "\n".join(lines)


# What ``_Rules`` writes exactly: the keywords it reads, and annotations that constrain nothing. A schema
# with any other keyword (a pattern, a minimum, a $ref, a nested anyOf, ...) is left to the server's own
# converter (``response_format``), which knows them all.
_ANNOTATIONS = frozenset({"description", "title", "default", "examples", "$comment", "deprecated"})
_READ = frozenset({"type", "const", "enum", "properties", "required", "additionalProperties", "items"}) | _ANNOTATIONS
_TYPES = frozenset({"string", "integer", "number", "boolean", "null", "array", "object"})


def _exact(schema: Any) -> bool:
    """Does ``_Rules.value`` allow exactly what ``schema`` allows?"""
    if not isinstance(schema, dict) or not set(schema) <= _READ:
        return False
    kind, props, extra = schema.get("type"), schema.get("properties"), schema.get("additionalProperties", False)
    if "enum" in schema and not (isinstance(schema["enum"], list) and schema["enum"]):
        return False
    if kind is not None and kind not in _TYPES:  # a list of types among them
        return False
    if props is not None:  # only declared properties (llama.cpp's converter reads a missing
        # additionalProperties the same way), the required ones among them
        return (kind == "object" and isinstance(props, dict) and extra is False
                and set(schema.get("required") or []) <= set(props) and all(map(_exact, props.values())))
    if extra not in (True, False) or "required" in schema and schema["required"]:
        return False
    return "items" not in schema or _exact(schema["items"])


def _branches(schema: dict[str, Any]) -> list[dict[str, Any]]:
    return schema["anyOf"] if set(schema) == {"anyOf"} else [schema]


def schema_opening(schema: dict[str, Any]) -> str:
    """The text every reply to ``schema`` begins with, when its branches all open with the same required key
    holding a constant string: ``{"tool": "`` for the tool-first shape's first step. "" otherwise (after a
    result, ``{"answer"`` and ``{"tool"`` part after ``{"``).

    The grammar forces these tokens, yet the model still decodes them one by one (~18 ms each for the 0.5B
    model on 2 cores); sent as the start of the assistant's reply, they are read with the prompt instead."""
    firsts = [next(iter((b.get("properties") or {}).items()), None) for b in _branches(schema)]
    if not firsts or any(f is None for f in firsts) or len({f[0] for f in firsts}) != 1:
        return ""
    key = firsts[0][0]
    if not all(isinstance(sub.get("const"), str) for _, sub in firsts) \
            or not all(key in (b.get("required") or []) for b in _branches(schema)):
        return ""
    return "{" + json.dumps(key) + ': "'


def schema_grammar(schema: dict[str, Any], *, after_opening: bool = False) -> str | None:
    """A reply schema of design (a) (one object, or ``anyOf`` objects) as a compact GBNF grammar: the same
    keys in the same order, required and optional, types, enums and consts, with at most one space where
    JSON allows whitespace and never a newline. None when the schema says more than ``_Rules`` writes.

    ``after_opening``: the grammar of what follows ``schema_opening(schema)`` (sent as the reply's opening), so
    the model writes the rest of the same replies and nothing else.

    llama-server's own converter (``response_format``) lets the model indent: the 0.5B model often wrote
    a call over six lines, 33 tokens instead of 21."""
    branches = _branches(schema)
    if not all(_exact(b) and b.get("type") == "object" and b.get("properties") for b in branches):
        return None
    if after_opening and not schema_opening(schema):
        return None
    rules = _Rules()
    alternatives = [rules.object(_rule_name("reply", str(i)), b) for i, b in enumerate(branches)]
    if after_opening:
        alternatives = [_after_opening(rules, name, b) for name, b in zip(alternatives, branches)]
    return "\n".join(["root ::= " + " | ".join(alternatives), *(f"{k} ::= {v}" for k, v in rules.rules.items()),
                      _BASE])


def _after_opening(rules: _Rules, name: str, branch: dict[str, Any]) -> str:
    """The rule for ``branch`` with its opening (``{``, its first key and the quote of that key's constant
    string) already written: the constant's own text, then the rest of the object as ``_Rules.object`` wrote it."""
    key, sub = next(iter(branch["properties"].items()))
    value = json.dumps(sub["const"])
    first = rules.rules[_rule_name(name, "from", "0")]
    opening = f'{_lit(json.dumps(key))} ws ":" ws {_lit(value)}'
    assert first.startswith(opening), first  # how _Rules.object writes a required first property
    return rules.add(_rule_name(name, "after", "opening"), f'{_lit(value[1:])}{first[len(opening):]} ws "}}"')


def open_string_grammar(then: tuple[str, ...] = (), options: tuple[str, ...] = ()) -> str:
    """What follows an opening that ends inside a JSON string of a call's arguments: the rest of that string (one
    of ``options`` when given, else any text), the string arguments ``then`` names in order, and the arguments'
    and the reply's closing braces (``call_opening``)."""
    more = "".join(f' ws "," ws {_lit(json.dumps(key))} ws ":" ws string' for key in then)
    rest = f"( {' | '.join(_lit(json.dumps(o)[1:-1]) for o in options)} )" if options else f"( {_CHAR} )*"
    return (f'root ::= {rest} "\\""{more} ws "}}" ws "}}"\nws ::= [ ]?\n'
            f'string ::= "\\"" ( {_CHAR} )* "\\""')


class GrammarReplies:
    """Design (b): prose or one JSON call, held to a GBNF grammar (llama-server ``grammar``)."""

    design = "gbnf"
    response_format_text: str | None = None  # the free-text format fits: prose, or one JSON call
    forces_calls = False
    after_result: str | None = None

    def __init__(self, registry: ToolRegistry, fallback_parse: Callable[[ChatResult], Reply]) -> None:
        self._registry = registry
        self._fallback = fallback_parse
        self._grammar: str | None = None
        self._names: tuple[str, ...] = ()

    def request_extra(self, tools: list[dict[str, Any]] | None, *, forced: bool = False,
                      calls_only: bool = False, has_result: bool = False) -> dict[str, Any]:
        if forced:
            return {"grammar": reply_grammar(self._registry, answer_only=True)}
        names = tuple(self._registry.names())
        if self._grammar is None or names != self._names:
            self._grammar, self._names = reply_grammar(self._registry), names
        return {"grammar": self._grammar}

    def reply_opening(self, *, forced: bool = False, calls_only: bool = False, has_result: bool = False) -> str:
        return ""  # prose or a call: no opening is shared

    def call_opening(self, tool: str, arguments: dict[str, str], writes: tuple[str, ...],
                     start: str, options: tuple[str, ...] = ()) -> tuple[str, dict[str, Any]] | None:
        return None  # its replies may be prose

    def holds(self, head: str) -> bool:
        return head.startswith("{")

    def view(self) -> HoldingView:
        return _ProseView(self, self._registry.names)

    def parse(self, result: ChatResult) -> Reply:
        text = (result.content or "").strip()
        if text.startswith("{"):
            try:
                value = json.loads(text)
            except ValueError:
                return self._fallback(result)
            if isinstance(value, dict) and isinstance(value.get("name"), str) \
                    and isinstance(value.get("arguments"), dict):
                return Reply((ToolCall(new_call_id(), value["name"], value["arguments"],
                                       source="text"),), "")
            return self._fallback(result)
        return Reply((), text)


class _ProseView(HoldingView):
    """Prose streams as it comes, once its first sentence is complete and no guard of the judge catches it."""

    def __init__(self, mode: GrammarReplies, tool_names: Callable[[], list[str]]) -> None:
        super().__init__(mode, tool_names=tool_names)

    def feed(self, delta: str) -> str:
        if not self._holding:
            return delta
        self._held += delta
        head = self._held.lstrip()
        if not head or head.startswith("{"):
            return ""
        if hiding_guard(head, Evidence(tuple(self._tool_names()))) is not None:
            return ""  # held to the end; the loop asks again or answers from the results
        if first_sentence_pending(head):
            return ""
        self._holding = False
        out, self._held = self._held, ""
        return out
