"""The prompt layouts: what stays byte-identical between turns (the server's cached prefix) and where new
tools and recalled procedures go instead, on both render paths and in both layouts."""

from __future__ import annotations

from pathlib import Path

import pytest

from gaia_lite.agent.prefix import BRIDGE_NOTE, MORE_TOOLS_HEADER, PromptLayout, StableLayout, make_layout
from gaia_lite.agent.prompt import TOOLS_HEADER, PromptParts, compose_system_prompt
from gaia_lite.agent.selection import SelectionState
from gaia_lite.logline import SelectionRecord
from gaia_lite.registry.bridge import BRIDGE, bridge_schema
from gaia_lite.registry.registry import ToolRegistry
from gaia_lite.registry.render import compact_signature, render_native, short_summary
from gaia_lite.tools.catalog import doc_tool_specs

CORE = ("query_documents", "read_file", "recall", "remember")
MENU = "- files: find files\n- data: tables"
WD = "Working directory: /work\n\n"  # a composing turn names the folder in its message, not the system prompt


@pytest.fixture(scope="module")
def registry() -> ToolRegistry:
    return ToolRegistry(doc_tool_specs())


def _state(*extra: str) -> SelectionState:
    return SelectionState(tuple(sorted({*CORE, *extra})), MENU)


def _book(registry: ToolRegistry, *, native: bool, layout: str = "stable") -> PromptLayout:
    return make_layout(layout, registry, Path("/work"), native=native)


def test_text_path_system_prompt_is_written_once_and_new_tools_join_the_user_message(registry) -> None:
    book = _book(registry, native=False)
    first = _state("search_file")
    assert book.begin_turn(first, "find the handbook") == WD + "find the handbook"
    system = book.system(first)
    # turn 1 is the rewrite build's prompt with the tool lines left without ": string", and without the folder
    assert system == compose_system_prompt(PromptParts(Path("/work"), True, MENU, listed=True, workdir_line=False),
                                           registry, first.filter)
    assert "/work" not in system
    assert "- search_file(file_pattern, " in system and ": string" not in system
    second = _state("search_file", "analyze_data_file")
    content = book.begin_turn(second, "total revenue in sales.csv?")
    assert book.system(second) == system
    block, question = content.rsplit("\n\n", 1)
    assert question == "total revenue in sales.csv?"  # the question comes last, after the new tools
    spec = registry.get("analyze_data_file")
    # one compact line, as on the native path: later turns prefill every token of it
    assert block == f"{MORE_TOOLS_HEADER}\n- {compact_signature(spec)}: {short_summary(spec.summary)}"
    assert "search_file(" not in block  # only what is new
    assert book.begin_turn(second, "and by region?") == "and by region?"  # nothing new: nothing disclosed
    assert book.tools(second) is None
    assert isinstance(book, StableLayout) and book.recomposed == 1


def _record(scores: dict[str, float], **tiers: tuple[str, ...]) -> SelectionRecord:
    loaded = tuple(sorted(scores))
    return SelectionRecord(1, "sha", 0.2, 16, scores, (), (), loaded, (), (), loaded, tiers.get("skill", ()),
                           "hash", 1.0, requested=tiers.get("requested", ()))


def test_text_path_lists_the_tools_by_relevance_once_and_keeps_that_order() -> None:
    registry = ToolRegistry(doc_tool_specs(with_loader=True))
    scores = {"query_documents": 0.1, "read_file": 0.3, "recall": 0.2, "remember": 0.6, "load_tools": 0.9,
              "search_file": 0.4}
    first = SelectionState(tuple(sorted(scores)), MENU, record=_record(scores))
    book = _book(registry, native=False)
    book.begin_turn(first, "remember that my plate is KX-4821")
    listed = [line[2:].split("(")[0] for line in book.system(first).split(TOOLS_HEADER + "\n")[1].splitlines()]
    # the best match first (a small model takes the top of the list), load_tools last
    assert listed == ["remember", "search_file", "read_file", "recall", "query_documents", "load_tools"]
    later = {**scores, "remember": 0.0, "query_documents": 0.9}
    assert book.system(SelectionState(first.filter, MENU, record=_record(later))) == book.system(first)


def test_tools_the_user_named_come_first_whatever_their_score(registry) -> None:
    scores = {"read_file": 0.7, "recall": 0.5, "run_shell_command": 0.1}
    state = SelectionState(tuple(sorted(scores)), MENU, record=_record(scores, requested=("run_shell_command",)))
    book = _book(registry, native=False)
    book.begin_turn(state, "use the shell to count the lines")
    assert book.system(state).split(TOOLS_HEADER + "\n")[1].startswith("- run_shell_command(")
    core = {"recall": 0.6, "remember": 0.5}  # CORE tools are never in the REQUESTED tier: the words count
    named = SelectionState(tuple(sorted(core)), MENU, record=_record(core))
    book = _book(registry, native=False)
    book.begin_turn(named, "Remember this preference: I prefer tea")
    assert book.system(named).split(TOOLS_HEADER + "\n")[1].startswith("- remember(")


def test_native_tools_array_keeps_the_loaders_order(registry) -> None:
    scores = {"read_file": 0.1, "remember": 0.9}
    state = SelectionState(tuple(sorted(scores)), MENU, record=_record(scores))
    book = _book(registry, native=True)
    book.begin_turn(state, "remember this")
    assert [t["function"]["name"] for t in book.tools(state)][:2] == ["read_file", "remember"]


