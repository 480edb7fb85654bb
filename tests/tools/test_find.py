"""Forgiving search (issue 28, principle 1) and results shaped for answering (principle 5), on a real
folder tree in tmp_path with the real tools, called as the agent calls them."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable

import pytest

from gaia_lite.agent.fallback import answer_from_result
from gaia_lite.tools import files
from gaia_lite.tools.find import Query, clear_winner, find, words
from tests.tools.called import as_called

search_file, search_directory, search_file_content, read_file, edit_file, browse_directory, list_recent_files = map(
    as_called, (files.search_file, files.search_directory, files.search_file_content, files.read_file,
                files.edit_file, files.browse_directory, files.list_recent_files))

HANDBOOK = "# Employee handbook\nFirst-year employees get 25 vacation days.\n"
DEEP = "archive/2019/old/projects/misc/backup/v2/final/deeper"   # nine levels down


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A small home folder with the layouts people describe in words."""
    layout = {
        "clients/acme-corp/website-redesign/brief.md": "Launch date: March 3.\n",
        "clients/acme-corp/invoices/invoice_0193.txt": "Invoice 0193\nTotal due: 1,245.50 EUR\n",
        "clients/globex/marketing-campaign/plan.md": "Budget: 12k.\n",
        "policies/employee-handbook.md": HANDBOOK,
        "policies/travel-policy.md": "Economy class only.\n",
        "src/app.py": "import os\n\n# TODO: handle timeouts\ndef main():\n    pass\n",
        "notes/2024/meetingNotes-March.md": "Decided to hire two people.\n",
        f"{DEEP}/quarterly-forecast.csv": "quarter,revenue\nQ1,10\n",
        "home/recipes/lasagna.md": "Layer pasta and sauce.\n",
        "field/day2.md": "A Blue Heron stood by the reeds.\n",
        "home/network/router_setup.txt": "Router: TP-Link\nWi-Fi name: Lindenhof-5G\n",
        "home/network/isp-contract.md": "250 Mbit/s, renews in May.\n",
    }
    for rel, text in layout.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    return tmp_path


@pytest.mark.parametrize("text, expected", [
    ("meetingNotes-March_2024.md", ["meeting", "note", "march", "2024", "md"]),
    ("Q3-Report.PDF", ["q", "3", "report", "pdf"]),
    ("policies/employee handbook", ["policy", "employee", "handbook"]),
    ("website_redesign_project", ["website", "redesign", "project"]),
    ("boxes of invoices", ["box", "of", "invoice"]),
    ("HTTPServer status", ["http", "server", "status"]),
])
def test_names_and_requests_split_into_the_same_words(text: str, expected: list[str]) -> None:
    assert words(text) == expected


def test_a_guessed_path_keeps_its_name_words_extension_and_folder_hints_apart() -> None:
    q = Query.parse("docs/the handbook.txt")
    assert (q.words, q.ext, q.folders) == (("handbook",), ".txt", ("doc",))
    assert Query.parse("*budget*").words == ("budget",)


