"""Folder questions answered by the listing tools' messages (issue 42).

Asked "which file in reports is the largest?", the 1.5B listed the folder and named the last file: the
sizes were one per entry and no line said which was largest. Asked "how many python files in app/ incl
subfolders?", it found the folder with search_directory and counted the one .py file its top level
named. Real folders in temp dirs, the tools called as the agent calls them.
"""

from __future__ import annotations

import os
from pathlib import Path

from gaia_lite.agent.results import compact_result
from gaia_lite.registry.context import ToolContext
from gaia_lite.tools.files import browse_directory, search_directory, search_file

from tests.tools.called import as_called, write_files

browse = as_called(browse_directory)
find_folder = as_called(search_directory)


_files = write_files


def test_a_listing_flags_the_largest_and_newest_file_on_its_entry(tool_ctx: ToolContext) -> None:
    root = Path(tool_ctx.workdir)
    _files(root, {"reports/q1.txt": "short\n", "reports/q2.txt": "x" * 1200, "reports/q3.txt": "y" * 250})
    os.utime(root / "reports/q1.txt", (1_700_000_000, 1_700_000_000))
    os.utime(root / "reports/q2.txt", (1_700_000_000, 1_700_000_000))
    os.utime(root / "reports/q3.txt", (1_700_086_400, 1_700_086_400))   # a day later
    result = browse(tool_ctx, "reports")
    # the lead line stays the names: there the 0.5B copied the whole result as its answer to "list the files"
    assert result["message"] == "reports holds 3 files: q1.txt, q2.txt, q3.txt", result["message"]
    assert compact_result(result).splitlines()[3:6] == [
        "- q1.txt (6 B)", "- q2.txt (1.2 KB, largest)", "- q3.txt (250 B, newest)"], compact_result(result)


def test_a_tie_flags_no_largest_or_newest(tool_ctx: ToolContext) -> None:
    root = Path(tool_ctx.workdir)
    _files(root, {"same/a.txt": "abc", "same/b.txt": "xyz"})
    for name in ("a.txt", "b.txt"):
        os.utime(root / "same" / name, (1_700_000_000, 1_700_000_000))
    entries = browse(tool_ctx, "same")["entries"]
    assert entries == [{"name": "a.txt", "type": "file", "size_bytes": 3},
                       {"name": "b.txt", "type": "file", "size_bytes": 3}], entries


def test_a_folder_found_by_name_carries_its_tree_count(tool_ctx: ToolContext) -> None:
    root = Path(tool_ctx.workdir)
    _files(root, {"app/main.py": "", "app/util.py": "", "app/api/routes.py": "", "app/api/v2/routes.py": "",
                  "app/README.md": "", "scripts/deploy.py": ""})
    tool_ctx.request.message = "how many python files in app incl subfolders?"
    message = find_folder(tool_ctx, "app")["message"]
    # 4 .py files under app/, its top level holds 2 of them; scripts/deploy.py is outside it
    assert "Counting its subfolders: 2 folders at any depth; 4 .py files, 1 .md file: " \
           "app/README.md, app/api/routes.py, app/api/v2/routes.py, app/main.py, app/util.py." in message, message
    assert "in all" not in message, message


def test_a_count_that_finds_nothing_says_what_the_folder_holds(tool_ctx: ToolContext) -> None:
    root = Path(tool_ctx.workdir)
    _files(root, {"invoices/inv-1.txt": "Invoice 1", "invoices/inv-2.txt": "Invoice 2", "invoices/old/inv-0.txt": "0",
                  "invoices/readme.md": "Scans.", "other/inv-9.txt": "Invoice 9"})
    tool_ctx.request.message = "hey how many files r in the invoices folder?"
    result = as_called(search_file)(tool_ctx, "invoices/*.pdf", True)
    # the guessed type counts none; the answer (4 files) is in the same line, not 3 look-alikes by their words,
    # and no "count: 0" beside it (the 1.5B answered "There are 0 files in the invoices folder.")
    assert "count" not in result and result["files"] == []
    assert result["message"] == ("invoices/ holds 4 files, subfolders included: 3 .txt files, 1 .md file. "
                                 "No .pdf files among them."), result["message"]


