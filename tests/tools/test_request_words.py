"""A search whose argument finds nothing falls back on the words of the user's own request (issue 28,
principles 1 and 2): the file names and text those words point to come back with the matching lines and
the reason, never a bare "nothing found" while a file here holds them. The document tools index the file
the words point to on demand and answer in the same call; an answer the tools compose carries only the
distinct best lines. Real files in temp dirs, the real Sandbox, a real index, the tools called through a
real ToolExecutor."""

from __future__ import annotations

from pathlib import Path

import pytest

from gaia_lite.agent.results import compact_result
from gaia_lite.registry.context import ToolContext
from gaia_lite.tools.files import read_file, search_directory, search_file, search_file_content
from gaia_lite.tools.find import pointed_by_request, request_words
from tests.tools.called import as_called
from tests.tools.test_rag_tools import call, rag_ctx, work  # noqa: F401 - the same real index and executor

HANDBOOK = ("# Employee Handbook\n\n## Leave\n\nPaid time off: 15 days in the first year.\n"
            "Sick leave is separate: 10 paid sick days per year.\n")


def _files(root: Path, files: dict[str, str], ctx: ToolContext | None = None, asked: str = "") -> None:
    """Write ``files`` below ``root``; with ``ctx``, ``asked`` is the user's message of the turn."""
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    if ctx is not None:
        ctx.request.message = asked


@pytest.fixture
def birds(tool_ctx: ToolContext, tmp_path: Path) -> ToolContext:
    _files(tmp_path, {"field/day1.md": "Saw two mallards and a coot.\n",
                      "field/day2.md": "A blue heron stood by the reeds at dawn.\n",
                      "field/day3.md": "Rain all day, no birds.\n"},
           tool_ctx, "Which file in this folder mentions a blue heron?")
    return tool_ctx


def test_request_words_drop_question_search_and_filler_words() -> None:
    assert request_words("Which file in this folder mentions a blue heron?") == ["blue", "heron"]
    assert request_words("is there a doc about the guest wifi somewhere? what's the network called?") == \
        ["guest", "wifi", "network"]
    assert request_words("any file in here mention an API key? which one") == ["api", "key"]
    assert request_words("and what about Q2?") == ["q2"]   # short, but what the question is about


def test_a_glob_that_matches_nothing_finds_the_file_whose_text_holds_the_requests_words(birds) -> None:
    # the 0.5B searched "*.csv" for "which file mentions a blue heron?"
    result = as_called(search_file)(birds, "*.csv", True, "text")
    assert result["message"].startswith("For the request: field/day2.md: line 1: A blue heron stood by the reeds")
    assert "no file name or text matched '*.csv'" in result["message"]
    assert [f["name"] for f in result["files"]] == ["day2.md"] and result["match"] == "request"


def test_a_glob_that_matches_every_file_says_which_one_holds_the_requests_words(birds) -> None:
    result = as_called(search_file)(birds, "*.md")
    assert result["count"] == 3
    assert result["message"].splitlines()[0] == "For the request: field/day2.md: line 1: A blue heron stood by the " \
                                                "reeds at dawn."


def test_a_made_up_path_outside_finds_the_guide_the_request_is_about(tool_ctx: ToolContext, tmp_path: Path) -> None:
    _files(tmp_path, {"it/guides/wifi_guest_access.md": "# Guest Wi-Fi\n\nGuest network: Orchard-Guest\n",
                      "it/guides/printer-setup.md": "# Printers\n\nAdd the printer named Floor3-Color.\n"},
           tool_ctx, "is there a doc about the guest wifi somewhere? what's the network called?")
    result = as_called(search_file)(tool_ctx, "/etc/wifi/wpa_supplicant.conf")
    assert result["message"].startswith("For the request: it/guides/wifi_guest_access.md: line 3: Guest network: "
                                        "Orchard-Guest (no file name or text matched")
    assert "printer" not in result["message"]


