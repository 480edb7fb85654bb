"""Design (b)'s GBNF grammar: every rule it names is defined, tools and enums appear as literals,
prose is the other branch. (That llama-server parses and enforces it is measured by the task suite's
gbnf arm.) And design (a)'s reply schema as a compact grammar, checked here by what it admits (the
real llama-server runs it in tests/integration/test_compact_grammar_real.py)."""

from __future__ import annotations

import json
import re
from typing import Literal, Optional

import pytest

from gaia_lite.agent.grammar import GrammarReplies, reply_grammar, schema_grammar
from gaia_lite.agent.replies import FreeReplies
from gaia_lite.messages import ChatResult
from gaia_lite.registry import ToolRegistry, tool


@tool
def analyze_data_file(ctx, file_path: str, analysis_type: Literal["summary", "full"] = "summary",
                      columns: Optional[str] = None, limit: int = 10) -> dict:
    """Totals.

    Args:
        file_path: The CSV.
        analysis_type: Kind.
        columns: Columns.
        limit: Rows.
    """
    return {}


@tool
def get_system_info(ctx) -> dict:
    """System info."""
    return {}


def _referenced(grammar: str) -> tuple[set[str], set[str]]:
    defined, used = set(), set()
    for line in grammar.splitlines():
        name, _, body = line.partition(" ::= ")
        defined.add(name.strip())
        body = re.sub(r'"(\\.|[^"\\])*"', " ", body)  # drop literals
        body = re.sub(r"\[(\\.|[^\]\\])*\]", " ", body)  # drop character classes
        used |= set(re.findall(r"[a-z][a-z0-9-]*", body))
    return defined, used


def test_every_rule_the_grammar_names_is_defined() -> None:
    grammar = reply_grammar(ToolRegistry([analyze_data_file, get_system_info]))
    defined, used = _referenced(grammar)
    assert used <= defined, used - defined
    assert grammar.startswith("root ::= call | prose")
    assert '"\\"analyze_data_file\\""' in grammar and '"\\"full\\""' in grammar  # names and enums as literals


def test_only_the_required_field_is_required() -> None:
    grammar = reply_grammar(ToolRegistry([analyze_data_file]))
    rules = dict(line.split(" ::= ", 1) for line in grammar.splitlines())
    start = rules["args-analyze-data-file"]
    assert "args-analyze-data-file-from-0 )" in start and ")?" not in start  # file_path cannot be skipped
    assert rules["args-analyze-data-file-from-3"].startswith('"\\"limit\\"" ws ":" ws integer')


def test_forced_replies_are_prose_only_and_parse_reads_both_branches() -> None:
    registry = ToolRegistry([analyze_data_file])
    assert reply_grammar(registry, answer_only=True).startswith("root ::= prose")
    mode = GrammarReplies(registry, FreeReplies(registry.names).parse)
    call = mode.parse(ChatResult('{"name": "analyze_data_file", "arguments": {"file_path": "s.csv"}}'))
    assert [(c.name, c.arguments) for c in call.calls] == [("analyze_data_file", {"file_path": "s.csv"})]
    assert mode.parse(ChatResult("The total is 270.")).text == "The total is 270."


# --- design (a)'s schema as a compact grammar (schema_grammar), for a server that honours `grammar` ---

def _matcher(grammar: str) -> re.Pattern[str]:
    """The grammar as one regular expression (its rules here are not recursive), to check what it admits."""
    rules = dict(line.split(" ::= ", 1) for line in grammar.splitlines())
    token = re.compile(r'\s*("(?:\\.|[^"\\])*"|\[(?:\\.|[^\]\\])*\]|[a-z][a-z0-9-]*|[()|?*+])')

    def expand(name: str, depth: int = 0) -> str:
        assert depth < 40, f"{name} is recursive"
        out, body = [], rules[name].strip()
        for part in token.findall(body):
            if part.startswith('"'):
                out.append(re.escape(part[1:-1].encode().decode("unicode_escape")))
            elif part.startswith("[") or part in "|?*+)":
                out.append(part)
            elif part == "(":
                out.append("(?:")
            else:
                out.append("(?:" + expand(part, depth + 1) + ")")
        return "".join(out)

    return re.compile(expand("root"))


def _tool_first_grammar(registry: ToolRegistry, **kwargs) -> str:
    from gaia_lite.agent.constrained import TOOL_FIRST, reply_schema

    grammar = schema_grammar(reply_schema(registry, shape=TOOL_FIRST, **kwargs))
    assert grammar is not None
    return grammar


def test_the_reply_schema_as_a_grammar_is_compact_with_one_alternative_per_branch() -> None:
    grammar = _tool_first_grammar(ToolRegistry([analyze_data_file, get_system_info]))
    rules = dict(line.split(" ::= ", 1) for line in grammar.splitlines())
    assert rules["ws"] == "[ ]?"  # at most one space, never a newline or an indent
    assert not any("\\n" in body or "\\t" in body for body in rules.values())
    assert rules["root"] == "reply-0 | reply-1 | reply-2"  # the answer, then one call per tool
    defined, used = _referenced(grammar)
    assert used <= defined, used - defined
    match = _matcher(grammar).fullmatch
    call = {"tool": "analyze_data_file", "arguments": {"file_path": "s.csv", "analysis_type": "full"}}
    assert match(json.dumps(call)) and match(json.dumps(call, separators=(",", ":")))
    assert not match(json.dumps(call, indent=2)), "the indented call of the server's own conversion"
    assert match('{"tool": "none", "answer": "Paris."}') and match('{"tool":"get_system_info","arguments":{}}')