def test_a_folder_named_as_the_pattern_is_counted_beside_its_names(tool_ctx: ToolContext) -> None:
    root = Path(tool_ctx.workdir)
    _files(root, {"invoices/inv-1.txt": "1", "invoices/inv-2.txt": "2", "invoices/readme.md": "Scans."})
    tool_ctx.request.message = "hey how many files r in the invoices folder?"
    # the 0.5B's call: a guessed glob, the folder's name as the types (which are read as the pattern)
    message = as_called(search_file)(tool_ctx, "*.csv", False, "invoices")["message"]
    assert "it holds 3 files: inv-1.txt, inv-2.txt, readme.md" in message, message


def test_a_folder_found_by_name_flags_its_clearly_largest_file(tool_ctx: ToolContext) -> None:
    root = Path(tool_ctx.workdir)
    _files(root, {"band/setlists/open-mic.txt": "x" * 107, "band/setlists/pub-night.txt": "x" * 218,
                  "band/setlists/wedding-gig.txt": "x" * 556})
    tool_ctx.request.message = "Which of the band's setlists is the biggest file?"
    message = as_called(search_file)(tool_ctx, "setlist")["message"]
    assert "it holds 3 files: open-mic.txt, pub-night.txt, wedding-gig.txt (556 B, largest)" in message, message
    (root / "band/setlists/pub-night.txt").write_text("x" * 400)   # not twice the next: no file stands out
    message = as_called(search_file)(tool_ctx, "setlist")["message"]
    assert "B, largest)" not in message, message
    # but a question of size gets the files ranked by it (probe46)
    assert "by size, largest first: wedding-gig.txt (556 B), pub-night.txt (400 B), open-mic.txt (107 B)" in message


def test_a_folder_named_like_nothing_offers_the_folders_named_with_some_of_its_words(tool_ctx: ToolContext) -> None:
    root = Path(tool_ctx.workdir)
    _files(root, {"music/ukulele/chords/riptide.txt": "Am G C", "music/guitar/chords/wonderwall.txt": "Em7 G",
                  "music/ukulele/strumming.md": "D DU UDU"})
    tool_ctx.request.message = "cant remember where i put my uke chord sheets, can you find the folder"
    result = find_folder(tool_ctx, "uke chord sheets")
    assert result["message"] == ("No folder or file is named like 'uke chord sheets'. Folders named with some of its "
                                 "words: music/guitar/chords (chord), music/ukulele/chords (chord).")
    assert find_folder(tool_ctx, "banjo tabs")["message"] == \
        "No folder or file is named like 'banjo tabs'."
    # the 0.5B's call for the same request: a file name search
    assert as_called(search_file)(tool_ctx, "uke_chord_sheets.*", True)["message"].endswith(
        "Folders named with some of its words: music/guitar/chords (chord), music/ukulele/chords (chord).")


def test_folders_found_alike_are_led_by_the_one_whose_path_holds_the_requests_words(tool_ctx: ToolContext) -> None:
    root = Path(tool_ctx.workdir)
    _files(root, {"projects/garage/electrical/diagrams/garage-sockets.svg": "<svg/>",
                  "projects/shed/electrical/diagrams/lighting-circuit.svg": "<svg/>"})
    tool_ctx.request.message = "Where did I save the wiring diagram for the shed lights?"
    result = find_folder(tool_ctx, "wiring diagrams")
    assert result["directories"][0].endswith("projects/shed/electrical/diagrams")
    assert "projects/shed/electrical/diagrams: it holds 1 file: lighting-circuit.svg" in result["message"]
    tool_ctx.request.message = "Where did I save the wiring diagrams?"   # no word tells them apart
    assert "it holds" not in find_folder(tool_ctx, "wiring diagrams")["message"]


