"""Worked examples (loader/worked.py): the shipped bank is sound and independent of the task suites, the
real MiniLM picks an example of the right tool for everyday requests and none for chit-chat, the loader
admits their tools and logs them, and the agent shows them in the user's message in the reply format's
shape (the cached prefix untouched)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gaia_lite.agent.loop import Agent, AgentOptions
from gaia_lite.agent.prompt import WORKED_HEADER, worked_block
from gaia_lite.eval.recall import doc_registry
from gaia_lite.eval.suite import builtin_suite_path, load_suite
from gaia_lite.llm.client import ChatClient
from gaia_lite.loader.bundles import load_bundles
from gaia_lite.loader.documents import load_examples
from gaia_lite.loader.loader import ToolLoader
from gaia_lite.loader.presets import LOOP_CONTROL, PRESETS
from gaia_lite.loader.worked import NO_TOOL, WorkedExample, WorkedPick, call_json, load_worked, parse_worked
from gaia_lite.registry.execute import validate_arguments
from tests.agent.wiring import doc_stack
from tests.fakes.openai_server import FakeOpenAIServer, text_chunks

BANK = load_worked("doc")
SUITES = ("builtin.json", "holdout.json", "holdout2.json", "holdout3.json")


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9']+", text.lower())


def _grams(text: str, n: int = 5) -> set[tuple[str, ...]]:
    w = _words(text)
    return {tuple(w[i:i + n]) for i in range(len(w) - n + 1)}


def test_the_bank_covers_the_doc_tools_with_calls_they_accept() -> None:
    registry, *_ = doc_registry()
    assert len(BANK) >= 50
    for ex in BANK:
        if ex.tool == NO_TOOL:
            assert not ex.arguments and not ex.shown, ex.request
            continue
        assert ex.tool in registry, f"example {ex.request!r} calls {ex.tool}, which is no doc tool"
        _, error = validate_arguments(registry.get(ex.tool), dict(ex.arguments))
        assert error is None, f"example {ex.request!r}: {error}"
    # every tool a small model confuses with a look-alike has examples
    for tool in ("search_file_content", "edit_file", "analyze_data_file", "search_file", *LOOP_CONTROL):
        assert sum(e.tool == tool for e in BANK) >= 2, tool


def test_no_bank_request_shares_five_words_in_a_row_with_a_suite_prompt() -> None:
    """The bank is written from the tools' purposes; a suite prompt copied into it would make the suites
    measure recall of the bank, not the agent."""
    folder = builtin_suite_path().parent
    prompts = [t.prompt for name in SUITES for task in load_suite(folder / name).tasks for t in task.turns]
    assert len(prompts) > 100
    suite_grams = set().union(*(_grams(p) for p in prompts))
    shared = {ex.request: sorted(" ".join(g) for g in _grams(ex.request) & suite_grams) for ex in BANK}
    assert not {r: g for r, g in shared.items() if g}, "bank requests copy suite wording"


def test_a_bank_entry_without_a_tool_is_refused_with_its_place() -> None:
    with pytest.raises(ValueError, match=r"x.toml: example 2: `tool` must be a tool name"):
        parse_worked({"example": [{"request": "a b", "tool": "read_file"}, {"request": "c d"}]}, source="x.toml")


def test_a_call_is_written_in_the_reply_formats_shape() -> None:
    pick = WorkedPick(WorkedExample("set retries to 5 in app.ini", "edit_file",
                                    {"file_path": "app.ini", "old_content": "retries = 3", "new_content": "retries = 5"}),
                      0.6)
    block = worked_block([pick], key="tool")
    header, line = block.splitlines()
    assert header == WORKED_HEADER
    request, call = line.split(" -> ")
    assert request == '- "set retries to 5 in app.ini"'
    assert json.loads(call) == {"tool": "edit_file", "arguments": {"file_path": "app.ini", "old_content": "retries = 3",
                                                                   "new_content": "retries = 5"}}
    assert worked_block([]) == ""
    assert json.loads(call_json("read_file", {"file_path": "a.md"})) == {"name": "read_file",
                                                                          "arguments": {"file_path": "a.md"}}


def _loader(minilm, preset: str = "examples") -> ToolLoader:
    config = load_bundles("doc")
    settings = PRESETS[preset]
    return ToolLoader(config.core, config.bundles, minilm, settings=settings, examples=load_examples("doc"),
                      worked=BANK if settings.worked else ())


@pytest.mark.parametrize("message, tool", [
    ("which notes mention the plumber?", "search_file_content"),
    ("list the TODO comments in my code", "search_file_content"),
    ("change the port in config.ini to 9090", "edit_file"),
    ("how much did we spend on groceries in budget.csv", "analyze_data_file"),
    ("how many .txt files are in docs including subfolders", "search_file"),
    ("pause for now", "set_loop_state"),
])
def test_an_everyday_request_gets_an_example_of_the_tool_that_serves_it(minilm, message: str, tool: str) -> None:
    registry, *_ = doc_registry()
    sel = _loader(minilm).select(message, registry)
    assert sel.examples and sel.examples[0].example.tool == tool, [(p.example.tool, p.score) for p in sel.examples]
    assert tool in sel.loaded


@pytest.mark.parametrize("message", ["what is the capital of France?", "write me a haiku about rain",
                                     "who was the first person on the moon", "tell me a joke",
                                     "how do spreadsheets work", "define regex"])
def test_chit_chat_gets_no_example_and_no_loop_control(minilm, message: str) -> None:
    registry, *_ = doc_registry()
    sel = _loader(minilm).select(message, registry)
    assert sel.examples == ()
    assert not set(LOOP_CONTROL) & set(sel.loaded)


def test_loop_control_leaves_core_in_the_default_preset_only(minilm) -> None:
    registry, *_ = doc_registry()
    assert set(LOOP_CONTROL) <= load_bundles("doc").core
    assert not set(LOOP_CONTROL) & _loader(minilm).core
    gaia = _loader(minilm, "gaia")
    assert set(LOOP_CONTROL) <= gaia.core and gaia.worked.examples == ()
    assert set(LOOP_CONTROL) <= set(gaia.select("what is the capital of France?", registry).loaded)


def test_the_loader_line_names_the_tools_an_example_brought(minilm, caplog: pytest.LogCaptureFixture) -> None:
    registry, *_ = doc_registry()
    caplog.set_level("INFO", logger="gaia_lite.loader")
    sel = _loader(minilm).select("pause for now", registry)
    payload = json.loads(caplog.records[-1].getMessage().split(" ", 1)[1])
    assert payload["example"] == ["set_loop_state"] and sel.reasons["set_loop_state"] == "example"
    keys = list(payload)
    assert keys.index("example") == keys.index("loaded") + 1  # after loaded, in tier order


def test_the_agent_shows_the_examples_before_the_message_after_the_cached_prefix(tmp_path: Path, minilm) -> None:
    stack = doc_stack(_loader(minilm), tmp_path, native=False)
    with FakeOpenAIServer() as srv:
        srv.script += [text_chunks("ok"), text_chunks("ok")]
        agent = Agent(ChatClient(srv.base_url), stack.registry, stack.executor, stack.selector,
                      AgentOptions(native_tools=False, workdir=tmp_path, max_steps=2))
        list(agent.run("hey what's 17 times 3"))
        list(agent.run("how much did we spend on groceries in budget.csv"))
    first, second = srv.requests
    assert WORKED_HEADER not in first["messages"][-1]["content"]
    user = second["messages"][-1]["content"]
    block, message = user.split("\n\n")[-2:]
    assert block.startswith(WORKED_HEADER) and '"name": "analyze_data_file"' in block
    assert message == "how much did we spend on groceries in budget.csv"
    assert second["messages"][0] == first["messages"][0]  # the system prompt is the same bytes


def test_a_tool_the_conversation_already_called_gets_no_example(tmp_path: Path, minilm) -> None:
    """Its real call is in the history: an example would cost every later turn tokens and teach nothing."""
    stack = doc_stack(_loader(minilm), tmp_path, native=False)
    agent = Agent(ChatClient("http://127.0.0.1:9/v1"), stack.registry, stack.executor, stack.selector,
                  AgentOptions(native_tools=False, workdir=tmp_path))
    state = stack.selector.select([], "how much did we spend on groceries in budget.csv")
    assert WORKED_HEADER in agent.turn_message(state, "how much did we spend on groceries in budget.csv")
    agent.history += [{"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "analyze_data_file",
                                                      "arguments": '{"file_path": "budget.csv"}'}}]},
                      {"role": "tool", "tool_call_id": "c1", "content": "rows: 12"}]
    assert WORKED_HEADER not in agent.turn_message(state, "and on fuel?")


def test_a_request_the_model_serves_well_gets_no_example(minilm) -> None:
    """Anchors (examples of tools outside the bank's `taught` list) win retrieval for plain requests, so
    "list the files in this folder" costs no example tokens, and bring no tool."""
    registry, *_ = doc_registry()
    assert any(not e.shown for e in BANK) and all(e.shown for e in BANK if e.tool == "search_file_content")
    sel = _loader(minilm).select("list the files in this folder", registry)
    assert sel.examples == () and "example" not in sel.reasons.values()


def test_a_learned_example_is_shown_only_for_a_tool_the_bank_teaches() -> None:
    from gaia_lite.loader.worked import with_learned

    mine = [WorkedExample("list the files in this folder", "browse_directory", {"directory_path": "/tmp/fb"}, True),
            WorkedExample("which notes mention the vet?", "search_file_content", {"pattern": "vet"}, True)]
    bank = with_learned(BANK, mine)
    assert bank[:len(BANK)] == BANK
    assert [e.shown for e in bank[len(BANK):]] == [False, True]


def test_a_later_turn_shows_one_example_at_most(minilm) -> None:
    """Each example is text the server prefills on its turn; after the first turn, one is enough."""
    registry, *_ = doc_registry()
    loader = _loader(minilm)
    assert PRESETS["default"].later_worked == 1
    loader.select("hey what's 17 times 3", registry)
    two = "change the port in config.ini to 9090 and then pause"
    later = loader.select(two, registry)
    first = _loader(minilm).select(two, registry)
    assert len(first.examples) == 2 and len(later.examples) == 1


def test_a_learned_example_is_shown_only_for_the_messages_best_scored_tool(minilm) -> None:
    """A turn is learned when its tool ran, not when its answer was right: a grep for 'notes.md' to answer
    "what does notes.md say?" must not become the example shown for that request."""
    registry, *_ = doc_registry()
    config = load_bundles("doc")
    mine = [WorkedExample("what does notes.md say?", "search_file_content", {"pattern": "notes.md"}, True),
            WorkedExample("which notes mention the vet?", "search_file_content", {"pattern": "vet"}, True)]
    from gaia_lite.loader.worked import with_learned

    loader = ToolLoader(config.core, config.bundles, minilm, settings=PRESETS["examples"],
                        examples=load_examples("doc"), worked=with_learned(BANK, mine))
    loader.reset_session()
    wrong = loader.select("what does notes.md say?", registry)
    assert all(not p.example.learned for p in wrong.examples)
    loader.reset_session()
    right = loader.select("which notes mention the vet?", registry)
    assert right.examples and right.examples[0].example.request == "which notes mention the vet?"


def test_the_default_preset_lets_examples_bring_their_tools_but_shows_none(minilm) -> None:
    """Shown, the 0.5B copied the examples (built-in test split 20/32 with them, 24/32 without)."""
    registry, *_ = doc_registry()
    assert PRESETS["default"].show_worked is False and PRESETS["examples"].show_worked is True
    sel = _loader(minilm, "default").select("pause for now", registry)
    assert sel.examples == () and sel.reasons["set_loop_state"] == "example"


@pytest.mark.parametrize("message, tool, arguments", [
    ("list the files in this folder", "browse_directory", {"directory_path": "."}),
    ("show me my files", "browse_directory", {"directory_path": "."}),
    ("what OS am I on?", "get_system_info", {}),
    ("which programs have windows up at the moment?", "list_windows", {}),
])
def test_a_request_a_call_that_takes_nothing_serves_gets_that_call_as_sure(minilm, message: str, tool: str,
                                                                            arguments: dict) -> None:
    registry, *_ = doc_registry()
    sel = _loader(minilm, "default").select(message, registry)
    assert sel.sure is not None, f"{message!r} got no sure call"
    assert (sel.sure.example.tool, dict(sel.sure.example.arguments)) == (tool, arguments)
    assert sel.sure.score >= PRESETS["default"].first_call


@pytest.mark.parametrize("message", [
    "Which file in this folder mentions a blue heron?",   # near the listing (0.49), but a content search
    "what's in the invoices folder?",                     # its example's call takes the folder from the request
    "which files do you have now?",                       # the index's, not this folder's
    "what is the capital of France?",
    "Use the shell to find how many .txt files are in this folder.",
])
def test_a_request_whose_call_needs_its_words_or_no_call_has_no_sure_call(minilm, message: str) -> None:
    registry, *_ = doc_registry()
    sel = _loader(minilm, "default").select(message, registry)
    assert sel.sure is None, (message, sel.sure)


def test_the_gaia_preset_never_offers_a_sure_call(minilm) -> None:
    registry, *_ = doc_registry()
    assert PRESETS["gaia"].first_call is None
    assert _loader(minilm, "gaia").select("list the files in this folder", registry).sure is None


def test_a_sure_call_must_be_nearer_than_every_other_tools_example() -> None:
    import numpy as np

    from gaia_lite.loader.worked import WorkedBank

    here = WorkedExample("show me what files are here", "browse_directory", {"directory_path": "."})
    near = WorkedExample("find files named x", "search_file", {"file_pattern": "x"})
    bank = WorkedBank([here, near], embedder=None, cache=None)  # type: ignore[arg-type]
    query = np.array([1.0, 0.0], dtype=np.float32)  # request vectors set by hand: their first value is the cosine
    bank._matrix = np.array([[0.70, 0.71], [0.66, 0.75]], dtype=np.float32)  # cosines 0.70 and 0.66 to the query
    assert bank.sure_pick(query, cosine=0.55, margin=0.07) is None, "0.04 ahead of search_file's example"
    bank._matrix = np.array([[0.70, 0.71], [0.50, 0.87]], dtype=np.float32)
    pick = bank.sure_pick(query, cosine=0.55, margin=0.07)
    assert pick is not None and pick.example is here
    assert bank.sure_pick(query, cosine=0.75, margin=0.07) is None, "under the cosine it needs"
    taking = WorkedExample("what's in the invoices folder?", "browse_directory", {"directory_path": "invoices"})
    bank = WorkedBank([taking, near], embedder=None, cache=None)  # type: ignore[arg-type]
    bank._matrix = np.array([[0.90, 0.44], [0.10, 0.99]], dtype=np.float32)
    assert bank.sure_pick(query, cosine=0.55, margin=0.07) is None, "its call takes the folder from its request"
