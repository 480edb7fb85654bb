"""A content search reads a pattern as a person means it; an edit reads a change as a person asks it (probe49).

Asked how many error lines the logs hold, both models searched "error" and counted "INFO Retrying after error";
asked for the TODO comments, "TODO" found "todoSchema"; asked which files import requests, "import requests"
found a commented-out line and requests_cache, and missed "from requests import Session". Asked to set the logging
level in a YAML file, the 1.5B wrote "logging: level: warning" over "logging:"; asked to replace a name
"everywhere", it replaced one place of three. Real files in temp dirs, the tools called as the agent calls them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gaia_lite.registry.context import ToolContext
from gaia_lite.tools.file_brief import sets_new_value
from gaia_lite.tools.files import edit_file, search_file_content
from gaia_lite.tools.grep import LogLevel, import_regex, whole_word_regex
from gaia_lite.tools.patterns import compile_user_regex
from gaia_lite.tools.tree_asked import mention_term

from tests.tools.called import as_called, write_files

grep_tool = as_called(search_file_content)
edit = as_called(edit_file)


def _asking(ctx: ToolContext, message: str) -> ToolContext:
    ctx.request.message = message
    return ctx


# ---------------------------------------------------------------- what a pattern means

@pytest.mark.parametrize("line, level", [
    ("2024-06-01 08:07:45 ERROR Database connection refused", "error"),
    ("2024-06-01 08:07:46 INFO  Retrying after error, attempt 1", "info"),
    ('[2024-06-01 08:01:14] level=error msg="queue timeout"', "error"),
    ('[2024-06-01 08:30:00] level=info msg="processed 120 jobs, 0 errors"', "info"),
    ("W: [warning] disk almost full", "warn"),
])
def test_a_log_line_s_level_is_its_first_level_word(line: str, level: str) -> None:
    assert [name for name in ("error", "info", "warn") if LogLevel.of(name).search(line)] == [level]


@pytest.mark.parametrize("line, imports", [
    ("import requests", True), ("import json, requests", True), ("import requests as r", True),
    ("from requests import Session", True), ("from requests.adapters import HTTPAdapter", True),
    ("const r = require('requests')", True), ("import requests_cache", False),
    ("# import requests  -- removed", False), ("requests==2.31.0", False),
])
def test_an_import_is_found_in_each_of_its_forms(line: str, imports: bool) -> None:
    rx = compile_user_regex(import_regex("import requests"))
    assert bool(rx.search(line)) is imports


@pytest.mark.parametrize("line, found", [
    ("# TODO: add parsing", True), ("// todos for later", True), ("const todoSchema = {}", False),
    ("for item in todo_items:", False),
])
def test_a_word_is_searched_as_a_whole_word_first(line: str, found: bool) -> None:
    assert bool(compile_user_regex(whole_word_regex("TODO"), ignore_case=True).search(line)) is found
    assert whole_word_regex("b") is None and whole_word_regex("//TODO") is None


def test_error_lines_are_the_logs_lines_at_level_error(tool_ctx: ToolContext) -> None:
    write_files(Path(tool_ctx.workdir), {
        "logs/app.log": "08:00 INFO started\n08:07 ERROR refused\n08:08 INFO retrying after error\n",
        "logs/old/app.log.1": "22:11 ERROR failed\n22:12 INFO error count reset\n22:15 ERROR aborted\n",
        "logs/README.txt": "ERROR lines go to Slack.\n"})
    message = grep_tool(_asking(tool_ctx, "how many error lines are in the logs?"), pattern="error",
                        directory="logs")["message"]
    assert message.startswith("Lines at level ERROR in the logs (a line's own level, not the word anywhere in it): 3 "
                              "matching lines in 2 files: logs/app.log (1), logs/old/app.log.1 (2)"), message


def test_a_folder_without_logs_is_searched_for_the_word(tool_ctx: ToolContext) -> None:
    write_files(Path(tool_ctx.workdir), {"notes/a.md": "an error in the plan\n"})
    message = grep_tool(_asking(tool_ctx, "any notes about an error?"), pattern="error", directory="notes")["message"]
    assert message.startswith("1 matching line in 1 file: notes/a.md (1)"), message


def test_which_files_import_a_module(tool_ctx: ToolContext) -> None:
    write_files(Path(tool_ctx.workdir), {"src/fetch.py": "import json\nimport requests\n",
                                         "src/http.py": "from requests import Session\n",
                                         "src/old.py": "# import requests  -- removed\n",
                                         "scripts/report.py": "import requests_cache\n"})
    message = grep_tool(_asking(tool_ctx, "which python files import requests?"), pattern="import requests")["message"]
    assert message.splitlines()[:2] == ["The 2 files: src/fetch.py, src/http.py.",
                                        "Lines that import 'requests' (any form): 2 matching lines in 2 files: "
                                        "src/fetch.py (1), src/http.py (1)"], message


def test_a_which_question_over_one_file_gets_no_files_line(tool_ctx: ToolContext) -> None:
    write_files(Path(tool_ctx.workdir), {"notes/a.md": "call Henderson\n", "notes/b.md": "lunch\n"})
    message = grep_tool(_asking(tool_ctx, "which note talks about henderson?"), pattern="henderson")["message"]
    assert message.startswith("1 matching line in 1 file: notes/a.md (1)"), message


@pytest.mark.parametrize("message, term", [
    ("which of my recipes have peanuts in them?", "peanuts"),
    ("which scripts use requests in them", "requests"),
    ("which folder has the most files in it?", None),
])
def test_what_files_should_hold_is_read_from_in_them(message: str, term: str | None) -> None:
    assert mention_term(message) == term


# ---------------------------------------------------------------- what a change means

def test_a_yaml_key_path_on_one_line_sets_the_nested_key(tool_ctx: ToolContext) -> None:
    write_files(Path(tool_ctx.workdir), {"config.yaml": "app:\n  level: keep\nlogging:\n  level: debug\n  file: x.log\n"})
    result = edit(_asking(tool_ctx, "Set the logging level to warning in config.yaml."), file_path="config.yaml",
                  old_content="logging:", new_content="logging: level: warning")
    assert result["note"] == "read as logging's level, set to warning", result
    assert (Path(tool_ctx.workdir) / "config.yaml").read_text() == \
        "app:\n  level: keep\nlogging:\n  level: warning\n  file: x.log\n"


def test_a_phrase_replaced_everywhere_is_replaced_in_every_place(tool_ctx: ToolContext) -> None:
    write_files(Path(tool_ctx.workdir), {"c.md": "Jordan Blake signs.\nClient: Jordan Blake\nJordan Blake pays.\n"})
    result = edit(_asking(tool_ctx, "replace Jordan Blake with Jordan Blake-Reyes everywhere in c.md"), file_path="c.md",
                  old_content="Jordan Blake", new_content="Jordan Blake-Reyes")
    assert (Path(tool_ctx.workdir) / "c.md").read_text().count("Jordan Blake-Reyes") == 3
    assert (result["occurrences"], result["replaced"]) == (3, 3), result


def test_a_new_number_at_a_sentence_s_end_is_a_new_value(tmp_path: Path) -> None:
    (tmp_path / "settings.ini").write_text("[server]\nmax_connections = 50\n")
    assert sets_new_value(tmp_path / "settings.ini", "In settings.ini, raise max_connections to 100.")
    assert not sets_new_value(tmp_path / "settings.ini", "what is max_connections? it was 50.")


# ---------------------------------------------------------------- what a follow-up asks of a table

def test_a_follow_up_s_query_keeps_the_value_it_names_not_the_one_before(tool_ctx: ToolContext) -> None:
    from gaia_lite.tools.data import analyze_data_file

    write_files(Path(tool_ctx.workdir), {"sales.csv": "Region,Amount\nNorth,250\nsouth,180.5\nNORTH,320\nSouth,220\n"})
    tool_ctx.request.earlier = "user: how much did the north region sell? sales.csv\nassistant: 570"
    result = as_called(analyze_data_file)(_asking(tool_ctx, "ok and south?"), file_path="sales.csv",
                                          query="SELECT SUM(Amount) FROM data WHERE Region IN ('South', 'North')")
    assert result["message"] == ("SUM(Amount) over the rows where Region = 'South': 400.50. (North left out: named "
                                 "before, not in this question)"), result
    tool_ctx.request.earlier = ""   # a first question asks what it names
    both = as_called(analyze_data_file)(_asking(tool_ctx, "north and south together?"), file_path="sales.csv",
                                        query="SELECT SUM(Amount) FROM data WHERE Region IN ('South', 'North')")
    assert "970.50" in both["message"], both


def test_a_failed_edit_shows_the_call_the_request_asks_for(tool_ctx: ToolContext) -> None:
    write_files(Path(tool_ctx.workdir), {"scraper.py": "MAX_RETRIES = 3\nTIMEOUT = 10\n\ndef fetch(url):\n    return url\n"})
    result = edit(_asking(tool_ctx, "Change MAX_RETRIES in scraper.py to 5."), file_path="scraper.py",
                  old_content="def fetch(url):", new_content="    return url")
    assert result["error"].endswith("The request asks for this call: edit_file(file_path='scraper.py', "
                                    "old_content='MAX_RETRIES = 3', new_content='MAX_RETRIES = 5')"), result
    assert (Path(tool_ctx.workdir) / "scraper.py").read_text().startswith("MAX_RETRIES = 3\n")   # nothing written


def test_a_key_set_in_several_configs_is_said_with_its_values(tool_ctx: ToolContext) -> None:
    write_files(Path(tool_ctx.workdir), {"dev/app.yaml": "app:\n  debug: true\n", "prod/app.yaml": "debug: false\n",
                                         "svc/mail.ini": "[m]\ndebug = on\n", "svc/bill.ini": "debug = off\n; debug = on\n",
                                         "svc/search.conf": "debug_log_path = /var/log/debug.log\n"})
    message = grep_tool(_asking(tool_ctx, "which of my configs have debug turned on?"), pattern="debug")["message"]
    assert message.splitlines()[0] == ("debug is set in 4 places: on in dev/app.yaml (true), svc/mail.ini (on); off in "
                                       "prod/app.yaml (false), svc/bill.ini (off)."), message


def test_which_recipes_have_a_word_in_them_get_the_files_first(tool_ctx: ToolContext) -> None:
    from gaia_lite.tools.files import search_directory

    write_files(Path(tool_ctx.workdir), {"recipes/a/cookies.txt": "1 cup peanut butter\n", "recipes/b/soup.txt": "lentils\n",
                                         "recipes/b/noodles.txt": "crushed peanuts\n"})
    message = search_directory(_asking(tool_ctx, "which of my recipes have peanuts in them?"),
                               directory_name="recipes")["message"]
    assert ("The files under recipes/ (subfolders included) that mention 'peanuts': "
            "recipes/a/cookies.txt, recipes/b/noodles.txt (2 of the 3)") in message, message


def test_a_folder_asked_how_many_error_lines_counts_the_logs_lines_at_that_level(tool_ctx: ToolContext) -> None:
    from gaia_lite.tools.data import analyze_data_file

    write_files(Path(tool_ctx.workdir), {"logs/app.log": "1 ERROR a\n2 INFO retry after error\n",
                                         "logs/w/app.log.1": "[t] level=error x\n[t] level=error y\n"})
    result = as_called(analyze_data_file)(_asking(tool_ctx, "how many error lines are in the logs?"), file_path="logs")
    assert result["message"] == ("logs is a folder, not a table. 3 lines at level ERROR in the logs under logs/ "
                                 "(subfolders included): logs/app.log (1), logs/w/app.log.1 (2)."), result


def test_a_word_of_the_pattern_found_nowhere_is_said_before_the_lines_of_another(tool_ctx: ToolContext) -> None:
    # "does it say anything about towing capacity": told only of "Oil capacity ... 4.4 quarts", the 1.5B answered
    # with the oil capacity (probe50)
    write_files(Path(tool_ctx.workdir), {"car/manual.txt": "Tire pressure: 36 psi\nOil capacity with filter: 4.4 quarts.\n"})
    message = grep_tool(_asking(tool_ctx, "does it say anything about towing capacity"),
                        pattern="towing capacity", file_pattern=str(Path(tool_ctx.workdir) / "car_manual.pdf"))["message"]
    assert "No line holds 'towing' at all. No line holds 'towing capacity' or all of its words; lines with " \
           "'capacity' instead: " in message, message
    assert str(tool_ctx.workdir) not in message, message   # no absolute path shown


def test_the_words_of_a_phrase_are_found_in_their_singular_and_without_words_that_say_nothing(
        tool_ctx: ToolContext) -> None:
    # "tomatoes had blight": no line says "had", and the one that says it has "tomato leaves ... late blight" (probe51)
    write_files(Path(tool_ctx.workdir), {"log/e6.md": "Tomatoes fine.\n", "log/e8.md": "brown patches on the tomato "
                                         "leaves, it's late blight.\n", "log/e7.md": "Potatoes: early blight.\n"})
    message = grep_tool(_asking(tool_ctx, "In which garden log entry did I write that the tomatoes had blight?"),
                        pattern="tomatoes had blight")["message"]
    assert "lines with its words (tomatoes, blight) instead: 1 matching line in 1 file: log/e8.md (1)" in message, \
        message


def test_words_on_no_one_line_are_looked_for_in_the_files_that_hold_every_one(tool_ctx: ToolContext) -> None:
    # "wifi password cabin": the home note's password line, or the cabin note, whose wifi line says no cabin (probe51)
    write_files(Path(tool_ctx.workdir), {"notes/a.txt": "New wifi password for the home network: Maple-Street-2024\n",
                                         "notes/b.txt": "Lakeview cabin check-in\n- wifi: LakeviewGuest, password "
                                                        "PineCone_88\n", "notes/c.txt": "call the cabin owner\n"})
    message = grep_tool(_asking(tool_ctx, "which note has the wifi password for the cabin? and whats the pw"),
                        pattern="wifi password cabin")["message"]
    assert message.startswith("No line holds all of 'wifi', 'password', 'cabin'; the lines with them in the files "
                              "that hold every one of them: 2 matching lines in 1 file: notes/b.txt (2)"), message
    assert "Maple-Street" not in message, message


def test_comments_in_the_code_are_counted_in_code_files_alone(tool_ctx: ToolContext) -> None:
    # a README's "mark known bugs with FIXME comments" was counted among three FIXME comments, the 1.5B said 4
    # (probe53)
    write_files(Path(tool_ctx.workdir), {"src/auth.py": "x = 1\n# FIXME: expiry never checked\n",
                                         "src/cache.py": "# FIXME: grows forever\ny = 2  # FIXME: not thread safe\n",
                                         "README.md": "Please mark known bugs with FIXME comments.\n"})
    message = grep_tool(_asking(tool_ctx, "find all the FIXME comments in the code and tell me how many there are"),
                        pattern="FIXME")["message"]
    assert message.startswith("3 matching lines in 2 files: src/auth.py (1), src/cache.py (2)"), message
    assert message.endswith("(Not code, so not counted: README.md:1: Please mark known bugs with FIXME comments.)")
    # asked of every file, the README's line counts
    message = grep_tool(_asking(tool_ctx, "which files mention FIXME?"), pattern="FIXME")["message"]
    assert "3 files" in message and "Not code" not in message, message


def test_a_value_in_an_older_copy_comes_after_the_current_files(tool_ctx: ToolContext) -> None:
    # mc/backup/.../server.properties.bak's port came first, and the 1.5B gave it (probe53)
    write_files(Path(tool_ctx.workdir), {"mc/backup/2024/server.properties.bak": "server-port=25566\n",
                                         "mc/server/server.properties": "server-port=25565\n"})
    message = grep_tool(_asking(tool_ctx, "what port is the minecraft server on?"), pattern="server-port")["message"]
    assert message.index("mc/server/server.properties:1: server-port=25565") < message.index("25566"), message
    assert "Older copies, after the current: mc/backup/2024/server.properties.bak" in message


def test_a_file_name_searched_in_the_text_finds_the_files_named_like_it(tool_ctx: ToolContext) -> None:
    # "I think it's called resize.py" searched in the text found an old shell script whose lines said "resize" (probe53)
    write_files(Path(tool_ctx.workdir), {"scripts/media/img_resize.py": "from PIL import Image\n",
                                         "scripts/old/resize_images.sh": "# replaced by the python script\n"
                                                                         "convert -resize 1200x1200 a.jpg\n"})
    result = grep_tool(_asking(tool_ctx, "Find the Python script that resizes images. I think it's called resize.py"),
                       pattern="resize.py")
    assert result["message"].startswith("No line holds 'resize.py': it is a file's name, and the files named like it "
                                        "are: scripts/media/img_resize.py"), result["message"]


def test_a_file_filter_the_request_does_not_ask_for_is_dropped(tool_ctx: ToolContext) -> None:
    # "*.txt" for "which of the meeting notes mentions the new kiln?" found the kiln manual, the notes being .md
    # (probe53)
    write_files(Path(tool_ctx.workdir), {"notes/meeting_03.md": "The new kiln arrives April 2.\n",
                                         "equipment/kiln_manual.txt": "Fire the kiln slowly.\n"})
    message = grep_tool(_asking(tool_ctx, "Which of the meeting notes mentions the new kiln?"), pattern="kiln",
                        file_pattern="*.txt")["message"]
    assert "notes/meeting_03.md" in message and "the request names no *.txt file" in message, message
    message = grep_tool(_asking(tool_ctx, "which txt file mentions the kiln?"), pattern="kiln",
                        file_pattern="*.txt")["message"]
    assert "meeting_03" not in message, message


def test_an_address_in_a_pattern_is_searched_whole_before_its_words(tool_ctx: ToolContext) -> None:
    # "ip 192.168.1.50" found the one line that said "ip" and the four numbers, not the others (probe53)
    write_files(Path(tool_ctx.workdir), {"src/lights.py": 'BRIDGE_IP = "192.168.1.50"\n',
                                         "scripts/backup.sh": "rsync -a data/ pi@192.168.1.50:/srv/backup/\n",
                                         "src/printer.py": 'HOST = "192.168.1.5"\n'})
    result = grep_tool(_asking(tool_ctx, "find every file where the ip 192.168.1.50 shows up"),
                       pattern="ip 192.168.1.50", regex=True)
    assert result["count"] == 2 and "printer" not in result["message"], result["message"]
    assert "Older copies" not in result["message"]   # backup.sh is a script of that job, not an older copy


def test_a_files_path_searched_as_text_for_a_count_leads_with_its_entries(tool_ctx: ToolContext) -> None:
    # "How many games are listed in the board game club's library?" searched "games/library.md" in the files' text, and
    # the 1.5B answered that none were listed (probe57)
    write_files(Path(tool_ctx.workdir), {"games/library.md": "# Library\n\n- Catan\n- Azul\n- Wingspan\n",
                                         "games/archive/library_2022.md": "# Library (2022)\n\n- Catan\n- Risk\n"})
    result = grep_tool(_asking(tool_ctx, "How many games are listed in the board game club's library?"),
                       pattern="games/library.md", file_pattern="library.md")
    assert result["message"].startswith("List entries in games/library.md: 3.\nNo line holds 'games/library.md'"), \
        result["message"]