def test_a_count_given_the_working_folder_as_its_root_counts_the_folder_asked_about(tool_ctx: ToolContext) -> None:
    root = Path(tool_ctx.workdir)
    _files(root, {"app/main.py": "", "app/api/routes.py": "", "scripts/deploy.py": ""})
    tool_ctx.request.message = "how many pyhton files r in app/ incl subfolders?"
    # the 0.5B passed the working folder's whole path, and got 3 (scripts/deploy.py counted)
    message = as_called(search_file)(tool_ctx, "*.py", False, None, str(root))["message"]
    assert message.startswith("2 .py files under app/, subfolders included: app/api/routes.py, app/main.py"), message


def test_a_mime_type_as_file_types_is_its_extension(tool_ctx: ToolContext) -> None:
    root = Path(tool_ctx.workdir)
    _files(root, {"invoices/inv-1.txt": "Invoice 1", "invoices/a.csv": "a\n1\n", "invoices/readme.md": "Scans."})
    tool_ctx.request.message = "hey how many files r in the invoices folder?"
    # the 0.5B's call: "text/csv" was read as words to search for, and the files the request pointed to came back
    tool_ctx.request.message = "hey how many csv files r in the invoices folder?"
    result = as_called(search_file)(tool_ctx, "invoices/*", False, "text/csv")
    assert result["message"].startswith("1 file of type text/csv under invoices/"), result["message"]
    # asked of every file, the MIME type is the model's guess, left out: the count is of all three
    tool_ctx.request.message = "hey how many files r in the invoices folder?"
    result = as_called(search_file)(tool_ctx, "invoices/*", False, "text/csv")
    assert result["message"].startswith("3 files under invoices/"), result["message"]


def test_a_table_found_alone_by_name_shows_its_figures_not_its_first_rows(tool_ctx: ToolContext) -> None:
    root = Path(tool_ctx.workdir)
    _files(root, {"shop/products.csv": "sku,name,category,price\nG-01,Hose reel,garden,34.99\n"
                                       "G-04,Watering can,garden,12.75\nT-02,Hammer,tools,9.80\n"})
    tool_ctx.request.message = "whats the cheapest thing in the garden category in shop/products.csv?"
    # the 0.5B's call; it answered "G-01,Hose reel,garden,34.99,12" from the head shown
    message = as_called(search_file)(tool_ctx, "*.csv", False, "shop/products.csv")["message"]
    assert message.startswith("Found shop/products.csv. Its figures, from every row:\n"
                              "Lowest price for garden: Watering can (12.75)"), message
    assert "G-01,Hose reel" not in message


def test_a_file_given_as_the_search_root_is_the_file_found(tool_ctx: ToolContext) -> None:
    root = Path(tool_ctx.workdir)
    _files(root, {"shop/products.csv": "sku,name,category,price\nK-01,Chef knife,kitchen,59\n"
                                       "K-03,Espresso maker,kitchen,310\nG-03,Lawn mower,garden,449\n"})
    tool_ctx.request.message = "and the priciest kitchen item?"
    # the 0.5B's follow-up call: the table as search_root was "not an existing folder"
    result = as_called(search_file)(tool_ctx, "*.csv", False, "shop/products.csv", str(root / "shop" / "products.csv"))
    assert result["count"] == 1 and result["note"] == "search_root is a file, so it is the file found"
    assert result["message"].splitlines()[1].startswith("Highest price for kitchen: Espresso maker (310)"), result


def test_the_working_folder_listed_for_a_message_naming_a_subfolder_lists_that_subfolder(tool_ctx: ToolContext) -> None:
    # the 1.5B's call for "whats in docs/?" (test split): the working folder, by its absolute path
    root = Path(tool_ctx.workdir)
    _files(root, {"docs/setup-guide.md": "", "docs/faq.txt": "", "files/a.txt": "", "readme.md": ""})
    tool_ctx.request.message = "whats in docs/?"
    listed = browse(tool_ctx, str(root))
    assert listed["message"] == "docs holds 2 files: faq.txt, setup-guide.md", listed
    assert listed["note"] == "docs is the folder the message names, so it is listed."
    # a bare word is no folder's name: "files" here is a subfolder, and the message is about this folder
    tool_ctx.request.message = "list the files in this folder"
    assert browse(tool_ctx, None)["message"].startswith("This folder holds 2 folders: docs/, files/"), browse(tool_ctx, None)
    # a folder named by the model is listed as asked
    tool_ctx.request.message = "whats in docs/?"
    assert browse(tool_ctx, "files")["message"] == "files holds 1 file: a.txt"


