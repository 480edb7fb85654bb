"""Design (b)'s GBNF grammar: every rule it names is defined, tools and enums appear as literals,
prose is the other branch. (That llama-server parses and enforces it is measured by the task suite's
gbnf arm.)"""

from __future__ import annotations

import re
from typing import Literal, Optional

from gaia_lite.agent.grammar import GrammarReplies, reply_grammar
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