# (what broke, tool, arguments, the path that must come first, words the message must hold)
FORGIVING: list[tuple[str, Callable[..., dict], dict[str, Any], str, str]] = [
    ("a folder asked for in words", search_directory, {"directory_name": "the website redesign project"},
     "clients/acme-corp/website-redesign", "name words match 2/3 (website, redesign)"),
    ("a folder name guessed with underscores", search_directory, {"directory_name": "website_redesign_project"},
     "clients/acme-corp/website-redesign", "it holds 1 file: brief.md"),
    ("a client named in words", search_directory, {"directory_name": "the Acme Corp client"},
     "clients/acme-corp", "its folders hold client"),
    ("a misspelled folder", search_directory, {"directory_name": "recipies"}, "home/recipes", "spelled 'recipe'"),
    ("a file name asked of the folder search", search_directory, {"directory_name": "employee handbook"},
     "policies/employee-handbook.md", "No folder is named like 'employee handbook', but files are"),
    ("a guessed path and extension", search_file, {"file_pattern": "docs/handbook.txt"},
     "policies/employee-handbook.md", "extension .md, not .txt"),
    ("camelCase and a date folder", search_file, {"file_pattern": "meeting notes march"},
     "notes/2024/meetingNotes-March.md", "Found notes/2024/meetingNotes-March.md. It begins:"),
    ("a file nine folders down", search_file, {"file_pattern": "quarterly forecast"},
     f"{DEEP}/quarterly-forecast.csv", "quarter,revenue"),
    ("a folder's words asked of the file search", search_file, {"file_pattern": "website redesign"},
     "", "the folder clients/acme-corp/website-redesign matches"),
    ("words only the text holds", search_file, {"file_pattern": "heron reeds"}, "", "appears in 1 file: field/day2.md"),
    ("a guessed path to read", read_file, {"file_path": "docs/handbook.txt"},
     "policies/employee-handbook.md", ""),
    ("a misspelled file to read", read_file, {"file_path": "policies/handbok.md"},
     "policies/employee-handbook.md", ""),
    ("an over-specific content pattern", search_file_content, {"pattern": "//TODO"},
     "src/app.py", "No line holds '//TODO' as written; lines with its words (TODO) instead"),
    ("a guessed file filter on a content search", search_file_content, {"pattern": "TODO", "file_pattern": "*todo*"},
     "src/app.py", "No file named like '*todo*' holds it; other files do. 1 matching line in 1 file: src/app.py (1)"),
    ("a question no line answers in its words", search_file, {"file_pattern": "Wi-Fi details for the home router"},
     "", "most of its words (wi, fi, home, router) appear in 1 file: home/network/router_setup.txt"),
    ("the words put where the file types go", search_file, {"file_pattern": "*.csv", "file_types": "blue heron"},
     "", "appears in 1 file: field/day2.md"),
    ("a file type guessed wrong", search_file, {"file_pattern": "handbook", "file_types": "pdf"},
     "policies/employee-handbook.md", "employee-handbook.md (name holds every word, but not of type pdf)"),
]


def _first_path(result: dict) -> str:
    if result.get("files"):
        first = result["files"][0]
        return first["path"] if isinstance(first, dict) else re.sub(r" \(\d+\)$", "", first)   # "a.md (3)": hits
    for key in ("directories", "matches"):
        if result.get(key):
            first = result[key][0]
            return first["file"] if isinstance(first, dict) else first
    return result.get("file_path", "")


@pytest.mark.parametrize("what, tool, args, first, says", FORGIVING, ids=[case[0] for case in FORGIVING])
def test_a_near_miss_finds_what_was_meant_and_says_why(tool_ctx, home: Path, what: str, tool, args: dict,
                                                      first: str, says: str) -> None:
    result = tool(tool_ctx, **args)
    assert result["status"] == "success", result
    if first:
        assert str(home / _first_path(result)) == str(home / first), result   # relative or absolute
    said = result.get("message") or result.get("note", "")   # a file read says what it read in a note
    assert says in said, result


@pytest.mark.parametrize("what, tool, args, first, says", FORGIVING, ids=[case[0] for case in FORGIVING])
def test_an_answer_built_from_a_near_miss_names_what_was_found(tool_ctx, home: Path, what: str, tool, args: dict,
                                                               first: str, says: str) -> None:
    """The judge's contract: the answer the agent builds from a result (when the model's reply is not
    one) is the result's message, so a near miss is never answered with "I found nothing"."""
    result = tool(tool_ctx, **args)
    answer = answer_from_result(tool.__name__, result)
    assert not answer.startswith("I found nothing"), answer
    found = Path(first).name if first else "website-redesign" if "folder's words" in what else \
        "router_setup.txt" if "Wi-Fi" in str(args) else "field/day2.md"
    assert found in answer, answer