def test_a_listing_counts_each_type_and_names_the_empty_files(tool_ctx: ToolContext) -> None:
    # "what kinds of files are in assets, and how many of each?" and "any empty files in tmpdata?" (probe44)
    root = Path(tool_ctx.workdir)
    _files(root, {"assets/a.png": "p", "assets/b.png": "p", "assets/c.svg": "s", "assets/d.png": "p",
                  "assets/e.css": "", "assets/LICENSE": "MIT"})
    message = browse(tool_ctx, "assets")["message"]
    assert message == ("assets holds 6 files: a.png, b.png, c.svg, d.png, e.css, LICENSE. By type: 3 .png, 1 .svg, "
                       "1 .css, 1 (no extension). Empty (0 B): e.css"), message


def test_a_listing_of_one_type_or_of_nothing_but_empty_files_adds_nothing(tool_ctx: ToolContext) -> None:
    root = Path(tool_ctx.workdir)
    _files(root, {"logs/a.log": "", "logs/b.log": "", "mixed/x.txt": "", "mixed/y.md": "z"})
    assert browse(tool_ctx, "logs")["message"] == "logs holds 2 files: a.log, b.log"
    assert browse(tool_ctx, "mixed")["message"] == "mixed holds 2 files: x.txt, y.md. Empty (0 B): x.txt"


def test_a_read_for_a_question_of_how_many_counts_the_lines_that_hold_its_words(tool_ctx: ToolContext) -> None:
    # "How many ERROR lines are in server.log?": both models read the file and counted wrong (probe44)
    from gaia_lite.tools.files import read_file
    root = Path(tool_ctx.workdir)
    _files(root, {"server.log": "INFO start\nERROR disk full\nINFO retry\nERROR disk full\nWARN slow\nERROR timeout\n"
                                "INFO done\n", "todo.txt": "buy milk\ncall mom\nfix bike\n"})
    tool_ctx.request.message = "How many ERROR lines are in server.log?"
    read = as_called(read_file)
    assert read(tool_ctx, "server.log")["counted"] == ["3 of the 7 lines are at level ERROR: lines 2, 4, 6"]
    tool_ctx.request.message = "how many lines does todo.txt have?"
    assert read(tool_ctx, "todo.txt")["message"] == "todo.txt has 3 lines."   # the whole file's: said first (probe46)
    tool_ctx.request.message = "what errors are in server.log?"   # no count asked
    assert "counted" not in read(tool_ctx, "server.log")
    tool_ctx.request.message = "how many INFO or ERROR or WARN lines in server.log?"   # a word every line... or none
    assert read(tool_ctx, "server.log")["counted"] == ["3 of the 7 lines are at level INFO: lines 1, 3, 7",
                                                       "3 of the 7 lines are at level ERROR: lines 2, 4, 6",
                                                       "1 of the 7 lines are at level WARN: lines 5"]


def test_an_edit_of_one_word_the_request_says_to_change_everywhere_changes_every_place(tool_ctx: ToolContext) -> None:
    # "in invite.txt replace Sam with Alex everywhere": the 1.5B's edit was "Dear Sam," -> "Dear Alex," (probe45)
    from gaia_lite.tools.files import edit_file
    root = Path(tool_ctx.workdir)
    _files(root, {"invite.txt": "Dear Sam,\nJoin us on Friday. Sam, bring snacks!\nBest,\nLee\nPS: Samuel too\n"})
    edit = as_called(edit_file)
    tool_ctx.request.message = "in invite.txt replace Sam with Alex everywhere"
    result = edit(tool_ctx, "invite.txt", "Dear Sam,", "Dear Alex,")
    assert (root / "invite.txt").read_text() == "Dear Alex,\nJoin us on Friday. Alex, bring snacks!\nBest,\nLee\nPS: Samuel too\n"
    assert "'Sam' was replaced with 'Alex' in all 2 places" in result["note"], result
    assert result["replaced"] == 2, result   # the count says what the note says
    (root / "invite.txt").write_text("Dear Sam,\nSam, bring snacks!\n")
    tool_ctx.request.message = "in invite.txt change the greeting to Alex"   # not everywhere: the edit as given
    edit(tool_ctx, "invite.txt", "Dear Sam,", "Dear Alex,")
    assert (root / "invite.txt").read_text() == "Dear Alex,\nSam, bring snacks!\n"


