"""A turn held to one call (agent/held_call.py): the loop on the wire, against a SCRIPTED FAKE OpenAI server, with
the real analyze_data_file and edit_file on real files.

A question about a table: the first reply is held to the query (its opening sent, the rest under a grammar for the
query string), asked for off the record with the table shown as the query reads it; the next is asked for the
answer from the rows. A change to a small text file: the first reply is held to edit_file, shown the file.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gaia_lite.agent.constrained import TOOL_FIRST, ConstrainedReplies
from gaia_lite.agent.grammar import open_string_grammar
from gaia_lite.agent.loop import Agent, AgentOptions
from gaia_lite.agent.held_call import QUERY_ANSWER
from gaia_lite.agent.replies import FreeReplies
from gaia_lite.agent.selection import ToolSelector
from gaia_lite.events import ToolCallFinished, TurnFinished
from gaia_lite.llm.client import ChatClient
from gaia_lite.registry import ToolRegistry
from gaia_lite.registry.context import ToolContext
from gaia_lite.registry.execute import Decision, ToolExecutor
from gaia_lite.tools.data import analyze_data_file
from gaia_lite.tools.files import browse_directory, edit_file, read_file
from gaia_lite.tools.sandbox import Sandbox
from tests.fakes.openai_server import FakeOpenAIServer, text_chunks

SALES = "region,product,amount\nnorth,widget,219.50\nsouth,widget,80\nnorth,gadget,200.50\neast,gadget,210\n"
OPENING = '{"tool": "analyze_data_file", "arguments": {"file_path": "reports/sales.csv", "query": "SELECT'
QUERY = " SUM(amount) FROM data WHERE region = 'north'\"}}"
CONFIG = "[server]\nhost = localhost\nport = 8080\n"
EDIT_OPENING = '{"tool": "edit_file", "arguments": {"file_path": "config.ini", "old_content": "'


def _agent(srv: FakeOpenAIServer, workdir: Path, *, grammar: bool = True, held_calls: bool = True) -> Agent:
    (workdir / "reports").mkdir(exist_ok=True)
    (workdir / "reports" / "sales.csv").write_text(SALES)
    (workdir / "config.ini").write_text(CONFIG)
    registry = ToolRegistry([read_file, edit_file, analyze_data_file, browse_directory])
    ctx = ToolContext(workdir=workdir, sandbox=Sandbox([workdir]), data_dir=workdir / ".data")
    selector = ToolSelector(registry)
    executor = ToolExecutor(registry, ctx, on_invoke=selector.record_tool_use, approve=lambda *_a: Decision.ALLOW)
    agent = Agent(ChatClient(srv.base_url), registry, executor, selector,
                  AgentOptions(native_tools=False, max_steps=6, workdir=workdir, held_calls=held_calls))
    agent.replies = ConstrainedReplies(registry, FreeReplies(registry.names).parse, shape=TOOL_FIRST, grammar=grammar)
    return agent


@pytest.mark.parametrize("echoes", [True, False], ids=["server-echoes-the-opening", "server-sends-the-rest"])
def test_a_table_question_is_held_to_a_query_then_answered_from_its_rows(tmp_path: Path, echoes: bool) -> None:
    question = "reports/sales.csv: what did the north region sell in total?"
    with FakeOpenAIServer() as srv:
        srv.script += [text_chunks((OPENING if echoes else "") + QUERY),
                       text_chunks('{"answer": "The north region sold 420 in total."}')]
        events = list(_agent(srv, tmp_path).run(question))
        first, second = srv.requests
    assert first["messages"][-1] == {"role": "assistant", "content": OPENING}, "the model writes only the query"
    assert first["grammar"] == open_string_grammar()
    asked = first["messages"][-2]
    assert asked["role"] == "user" and "CREATE TABLE data (region TEXT, product TEXT, amount REAL)" in asked["content"]
    assert "region is one of: north, south, east" in asked["content"]
    assert "Question: the table: what did the north region sell in total?" in asked["content"]
    assert "CREATE TABLE" not in first["messages"][1]["content"], "the table is shown off the record only"
    call = [e for e in events if isinstance(e, ToolCallFinished)][0]
    assert call.name == "analyze_data_file" and call.result["rows"] == [[420]], call.result
    assert second["messages"][-1] == {"role": "user", "content": QUERY_ANSWER.format(question=question)}
    assert second["messages"][-2]["role"] == "tool" and "420" in second["messages"][-2]["content"]
    assert "CREATE TABLE" not in str(second["messages"]), "the next step does not read the brief again"
    assert [e for e in events if isinstance(e, TurnFinished)][0].answer == "The north region sold 420 in total."


@pytest.mark.parametrize("follow_up, held", [("and for the south?", True), ("and what about gadgets?", True),
                                              ("thanks! what's 2+2?", False), ("what's in config.ini?", False),
                                              ("unrelated question: which region do you like?", False)])
def test_a_follow_up_that_says_a_word_of_the_last_tables_columns_or_values_asks_it_again(
        tmp_path: Path, follow_up: str, held: bool) -> None:
    with FakeOpenAIServer() as srv:
        srv.script += [text_chunks(QUERY), text_chunks('{"answer": "The north region sold 420 in total."}'),
                       text_chunks(" SUM(amount) FROM data WHERE region = 'south'\"}}" if held
                                   else '{"tool": "none", "answer": "ok"}'),
                       text_chunks('{"answer": "80."}')]
        agent = _agent(srv, tmp_path)
        list(agent.run("reports/sales.csv: what did the north region sell in total?"))
        list(agent.run(follow_up))
        first = srv.requests[2]
    if held:
        assert first["messages"][-1] == {"role": "assistant", "content": OPENING}
        assert f"Question: {follow_up}" in first["messages"][-2]["content"]
    else:
        assert first["messages"][-1] != {"role": "assistant", "content": OPENING}, "not held to the table's query"
        assert "CREATE TABLE" not in str(first["messages"][-2:])


def test_a_follow_up_like_no_tool_is_still_held(tmp_path: Path) -> None:
    """The embedder finds "and for the south?" like no tool (its reply would open free, or as an answer): what it
    plainly asks of the table decides."""
    with FakeOpenAIServer() as srv:
        srv.script += [text_chunks(QUERY), text_chunks('{"answer": "420."}'),
                       text_chunks(" SUM(amount) FROM data WHERE region = 'south'\"}}"), text_chunks('{"answer": "80."}')]
        agent = _agent(srv, tmp_path)
        agent.selector.best_match = lambda query: 0.05  # under OPEN_ANSWER_BELOW: held to an answer otherwise
        list(agent.run("reports/sales.csv: what did the north region sell in total?"))
        events = list(agent.run("and for the south?"))
        first = srv.requests[2]
    assert first["messages"][-1] == {"role": "assistant", "content": OPENING}
    assert [e for e in events if isinstance(e, TurnFinished)][0].answer == "80."


def test_a_follow_up_after_a_failed_query_asks_that_table_again(tmp_path: Path) -> None:
    # "expenses.csv: what columns does it have?" got a query with no such column (test split, 0.5B); the next
    # message, "Now go ahead and find which category has the highest total.", went to query_documents
    with FakeOpenAIServer() as srv:
        srv.script += [text_chunks(" colour FROM data\"}}")] + [text_chunks('{"answer": "I could not read it."}')] * 3
        agent = _agent(srv, tmp_path)
        list(agent.run("reports/sales.csv: what columns does it have?"))
        assert "no column" in srv.requests[1]["messages"][-1]["content"]
        asked = len(srv.requests)
        srv.script[:] = [text_chunks(" region FROM data GROUP BY region ORDER BY SUM(amount) DESC LIMIT 1\"}}"),
                         text_chunks('{"answer": "north."}')]
        list(agent.run("now find which region has the highest total"))
        first = srv.requests[asked]
    assert first["messages"][-1] == {"role": "assistant", "content": OPENING}


def test_a_follow_up_is_held_only_right_after_a_turn_that_queried_the_table(tmp_path: Path) -> None:
    with FakeOpenAIServer() as srv:
        srv.script += [text_chunks('{"tool": "none", "answer": "Hello."}'), text_chunks('{"tool": "none", "answer": "ok"}')]
        agent = _agent(srv, tmp_path)
        list(agent.run("hi there"))
        list(agent.run("and for the south?"))
        first = srv.requests[1]
    assert first["messages"][-1] == {"role": "assistant", "content": '{"tool": "'}


def test_a_failed_query_leaves_the_next_reply_free(tmp_path: Path) -> None:
    with FakeOpenAIServer() as srv:
        srv.script += [text_chunks(OPENING + " SUM(amount) FROM data WHERE colour = 'red'\"}}"),
                       text_chunks('{"answer": "I could not total it."}')]
        list(_agent(srv, tmp_path).run("reports/sales.csv: total revenue?"))
        second = srv.requests[1]
    assert second["messages"][-1]["role"] == "tool" and "no column" in second["messages"][-1]["content"]
    assert "after-opening" not in second["grammar"], "the model may answer or call again"


@pytest.mark.parametrize("message", ["reports/sales.csv - rewrite it from scratch as a summary",
                                     "what did the north region sell in total?",
                                     "remember that reports/sales.csv is the main sales file"],
                         ids=["a-rewrite", "no-file-named", "a-fact-to-keep"])
def test_no_call_is_held_for_a_rewrite_a_fact_or_when_no_file_is_named(tmp_path: Path, message: str) -> None:
    with FakeOpenAIServer() as srv:
        srv.script += [text_chunks('{"tool": "none", "answer": "ok"}')]
        list(_agent(srv, tmp_path).run(message))
        first = srv.requests[0]
    assert first["messages"][-1] == {"role": "assistant", "content": '{"tool": "'}, "the model picks its tool"
    assert "CREATE TABLE" not in str(first["messages"])


def test_turned_off_the_model_picks_its_first_call(tmp_path: Path) -> None:
    with FakeOpenAIServer() as srv:
        srv.script += [text_chunks('{"tool": "none", "answer": "ok"}')]
        list(_agent(srv, tmp_path, held_calls=False).run("reports/sales.csv: north total?"))
    assert srv.requests[0]["messages"][-1] == {"role": "assistant", "content": '{"tool": "'}
    assert "CREATE TABLE" not in str(srv.requests[0]["messages"])


def test_without_a_grammar_the_table_is_shown_beside_the_message_and_the_model_picks(tmp_path: Path) -> None:
    # a server that cannot continue a reply under a grammar could write anything after the opening
    with FakeOpenAIServer() as srv:
        srv.script += [text_chunks('{"tool": "none", "answer": "ok"}')]
        list(_agent(srv, tmp_path, grammar=False).run("reports/sales.csv: north total?"))
        first = srv.requests[0]
    assert "response_format" in first and first["messages"][-1]["role"] == "user"
    assert "CREATE TABLE data (region TEXT, product TEXT, amount REAL)" in first["messages"][-1]["content"]


@pytest.mark.parametrize("echoes", [True, False], ids=["server-echoes-the-opening", "server-sends-the-rest"])
def test_a_change_to_a_small_file_is_held_to_an_edit_shown_the_file(tmp_path: Path, echoes: bool) -> None:
    rest = 'port = 8080", "new_content": "port = 9090"}}'
    with FakeOpenAIServer() as srv:
        srv.script += [text_chunks((EDIT_OPENING if echoes else "") + rest),
                       text_chunks('{"answer": "The port in config.ini is now 9090."}')]
        events = list(_agent(srv, tmp_path).run("In config.ini, change the port from 8080 to 9090."))
        first, second = srv.requests[:2]
    assert first["messages"][-1] == {"role": "assistant", "content": EDIT_OPENING}
    # old_content is one of the file's lines: shown the file, the 0.5B wrote our request's words there instead
    assert first["grammar"] == open_string_grammar(("new_content",), ("[server]", "host = localhost", "port = 8080"))
    assert first["messages"][-2]["content"].startswith("config.ini holds:\n[server]\nhost = localhost\nport = 8080")
    call = [e for e in events if isinstance(e, ToolCallFinished)][0]
    assert call.name == "edit_file" and call.result["status"] == "success", call.result
    assert (tmp_path / "config.ini").read_text() == "[server]\nhost = localhost\nport = 9090\n"
    assert second["messages"][-1]["role"] == "tool", "nothing is asked after an edit"
    assert "holds:" not in str(second["messages"]), "the file is shown off the record only"


@pytest.mark.parametrize("message", ["config.ini port 9090 pls", "chnage the port in config.ini to 9090"])
def test_a_key_of_the_file_with_a_new_number_is_a_change_in_any_words(tmp_path: Path, message: str) -> None:
    # "scale deploy.yml to 4 replicas" and "chnage max_connections ... to 200" said no verb of the change list
    # (probe_data3, probe42): naming a key the file sets, with a number it does not hold, asks the change
    with FakeOpenAIServer() as srv:
        srv.script += [text_chunks(EDIT_OPENING + 'port = 8080", "new_content": "port = 9090"}}'),
                       text_chunks('{"answer": "The port is now 9090."}')]
        list(_agent(srv, tmp_path).run(message))
    assert srv.requests[0]["messages"][-1] == {"role": "assistant", "content": EDIT_OPENING}
    assert (tmp_path / "config.ini").read_text() == "[server]\nhost = localhost\nport = 9090\n"


@pytest.mark.parametrize("message", ["config.ini port 8080 still?", "config.ini: the port is 8080", "config.ini - port"])
def test_a_key_with_its_own_value_or_none_asks_no_change(tmp_path: Path, message: str) -> None:
    with FakeOpenAIServer() as srv:
        srv.script += [text_chunks('{"tool": "none", "answer": "8080"}')]
        list(_agent(srv, tmp_path).run(message))
    assert srv.requests[0]["messages"][-1] != {"role": "assistant", "content": EDIT_OPENING}, "not held to an edit"
    assert "holds:" not in str(srv.requests[0]["messages"]), "the file is not shown as an edit's brief"


def test_a_turn_looks_once_for_the_files_its_message_names_in_words(tmp_path: Path, monkeypatch) -> None:
    # the held call, the named files and list first all read that look: the allowed folders are walked once
    import gaia_lite.tools.find as find

    looks: list[str] = []
    real = find.named_in_words
    monkeypatch.setattr(find, "named_in_words",
                        lambda ctx, text, kind="file": looks.append(text) or real(ctx, text, kind))
    with FakeOpenAIServer() as srv:
        srv.script += [text_chunks(OPENING + QUERY), text_chunks('{"answer": "420."}')]
        list(_agent(srv, tmp_path).run("in my sales sheet, what did the north region sell?"))
        first = srv.requests[0]
    assert first["messages"][-1] == {"role": "assistant", "content": OPENING}, "the table named in words is held"
    assert looks == ["in my sales sheet, what did the north region sell?"]


def test_a_change_to_a_file_named_in_words_is_held_to_its_edit(tmp_path: Path) -> None:
    # "add piranesi by susanna clarke to my to-read list": no path, but every word of one file's name
    (tmp_path / "reading").mkdir()
    (tmp_path / "reading" / "to-read.md").write_text("# To read\n- The Overstory\n- Klara and the Sun\n")
    opening = '{"tool": "edit_file", "arguments": {"file_path": "reading/to-read.md", "old_content": "'
    rest = '- Klara and the Sun", "new_content": "- Klara and the Sun\\n- Piranesi - Susanna Clarke"}}'
    with FakeOpenAIServer() as srv:
        srv.script += [text_chunks(opening + rest), text_chunks('{"answer": "Added Piranesi."}')]
        list(_agent(srv, tmp_path).run("add piranesi by susanna clarke to my to-read list"))
        first = srv.requests[0]
    assert first["messages"][-1] == {"role": "assistant", "content": opening}
    # asked to add, the edit starts from the list's last entry: given every line, the 0.5B rewrote the title
    assert first["grammar"] == open_string_grammar(("new_content",), ("- Klara and the Sun",))
    assert (tmp_path / "reading" / "to-read.md").read_text().endswith("- Klara and the Sun\n- Piranesi - Susanna Clarke\n")


@pytest.mark.parametrize("message", ["what's first on my to-read list?",
                                     "create reading/to-read-2027.md and add the overstory to it"],
                         ids=["a-question", "a-new-file-by-path"])
def test_a_question_or_a_new_file_beside_a_file_named_in_words_is_not_held_to_its_edit(tmp_path: Path,
                                                                                      message: str) -> None:
    (tmp_path / "reading").mkdir()
    (tmp_path / "reading" / "to-read.md").write_text("# To read\n- The Overstory\n")
    with FakeOpenAIServer() as srv:
        srv.script += [text_chunks('{"tool": "none", "answer": "The Overstory."}')]
        list(_agent(srv, tmp_path).run(message))
    assert "edit_file" not in str(srv.requests[0]["messages"][-1]), "not held to an edit"
    assert "holds:" not in str(srv.requests[0]["messages"]), "the file is not shown as an edit's brief"


def test_a_change_right_after_a_file_was_read_is_held_to_an_edit_of_that_file(tmp_path: Path) -> None:
    # "what temp is the heater set to?" read the file; "bump it up to 26 please" names none and means it
    with FakeOpenAIServer() as srv:
        srv.script += [text_chunks('{"tool": "read_file", "arguments": {"file_path": "config.ini"}}'),
                       text_chunks('{"answer": "The port is 8080."}'),
                       text_chunks(EDIT_OPENING + 'port = 8080", "new_content": "port = 9191"}}'),
                       text_chunks('{"answer": "The port is now 9191."}')]
        agent = _agent(srv, tmp_path)
        list(agent.run("what port does the server listen on?"))
        list(agent.run("bump it up to 9191 please"))
        held = srv.requests[2]
    assert held["messages"][-1] == {"role": "assistant", "content": EDIT_OPENING}
    assert (tmp_path / "config.ini").read_text() == "[server]\nhost = localhost\nport = 9191\n"


@pytest.mark.parametrize("follow_up", ["create notes/todo.txt with 'call the vet'", "thanks, that's all",
                                       "is it 8080 or 9090?"],
                         ids=["names-another-file", "asks-no-change", "a-question"])
def test_after_a_read_a_message_that_names_a_file_or_asks_no_change_is_not_held(tmp_path: Path,
                                                                               follow_up: str) -> None:
    with FakeOpenAIServer() as srv:
        srv.script += [text_chunks('{"tool": "read_file", "arguments": {"file_path": "config.ini"}}'),
                       text_chunks('{"answer": "The port is 8080."}'),
                       text_chunks('{"tool": "none", "answer": "ok"}')]
        agent = _agent(srv, tmp_path)
        list(agent.run("what port does the server listen on?"))
        list(agent.run(follow_up))
        third = srv.requests[2]
    assert third["messages"][-1] == {"role": "assistant", "content": '{"tool": "'}, "the model picks"


def test_a_question_that_names_one_small_text_file_reads_it_before_the_first_reply(tmp_path: Path) -> None:
    # "According to the 2026 allotment rules, ...": plot-rules-2026.md in words, last year's beside it
    (tmp_path / "allotments").mkdir()
    (tmp_path / "allotments" / "plot-rules-2026.md").write_text("- Half plot: deposit £35\n")
    (tmp_path / "allotments" / "plot-rules-2025.md").write_text("- Half plot: deposit £30\n")
    with FakeOpenAIServer() as srv:
        srv.script += [text_chunks('{"answer": "£35."}')]
        events = list(_agent(srv, tmp_path).run("According to the 2026 allotment rules, what deposit for a half plot?"))
        first = srv.requests[0]
    read = [e for e in events if isinstance(e, ToolCallFinished)]
    assert [(e.name, e.arguments) for e in read] == [("read_file", {"file_path": "allotments/plot-rules-2026.md"})]
    tool = [m for m in first["messages"] if m["role"] == "tool"]
    assert len(tool) == 1 and "deposit £35" in tool[0]["content"], "the model's first reply sees the file"
    assert first["messages"][-1]["role"] != "assistant" or first["messages"][-1]["content"] != '{"tool": "', \
        "after the read the reply chooses: answer or call"


@pytest.mark.parametrize("message", ["In config.ini, change the port to 9090.", "what's the capital of france?",
                                     "remember that config.ini is the server's", "what's in plot-rules.md?"],
                         ids=["a-change", "no-file", "a-fact-to-keep", "two-files-named-alike"])
def test_no_file_is_read_first_for_a_change_a_fact_or_no_one_file(tmp_path: Path, message: str) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "plot-rules.md").write_text("x\n")
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "plot-rules.md").write_text("y\n")
    with FakeOpenAIServer() as srv:
        srv.script += [text_chunks('{"tool": "none", "answer": "ok"}'), text_chunks('{"answer": "ok"}')]
        events = list(_agent(srv, tmp_path).run(message))
    first_call = next((e for e in events if isinstance(e, ToolCallFinished)), None)
    assert first_call is None or first_call.name != "read_file", "no read before the model's first reply"


def test_a_one_word_file_name_said_in_a_question_is_not_read_first(tmp_path: Path) -> None:
    # "what time is it in Tokyo?" beside a time.md: a word of a sentence, not a file asked about
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "time.md").write_text("timesheet\n")
    with FakeOpenAIServer() as srv:
        srv.script += [text_chunks('{"tool": "none", "answer": "Evening."}')]
        events = list(_agent(srv, tmp_path).run("what time is it in Tokyo?"))
    assert not [e for e in events if isinstance(e, ToolCallFinished)], "nothing read before the first reply"


def test_a_question_of_what_a_setting_is_set_to_reads_the_file_it_names_first(tmp_path: Path) -> None:
    # "whats max players set to on my minecraft server? server.properties": not read first, a change asked by its
    # "set" and no text file by its name; the 0.5B read the 2023 backup beside it (probe57)
    (tmp_path / "server" / "backups").mkdir(parents=True)
    (tmp_path / "server" / "server.properties").write_text("max-players=12\n")
    (tmp_path / "server" / "backups" / "server.properties.2023-12-01").write_text("max-players=20\n")
    with FakeOpenAIServer() as srv:
        srv.script += [text_chunks('{"answer": "12."}')]
        events = list(_agent(srv, tmp_path).run("whats max players set to on my minecraft server? server.properties"))
    read = [(e.name, e.arguments) for e in events if isinstance(e, ToolCallFinished)]
    assert read == [("read_file", {"file_path": "server/server.properties"})], read
    with FakeOpenAIServer() as srv:   # a change asked: the model's to make, nothing read first
        srv.script += [text_chunks('{"tool": "none", "answer": "ok"}'), text_chunks('{"answer": "ok"}')]
        events = list(_agent(srv, tmp_path).run("set max players to 16 in server.properties"))
    first_call = next((e for e in events if isinstance(e, ToolCallFinished)), None)
    assert first_call is None or first_call.name != "read_file"


def test_a_file_named_in_words_that_never_says_a_name_the_question_says_is_not_read_first(tmp_path: Path) -> None:
    # "a packing list for my Iceland trip": the Lisbon trip's packing_list.md was read first, and both models answered
    # with its sandals; the Iceland list is gear.md (probe57)
    (tmp_path / "travel" / "2022_lisbon").mkdir(parents=True)
    (tmp_path / "travel" / "2022_lisbon" / "packing_list.md").write_text("# Lisbon packing list\n- sandals\n")
    (tmp_path / "travel" / "2023_reykjavik").mkdir()
    (tmp_path / "travel" / "2023_reykjavik" / "gear.md").write_text("# Gear - Iceland\n- hiking boots\n")
    with FakeOpenAIServer() as srv:
        srv.script += [text_chunks('{"tool": "none", "answer": "ok"}'), text_chunks('{"answer": "ok"}')]
        events = list(_agent(srv, tmp_path).run("where's the packing list for my Iceland trip? what shoes did i pack?"))
    first_call = next((e for e in events if isinstance(e, ToolCallFinished)), None)
    assert first_call is None or first_call.arguments.get("file_path") != "travel/2022_lisbon/packing_list.md"


def test_a_question_that_names_one_folder_by_its_paths_words_lists_it_before_the_first_reply(tmp_path: Path) -> None:
    # "what was my most recent garden journal entry about?": garden/journal holds dated entries; left to pick, the
    # 0.5B recalled memories and the 1.5B answered that no garden_journal.txt exists
    (tmp_path / "garden" / "journal").mkdir(parents=True)
    for day, text in (("2026-03-14", "Sowed tomatoes."), ("2026-06-08", "Picked the first courgettes.")):
        (tmp_path / "garden" / "journal" / f"{day}.md").write_text(text + "\n")
    with FakeOpenAIServer() as srv:
        srv.script += [text_chunks('{"answer": "Courgettes."}')]
        events = list(_agent(srv, tmp_path).run("what was my most recent garden journal entry about?"))
        first = srv.requests[0]
    listed = [e for e in events if isinstance(e, ToolCallFinished)]
    assert [(e.name, e.arguments) for e in listed] == [("browse_directory", {"directory_path": "garden/journal"})]
    tool = [m for m in first["messages"] if m["role"] == "tool"]
    assert len(tool) == 1 and "2026-06-08.md" in tool[0]["content"], "the model's first reply sees the listing"


@pytest.mark.parametrize("message", ["what's in my journal?", "what was my last garden journal entry? and the "
                                     "one in the other garden journal?", "rename the garden journal folder"],
                         ids=["one-word-of-its-path", "two-folders", "a-change"])
def test_no_folder_is_listed_first_for_one_word_two_folders_or_a_change(tmp_path: Path, message: str) -> None:
    for folder in ("garden/journal", "allotment/garden/journal" if "two" in message or "other" in message else "x"):
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
        (tmp_path / folder / "2026-06-08.md").write_text("Courgettes.\n")
    with FakeOpenAIServer() as srv:
        srv.script += [text_chunks('{"tool": "none", "answer": "ok"}'), text_chunks('{"answer": "ok"}')]
        events = list(_agent(srv, tmp_path).run(message))
    first_call = next((e for e in events if isinstance(e, ToolCallFinished)), None)
    assert first_call is None or first_call.name != "browse_directory", "no listing before the model's first reply"


def test_a_question_that_lists_first_walks_the_folders_once(tmp_path: Path, monkeypatch) -> None:
    # read first found no file, so list first looked for folders: from the same walk, not a second one
    import gaia_lite.tools.find as find

    (tmp_path / "garden" / "journal").mkdir(parents=True)
    (tmp_path / "garden" / "journal" / "2026-06-08.md").write_text("Picked the first courgettes.\n")
    walks: list[str] = []   # every look for all the names a message says in words (limit=None) walks the folders
    real = find.named_in
    monkeypatch.setattr(find, "named_in", lambda ctx, text, **kw: (kw.get("limit", 3) is None and walks.append(
        kw.get("kind", "file"))) or real(ctx, text, **kw))
    with FakeOpenAIServer() as srv:
        srv.script += [text_chunks('{"answer": "Courgettes."}')]
        events = list(_agent(srv, tmp_path).run("what was my most recent garden journal entry about?"))
    assert [e.name for e in events if isinstance(e, ToolCallFinished)] == ["browse_directory"]
    assert walks == ["any"], "files and folders from one walk"


def test_a_request_a_sure_example_serves_gets_its_call_before_the_first_reply(tmp_path: Path, minilm) -> None:
    # "list the files in this folder" is "show me what files are here": browse_directory of "." (loader
    # Selection.sure); the model answers from the listing, or calls on
    from gaia_lite.loader.bundles import load_bundles
    from gaia_lite.loader.documents import load_examples
    from gaia_lite.loader.loader import ToolLoader
    from gaia_lite.loader.presets import PRESETS
    from gaia_lite.loader.worked import load_worked
    from tests.agent.wiring import doc_stack

    (tmp_path / "notes.md").write_text("# Notes\n")
    (tmp_path / "budget.csv").write_text("item,amount\nrent,900\n")
    config = load_bundles("doc")
    loader = ToolLoader(config.core, config.bundles, minilm, settings=PRESETS["default"],
                        examples=load_examples("doc"), worked=load_worked("doc"))
    stack = doc_stack(loader, tmp_path, native=False)
    with FakeOpenAIServer() as srv:
        srv.script += [text_chunks('{"answer": "budget.csv and notes.md."}')]
        agent = Agent(ChatClient(srv.base_url), stack.registry, stack.executor, stack.selector,
                      AgentOptions(native_tools=False, workdir=tmp_path, max_steps=4))
        agent.replies = ConstrainedReplies(stack.registry, FreeReplies(stack.registry.names).parse, shape=TOOL_FIRST)
        events = list(agent.run("list the files in this folder"))
        first = srv.requests[0]
    calls = [e for e in events if isinstance(e, ToolCallFinished)]
    assert [(e.name, e.arguments) for e in calls] == [("browse_directory", {"directory_path": "."})]
    tool = [m for m in first["messages"] if m["role"] == "tool"]
    assert len(tool) == 1 and "budget.csv" in tool[0]["content"], "the model's first reply sees the listing"
    assert len(srv.requests) == 1, "one model call: the answer"


@pytest.mark.parametrize("tool, message", [
    ("read_clipboard", "what did I copy a second ago?"),             # shows what the message may not have meant
    ("browse_directory", "list the files in reports/"),              # a folder by path: the model's to list
    ("browse_directory", "show me the files in my reports"),         # a folder in words
    ("browse_directory", "delete the files in this folder"),          # a change
    ("browse_directory", "remember that this folder holds my taxes"),  # a fact to keep
    ("browse_directory", "use search_file to list the files here"),   # another tool named
], ids=["clipboard", "a-path", "a-folder-in-words", "a-change", "a-fact", "another-tool"])
def test_a_sure_example_is_no_call_of_the_agents_own_when(tmp_path: Path, tool: str, message: str) -> None:
    from gaia_lite.agent.held_call import example_first
    from gaia_lite.agent.named import in_words_once
    from gaia_lite.loader.worked import WorkedExample, WorkedPick

    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / "q3.md").write_text("x\n")
    ctx = ToolContext(workdir=tmp_path, sandbox=Sandbox([tmp_path]), data_dir=tmp_path / ".data")
    names = ["read_clipboard", "browse_directory", "search_file"]
    sure = WorkedPick(WorkedExample("show me what files are here", tool, {"directory_path": "."}
                                    if tool == "browse_directory" else {}), 0.7)
    assert example_first(message, sure, names, in_words_once(message, ctx)) is None
    here = WorkedPick(WorkedExample("show me what files are here", "browse_directory", {"directory_path": "."}), 0.7)
    assert example_first("show me what is here", here, names, in_words_once("show me what is here", ctx)) == \
        ("browse_directory", {"directory_path": "."})


MEETING = "Minutes, 14 March 2024\nMarta recommended the Heron Loop trail for the spring count.\n"


def _meetings(workdir: Path) -> None:
    (workdir / "club" / "meetings").mkdir(parents=True)
    (workdir / "club" / "meetings" / "2024-03-14_meeting.txt").write_text(MEETING)
    (workdir / "club" / "meetings" / "2024-03-14_meeting_draft.txt").write_text(MEETING.replace("Heron", "Otter"))
    (workdir / "club" / "meetings" / "2024-02-08_meeting.txt").write_text("Minutes, 8 February 2024\nDues.\n")


def test_a_question_whose_words_point_to_a_file_here_is_held_to_a_call_at_first(tmp_path: Path) -> None:
    # asked this with no file named, the 1.5B called nothing and said it had no access to the user's files (probe54)
    _meetings(tmp_path)
    with FakeOpenAIServer() as srv:
        srv.script += [text_chunks('{"tool": "read_file", "arguments": {"file_path": '
                                   '"club/meetings/2024-03-14_meeting.txt"}}'),
                       text_chunks('{"answer": "The Heron Loop."}')]
        events = list(_agent(srv, tmp_path).run("which trail did marta recommend at the march 2024 meeting"))
        first, second = srv.requests
    assert "answer" not in first["grammar"], "the first reply is a call"
    assert "answer" in second["grammar"], "after its result the reply may answer"
    assert [e for e in events if isinstance(e, TurnFinished)][0].answer == "The Heron Loop."


@pytest.mark.parametrize("message", ["what's the capital of france?", "when is the next club meeting?",
                                     "remember that marta chairs the march 2024 meeting"],
                         ids=["no-file", "no-file-stands-out", "a-fact-to-keep"])
def test_a_question_no_file_here_answers_may_be_answered_at_once(tmp_path: Path, message: str) -> None:
    _meetings(tmp_path)
    with FakeOpenAIServer() as srv:
        srv.script += [text_chunks('{"tool": "none", "answer": "ok"}'), text_chunks('{"answer": "ok"}')]
        list(_agent(srv, tmp_path).run(message))
    assert "answer" in srv.requests[0]["grammar"], "the first reply may answer"


def test_a_row_to_log_in_a_table_is_held_to_an_edit_from_its_last_row(tmp_path: Path) -> None:
    # held to a query, the 1.5B looked for the race it was asked to log and found none (probe55)
    (tmp_path / "running").mkdir()
    (tmp_path / "running" / "races.csv").write_text("date,race,km\n2025-03-09,Spring 10K,10\n")
    with FakeOpenAIServer() as srv:
        srv.script += [text_chunks('2025-03-09,Spring 10K,10", "new_content": "2025-05-18,City 10k,10"}}'),
                       text_chunks('{"answer": "Logged."}')]
        events = list(_agent(srv, tmp_path).run("log my race in running/races.csv: City 10k on 2025-05-18, 10 km"))
        first = srv.requests[0]
    assert first["messages"][-1]["content"].startswith('{"tool": "edit_file"'), first["messages"][-1]
    assert first["grammar"] == open_string_grammar(("new_content",), ("2025-03-09,Spring 10K,10",)), \
        "old_content is the table's last row"
    call = [e for e in events if isinstance(e, ToolCallFinished)][0]
    assert call.name == "edit_file" and call.result["status"] == "success", call.result
    assert (tmp_path / "running" / "races.csv").read_text() == \
        "date,race,km\n2025-03-09,Spring 10K,10\n2025-05-18,City 10k,10\n"
