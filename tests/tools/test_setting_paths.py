"""Settings files are documents the index takes, each value read under the whole path of its keys (issue 42,
probe52).

Asked "What time does the bedroom heating come on during weekdays?", the index, blind to schedules.yaml, answered
from a note that said 6:45; a nested file read line by line loses the keys above each line. Real files, a real
RagIndex (hashing embedder), query_documents called as the agent calls it.
"""

from __future__ import annotations

from pathlib import Path

from gaia_lite.registry.context import ToolContext
from gaia_lite.tools.rag import query_documents
from gaia_lite.tools.setting_paths import flat_settings, keys_above

from tests.tools.called import as_called, write_files

SCHEDULE = ("heating:\n  living_room:\n    weekdays: {start: \"06:30\"}\n  bedroom:\n    weekdays: {start: \"06:15\"}\n"
            "    weekends: {start: \"08:00\"}\n")


def test_a_settings_file_is_one_line_per_value_under_its_keys() -> None:
    assert flat_settings("schedules.yaml", SCHEDULE).splitlines() == [
        "heating living_room weekdays start: 06:30", "heating bedroom weekdays start: 06:15",
        "heating bedroom weekends start: 08:00"]
    assert flat_settings("app.ini", "[db]\nport = 5433\n") == "db port: 5433"
    assert flat_settings("app.toml", "[uploads]\nmax_upload_mb = 25\n") == "uploads max_upload_mb: 25"
    assert flat_settings("notes.md", "# x\n") is None and flat_settings("bad.yaml", "a: [b\n") is None


def test_a_question_about_a_setting_is_answered_from_the_current_settings_file(rag_ctx: ToolContext) -> None:
    write_files(Path(rag_ctx.workdir), {"smarthome/schedules.yaml": SCHEDULE,
                                        "smarthome/backup/schedules_2023.yaml": SCHEDULE.replace("06:15", "06:45"),
                                        "smarthome/notes.md": "Moved bedroom heating earlier, it was too cold at 6:45.\n"})
    rag_ctx.request.message = "What time does the bedroom heating come on during weekdays?"
    result = as_called(query_documents)(rag_ctx, "bedroom heating weekdays")
    assert "heating bedroom weekdays start: 06:15" in result["message"], result["message"]
    assert "06:45" not in result["message"] and "backup" not in result["message"]


def test_a_read_of_a_settings_file_gives_the_values_the_request_asks_under_their_keys(tool_ctx: ToolContext) -> None:
    # read whole, schedules.yaml got "6:30 AM" (the living room's) from the 1.5B (probe52)
    from gaia_lite.tools.files import read_file

    write_files(Path(tool_ctx.workdir), {"schedules.yaml": SCHEDULE})
    tool_ctx.request.message = "What time does the bedroom heating come on during weekdays?"
    result = as_called(read_file)(tool_ctx, "schedules.yaml")
    assert result["settings_matching_request"] == ["heating bedroom weekdays start: 06:15"], result


CONFIG = """{
  "station_id": "WS-1",
  "sensors": [
    {
      "name": "indoor",
      "humidity_offset_pct": 1.5
    },
    {
      "name": "outdoor",
      "type": "SHT31",
      "humidity_offset_pct": -3.2
    }
  ],
  "upload": {"every_min": 10}
}
"""
LIST_YAML = "sensors:\n  - name: indoor\n    humidity: 1.5\n  - name: outdoor\n    type: x\n    humidity: -3.2\n"


def test_a_line_of_a_settings_file_is_told_by_the_keys_and_item_above_it() -> None:
    lines = CONFIG.splitlines()
    assert [keys_above("config.json", lines, i) for i in (5, 10, 14)] == ["sensors > indoor", "sensors > outdoor", ""]
    rows = LIST_YAML.splitlines()
    assert [keys_above("s.yaml", rows, i) for i in (2, 5)] == ["sensors > indoor", "sensors > outdoor"]
    ini = ["[database]", "host = db", "port = 5433", "[tests]", "port = 1"]
    assert [keys_above("settings.ini", ini, i) for i in (2, 4)] == ["database", "tests"]
    assert keys_above("notes.md", ["a:", "  b: 1"], 1) == ""   # no settings file


def test_a_grep_of_a_settings_file_says_what_each_line_is_under(tool_ctx: ToolContext) -> None:
    # three "humidity_offset_pct" lines, and not which sensor each was (probe54)
    from gaia_lite.tools.files import search_file_content

    write_files(Path(tool_ctx.workdir), {"station/config.json": CONFIG})
    message = as_called(search_file_content)(tool_ctx, "humidity_offset")["message"]
    assert 'station/config.json:11: "humidity_offset_pct": -3.2 (under sensors > outdoor)' in message, message


def test_a_question_listed_as_a_folder_leads_with_the_settings_line_it_asks(tool_ctx: ToolContext) -> None:
    # listed for "What humidity offset is configured for the outdoor sensor ...", the 1.5B answered that it "is
    # configured" (probe54)
    from gaia_lite.tools.files import browse_directory

    write_files(Path(tool_ctx.workdir), {"station/config.json": CONFIG, "station/config.backup.json": CONFIG,
                                         "station/README.md": "Weather station files.\n"})
    tool_ctx.request.message = "What humidity offset is configured for the outdoor sensor in my station config?"
    message = as_called(browse_directory)(tool_ctx, "station")["message"]
    assert message.startswith('For the request: station/config.json: line 11: "humidity_offset_pct": -3.2 (under '
                              'sensors > outdoor)'), message
    tool_ctx.request.message = "what's in the station folder?"   # a listing asks nothing of the files
    assert as_called(browse_directory)(tool_ctx, "station")["message"].startswith("station holds")


def test_a_folder_found_for_a_question_leads_with_the_lines_below_it_that_hold_most_of_its_words(
        tool_ctx: ToolContext) -> None:
    # the HACK comments of "the site folder" were in site/js/, and a gear list's three lines holding "water" and
    # "day" hid the guide's answer (probe55)
    from gaia_lite.tools.files import browse_directory, search_directory

    write_files(Path(tool_ctx.workdir), {"site/index.html": "<p>hi</p>\n",
                                         "site/js/standings.js": "// HACK: season start is hardcoded\nrun()\n",
                                         "trip/gear_list.md": "- 2 L water\n- lunch for each day\n- hat for the day\n",
                                         "trip/guide.md": "Day 2: we leave the hut at 7:00.\nLast water refill: "
                                                          "Kessel Spring.\n"})
    tool_ctx.request.message = "any HACK comments in the site folder?"
    message = as_called(search_directory)(tool_ctx, "site")["message"]
    assert message.startswith("For the request: site/js/standings.js: line 1: // HACK: season start"), message
    tool_ctx.request.message = "what time do we leave the hut on day 2, and where is the last water refill?"
    message = as_called(browse_directory)(tool_ctx, "trip")["message"]
    assert message.startswith("For the request: trip/guide.md: "), message


def test_an_ini_line_is_under_its_section_alone() -> None:
    # "name = inventory" in [database] named every line of the file "inventory" (probe54)
    lines = "[server]\nport = 8080\n\n[database]\nport = 5433\nname = inventory\n".splitlines()
    assert [keys_above("settings.ini", lines, i) for i, line in enumerate(lines) if line] == \
        ["", "server", "", "database", "database"]