def test_a_folder_that_does_not_exist_is_named_relative_with_the_folders_holding_some_of_its_words(
        tool_ctx: ToolContext) -> None:
    # "which folder has the wedding pictures?": the 0.5B listed "wedding_pictures" and answered that it does not exist
    _files(Path(tool_ctx.workdir), {"media/photos/wedding-2024/a.jpg": "j", "media/videos/x.mp4": "v"})
    result = browse(tool_ctx, str(Path(tool_ctx.workdir) / "wedding_pictures"))
    assert result["error"] == ("wedding_pictures is not an existing folder; folders named with some of its words: "
                               "media/photos/wedding-2024 (wedding)"), result


def test_an_edit_of_a_key_several_sections_set_goes_to_the_section_the_request_names(tool_ctx: ToolContext) -> None:
    # "set ruff's line-length to 120 in pyproject.toml": the 0.5B replaced the line of [tool.black] (probe45)
    from gaia_lite.tools.files import edit_file
    root = Path(tool_ctx.workdir)
    toml = "[tool.black]\nline-length = 88\n\n[tool.ruff]\nline-length = 100\nselect = [\"E\"]\n"
    _files(root, {"pyproject.toml": toml})
    edit = as_called(edit_file)
    tool_ctx.request.message = "set ruff's line-length to 120 in pyproject.toml"
    result = edit(tool_ctx, "pyproject.toml", "line-length = 88", "line-length = 120")
    assert (root / "pyproject.toml").read_text() == toml.replace("100", "120"), result
    assert result["note"] == ("old_content 'line-length = 88' (under [tool.black]) is not the line the request names: "
                              "the line of [tool.ruff], 'line-length = 100', is now 'line-length = 120'")
    tool_ctx.request.message = "set black's line-length to 90 in pyproject.toml"   # the section of old_content
    edit(tool_ctx, "pyproject.toml", "line-length = 88", "line-length = 90")
    assert (root / "pyproject.toml").read_text().startswith("[tool.black]\nline-length = 90\n")


def test_a_folder_whose_files_do_not_say_what_is_asked_is_told_which_files_beside_it_do(tool_ctx: ToolContext) -> None:
    # "which hive had chalkbrood this season?" listed hive_A/, and the 1.5B answered hive A from its inspection
    _files(Path(tool_ctx.workdir), {"apiary/2024/hive_A/inspection.md": "# Hive A\nBrood: solid\n",
                                    "apiary/2024/hive_C/inspection.md": "# Hive C\nmummified larvae - chalkbrood.\n",
                                    "apiary/2024/hive_D/inspection.md": "# Hive D\nBrood: solid\n"})
    tool_ctx.request.message = "which hive had chalkbrood this season (2024)?"
    message = browse(tool_ctx, "apiary/2024/hive_A")["message"]
    assert message.startswith("No file in apiary/2024/hive_A/ says 'chalkbrood'; beside it: "
                              "apiary/2024/hive_C/inspection.md: line 2: mummified larvae - chalkbrood."), message
    assert "hive_D" not in message.splitlines()[0]
    tool_ctx.request.message = "which hive had solid brood?"   # said in the folder listed: nothing beside it
    assert not browse(tool_ctx, "apiary/2024/hive_A")["message"].startswith("No file in")


GUIDE = ("# Three Lakes - trip guide\n## Day 1 - to Greyrock Hut\nRefill water at Moor Creek; after that there is no "
         "water until the hut. The last 3 km to the hut are rocky.\n## Day 2 - back via Long Lake\n"
         "Breakfast from 6:15. We leave the hut at 7:00.\nThe last water refill before the finish is Kessel Spring.\n")