@pytest.mark.parametrize("tool, arg, files, asked, starts, line, absent", [
    (search_file_content, "apikey",   # no line holds the model's token
     {"config/settings.yaml": "service:\n  url: https://api.example.com\n  api_key: abc\n",
      "config/logging.yaml": "level: info\n"}, "any file in here mention an API key? which one",
     "For the request: config/settings.yaml", "line 3: api_key: abc", "logging"),
    (search_directory, "phonebook",   # no folder or file is named so
     {"clients/initech_llc/contact.txt": "Contact: Bill Lumbergh\nPhone: +1 555 0177\n",
      "clients/globex/contact.txt": "Contact: Hank Scorpio\nPhone: +1 555 0199\n"},
     "the initech client - whats their phone number?",
     "For the request: clients/initech_llc/contact.txt",
     "line 2: Phone: +1 555 0177", "0199"),
], ids=["content-search", "folder-search"])
def test_a_search_that_finds_nothing_falls_back_on_the_requests_words(tool_ctx: ToolContext, tmp_path: Path, tool,
                                                                       arg, files, asked, starts, line, absent) -> None:
    _files(tmp_path, files, tool_ctx, asked)
    result = as_called(tool)(tool_ctx, arg)
    assert result["message"].startswith(starts) and line in result["message"], result["message"]
    assert absent not in result["message"]


def test_a_short_file_the_request_points_to_comes_whole_when_no_line_holds_the_pattern(
        tool_ctx: ToolContext, tmp_path: Path) -> None:
    # the 1.5B searched "db server's IP" for "hosts.txt - what's the db server's IP?" and, pointed to hosts.txt
    # by name only, said the file does not give it (test split, 2026-12-05)
    _files(tmp_path, {"hosts.txt": "10.0.0.12 web01\n10.0.0.31 db01\n10.0.0.40 cache01\n",
                      "big/servers.txt": "10.0.0.99 db99 server\n" * 200},
           tool_ctx, "hosts.txt - what's the db server's IP?")
    result = as_called(search_file_content)(tool_ctx, "db server's IP")
    # no "count": 0 beside the file pointed to (the 1.5B read it as the answer: probe50)
    assert "count" not in result and result["hosts.txt"] == "10.0.0.12 web01\n10.0.0.31 db01\n10.0.0.40 cache01\n"
    assert compact_result(result).splitlines()[-4:] == ["hosts.txt:", "10.0.0.12 web01", "10.0.0.31 db01",
                                                        "10.0.0.40 cache01"], compact_result(result)
    # a file over SHORT_TEXT characters is pointed to, never pasted whole
    tool_ctx.request.message = "big/servers.txt - which is the db server?"
    pointed = as_called(search_file_content)(tool_ctx, "the db server's address")
    assert "big/servers.txt" in pointed["message"] and "big/servers.txt" not in pointed, pointed


CLIENTS = {"crm/acme-corp/details.md": "# Acme Corp\n\nPhone: +1 555 0142\n",
           "crm/globex/details.md": "# Globex\n\nPhone: +1 555 0199\n",
           "crm/initech_llc/details.md": "# Initech LLC\n\nPhone: +1 555 0177\n"}


def test_content_hits_in_the_file_the_request_is_about_come_first_and_lead(tool_ctx: ToolContext, tmp_path: Path) -> None:
    # the 0.5B searched "(initech|phone)" for this and answered with the count line (test split, 2026-12-05)
    _files(tmp_path, CLIENTS, tool_ctx, "the initech client - whats their phone number?")
    message = as_called(search_file_content)(tool_ctx, "(initech|phone)", regex=True)["message"].splitlines()
    assert message[0] == "For the request: crm/initech_llc/details.md: line 1: # Initech LLC; line 3: Phone: +1 555 0177"
    assert message[2:4] == ["crm/initech_llc/details.md:1: # Initech LLC", "crm/initech_llc/details.md:3: Phone: +1 555 0177"]