def test_native_path_tools_array_is_fixed_and_later_tools_go_through_the_bridge(registry) -> None:
    book = _book(registry, native=True)
    first = _state("search_file")
    assert book.begin_turn(first, "find the handbook") == WD + "find the handbook"
    before = book.tools(first)
    system = book.system(first)
    # turn 1: the loaded tools, then call_tool
    assert before == [*render_native(registry, first.filter), bridge_schema()]
    assert before[-1]["function"]["name"] == BRIDGE
    second = _state("search_file", "analyze_data_file")
    content = book.begin_turn(second, "total revenue?")
    assert book.tools(second) == before and book.system(second) == system  # byte-stable prefix
    block, question = content.rsplit("\n\n", 1)
    assert question == "total revenue?"
    # one compact line per new tool: its argument names and the summary's first words (this turn
    # prefills all of it)
    spec = registry.get("analyze_data_file")
    assert block == f"{BRIDGE_NOTE}\n- {compact_signature(spec)}: {short_summary(spec.summary)}"
    assert book.begin_turn(second, "by region?") == "by region?"  # disclosed once
    loaded = _state("search_file", "analyze_data_file", "read_clipboard")
    assert "- read_clipboard(" in book.after_load(loaded) and book.tools(loaded) == before


def test_append_layout_grows_the_native_tools_at_the_end_in_admission_order(registry) -> None:
    book = _book(registry, native=True, layout="append")
    first = _state("search_file")
    book.begin_turn(first, "find the handbook")
    before = book.tools(first)
    system = book.system(first)
    second = _state("search_file", "analyze_data_file")
    assert book.begin_turn(second, "total revenue?") == "total revenue?"  # native: nothing in the message
    after = book.tools(second)
    assert after[:len(before)] == before  # the old tools are a prefix
    assert [t["function"]["name"] for t in after[len(before):]] == ["analyze_data_file"]
    assert book.system(second) == system


def test_an_eviction_recomposes_and_keeps_the_surviving_order(registry) -> None:
    book = _book(registry, native=True)
    book.begin_turn(_state("search_file", "browse_directory"), "q1")
    book.begin_turn(_state("search_file", "browse_directory", "analyze_data_file"), "q2")
    evicted = _state("search_file", "analyze_data_file")  # browse_directory fell out at the cap
    assert book.begin_turn(evicted, "q3") == WD + "q3"
    names = [t["function"]["name"] for t in book.tools(evicted)]
    assert "browse_directory" not in names and names[-1] == BRIDGE
    assert "analyze_data_file" in names  # recomposed: the tools array declares every loaded tool again
    assert names.index("search_file") < names.index("analyze_data_file")  # survivors keep their order
    assert isinstance(book, StableLayout) and book.recomposed == 2


def test_procedures_ride_with_the_user_message_in_the_stable_layout(registry) -> None:
    book = _book(registry, native=False)
    state = _state()
    content = book.begin_turn(state, "q", ("## Recalled procedures\n### p1",))
    assert content == WD + "q\n\n## Recalled procedures\n### p1"
    assert "Recalled procedures" not in book.system(state)


def test_rewrite_layout_is_gaias(registry) -> None:
    book = _book(registry, native=False, layout="rewrite")
    first = _state("search_file")
    assert book.begin_turn(first, "q", ("## Recalled procedures",)) == "q"
    assert "## Recalled procedures" in book.system(first)
    second = _state("search_file", "analyze_data_file")
    assert book.begin_turn(second, "q2") == "q2"
    assert book.system(second) == compose_system_prompt(PromptParts(Path("/work"), True, MENU), registry,
                                                        second.filter)
    native = _book(registry, native=True, layout="rewrite")
    assert native.tools(second) == render_native(registry, second.filter)  # sorted, recomposed


def test_with_no_filter_both_layouts_send_the_legacy_prompt(registry) -> None:
    full = SelectionState(None, None, frozenset({"load_tools"}))
    legacy = compose_system_prompt(PromptParts(Path("/work"), True, None), registry, None,
                                   exclude=frozenset({"load_tools"}))
    for layout in ("stable", "rewrite", "append"):
        book = _book(registry, native=False, layout=layout)
        assert book.begin_turn(full, "hi") == "hi"
        assert book.system(full) == legacy
        nat = _book(registry, native=True, layout=layout)
        nat.begin_turn(full, "hi")
        assert nat.tools(full) == render_native(registry, full.visible_names(registry))


def test_a_mid_turn_load_is_disclosed_in_the_tool_result_on_the_text_path(registry) -> None:
    book = _book(registry, native=False)
    book.begin_turn(_state(), "copy this")
    loaded = _state("read_clipboard", "write_clipboard")
    extra = book.after_load(loaded)
    assert extra.startswith(MORE_TOOLS_HEADER) and "write_clipboard(" in extra
    assert book.after_load(loaded) == ""  # disclosed once
    assert _book(registry, native=False, layout="rewrite").after_load(loaded) == ""


def test_reset_starts_a_new_prompt(registry) -> None:
    book = _book(registry, native=False)
    book.begin_turn(_state(), "q")
    book.begin_turn(_state("search_file"), "q2")
    book.reset()
    assert book.begin_turn(_state("search_file"), "q3") == WD + "q3"  # composed afresh, nothing to disclose
    assert "search_file(" in book.system(_state("search_file"))


def test_unknown_layout_is_refused(registry) -> None:
    with pytest.raises(ValueError, match="layout must be one of"):
        _book(registry, native=True, layout="sorted")