def test_a_request_that_asks_two_things_gets_lines_for_each(tool_ctx: ToolContext) -> None:
    # the words of the whole found the water lines twice and not "We leave the hut at 7:00" (probe55)
    _files(Path(tool_ctx.workdir), {"trips/three_lakes/guide.md": GUIDE, "trips/three_lakes/gear.md": "- boots\n"})
    tool_ctx.request.message = ("For the Three Lakes trip, what time do we leave the hut on day 2, and where is the "
                                "last place to refill water before the finish?")
    lead = browse(tool_ctx, "trips/three_lakes")["message"].splitlines()[0]
    assert "We leave the hut at 7:00" in lead and "Kessel Spring" in lead, lead


def test_a_word_of_the_folders_file_names_is_said_there(tool_ctx: ToolContext) -> None:
    # "game night log": the logs' names say game_nights, and next_night.txt beside them was no answer (probe54)
    _files(Path(tool_ctx.workdir), {"games/logs/game_nights_2024.json": '[{"player": "Lena", "score": 98}]\n',
                                    "games/next_night.txt": "Next game night: Friday.\n"})
    tool_ctx.request.message = "In this year's game night log, what's Lena's highest score?"
    assert not browse(tool_ctx, "games/logs")["message"].startswith("No file in")


def test_a_short_note_read_for_a_question_closes_with_the_lines_that_answer_it(tool_ctx: ToolContext) -> None:
    # "whats our guest wifi called again?": the 0.5B gave wifi_notes.txt's first line (probe54)
    from gaia_lite.tools.files import read_file

    _files(Path(tool_ctx.workdir), {"wifi_notes.txt": "Wi-Fi notes (updated 2024-09-21)\n\nMain network:  Larkspur-5G\n"
                                                      "Guest network: Larkspur-Visitors (2.4 GHz only)\n"
                                                      "IoT devices:   Larkspur-IoT\n\nPasswords: not here.\n"})
    tool_ctx.request.message = "whats our guest wifi called again?"
    result = as_called(read_file)(tool_ctx, "wifi_notes.txt")
    assert result["lines_matching_request"] == ["line 4: Guest network: Larkspur-Visitors (2.4 GHz only)"], result
    assert list(result)[-1] == "lines_matching_request", "they close the result"


def test_a_log_line_read_for_a_question_does_not_run_on_into_the_next_record(tool_ctx: ToolContext) -> None:
    # "06:14 WARN PUMP STALL ..., retrying" ran on into "06:15 INFO pump line 2 running": the 1.5B gave 06:15 (probe56)
    from gaia_lite.tools.files import read_file

    log = "".join(f"2024-05-12 {t} INFO temp=14C\n" for t in ("00:00", "03:00")) + \
        "2024-05-12 06:14 WARN PUMP STALL on line 2, retrying\n2024-05-12 06:15 INFO pump line 2 running\n" + \
        "2024-05-12 09:00 INFO temp=19C\n2024-05-12 19:52 WARN PUMP STALL on line 1, retrying\n" + \
        "2024-05-12 23:00 INFO temp=15C\n"
    _files(Path(tool_ctx.workdir), {"logs/gh.log": log})
    tool_ctx.request.message = "At what times did the pump stall according to logs/gh.log?"
    found = as_called(read_file)(tool_ctx, "logs/gh.log")["lines_matching_request"]
    assert found[:2] == ["line 3: 2024-05-12 06:14 WARN PUMP STALL on line 2, retrying",
                         "line 6: 2024-05-12 19:52 WARN PUMP STALL on line 1, retrying"], found