def test_content_hits_no_file_is_more_about_keep_their_order_and_no_lead(tool_ctx: ToolContext, tmp_path: Path) -> None:
    _files(tmp_path, CLIENTS, tool_ctx, "which files mention a phone number?")
    message = as_called(search_file_content)(tool_ctx, "phone")["message"].splitlines()
    assert message[0] == "The 3 files: crm/acme-corp/details.md, crm/globex/details.md, crm/initech_llc/details.md."
    assert message[1].startswith("3 matching lines in 3 files: crm/acme-corp/details.md (1), crm/globex"), message


def test_reading_a_guessed_file_that_does_not_exist_reads_the_one_file_the_request_points_to(
        tool_ctx: ToolContext, tmp_path: Path) -> None:
    # the 1.5B read "policy.txt" for "returns policy - ...", was told where the answer is, and said "no such file"
    _files(tmp_path, {"src/app.py": "def upload(data):\n    # TODO: retry when the upload times out\n    return data\n",
                      "src/util.py": "def send(data):\n    return len(data)\n", "README.md": "# Uploader\n"},
           tool_ctx, "Which file in this project has a TODO comment?")
    result = as_called(read_file)(tool_ctx, "todo.txt")
    assert result["status"] == "success" and "# TODO: retry" in result["content"]
    assert result["file_path"] == str(tmp_path / "src" / "app.py")   # says which file was read (no note: copied)


def test_reading_a_guessed_file_names_the_files_the_request_points_to_when_none_stands_out(
        tool_ctx: ToolContext, tmp_path: Path) -> None:
    _files(tmp_path, {"src/app.py": "def upload(data):\n    # TODO: retry when the upload times out\n    return data\n",
                      "src/net.py": "def send(data):\n    # TODO: retry when the send times out\n    return data\n"},
           tool_ctx, "Which file in this project has a TODO comment?")
    result = as_called(read_file)(tool_ctx, "todo.txt")
    assert result["status"] == "error" and "For the request: src/app.py" in result["error"] and "src/net.py" in result["error"]


def test_a_found_file_carries_its_lines_for_what_the_request_asks(tool_ctx: ToolContext, tmp_path: Path) -> None:
    # "find X and tell me Y": the 0.5B answered with the path alone
    _files(tmp_path, {"facilities/policies/parking-policy.md": "# Parking policy\n\n" + "Staff only.\n" * 12
                      + "Visitors park on level P2 of the north garage.\n",
                      "facilities/cleaning-schedule.md": "# Cleaning\n\nOffices are cleaned on Tuesdays.\n"},
           tool_ctx, "Find the parking policy and tell me where visitors should park.")
    result = as_called(search_file)(tool_ctx, "parking policy")
    assert result["message"].splitlines()[0] == ("For the request: facilities/policies/parking-policy.md: line 15: "
                                                 "Visitors park on level P2 of the north garage.")


def test_a_request_no_file_matches_still_says_nothing_matched(tool_ctx: ToolContext, tmp_path: Path) -> None:
    _files(tmp_path, {"notes.txt": "Buy milk.\n"},
           tool_ctx, "which file mentions zebras?")
    result = as_called(search_file)(tool_ctx, "zebra.txt")
    assert result["count"] == 0 and result["files"] == []
    assert result["message"].startswith("No file name or text matched 'zebra.txt'.")


def test_a_credential_file_is_never_pointed_to_by_its_name_or_text(tool_ctx: ToolContext, tmp_path: Path) -> None:
    _files(tmp_path, {".env": "API_KEY=abc\n", "credentials.json": '{"api_key": "abc"}\n',
                      "docs/setup.md": "# Setup\n\nAsk the admin.\n"},
           tool_ctx, "which file holds the api key credentials?")
    assert pointed_by_request(tool_ctx) == []
    result = as_called(search_file)(tool_ctx, "*.conf")
    assert "credentials.json" not in str(result) and ".env" not in str(result)


# --- the document tools -------------------------------------------------------------------------------