def test_nothing_close_is_said_plainly_and_a_guess_is_never_edited(tool_ctx, home: Path) -> None:
    nothing = search_file(tool_ctx, "zebra migration")
    assert nothing["count"] == 0 and "No file name or text matched 'zebra migration'" in nothing["message"]
    refused = edit_file(tool_ctx, "docs/handbook.txt", "25", "30")   # a write never goes to a guessed file
    assert refused["status"] == "error" and "Close matches: policies/employee-handbook.md" in refused["error"]
    assert (home / "policies/employee-handbook.md").read_text() == HANDBOOK
    assert "no file in the allowed folders is named like it" in read_file(tool_ctx, "zebra.txt")["error"]


def test_two_equally_close_files_are_offered_not_guessed(tool_ctx, home: Path) -> None:
    (home / "clients/globex/marketing-campaign/brief.md").write_text("Globex brief.\n")
    result = read_file(tool_ctx, "briefs.txt")
    assert result["status"] == "error" and result["error"].count("brief.md") == 2
    assert clear_winner(find(tool_ctx, "brief", "file")) is None


# (what broke, call, the key that must come right after status and message, words the message must hold)
SHAPED: list[tuple[str, Callable[[Any], dict], str, str]] = [
    ("a listing's names come before its counts", lambda ctx: browse_directory(ctx, "clients/acme-corp"),
     "entries", "clients/acme-corp holds 2 folders: invoices/, website-redesign/"),
    ("the one file found comes with its first lines", lambda ctx: search_file(ctx, "invoice_0193.txt"),
     "files", "It begins:\nInvoice 0193\nTotal due: 1,245.50 EUR"),
    ("matching lines come before the search's settings", lambda ctx: search_file_content(ctx, "vacation days"),
     "count", "policies/employee-handbook.md:2: First-year employees get 25 vacation days."),
    ("folders found come before their count", lambda ctx: search_directory(ctx, "invoices"),
     "directories", "clients/acme-corp/invoices/ is the folder named like 'invoices'"),
]


@pytest.mark.parametrize("what, call, first_key, says", SHAPED, ids=[case[0] for case in SHAPED])
def test_results_lead_with_what_was_asked_for(tool_ctx, home: Path, what: str, call, first_key: str,
                                              says: str) -> None:
    result = call(tool_ctx)
    assert list(result)[:3] == ["status", "message", first_key], list(result)
    assert says in result["message"], result["message"]
    recent = list_recent_files(tool_ctx)
    assert list(recent)[:3] == ["status", "message", "files"]


def test_a_guessed_path_reads_the_file_the_users_message_names(tool_ctx, home: Path) -> None:
    tool_ctx.request.message = "Now add the launch date from clients/acme-corp/website-redesign/brief.md to it."
    result = read_file(tool_ctx, "launch_date.txt")   # the model's own guess, named like nothing here
    assert result["status"] == "success" and result["content"] == "Launch date: March 3.\n", result
    assert "note" not in result and list(result)[-1] == "content"   # file_path says which file; a note was copied
    tool_ctx.request.message = "Compare policies/employee-handbook.md and policies/travel-policy.md."
    both = read_file(tool_ctx, "launch_date.txt")   # two files named: no guess which one; compared, both are given
    assert "file_path" not in both and {"policies/employee-handbook.md", "policies/travel-policy.md"} <= set(both), both
    tool_ctx.request.message = "Summarize policies/employee-handbook.md and policies/travel-policy.md."
    assert read_file(tool_ctx, "launch_date.txt")["status"] == "error"


def test_a_made_up_table_path_reads_the_table_whose_month_the_request_says(tool_ctx) -> None:
    # "class_7b_scores.txt" for "the average score for class 7B on the October maths test" pointed to math_test_oct.tsv
    # and math_test_sep.tsv alike, and analyze_data_file read classes.md for the word "class" (probe52)
    from gaia_lite.tools.data import analyze_data_file

    root = Path(tool_ctx.workdir)
    (root / "school" / "grades").mkdir(parents=True)
    for month, scores in (("oct", (70, 75)), ("sep", (60, 77))):
        (root / "school" / "grades" / f"math_test_{month}.tsv").write_text(
            "student\tclass\tscore\n" + "".join(f"s{i}\t7B\t{s}\n" for i, s in enumerate(scores)) + "t\t7A\t90\n")
    (root / "school" / "classes.md").write_text("# Year 7\n7A: Mon\n7B: Tue\n")
    tool_ctx.request.message = "What was the average score for class 7B on the October maths test?"
    result = as_called(analyze_data_file)(tool_ctx, "class_7B_oct_math_test_scores.csv")
    assert result["file"] == "school/grades/math_test_oct.tsv" and "72.50" in result["message"], result
    assert read_file(tool_ctx, "class_7b_scores.txt")["file_path"].endswith("math_test_oct.tsv")