def test_a_summary_asked_of_a_text_gets_the_text_without_its_title_as_the_answer(tool_ctx: ToolContext) -> None:
    # "Please summarize the PTA minutes from 12 March 2024": the title line, the one holding the request's words, led
    # the text and closed it, and the 1.5B went on to search its memory (probe56)
    from gaia_lite.tools.data import analyze_data_file
    from gaia_lite.tools.files import read_file

    minutes = "PTA - Minutes, 12 March 2024\n\n1. Bake sale\n   Raised $1,240.\n2. Field trip\n   Museum on May 9.\n" \
        "3. Traffic\n   A crossing guard starts after spring break.\n"
    _files(Path(tool_ctx.workdir), {"pta/minutes_2024-03-12.txt": minutes})
    tool_ctx.request.message = "Please summarize the PTA minutes from 12 March 2024 in the pta folder."
    read = as_called(read_file)(tool_ctx, "pta/minutes_2024-03-12.txt")
    assert "lines_matching_request" not in read and read["content"] == minutes, read
    as_table = as_called(analyze_data_file)(tool_ctx, "pta/minutes_2024-03-12.txt")
    assert "message" not in as_table and as_table["content"] == minutes, as_table


def test_a_question_asked_of_a_five_line_note_closes_with_its_line(tool_ctx: ToolContext) -> None:
    # "whats the booking ref for my lisbon hotel?": the 0.5B described the hotel instead (probe56)
    from gaia_lite.tools.files import read_file

    hotel = "Hotel Alfama Terrace\nCheck-in: 2024-10-11 15:00\nCheck-out: 2024-10-15 11:00\n" \
        "Booking reference: QX7-4419\nRoom: double, breakfast included\n"
    _files(Path(tool_ctx.workdir), {"trips/lisbon/hotel.txt": hotel})
    tool_ctx.request.message = "whats the booking ref for my lisbon hotel? trips/lisbon/hotel.txt"
    read = as_called(read_file)(tool_ctx, "trips/lisbon/hotel.txt")
    assert read["lines_matching_request"] == ["line 4: Booking reference: QX7-4419"], read
    tool_ctx.request.message = "open the booking in trips/lisbon/hotel.txt for me"   # shown, not asked of
    assert "lines_matching_request" not in as_called(read_file)(tool_ctx, "trips/lisbon/hotel.txt")


RECIPES = {"recipes/mains/falafel_wraps.md": "# Falafel wraps\n- chickpeas\nSauce: garlic yogurt (no tahini needed)\n",
           "recipes/mains/hummus_bowl.md": "# Hummus bowl\n- chickpeas\n- 3 tbsp tahini\n",
           "recipes/desserts/banana_bread.md": "# Banana bread\n- bananas\n"}


def test_a_file_that_says_the_thing_is_not_there_comes_after_the_one_that_says_it_is(tool_ctx: ToolContext) -> None:
    # "which of my recipes actually calls for tahini?": the falafel's "no tahini needed" led, and was the 1.5B's
    # answer (probe56)
    from gaia_lite.tools.files import search_directory, search_file_content
    from gaia_lite.tools.grep import denies

    _files(Path(tool_ctx.workdir), RECIPES)
    tool_ctx.request.message = "which of my recipes actually calls for tahini? im out of it lol"
    grep = as_called(search_file_content)(tool_ctx, "tahini")["message"]
    assert grep.startswith("For the request: recipes/mains/hummus_bowl.md: line 3: - 3 tbsp tahini"), grep
    folder = as_called(search_directory)(tool_ctx, "recipes")["message"]
    assert folder.index("hummus_bowl.md") < folder.index("falafel_wraps.md"), folder
    assert denies("tray checked for chalkbrood mummies - none found", "chalkbrood")
    assert not denies("the ferry to Hvar was not cancelled", "ferry") and not denies("- 3 tbsp tahini", "tahini")


def test_a_count_asked_of_a_read_closes_it_without_a_heading_after(tool_ctx: ToolContext) -> None:
    # "How many books have I finished so far?": "## Finished" closed the read after the count (0.5B, probe56)
    from gaia_lite.tools.files import read_file

    books = "# Reading\n\n## Finished\n- [x] Piranesi\n- [x] Educated\n- [x] Dune\n\n## Up next\n- [ ] Middlemarch\n"
    _files(Path(tool_ctx.workdir), {"reading.md": books})
    tool_ctx.request.message = "How many books have I finished so far according to reading.md?"
    read = as_called(read_file)(tool_ctx, "reading.md")
    assert read["counted"][0].startswith("3 of the 4 list entries are ticked"), read
    assert "lines_matching_request" not in read and list(read)[-1] == "counted", read