def test_a_question_on_an_empty_index_indexes_the_file_its_words_point_to_and_answers(
        call, rag_ctx: ToolContext, work: Path) -> None:
    _files(work, {"home-network/router_setup.txt": "Router: Fritzbox 7590\nWi-Fi name: Lindenhof-5G\n",
                  "recipes/soup.txt": "Leek soup with potatoes.\n"},
           rag_ctx, "Which file holds the Wi-Fi details for the home router?")
    result = call("query_documents", query="Wi-Fi details for the home router")
    assert result["status"] == "success", result
    assert "home-network/router_setup.txt" in result["message"] and "Lindenhof-5G" in result["message"]
    assert "router_setup.txt" in result["note"] and "to the document index to answer this" in result["note"]
    assert [Path(d.path).name for d in rag_ctx.rag.list_documents()] == ["router_setup.txt"]


def test_a_weak_hit_in_the_index_gives_way_to_the_file_the_question_is_about(call, rag_ctx: ToolContext,
                                                                             work: Path) -> None:
    _files(work, {"company/people/handbook_v4.md": HANDBOOK,
                  "company/finance/budget_notes.md": "# Budget notes 2026\n\nThe travel budget stays flat.\n"})
    rag_ctx.rag.index_file(work / "company/finance/budget_notes.md")
    rag_ctx.request.message = "handbook says how many sick days?"
    result = call("query_documents", query="how many sick days?")
    assert result["status"] == "success", result
    assert "10 paid sick days per year" in result["message"] and "budget" not in result["message"].lower()


def test_indexing_a_guessed_name_takes_the_file_the_request_is_about(call, rag_ctx: ToolContext, work: Path) -> None:
    # "notes.txt" matched budget_notes.md by name; the user asked about the handbook
    _files(work, {"company/people/handbook_v4.md": HANDBOOK,
                  "company/finance/budget_notes.md": "# Budget notes 2026\n\nThe travel budget stays flat.\n"},
           rag_ctx, "handbook says how many sick days?")
    result = call("index_document", file_path="notes.txt")
    assert result["status"] == "success", result
    assert result["path"].endswith("handbook_v4.md") and "10 paid sick days" in result["message"], result


def test_query_specific_file_with_a_made_up_name_reads_the_file_the_words_point_to(call, rag_ctx: ToolContext,
                                                                                   work: Path) -> None:
    _files(work, {"clients/initech_llc/contact.txt": "Contact: Bill Lumbergh\nPhone: +1 555 0177\n",
                  "clients/globex/contact.txt": "Contact: Hank Scorpio\nPhone: +1 555 0199\n"},
           rag_ctx, "the initech client - whats their phone number?")
    result = call("query_specific_file", file_path="phone_numbers.txt", query="initech phone")
    assert result["status"] == "success", result
    assert "+1 555 0177" in result["message"] and "0199" not in result["message"]


def test_an_index_answer_keeps_the_distinct_best_line_without_the_competing_fact(call, rag_ctx: ToolContext,
                                                                                  work: Path) -> None:
    _files(work, {"deals/northwind.md": "# Deal: Northwind Traders\n\nSigned: 1 May 2024\nRenewal: 30 April 2027\n"
                                        "Owner: Priya\n",
                  "deals/contoso.md": "# Deal: Contoso Group\n\nSigned: 1 June 2023\nRenewal: 31 May 2026\n"
                                      "Owner: Lars\n"},
           rag_ctx, "Index the deals folder and tell me when the Northwind deal renews.")
    result = call("index_directory", directory_path="deals")
    assert result["status"] == "success", result
    said = result["message"]
    assert "30 April 2027" in said and "31 May 2026" not in said, said
    assert said.count("Deal: Northwind Traders") <= 1, said   # a heading once, not before every line
    # no passage dump after the lines: the model copies whatever comes last
    assert result["answered_from"] == ["deals/northwind.md"] and "Contoso" not in compact_result(result)