def test_a_read_of_an_older_copy_the_request_does_not_ask_for_reads_the_current_one(tool_ctx) -> None:
    # the 1.5B read webshop/backup/frontend_package.json and answered its 2.3.0 (probe52)
    root = Path(tool_ctx.workdir)
    for rel, version in (("webshop/packages/frontend/package.json", "2.4.1"), ("webshop/backup/frontend_package.json",
                                                                              "2.3.0"),
                         ("webshop/packages/backend/package.json", "1.9.0")):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(f'{{"version": "{version}"}}\n')
    tool_ctx.request.message = "whats the version number of the frontend package in the webshop repo"
    result = read_file(tool_ctx, "webshop/backup/frontend_package.json")
    assert result["file_path"].endswith("packages/frontend/package.json") and "2.4.1" in result["content"], result
    assert "counted" not in result   # "version number of" asks no count
    tool_ctx.request.message = "what version did the backup of the frontend package say?"
    assert "2.3.0" in read_file(tool_ctx, "webshop/backup/frontend_package.json")["content"]


def test_a_made_up_name_of_the_extension_the_user_wrote_reads_the_one_file_of_it(tool_ctx) -> None:
    # "config.properties" for "the config file for my minecraft server ..., i think its .properties" read config.yml,
    # named "config" by the user and of the same stem (probe53)
    root = Path(tool_ctx.workdir)
    for rel, text in (("mc/server/server.properties", "server-port=25565\n"),
                      ("mc/backup/server.properties.bak", "server-port=25566\n"),
                      ("mc/plugins/config.yml", "spawn-on-join: true\n")):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    tool_ctx.request.message = "wheres the config file for my minecraft server with the port in it, i think its .properties"
    assert read_file(tool_ctx, "config.properties")["file_path"].endswith("mc/server/server.properties")
    tool_ctx.request.message = "what does my server config say?"   # no extension written: the name's kin, as before
    assert read_file(tool_ctx, "config.properties")["file_path"].endswith("mc/plugins/config.yml")


def test_a_made_up_name_like_a_file_and_its_draft_reads_the_file(tool_ctx) -> None:
    # "fourth_field_trip_letter.txt" found letters/field_trip_letter.md and its drafts/ copy alike, and the 1.5B
    # answered that no letter was found (probe53)
    root = Path(tool_ctx.workdir)
    for rel in ("letters/field_trip_letter.md", "letters/drafts/field_trip_letter_draft.md"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(f"{rel}\n")
    tool_ctx.request.message = "can u summarize the field trip letter for me, short pls"
    assert read_file(tool_ctx, "fourth_field_trip_letter.txt")["file_path"].endswith("letters/field_trip_letter.md")
    tool_ctx.request.message = "what did the draft of the field trip letter say?"   # the draft, when asked for
    assert read_file(tool_ctx, "fourth_field_trip_letter.txt")["file_path"].endswith("field_trip_letter_draft.md")


def test_an_older_copy_with_a_version_in_its_name_gives_way_to_the_current(tool_ctx) -> None:
    # the 1.5B read docs/old/onboarding_guide_v3.md and answered its $300 for the current guide's $400 (probe53)
    root = Path(tool_ctx.workdir)
    for rel, text in (("docs/onboarding_guide.md", "Home office budget: $400\n"),
                      ("docs/old/onboarding_guide_v3.md", "Home office budget: $300\n")):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    tool_ctx.request.message = "and whats the home office budget"
    assert "$400" in read_file(tool_ctx, "docs/old/onboarding_guide_v3.md")["content"]