@pytest.mark.parametrize("reply", [
    '{"tool": "analyze_data_file", "arguments": {"analysis_type": "full"}}',  # file_path is required
    '{"tool": "analyze_data_file", "arguments": {"file_path": "s.csv", "analysis_type": "sum"}}',  # not an enum value
    '{"tool": "analyze_data_file", "arguments": {"file_path": "s.csv", "limit": "ten"}}',  # an integer
    '{"tool": "analyze_data_file", "arguments": {"limit": 3, "file_path": "s.csv"}}',  # the declared order
    '{"tool": "analyze_data_file", "arguments": {"file_path": "s.csv", "rows": 3}}',  # no other key
    '{"tool": "read_file", "arguments": {"file_path": "s.csv"}}',  # not a tool of the registry
    '{"tool": "get_system_info", "arguments": {"x": 1}}',  # it takes no arguments
    '{"answer": "Paris.", "tool": "none"}',
    '{"tool": "none", "answer": "Paris."} ',  # nothing after the reply
    '{"tool": "none",  "answer": "Paris."}',  # one space, not two
])
def test_the_grammar_keeps_the_schemas_rules(reply: str) -> None:
    assert not _matcher(_tool_first_grammar(ToolRegistry([analyze_data_file, get_system_info]))).fullmatch(reply)


def test_each_kind_of_reply_schema_has_its_grammar() -> None:
    registry = ToolRegistry([analyze_data_file])
    answer = _matcher(_tool_first_grammar(registry, answer_only=True)).fullmatch
    assert answer('{"tool": "none", "answer": "Hi."}') and not answer('{"tool": "analyze_data_file", "arguments": {}}')
    calls = _matcher(_tool_first_grammar(registry, calls_only=True)).fullmatch
    assert calls('{"tool":"analyze_data_file","arguments":{"file_path":"s.csv","limit":5}}')
    assert not calls('{"tool": "none", "answer": "Hi."}')
    after = _matcher(_tool_first_grammar(registry, has_result=True)).fullmatch
    assert after('{"answer": "The total is 270."}') and not after('{"tool": "none", "answer": "Hi."}')


def test_a_schema_that_says_more_than_the_grammar_writer_knows_has_no_grammar() -> None:
    exact = {"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]}
    assert schema_grammar(exact) is not None
    for more in ({"format": "uri"}, {"pattern": "^https?://"}, {"minLength": 1}):
        branch = {**exact, "properties": {"url": {"type": "string", **more}}}
        assert schema_grammar({"anyOf": [branch]}) is None, more
    assert schema_grammar({**exact, "additionalProperties": True}) is None  # the grammar allows no other key
    assert schema_grammar({"anyOf": [exact, {"$ref": "#/defs/x"}]}) is None


# --- the opening every reply shares, sent as the start of the assistant's message (schema_opening) ---

@pytest.mark.parametrize("kwargs", [{}, {"calls_only": True}, {"answer_only": True}])
def test_what_follows_the_opening_is_what_the_whole_grammar_allows_after_it(kwargs: dict) -> None:
    from gaia_lite.agent.constrained import TOOL_FIRST, reply_schema
    from gaia_lite.agent.grammar import schema_opening

    schema = reply_schema(ToolRegistry([analyze_data_file, get_system_info]), shape=TOOL_FIRST, **kwargs)
    opening = schema_opening(schema)
    assert opening == '{"tool": "'
    whole = _matcher(schema_grammar(schema)).fullmatch
    rest = _matcher(schema_grammar(schema, after_opening=True)).fullmatch
    replies = ['{"tool": "none", "answer": "Paris."}', '{"tool": "get_system_info", "arguments": {}}',
               '{"tool": "analyze_data_file", "arguments": {"file_path": "s.csv", "limit": 5}}',
               '{"tool": "analyze_data_file", "arguments": {"file_path": "s.csv", "analysis_type": "sum"}}',
               '{"tool": "read_file", "arguments": {"file_path": "s.csv"}}', '{"tool": "none"}']
    for reply in replies:
        assert bool(whole(reply)) == bool(rest(reply[len(opening):])), reply
    assert not rest('{"tool": "none", "answer": "Paris."}'), "the opening is not written twice"


def test_replies_that_part_at_their_first_key_have_no_opening() -> None:
    from gaia_lite.agent.constrained import TOOL_FIRST, reply_schema
    from gaia_lite.agent.grammar import schema_opening

    after_result = reply_schema(ToolRegistry([analyze_data_file]), shape=TOOL_FIRST, has_result=True)
    assert schema_opening(after_result) == ""  # {"answer" or {"tool"
    assert schema_grammar(after_result, after_opening=True) is None
    optional_first = {"type": "object", "properties": {"tool": {"const": "x"}}, "required": [],
                      "additionalProperties": False}
    assert schema_opening(optional_first) == "", "a reply may leave out a key that is not required"