def test_a_question_about_files_the_index_cannot_take_says_where_they_are(call, rag_ctx: ToolContext,
                                                                          work: Path) -> None:
    _files(work, {"config/settings.hcl": "service {\n  api_key = abc\n}\n", "config/logging.hcl": "level = info\n"},
           rag_ctx, "any file in here mention an API key? which one")
    result = call("query_documents", query="API key")
    assert result["status"] == "success" and result["match"] == "file_search", result
    assert result["message"].startswith("No documents are indexed here yet, so the files were searched instead "
                                        "for api, key: 1 matching line in 1 file: config/settings.hcl (1)")
    assert "config/settings.hcl:2: api_key = abc" in result["message"] and "logging" not in result["message"]
    assert rag_ctx.rag.list_documents() == []


def test_a_close_name_that_is_not_what_the_request_is_about_comes_after_the_file_it_is(tool_ctx: ToolContext,
                                                                                       tmp_path: Path) -> None:
    _files(tmp_path, {"company/people/handbook_v4.md": HANDBOOK,
                      "company/finance/budget_notes.md": "# Budget notes 2026\n\nThe travel budget stays flat.\n"},
           tool_ctx, "handbook says how many sick days?")
    result = as_called(search_file)(tool_ctx, "notes")
    first, then = result["message"].split("\n", 1)
    assert first.startswith("For the request: company/people/handbook_v4.md")
    assert "10 paid sick days per year" in first and "budget_notes.md" in then


def test_a_folder_found_carries_the_lines_of_its_files_for_what_the_request_asks(tool_ctx: ToolContext,
                                                                                 tmp_path: Path) -> None:
    # the 1.5B found the project's folder with search_directory and answered the deadline from its name
    _files(tmp_path, {"projects/website-redesign/plan.md": "# Website redesign\n\nOwner: Kim\nDeadline: 14 November\n",
                      "projects/website-redesign/notes.md": "Colours are still open.\n",
                      "projects/mobile-app/plan.md": "# Mobile app\n\nDeadline: 1 March\n"},
           tool_ctx, "What is the deadline for the website redesign project?")
    result = as_called(search_directory)(tool_ctx, "website redesign")
    assert result["message"].splitlines()[0] == ("For the request: projects/website-redesign/plan.md: line 4: "
                                                 "Deadline: 14 November")


def test_a_file_the_folder_search_finds_carries_its_lines_for_the_request(tool_ctx: ToolContext,
                                                                          tmp_path: Path) -> None:
    # "wheres my pancake recipe? how many eggs": the 1.5B searched folders and answered from the file's name
    _files(tmp_path, {"cooking/breakfast/pancakes_recipe.txt": "Pancakes\n200 g flour\n2 large eggs\n300 ml milk\n"},
           tool_ctx, "wheres my pancake recipe? how many eggs")
    result = as_called(search_directory)(tool_ctx, "pancake recipe")
    assert result["message"].splitlines()[0] == ("For the request: cooking/breakfast/pancakes_recipe.txt: line 3: "
                                                 "2 large eggs")


def test_a_folder_search_for_a_name_alone_says_no_more(tool_ctx: ToolContext, tmp_path: Path) -> None:
    _files(tmp_path, {"projects/website-redesign/plan.md": "Deadline: 14 November\n"},
           tool_ctx, "Where is the website redesign folder?")
    assert as_called(search_directory)(tool_ctx, "website redesign")["message"].startswith(
        "projects/website-redesign/ is the folder named like 'website redesign'; it holds")


def test_a_folder_the_file_search_finds_carries_the_lines_of_its_files_for_the_request(tool_ctx: ToolContext,
                                                                                      tmp_path: Path) -> None:
    # "who owns the mobile app v2 project?": the 1.5B searched files for "v2 project*.java", found the folder
    # mobile-app-v2 holding README.md, and answered that the folder owns it (test split)
    _files(tmp_path, {"teams/product/mobile-app-v2/README.md": "# Mobile app v2\n\nOwner: Tomasz Wojcik\n",
                      "teams/product/web-portal/README.md": "# Web portal\n\nOwner: Hana Sato\n"},
           tool_ctx, "who owns the mobile app v2 project? it's in here somewhere")
    result = as_called(search_file)(tool_ctx, "v2 project*.java")
    assert result["message"].splitlines()[0] == ("For the request: teams/product/mobile-app-v2/README.md: line 1: "
                                                 "# Mobile app v2; line 3: Owner: Tomasz Wojcik")


