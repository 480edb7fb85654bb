"""The text-call parser on real-world small-model output (Qwen2.5-Coder on llama-server and friends)."""

from __future__ import annotations

import pytest

from gaia_lite.llm.textcalls import parse_text_calls, strip_think

KNOWN = {"read_file", "browse_directory", "get_weather", "run_shell_command", "search_file",
         "analyze_data_file", "remember"}

# (id, model output, expected [(name, args)], expected leftover text or None to skip)
CASES = [
    ("bare-json", '{"name": "browse_directory", "arguments": {"directory_path": "."}}',
     [("browse_directory", {"directory_path": "."})], ""),
    ("json-fence", '```json\n{"name": "read_file", "arguments": {"file_path": "notes.md"}}\n```',
     [("read_file", {"file_path": "notes.md"})], ""),
    ("fence-no-lang", '```\n{"name": "read_file", "arguments": {"file_path": "a.txt"}}\n```',
     [("read_file", {"file_path": "a.txt"})], ""),
    ("tool-call-tags", '<tool_call>\n{"name": "get_weather", "arguments": {"city": "London"}}\n</tool_call>',
     [("get_weather", {"city": "London"})], ""),
    ("unterminated-tag", '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}',
     [("get_weather", {"city": "Paris"})], ""),
    ("gaia-planning", '{"thought": "need the file", "goal": "read", "tool": "read_file", "tool_args": {"file_path": "x.md"}}',
     [("read_file", {"file_path": "x.md"})], ""),
    ("prose-then-json", 'Sure, let me look.\n{"name": "search_file", "arguments": {"file_pattern": "*.pdf"}}',
     [("search_file", {"file_pattern": "*.pdf"})], "Sure, let me look."),
    ("json-then-trailing-text", '{"name": "read_file", "arguments": {"file_path": "a"}} I will now read it.',
     [("read_file", {"file_path": "a"})], "I will now read it."),
    ("two-calls", '{"name": "read_file", "arguments": {"file_path": "a"}}\n{"name": "read_file", "arguments": {"file_path": "b"}}',
     [("read_file", {"file_path": "a"}), ("read_file", {"file_path": "b"})], ""),
    ("two-tagged-calls", '<tool_call>{"name":"remember","arguments":{"fact":"x"}}</tool_call><tool_call>{"name":"remember","arguments":{"fact":"y"}}</tool_call>',
     [("remember", {"fact": "x"}), ("remember", {"fact": "y"})], ""),
    ("list-of-calls", '[{"name": "read_file", "arguments": {"file_path": "a"}}, {"name": "search_file", "arguments": {"file_pattern": "b"}}]',
     [("read_file", {"file_path": "a"}), ("search_file", {"file_pattern": "b"})], ""),
    ("arguments-as-string", '{"name": "read_file", "arguments": "{\\"file_path\\": \\"a.md\\"}"}',
     [("read_file", {"file_path": "a.md"})], ""),
    ("trailing-comma", '{"name": "read_file", "arguments": {"file_path": "a.md",},}',
     [("read_file", {"file_path": "a.md"})], ""),
    ("single-quotes-python-dict", "{'name': 'read_file', 'arguments': {'file_path': 'a.md'}}",
     [("read_file", {"file_path": "a.md"})], ""),
    ("parameters-key", '{"name": "get_weather", "parameters": {"city": "Oslo"}}',
     [("get_weather", {"city": "Oslo"})], ""),
    ("openai-shaped", '{"type": "function", "function": {"name": "read_file", "arguments": {"file_path": "z"}}}',
     [("read_file", {"file_path": "z"})], ""),
    ("think-block-stripped", '<think>I should read it</think>{"name": "read_file", "arguments": {"file_path": "t"}}',
     [("read_file", {"file_path": "t"})], ""),
    ("python-call-syntax", 'read_file(file_path="report.md")', [("read_file", {"file_path": "report.md"})], ""),
    ("python-fence", '```python\nrun_shell_command(command="ls -la")\n```',
     [("run_shell_command", {"command": "ls -la"})], ""),
    ("truncated-json", '{"name": "read_file", "arguments": {"file_path": "a.md"',
     [("read_file", {"file_path": "a.md"})], None),
    ("true-false-null-literals", '{"name": "search_file", "arguments": {"file_pattern": "x", "deep_search": true, "file_types": null}}',
     [("search_file", {"file_pattern": "x", "deep_search": True, "file_types": None})], ""),
    ("nested-braces-in-string", '{"name": "remember", "arguments": {"fact": "use {curly} braces"}}',
     [("remember", {"fact": "use {curly} braces"})], ""),
    ("hallucinated-tool-still-returned", '{"name": "add", "arguments": {"a": 2, "b": 2}}',
     [("add", {"a": 2, "b": 2})], ""),
    ("name-only-known-tool", '{"name": "browse_directory"}', [("browse_directory", {})], ""),
    ("empty-arguments-string", '{"name": "browse_directory", "arguments": ""}', [("browse_directory", {})], ""),
]


@pytest.mark.parametrize("content, expected, rest", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_calls_are_lifted(content, expected, rest):
    parsed = parse_text_calls(content, KNOWN)
    assert [(c.name, c.arguments) for c in parsed.calls] == expected
    assert all(c.source == "text" and c.id.startswith("call_") for c in parsed.calls)
    if rest is not None:
        assert parsed.text == rest


@pytest.mark.parametrize("content", [
    "The capital of France is Paris.",
    'Here is the data you asked for: {"name": "Alice", "age": 31}',  # a data object, not a call
    "15% of 200 is 30.",
    "```bash\nls -la\n```\nRun that to list files.",
])
def test_plain_answers_are_not_calls(content):
    parsed = parse_text_calls(content, KNOWN)
    assert parsed.calls == ()


def test_planning_answer_is_returned_as_answer():
    parsed = parse_text_calls('{"thought": "done", "goal": "x", "answer": "Paris is the capital."}', KNOWN)
    assert parsed.calls == () and parsed.answer == "Paris is the capital."


def test_strip_think_handles_unterminated_block():
    assert strip_think("<think>hmm</think>Answer") == "Answer"
    assert strip_think("Answer<think>still thinking") == "Answer"
