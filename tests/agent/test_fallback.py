"""Answers built from tool results: a tool's message first, then its fields, rendered with the model's limits."""

from __future__ import annotations

from gaia_lite.agent.fallback import answer_from_result
from gaia_lite.agent.results import MAX_ITEMS, compact_result


def test_a_tools_message_is_the_answer() -> None:
    stored = {"status": "stored", "knowledge_id": "k1", "message": "Remembered: My dentist is Dr. Okafor."}
    assert answer_from_result("remember", stored) == "Remembered: My dentist is Dr. Okafor."
    nothing = {"status": "no_results", "message": "Nothing relevant found; try other words or index more documents."}
    assert answer_from_result("query_documents", nothing) == nothing["message"]


def test_an_empty_search_with_text_beside_shows_it_after_its_message() -> None:
    # search_file_content on "config.ini": not in any file's text, but a file has that name (its first lines)
    result = {"status": "success", "pattern": "config.ini", "directory": "/w", "count": 0, "matches": [],
              "message": "No file's text holds 'config.ini', but a file has that name: /w/config.ini",
              "first_lines": "[server]\nport = 8080"}
    assert answer_from_result("search_file_content", result) == f"{result['message']}\n[server]\nport = 8080"


def test_an_empty_search_that_lists_only_where_it_looked_found_nothing() -> None:
    result = {"status": "success", "pattern": "heron", "count": 0, "files": [], "searched": ["/home/u"],
              "message": "No file matched. Try fewer words."}
    assert answer_from_result("search_file", result) == "I found nothing. No file matched. Try fewer words."


def test_answers_and_the_models_view_share_numbers_and_limits() -> None:
    result = {"status": "success", "total": 1234.56789, "files": [{"name": f"f{i}.txt"} for i in range(100)],
              "folders": [{"name": "docs", "type": "folder"}]}
    answer = answer_from_result("analyze_data_file", result)
    assert "- total: 1,234.5679" in answer and "total: 1,234.5679" in compact_result(result)
    assert f"f{MAX_ITEMS - 1}.txt" in answer and f"f{MAX_ITEMS}.txt," not in answer
    assert f"(+{100 - MAX_ITEMS} more)" in answer and "- folders: docs/" in answer


# ---------------------------------------------------------------- one renderer for people (issue 42)

def test_a_built_answer_shows_paths_relative_to_the_working_folder_and_no_model_labels(tmp_path) -> None:
    from gaia_lite.agent.fallback import for_people

    work = tmp_path / "work"
    result = {"status": "success", "message": f"2 matching line(s) in {work}/notes/todo.md",
              "chunks": [{"text": "buy milk and bread on the way home", "source_file": f"{work}/notes/todo.md"}],
              "note": "answer only from these lines", "hint": "read_file gives a file's text"}
    answer = answer_from_result("search_file_content", result, work)
    assert answer.splitlines()[0] == "2 matching line(s) in notes/todo.md"
    assert str(tmp_path) not in answer and "note:" not in answer and "hint:" not in answer
    raw = "Here is what I found:\n- chunks (1):\n- buy milk (text=eggs, source_file=/tmp/gaia-x1/work/shop.md)"
    cleaned = for_people(raw)
    assert "chunks (1)" not in cleaned and "text=" not in cleaned and "/tmp/" not in cleaned
    assert cleaned.endswith("(eggs, shop.md)")


def test_a_long_built_answer_keeps_its_lead_and_twenty_lines() -> None:
    from gaia_lite.agent.fallback import for_people

    text = "Lead sentence.\n" + "\n".join(f"- line {i}" for i in range(40))
    out = for_people(text).splitlines()
    assert out[0] == "Lead sentence." and out[1] == "- line 0" and out[-1] == "(+20 more lines)" and len(out) == 22


def test_a_call_the_user_denied_is_said_to_the_user_not_to_the_model(tmp_path) -> None:
    # the executor's words are the model's next step ("Do not retry; ask the user ..."), not the user's answer
    from gaia_lite.registry.context import ToolContext
    from gaia_lite.registry.execute import ToolExecutor, ToolStatus
    from gaia_lite.registry.registry import ToolRegistry
    from gaia_lite.tools.sandbox import Sandbox
    from gaia_lite.tools.catalog import doc_tool_specs

    ctx = ToolContext(workdir=tmp_path, sandbox=Sandbox([tmp_path]), data_dir=tmp_path)
    denied = ToolExecutor(ToolRegistry(doc_tool_specs()), ctx).execute(
        "write_file", {"file_path": "a.txt", "content": "x"})   # no approver: denied
    assert denied.status is ToolStatus.DENIED and not (tmp_path / "a.txt").exists()
    assert answer_from_result("write_file", denied.payload, tmp_path) == \
        "You did not approve write file, so it did not run."