def test_the_one_folder_a_search_finds_however_close_carries_the_lines_for_the_request(tool_ctx: ToolContext,
                                                                                     tmp_path: Path) -> None:
    # search_directory "v2 project" found only mobile-app-v2, a close match, and the 1.5B answered with its path
    _files(tmp_path, {"teams/product/mobile-app-v2/README.md": "# Mobile app v2\n\nOwner: Tomasz Wojcik\n",
                      "teams/ops/runbook.md": "# Runbook\n\nRestart the queue workers first.\n"},
           tool_ctx, "who owns the mobile app v2 project? it's in here somewhere")
    result = as_called(search_directory)(tool_ctx, "v2 project")
    assert result["count"] == 1 and result["message"].startswith("For the request: teams/product/mobile-app-v2/README.md")
    assert "Owner: Tomasz Wojcik" in result["message"].splitlines()[0]


def test_a_file_the_request_leaves_out_comes_last_and_its_word_points_nowhere(tool_ctx: ToolContext) -> None:
    # "not the legacy one": the legacy package's pyproject led the passages (probe54)
    _files(Path(tool_ctx.workdir), {"packages/telemetry_legacy/pyproject.toml": "requires-python = '>=3.8'\n",
                                    "packages/telemetry/pyproject.toml": "requires-python = '>=3.11'\n"})
    tool_ctx.request.message = "whats the min python version the telemetry package needs? not the legacy one"
    found = [p.path.relative_to(tool_ctx.workdir).as_posix() for p in pointed_by_request(tool_ctx)]
    assert found[0] == "packages/telemetry/pyproject.toml", found
    assert "legacy" not in pointed_by_request(tool_ctx)[0].reason


def test_a_month_said_points_to_the_file_dated_in_it(tool_ctx: ToolContext) -> None:
    # "the june meeting notes" read the May minutes that say "Next meeting: 12 June" (probe55)
    _files(Path(tool_ctx.workdir), {"meetings/2025-05-08_minutes.md": "Next meeting: 12 June.\n",
                                    "meetings/2025-06-12_minutes.md": "Street party approved.\n"})
    tool_ctx.request.message = "can u summarize the june meeting notes"
    found = {p.path.name: p.reason for p in pointed_by_request(tool_ctx)}
    assert found["2025-06-12_minutes.md"].startswith("name holds june"), found


def test_a_made_up_name_reads_the_file_of_the_month_the_request_says(tool_ctx: ToolContext) -> None:
    # "june_meeting_notes.txt" read the May minutes, whose text says "June" and "decided" (probe55, 0.5B)
    _files(Path(tool_ctx.workdir), {"meetings/2025-05-08_minutes.md": "Next meeting: 12 June. Street party to be "
                                                                      "decided in June.\n",
                                    "meetings/2025-06-12_minutes.md": "Residents' meeting, 12 June 2025\nStreet "
                                                                      "party approved for 9 August.\n"})
    tool_ctx.request.message = "can u summarize the june meeting notes for me? mainly what they decided"
    assert read_file(tool_ctx, "june_meeting_notes.txt")["file_path"].endswith("2025-06-12_minutes.md")


def test_a_word_written_in_camel_case_with_a_short_part_is_held_whole(tool_ctx: ToolContext) -> None:
    # "WiFi password: birch-canoe-88" held no "wifi", and the line asked for fell below the cabin's title (probe57)
    (Path(tool_ctx.workdir) / "house_info.txt").write_text(
        "Lake cabin - house info\n\nKey box code: 4471\nWiFi network: LoonLake\nWiFi password: birch-canoe-88\n")
    (Path(tool_ctx.workdir) / "checklist.md").write_text("# Leaving the cabin\n- lock shed\n")
    found = pointed_by_request(tool_ctx, "where's the wifi pw for the lake cabin? tell me the password")
    assert found and (5, "WiFi password: birch-canoe-88") in found[0].lines, found
    assert "wifi" in found[0].reason, found[0].reason
