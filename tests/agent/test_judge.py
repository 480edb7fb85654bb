"""The judge on real replies, guard by guard: no server, no embedder.

Every reply below is one a Qwen2.5-Coder model gave (the loop tests, eval tasks and commit messages
quote them), or an answer that must stay an answer."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from gaia_lite.agent.judge import (
    GUARDS, Accept, AskAgain, Evidence, FromResults, HoldToCall, OnDraft, OnFinal, Reply, RunCalls, Stage,
    active, hiding_guard, judge, unknown_guards,
)
from gaia_lite.agent.judge.form import unknown_call
from gaia_lite.agent.replies import first_sentence_pending
from gaia_lite.messages import ToolCall
from gaia_lite.registry.execute import ToolResult, ToolStatus

TOOLS = ("read_file", "browse_directory", "list_recent_files", "recall", "search_file", "remember")
READ = ToolResult("read_file", "read_file", {"file_path": "notes.md"},
                  {"status": "success", "size_bytes": 1077, "lines": 35, "content": "buy milk"}, ToolStatus.OK, 0.1)
QUERY = "What is the capital of Italy?"
PACKAGE = 'package.json: {"name": "acme-web", "version": "2.1.0"}'  # an earlier turn's read


def _ev(*, result: ToolResult | None = None) -> Evidence:
    return Evidence(TOOLS, (result,) if result else (), result, (QUERY,))


def _draft(text: str, **kw) -> object:
    return judge(Reply((), text), _ev(**kw), Stage.DRAFT)


def _final(text: str, **kw) -> object:
    return judge(Reply((), text), _ev(**kw), Stage.FINAL)


# (guard, reply, what it is) — each reply is caught by that guard and no guard above it
CAUGHT = [
    ("result_echo", '{"status": "success", "entries": ["a.txt", "sub"]}', "a result echoed with its status"),
    ("result_echo", '{"size_bytes": 1077, "lines": 35, "content": "# Notes', "status dropped, cut off (47cf4c9)"),
    ("bare_tool_name", "list_recent_files", "only a tool's name"),
    ("bare_tool_name", "`read_file()`", "only a tool's name, quoted"),
    ("empty_answer", "none", "the tool-first shape's 'none' taken for the answer"),
    ("empty_answer", "N/A.", "'n/a'"),
    ("menu_copy", "list_recent_files(location?, file_types?, max_results?: integer, days?: integer): List files "
     "changed in the last few days, newest first.", "0.5B after browse_directory listed the folder"),
    ("narrated", "To list the files, use the `browse_directory` tool.", "a call described"),
    ("narrated", "You can use list_recent_files to see them.", "a call described"),
    ("copied_format", "The total is <your answer, from the result>.", "the format's slot inside a sentence"),
    ("format_only", "<your answer, in plain sentences>", "the 0.5B model on 'capital of Italy?'"),
    ("template", "The customer on the invoice is [Customer Name].", "a template"),
    ("template", "The top salesperson was [Salesperson Name], and they sold [Total Units] units.", "a template"),
    ("written_call", '{"name": "recall", "arguments": {"query": "revenue in Q3?", chunks (2): ["# Acme"]}}',
     "a call written as broken JSON (585add5)"),
    ("written_call", '{"tool": "recall", "arguments": {"query": "plate number", limit: 5}}', "broken JSON"),
    ("unknown_call", 'To change it, you would use:\n```json\n{"tool": "change_port", "arguments": {\n'
     '    "file_path": "config.ini", "new_value": 9090\n}}\n```', "0.5B, edit_config (dev): a tool that does not exist"),
    ("narrated", '{"name": "read_file", "arguments": {"file_path": "notes.md", lines: all}}',
     "broken JSON naming a snake_case tool: asked again the same way"),
]

ANSWERS = [
    "Rome is the capital of Italy.",
    "notes.md is 1077 bytes in 35 lines and says: buy milk.",
    "See [Page 2] of the report.",
    "The key was [REDACTED] in the log.",
    'package.json says: {"name": "acme-web", "version": "2.1.0"}',
    "Use <br> for a line break.",
    "I read the file and it says to renew the passport on Friday.",
]


def _first_catch(text: str, ev: Evidence) -> str | None:
    seen = Reply((), text)
    return next((g.name for g in GUARDS if g.detect(seen, ev) is not None), None)


@pytest.mark.parametrize("guard, text, why", CAUGHT)
def test_each_guard_catches_its_replies(guard: str, text: str, why: str) -> None:
    assert _first_catch(text, _ev(result=READ)) == guard, why


@pytest.mark.parametrize("text", ANSWERS)
def test_answers_pass_every_guard(text: str) -> None:
    ev = replace(_ev(result=READ), seen_results=(PACKAGE,))
    assert _first_catch(text, ev) is None
    assert judge(Reply((), text), ev, Stage.DRAFT) == Accept(text) == judge(Reply((), text), ev, Stage.FINAL)

NAMED = ("settings.toml is in the working folder",)


@pytest.mark.parametrize("question, reply", [
    # the 0.5B model on the built-in dev suite, no call made
    ("settings.toml - what's the timeout?", "The `timeout_seconds` parameter in the `settings.toml` file is used to "
     "specify how long the autonomous loop should wait before asking for user input or performing other actions. "
     "The default value is 10 seconds."),
    ("Which is bigger, big.log or small.log?", "small.log"),
])
def test_an_answer_without_reading_a_named_file_is_asked_once_naming_it(question: str, reply: str) -> None:
    ev = Evidence(TOOLS, user_messages=(question,), named=NAMED)
    asked = judge(Reply((), reply), ev, Stage.DRAFT)
    assert asked == AskAgain("unread_file", "settings.toml is in the working folder: look at it with a tool before "
                                            f"answering, then answer from what it holds. My question: {question}")
    assert judge(Reply((), reply), ev, Stage.FINAL) == Accept(reply)  # asked once; then it is the answer


def test_a_named_file_does_not_hold_up_an_answer_after_a_read_or_without_tools() -> None:
    after = Evidence(TOOLS, (READ,), READ, user_messages=("what is in notes.md?",), named=NAMED)
    assert judge(Reply((), "notes.md says buy milk."), after, Stage.DRAFT) == Accept("notes.md says buy milk.")
    no_tools = Evidence((), user_messages=("what is in notes.md?",), named=NAMED)
    assert judge(Reply((), "buy milk"), no_tools, Stage.DRAFT) == Accept("buy milk")
    failed = replace(READ, status=ToolStatus.ERROR, payload={"status": "error", "error": "no such file"})
    tried = Evidence(TOOLS, (failed,), failed, user_messages=("what is in notes.md?",), named=NAMED)
    assert isinstance(judge(Reply((), "buy milk"), tried, Stage.DRAFT), AskAgain)  # a failed call read nothing
    for ended in (ToolStatus.DENIED, ToolStatus.TIMEOUT):  # asked again, it would only make the call again
        stopped = replace(failed, status=ended)
        ev = Evidence(TOOLS, (stopped,), stopped, user_messages=("what is in notes.md?",), named=NAMED)
        assert judge(Reply((), "I could not read it."), ev, Stage.DRAFT) == Accept("I could not read it.")


@pytest.mark.parametrize("question, answer", [
    ("in one sentence - why do leaves turn red in autumn?",
     "Leaves turn red in autumn because chlorophyll breaks down and red anthocyanin pigments form."),
    ("In one sentence: what does the CSV file format store?", "CSV stores tabular data as plain text."),
    ("capital of japan?", "Tokyo."),
])
def test_knowledge_questions_naming_no_file_are_untouched(tmp_path, question: str, answer: str) -> None:
    from gaia_lite.agent.named import named_in_message
    from gaia_lite.registry.context import ToolContext
    from gaia_lite.tools.sandbox import Sandbox

    (tmp_path / "data.csv").write_text("a,b\n1,2\n")
    (tmp_path / "leaves.txt").write_text("red")
    ctx = ToolContext(workdir=tmp_path, sandbox=Sandbox([tmp_path]), data_dir=tmp_path)
    named = named_in_message(question, ctx)
    assert named == ()
    ev = Evidence(TOOLS, user_messages=(question,), named=named)
    assert judge(Reply((), answer), ev, Stage.DRAFT) == Accept(answer)


def test_what_a_message_names_is_what_exists_in_the_allowed_folders(tmp_path) -> None:
    from gaia_lite.agent.named import named_in_message
    from gaia_lite.registry.context import ToolContext
    from gaia_lite.tools.sandbox import Sandbox

    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "big.log").write_text("x" * 100)
    (tmp_path / "small.log").write_text("x")
    (tmp_path / "projects").mkdir()
    asked: list[str] = []
    ctx = ToolContext(workdir=tmp_path, sandbox=Sandbox([tmp_path], confirm=lambda q: asked.append(q) or False),
                      data_dir=tmp_path)
    assert named_in_message("Which is bigger, big.log or small.log?", ctx) == (
        "big.log is in the folder logs", "small.log is in the working folder")
    assert named_in_message("What is in the projects folder?", ctx) == ("projects is in the working folder",)
    assert named_in_message("whats in here?", ctx) == ("your question is about the files in the working folder",)
    assert named_in_message("what does missing.md say?", ctx) == ()  # not there: the tools' search says so
    assert named_in_message("read /etc/hosts.txt and ../../x.md", ctx) == () and asked == []  # never a prompt


def test_a_file_named_in_words_counts_when_its_whole_name_is_two_words_or_more(tmp_path) -> None:
    from gaia_lite.agent.named import named_in_message
    from gaia_lite.registry.context import ToolContext
    from gaia_lite.tools.sandbox import Sandbox

    (tmp_path / "hr" / "onboarding").mkdir(parents=True)
    (tmp_path / "hr" / "onboarding" / "onboarding-guide.md").write_text("# Onboarding guide\nA laptop.\n")
    (tmp_path / "notes.md").write_text("buy milk")
    ctx = ToolContext(workdir=tmp_path, sandbox=Sandbox([tmp_path]), data_dir=tmp_path)
    # the 0.5B answered this one without reading the guide
    assert named_in_message("tl;dr of the onboarding guide?", ctx) == (
        "onboarding-guide.md is in the folder hr/onboarding",)
    assert named_in_message("what's a good guide to writing notes?", ctx) == ()  # half a name; one-word names
    assert named_in_message("what is the capital of Japan?", ctx) == ()


def test_a_json_answer_the_user_asked_for_is_kept_but_not_streamed() -> None:
    asked = '{"item": "milk", "done": false}'
    assert _final(asked, result=READ) == Accept(asked)  # "item" is not a key of the result
    assert hiding_guard(asked, Evidence(TOOLS)) == "result_echo"  # held until the loop has read it


def test_calls_run_unless_the_model_was_told_to_answer() -> None:
    call = ToolCall("c1", "browse_directory", {"directory_path": "."})
    assert judge(Reply((call,), ""), _ev(), Stage.DRAFT) == RunCalls((call,))
    assert judge(Reply((call,), ""), _ev(), Stage.FINAL) == RunCalls((call,))
    assert judge(Reply((call,), ""), _ev(result=READ), Stage.FORCED) == FromResults("called_after_stop")


def test_a_narrated_draft_is_asked_again_or_held_to_a_call() -> None:
    narrated = "To list the files, use the `browse_directory` tool."
    asked = _draft(narrated)
    assert isinstance(asked, AskAgain) and asked.guard == "narrated" and "Do not describe a tool call" in asked.request
    assert judge(Reply((), narrated), _ev(), Stage.DRAFT, can_hold=True) == HoldToCall("narrated")
    assert _final(narrated, result=READ) == FromResults("narrated")
    assert _final(narrated) == Accept(narrated)  # no result to build an answer from


MENU_LINE = "list_recent_files(location?, file_types?, max_results?: integer, days?: integer): List files changed."


def test_a_copied_tool_list_line_after_a_result_ends_the_turn_with_the_results_at_once() -> None:
    # held to a call, the 0.5B narrowed the listing it had; asked again, it copied the line again
    assert judge(Reply((), MENU_LINE), _ev(result=READ), Stage.DRAFT, can_hold=True) == FromResults("menu_copy")
    assert judge(Reply((), MENU_LINE), _ev(result=READ), Stage.FINAL) == FromResults("menu_copy")
    # before any result it is a call described: held to a call, as before
    assert judge(Reply((), MENU_LINE), _ev(), Stage.DRAFT, can_hold=True) == HoldToCall("narrated")
    failed = replace(READ, status=ToolStatus.ERROR, payload={"status": "error", "error": "no such file"})
    assert judge(Reply((), MENU_LINE), _ev(result=failed), Stage.DRAFT, can_hold=True) == HoldToCall("narrated")
    # a call written in Python syntax is no copy of the list
    assert judge(Reply((), "read_file(file_path='notes.md')"), _ev(result=READ), Stage.DRAFT,
                 can_hold=True) == HoldToCall("narrated")


def test_a_template_draft_names_its_slot() -> None:
    asked = _draft("The customer on the invoice is [Customer Name].")
    assert isinstance(asked, AskAgain) and "placeholder, [Customer Name]," in asked.request


def test_a_copied_format_is_asked_for_the_answer_itself_even_where_calls_can_be_held() -> None:
    for can_hold in (False, True):
        asked = judge(Reply((), "<your answer, in plain sentences>"), _ev(), Stage.DRAFT, can_hold=can_hold)
        assert asked == AskAgain("copied_format", "Your reply copied <your answer, in plain sentences> from the "
                                                  f"reply format. Write the answer itself instead: {QUERY}")
    assert _final("<your answer, in plain sentences>") == FromResults("format_only")  # "could not finish"
    slot_in_prose = "The total is <your answer, from the result>."
    assert _final(slot_in_prose) == Accept(slot_in_prose)  # kept without a result, as before


def test_a_written_call_is_never_the_answer() -> None:
    broken = '{"name": "recall", "arguments": {"query": revenue}}'
    assert _draft(broken) == AskAgain("written_call", _draft("use read_file").request)  # the narration request
    assert _final(broken) == FromResults("written_call")  # even with no result: "could not finish"


def test_echoes_and_empty_answers_are_judged_as_final_even_in_a_draft() -> None:
    assert _draft('{"status": "success", "entries": ["a.txt"]}', result=READ) == FromResults("result_echo")
    assert _draft("none", result=READ) == FromResults("empty_answer")
    assert _draft("none") == Accept("none")  # no result: nothing to answer from
    assert _draft("browse_directory") == AskAgain("narrated", _draft("use read_file").request)  # named, so asked


def test_the_agents_own_line_copied_into_an_answer_is_dropped() -> None:
    line = "(Now answer the user in plain sentences, or call another tool if needed.)"
    ev = Evidence(TOOLS, copied_lines=(line, ""))
    assert judge(Reply((), f"The folder holds a.txt.\n{line}"), ev, Stage.FINAL) == Accept("The folder holds a.txt.")


@pytest.mark.parametrize("text, pending", [
    ("To list", True),
    ("Rome is the capital of Italy. It", False),
    ("Yes.", True),  # too short to be a sentence end: "e.g." and "1." must not open the gate
    ("x" * 159, True),
    ("x" * 160, False),
    ("The files:\n", False),
])
def test_the_first_sentence_gate(text: str, pending: bool) -> None:
    assert first_sentence_pending(text) is pending


def test_what_streams_is_hidden_by_the_same_guards() -> None:
    ev = Evidence(TOOLS)
    assert hiding_guard("To list the files, use the `browse_directory`", ev) == "narrated"
    assert hiding_guard("The customer is [Customer Name]", ev) == "template"
    assert hiding_guard('{"name": "recall", "arguments": {', ev) == "result_echo"  # any JSON object waits
    assert hiding_guard('Calling it: {"name": "recall", "arguments": {', ev) == "written_call"
    assert hiding_guard("The customer is Lindqvist Bakery.", ev) is None
    assert hiding_guard("none", ev) is None  # the final answer replaces it after the result


def test_every_guard_is_one_row_with_its_actions() -> None:
    names = [g.name for g in GUARDS]
    assert len(names) == len(set(names))
    for g in GUARDS:
        assert g.on_draft in (OnDraft.PASS, OnDraft.END) or g.ask, g.name
        assert g.on_draft is not OnDraft.PASS or g.on_final is not OnFinal.KEEP, f"{g.name} does nothing"


def _call_ev(tmp_path, question: str) -> Evidence:
    from gaia_lite.agent.evidence import invented_file
    from gaia_lite.registry.context import ToolContext
    from gaia_lite.tools.sandbox import Sandbox

    ctx = ToolContext(workdir=tmp_path, sandbox=Sandbox([tmp_path]), data_dir=tmp_path)
    return Evidence(TOOLS, user_messages=(question,),
                    invented=lambda call: invented_file(call.arguments, ctx, (question,)))


@pytest.mark.parametrize("question, tool, arguments, invented", [
    # the 0.5B model on the built-in dev suite: calls on files nobody named, for knowledge questions
    ("in one sentence - why do leaves turn red in autumn?", "analyze_image", {"image_path": "leaves.jpg"},
     "leaves.jpg"),
    ("In one sentence: what does the CSV file format store?", "analyze_data_file", {"file_path": "csv.txt"},
     "csv.txt"),
])
def test_a_call_on_a_file_nobody_named_is_not_run_but_asked_about_once(tmp_path, question, tool, arguments,
                                                                       invented) -> None:
    (tmp_path / "sales.csv").write_text("region,q1\neast,95\n")
    reply = Reply((ToolCall("c1", tool, arguments),), "")
    asked = judge(reply, _call_ev(tmp_path, question), Stage.DRAFT)
    assert asked == AskAgain("invented_file", f"No file {invented} exists, and I asked for none. Answer without "
                                              f"tools: {question}")
    assert judge(reply, _call_ev(tmp_path, question), Stage.FINAL) == RunCalls(reply.calls)  # asked once only


@pytest.mark.parametrize("question, arguments", [
    ("What is the total of q1 in sales.csv?", {"file_path": "q1.csv"}),  # the user named a file that exists
    ("is there a doc about the guest wifi somewhere? what's the network called?", {"file_path": "guest_wifi.txt"}),
    ("Create a file named hello.txt containing exactly: Hello", {"file_path": "hello.txt"}),  # named by the user
    ("what is in notes.md?", {"file_path": "docs/notes.md"}),  # a guessed folder: the tools' search finds it
    ("list the files here", {"directory_path": "."}),  # a folder, not a file
    # the words point to crm/initech/details.md: read_file finds it (0.5B, test split, c7123d8: asked instead)
    ("the initech client - whats their phone number?", {"file_path": "initech-client.txt"}),
])
def test_calls_on_files_the_user_named_or_that_are_like_one_here_run(tmp_path, question, arguments) -> None:
    (tmp_path / "sales.csv").write_text("region,q1\neast,95\n")
    (tmp_path / "guest-wifi.md").write_text("Network: orchard-guest\n")
    (tmp_path / "notes.md").write_text("buy milk\n")
    (tmp_path / "crm" / "initech").mkdir(parents=True)
    (tmp_path / "crm" / "initech" / "details.md").write_text("# Initech LLC\n\nClient since 2021. Phone: 555-0177\n")
    reply = Reply((ToolCall("c1", "read_file", arguments),), "")
    assert judge(reply, _call_ev(tmp_path, question), Stage.DRAFT) == RunCalls(reply.calls)


def test_a_call_to_a_tool_that_does_not_exist_is_asked_again_then_never_shown() -> None:
    invented = '{"tool": "change_port", "arguments": {"file_path": "config.ini", "new_value": 9090}}'
    asked = _draft(invented)
    assert isinstance(asked, AskAgain) and asked.guard == "unknown_call"
    assert asked.request.startswith("change_port is not one of your tools.")
    assert _final(invented) == FromResults("unknown_call")
    # data quoted from a file: a snake_case name, but no arguments after it
    assert unknown_call('users.json has {"name": "ada_lovelace", "role": "admin"}.', ["read_file"]) is None


def test_a_made_up_file_beside_the_working_directory_is_judged_where_it_would_be_written(tmp_path) -> None:
    # the 1.5B wrote <task>-on/poem.txt for <task>-on/work; the executor puts it under work/, so it is judged there
    work = tmp_path / "work"
    work.mkdir()
    question = "Write me a two-line poem about the sea."
    reply = Reply((ToolCall("c1", "write_file", {"file_path": str(tmp_path / "poem.txt"), "content": "..."}),), "")
    assert isinstance(asked := judge(reply, _call_ev(work, question), Stage.DRAFT), AskAgain)
    assert asked.guard == "invented_file" and asked.request.startswith("No file poem.txt exists")


def test_a_results_lines_for_the_model_copied_into_an_answer_are_left_out() -> None:
    from gaia_lite.agent.results import compact_result
    from gaia_lite.tools.rag import CITE

    # the 0.5B on the held-out suite (3 runs of 3): the whole query_documents result became the answer
    line = "Hotels: up to 180 EUR per night in most cities, 250 EUR in London, Paris and New York."
    payload = {"status": "success", "message": f"From admin/policies/2025/travel-policy.md: {line}",
               "chunks": [{"text": f"# Travel policy 2025\nBook flights at least 14 days before departure.\n{line}",
                           "source_file": "/w/admin/policies/2025/travel-policy.md"}],
               "query": "hotel_limit_per_night_in_paris", "instruction": CITE,
               "note": "admin/policies/2025/travel-policy.md (the request names travel, policy) was not indexed; "
                       "it is now."}
    seen = compact_result(payload)
    copied = seen.split("message: ", 1)[1]
    result = ToolResult("query_documents", "query_documents", {"query": "hotel_limit_per_night_in_paris"}, payload,
                        ToolStatus.OK, 0.01)
    question = "travel_policy - whats the hotel limit per night in Paris?"
    ev = Evidence(TOOLS, (result,), result, user_messages=(question,), seen_results=(seen,))
    verdict = judge(Reply((), copied), ev, Stage.FINAL)
    assert isinstance(verdict, Accept) and verdict.answer.startswith(f"From admin/policies/2025/travel-policy.md: {line}")
    assert not re.search(r"(?m)^(query|instruction|note|status): ", verdict.answer)
    # an answer that is nothing but such a line stays (a note may be all there is to say)
    only = [ln for ln in seen.splitlines() if ln.startswith("note: ")][0]
    assert judge(Reply((), only), ev, Stage.FINAL) == Accept(only)


@pytest.mark.parametrize("question", ["Write me a two-line poem about the sea.", "gimme a quick haiku about coffee"])
def test_a_write_of_a_made_up_file_for_a_message_asking_for_none_is_not_run(tmp_path, question) -> None:
    # the 0.5B, test split, 3 runs of 3: the poem went to sea.txt
    reply = Reply((ToolCall("c1", "write_file", {"file_path": "sea.txt", "content": "The sea is vast ..."}),), "")
    assert judge(reply, _call_ev(tmp_path, question), Stage.DRAFT) == AskAgain(
        "invented_file", f"No file sea.txt exists, and I asked for none. Answer without tools: {question}")


@pytest.mark.parametrize("question", ["Write a two-line poem about the sea and save it.",
                                      "put a haiku about coffee in a file for me"])
def test_a_write_the_message_asks_for_runs_whatever_the_file_is_called(tmp_path, question) -> None:
    reply = Reply((ToolCall("c1", "write_file", {"file_path": "sea.txt", "content": "The sea is vast ..."}),), "")
    assert judge(reply, _call_ev(tmp_path, question), Stage.DRAFT) == RunCalls(reply.calls)

EDITING = (*TOOLS, "edit_file", "write_file")
PLAN_HERE, CONFIG_HERE = "project-plan.md is in the working folder", "config.ini is in the working folder"
PLAN = ToolResult("read_file", "read_file", {"file_path": "project-plan.md"},
                  {"status": "success", "content": "# Plan\nDeadline: 1 March\n"}, ToolStatus.OK, 0.01)


@pytest.mark.parametrize("answer, slot", [
    ("The project plan is updated to reflect the new deadline of 15 March.", "is updated"),   # 0.5B, dev, 383dafe
    ("I've changed the deadline to 15 March.", "I've changed"),
    ("Done: the deadline has been successfully set to 15 March.", "has been successfully set"),
])
def test_a_change_said_to_be_made_that_no_tool_made_is_asked_for_then_not_claimed(answer, slot) -> None:
    question = "update project-plan.md, the deadline's now 15 March"
    ev = Evidence(EDITING, (PLAN,), PLAN, user_messages=(question,), named=(PLAN_HERE,))
    assert judge(Reply((), answer), ev, Stage.DRAFT) == AskAgain(
        "claimed_change", f'You said "{slot}", but no tool changed anything yet. Make the change with a tool now, '
                          f"then answer: {question}")
    assert judge(Reply((), answer), ev, Stage.FINAL) == \
        Accept("I have not made this change: no tool changed anything this turn.", "claimed_change")


def test_a_file_change_claimed_after_only_a_memory_change_is_asked_for() -> None:
    # the 1.5B, test split (3258b4d): its write over setup.cfg was stopped, update_memory succeeded, and it said
    # "The version in setup.cfg has been updated to 2.1.0."; the file still said 2.0.3
    question = "setup.cfg - bump the version to 2.1.0"
    memo = ToolResult("update_memory", "update_memory", {"knowledge_id": "setup.cfg", "content": "version 2.1.0"},
                      {"status": "success"}, ToolStatus.OK, 0.01)
    ev = Evidence((*EDITING, "update_memory"), (memo,), memo, user_messages=(question,),
                  named=("setup.cfg is in the working folder",))
    asked = judge(Reply((), "The version in setup.cfg has been updated to 2.1.0."), ev, Stage.DRAFT)
    assert isinstance(asked, AskAgain) and asked.guard == "claimed_change"


def test_a_switch_claimed_after_only_a_read_is_asked_for() -> None:
    # the 1.5B, probe42 (3 runs of 3): it read settings.json and said the theme "has been switched to dark"
    question = "settings.json - switch the theme to dark pls"
    read = ToolResult("read_file", "read_file", {"file_path": "settings.json"},
                      {"status": "success", "content": '{"theme": "light"}'}, ToolStatus.OK, 0.01)
    ev = Evidence(EDITING, (read,), read, user_messages=(question,), named=("settings.json is in the working folder",))
    asked = judge(Reply((), "The theme of the settings.json file has been switched to dark."), ev, Stage.DRAFT)
    assert isinstance(asked, AskAgain) and asked.guard == "claimed_change", asked


def test_a_change_a_tool_made_or_a_question_about_one_may_be_called_done() -> None:
    question = "update project-plan.md, the deadline's now 15 March"
    edited = ToolResult("edit_file", "edit_file", {"file_path": "project-plan.md", "old_content": "Deadline: 1 March",
                        "new_content": "Deadline: 15 March"}, {"status": "success"}, ToolStatus.OK, 0.01)
    done = "The deadline is updated to 15 March."
    assert judge(Reply((), done), Evidence(EDITING, (PLAN, edited), edited, user_messages=(question,),
                                           named=(PLAN_HERE,)),
                 Stage.DRAFT) == Accept(done)
    asked_if = Evidence(EDITING, (PLAN,), PLAN, user_messages=("did you update project-plan.md?",),
                        named=(PLAN_HERE,))
    assert judge(Reply((), "Yes, it was updated to 15 March."), asked_if, Stage.DRAFT) == \
        Accept("Yes, it was updated to 15 March.")
    # a question that asks for no change may say what a file "is set" to, whatever verb it uses (the 1.5B, told
    # to make a change for "What port is set in config.ini?", called update_memory: test split, ffeab89)
    config = ToolResult("read_file", "read_file", {"file_path": "config.ini"},
                        {"status": "success", "content": "[server]\nport = 8080\n"}, ToolStatus.OK, 0.01)
    for asked in ("which port does config.ini use?", "What port is set in config.ini?", "how is the port set up?"):
        port = Evidence(EDITING, (config,), config, user_messages=(asked,), named=(CONFIG_HERE,))
        assert judge(Reply((), "The port is set to 8080."), port, Stage.DRAFT) == Accept("The port is set to 8080.")
    bump = Evidence(EDITING, (config,), config, user_messages=("set the port in config.ini to 9090",),
                    named=(CONFIG_HERE,))
    assert judge(Reply((), "The port is set to 8080."), bump, Stage.DRAFT) == Accept("The port is set to 8080.")
    assert isinstance(judge(Reply((), "The port is now set to 9090."), bump, Stage.DRAFT), AskAgain)
    # an agent with no tool that changes anything cannot be asked to make the change
    assert judge(Reply((), done), Evidence(("read_file",), (PLAN,), PLAN, user_messages=(question,),
                                           named=(PLAN_HERE,)), Stage.DRAFT) == \
        Accept(done)
    # a request that names no file here changes nothing a tool must change: "write me a poem" is answered
    poem = "Here is a two-line poem I've written for you: waves fold in, the gulls call out."
    assert judge(Reply((), poem), Evidence(EDITING, user_messages=("write me a two-line poem about the sea",)),
                 Stage.DRAFT) == Accept(poem)


def test_a_guard_named_in_skip_is_off_and_the_others_still_act() -> None:
    narrated = "You can use list_recent_files to see them."
    ev = Evidence(TOOLS, user_messages=(QUERY,))
    assert judge(Reply((), narrated), ev, Stage.DRAFT).guard == "narrated"
    off = replace(ev, skip=frozenset({"narrated"}))
    assert judge(Reply((), narrated), off, Stage.DRAFT) == Accept(narrated)
    # an echoed result is still caught with narrated off
    echo = '{"status": "success", "content": "- Q2 revenue was $12.9 million, up 7 %."}'
    assert judge(Reply((), echo), off, Stage.FINAL) == FromResults("result_echo")


def test_unknown_guard_names_are_reported_and_known_ones_are_not() -> None:
    assert unknown_guards(["narrated", "narated", "nope"]) == ["narated", "nope"]
    assert len(active(frozenset({"narrated"}))) == len(GUARDS) - 1


BIG, SMALL = "big.log is in the folder logs", "small.log is in the working folder"  # named_in_message's lines


def _result(name: str, arguments: dict, payload: dict) -> ToolResult:
    return ToolResult(name, name, arguments, {"status": "success", **payload}, ToolStatus.OK, 0.01)


def test_a_comparison_of_named_files_after_looking_at_one_is_asked_to_look_at_the_other() -> None:
    # the 0.5B, dev split: one read_file, then "small.log"
    question = "Which is bigger, big.log or small.log?"
    read = _result("read_file", {"file_path": "small.log"}, {"content": "x", "size_bytes": 1})
    ev = Evidence(TOOLS, (read,), read, user_messages=(question,), named=(BIG, SMALL))
    assert judge(Reply((), "small.log"), ev, Stage.DRAFT) == AskAgain(
        "compared_unseen", f"{BIG}: you have not looked at it yet. Look at it with a tool too, then compare and "
                           f"answer: {question}")
    assert judge(Reply((), "small.log"), ev, Stage.FINAL) == Accept("small.log")
    assert judge(Reply((), "small.log"), replace(ev, skip=frozenset({"compared_unseen"})), Stage.DRAFT) == \
        Accept("small.log")
    # a listing that shows both (with sizes), or a look at each, is enough to compare
    listing = _result("browse_directory", {"directory_path": "."},
                      {"entries": [{"name": "big.log", "size_bytes": 100}, {"name": "small.log", "size_bytes": 1}]})
    answer = "big.log is bigger (100 B against 1 B)."
    assert judge(Reply((), answer), replace(ev, results=(listing,), last_result=listing), Stage.DRAFT) == \
        Accept(answer)
    other = _result("get_file_info", {"file_path": "logs/big.log"}, {"size_bytes": 100})
    assert judge(Reply((), answer), replace(ev, results=(read, other), last_result=other), Stage.DRAFT) == \
        Accept(answer)
    # no look at either: unread_file's to ask, not this guard's
    assert judge(Reply((), answer), replace(ev, results=(), last_result=None), Stage.DRAFT).guard == "unread_file"
    # a question that compares nothing is not held to both files, nor one in another language
    for asked in ("what's in big.log and small.log?", "¿Cuál es más grande, big.log o small.log?"):
        assert judge(Reply((), "small.log holds x."), replace(ev, user_messages=(asked,)), Stage.DRAFT) == \
            Accept("small.log holds x.")

