"""Of several files named alike, the one the request names by its folders, a number or a month comes first.

Asked "when is biscuits next vet appt", the 1.5B got pets/mochi/vet-notes.txt's line before pets/biscuit/'s and
answered with both; asked who wrote "episode 12", it read podcast/ep11's author first; asked what "the march board
minutes" say, the February minutes' line led (probe50). Real files in temp dirs, the tools called as the agent
calls them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gaia_lite.registry.context import ToolContext
from gaia_lite.tools.files import read_file, search_file, search_file_content
from gaia_lite.tools.find import singled_out

from tests.tools.called import as_called, write_files

PETS = {"pets/mochi/vet-notes.txt": "Mochi (cat)\nNext appointment: Wednesday 2 April 2025\n",
        "pets/biscuit/vet-notes.txt": "Biscuit (beagle)\nVisits\n- 9 January\n\n\n\nNext appointment: Friday 14 March 2025\n"}


def _asking(ctx: ToolContext, message: str) -> ToolContext:
    ctx.request.message = message
    return ctx


@pytest.mark.parametrize("message, paths, meant", [
    ("when is biscuits next vet appt", ["pets/mochi/vet-notes.txt", "pets/biscuit/vet-notes.txt"], 1),
    ("who is the author of episode 12?", ["podcast/ep11/meta.json", "podcast/ep12/meta.json", "podcast/ep13/meta.json"], 1),
    ("in the march board minutes, who gets the quotes?", ["minutes/2025-02-board.md", "minutes/2025-03-board.md"], 1),
    ("what did the notes say?", ["a/notes.md", "b/notes.md"], None),                       # nothing tells them apart
    ("how big is my starter log? not the 2025 one", ["log.txt", "log-2025.txt"], 0),      # the one not left out
    ("how many shifts in the march roster? the final one not the draft", ["r/march.txt", "r/march_draft.txt"], 0),
    ("what may the lease allow?", ["2025-04/lease.txt", "2025-05/lease.txt"], None),      # "may" the verb
    ("open notes.md", ["notes.md"], None),                                                 # one path: nothing to pick
])
def test_the_path_a_request_names_among_paths_alike(message: str, paths: list[str], meant: int | None) -> None:
    assert singled_out(message, paths) == meant


def test_a_content_search_leads_with_the_file_whose_folder_the_request_names(tool_ctx: ToolContext) -> None:
    write_files(Path(tool_ctx.workdir), {f"podcast/ep{n}/metadata.json": f'{{"author": "{who}"}}\n'
                                         for n, who in ((11, "Marcus Lee"), (12, "Dana Whitfield"), (13, "Sam Ortega"))})
    result = as_called(search_file_content)(_asking(tool_ctx, "Who is the author for episode 12 of my podcast?"),
                                            pattern="author")
    assert result["message"].startswith('For the request: podcast/ep12/metadata.json: line 1: {"author": '
                                        '"Dana Whitfield"}'), result["message"]
    assert result["files"][0] == "podcast/ep12/metadata.json (1)", result["files"]
    assert "Marcus Lee" not in result["message"] and "podcast/ep11/metadata.json (1)" in result["message"], result


def test_a_search_for_a_path_that_exists_finds_that_file_and_its_lines_the_request_asks(tool_ctx: ToolContext) -> None:
    write_files(Path(tool_ctx.workdir), PETS)
    result = as_called(search_file)(_asking(tool_ctx, "when is biscuits next vet appt"),
                                    file_pattern="pets/biscuit/vet-notes.txt")
    assert result["count"] == 1 and result["files"][0]["path"].endswith("pets/biscuit/vet-notes.txt"), result
    assert result["message"].startswith("For the request: pets/biscuit/vet-notes.txt: line 7: Next appointment: "
                                        "Friday 14 March 2025"), result["message"]


def test_a_guessed_path_reads_the_file_alike_whose_folder_the_request_names(tool_ctx: ToolContext) -> None:
    write_files(Path(tool_ctx.workdir), PETS)
    result = as_called(read_file)(_asking(tool_ctx, "when is biscuits next vet appt"), file_path="vet-notes.txt")
    assert result["file_path"].endswith("pets/biscuit/vet-notes.txt") and "14 March" in result["content"], result
    # nothing in the request tells the two apart: both are offered, none is read
    result = as_called(read_file)(_asking(tool_ctx, "when is the next vet appt"), file_path="vet-notes.txt")
    assert result["status"] == "error" and len(result["candidates"]) == 2, result


GARDEN = {"garden/todo-old.md": "# Garden to-do (last year)\n- [ ] Build cold frame\n- [ ] Move rhubarb\n- [x] Buy seeds\n",
          "garden/todo.md": "# Garden to-do\n## Beds\n- [x] Turn compost\n- [ ] Order potatoes\n## Pests\n- [ ] Net strawberries\n"}


def test_of_a_file_and_its_older_copy_the_current_one_is_shown_with_its_entries_counted(tool_ctx: ToolContext) -> None:
    write_files(Path(tool_ctx.workdir), GARDEN)
    result = as_called(search_file_content)(_asking(tool_ctx, "how many things are still unchecked on my garden todo "
                                                              "list"), pattern="TODO")
    assert result["files"][0]["name"] == "todo.md", result["files"]
    assert result["message"].startswith("List entries in garden/todo.md: 3 (under Beds 2, under Pests 1; 1 ticked "
                                        "(checked), 2 open (unchecked)).\nFor the request: garden/todo.md"), result
    assert result["garden/todo.md"] == GARDEN["garden/todo.md"], result


def test_a_count_asked_of_documents_with_none_indexed_counts_the_list_the_request_points_to(
        rag_ctx: ToolContext) -> None:
    from gaia_lite.tools.rag import query_documents

    write_files(Path(rag_ctx.workdir), GARDEN)
    result = as_called(query_documents)(_asking(rag_ctx, "how many things are still unchecked on my garden todo list"),
                                        query="is not checked")
    assert result["message"].startswith("No documents were indexed here. List entries in garden/todo.md: 3 (under "
                                        "Beds 2, under Pests 1; 1 ticked (checked), 2 open (unchecked)). Its text:\n"
                                        "# Garden to-do\n"), result


def test_a_guessed_name_for_a_folder_with_one_current_file_reads_that_file(tool_ctx: ToolContext) -> None:
    # "spectrometer_config.txt" for spectrometer/config/{settings.ini, settings.ini.bak}: the listing was answered
    # "the firmware version is not specified" (probe50)
    write_files(Path(tool_ctx.workdir), {"lab/spectrometer/config/settings.ini": "[device]\nfirmware_version = 4.2.17\n",
                                         "lab/spectrometer/config/settings.ini.bak": "[device]\nfirmware_version = 4.1.9\n"})
    result = as_called(read_file)(_asking(tool_ctx, "What firmware version is configured for the spectrometer?"),
                                  file_path="spectrometer_config.txt")
    assert result["file_path"].endswith("config/settings.ini") and "4.2.17" in result["content"], result


@pytest.mark.parametrize("name, text, said", [
    ("settings.dat", '{\n "units": "metric"\n}\n', "JSON (from its content; the .dat extension does not say so)"),
    ("export", "id,name\n1,ann\n2,bo\n", "CSV (from its content; its name has no extension)"),
    ("feed.txt", "<rss><item/></rss>", "XML (from its content; the .txt extension does not say so)"),
    ("notes.txt", "Name: Bob\nAge: 3\n", None),              # notes, not YAML
    ("data.json", '{"a": 1}', None),                          # the extension says it
    ("main.py", "x = 1\n", None),
])
def test_a_file_read_says_its_format_when_its_extension_does_not(tool_ctx: ToolContext, name: str, text: str,
                                                                  said: str | None) -> None:
    write_files(Path(tool_ctx.workdir), {name: text})
    assert as_called(read_file)(tool_ctx, file_path=name).get("format") == said


def test_a_listing_whose_request_names_one_of_its_files_says_that_file_s_format_and_start(
        tool_ctx: ToolContext) -> None:
    from gaia_lite.tools.files import browse_directory

    write_files(Path(tool_ctx.workdir), {"gym/backup/settings.dat": '{\n  "units": "metric"\n}\n',
                                         "gym/backup/workouts.dat": "date,lift,weight_lbs\n2025-01-02,squat,185\n"})
    message = as_called(browse_directory)(_asking(tool_ctx, "What format is the data in gym/backup/settings.dat?"),
                                          directory_path="gym/backup")["message"]
    assert message.startswith("gym/backup holds 2 files: settings.dat, workouts.dat. settings.dat is written in JSON "
                              "(from its content; the .dat extension does not say so). settings.dat begins:\n{\n"), message


QUOTES = {"home/roof/quote-apex.txt": "APEX\nTOTAL: $12,450\nWorkmanship warranty: 10 years.\n",
          "home/roof/quote-northline.txt": "NORTHLINE\nTotal price: $11,980\nWorkmanship warranty: 5 years.\n"}


@pytest.mark.parametrize("tool, path", [("analyze_data_file", "roofing_quotes.csv"), ("read_file", "roofing_quotes.txt")])
def test_a_missing_path_for_a_comparison_gives_each_file_named_like_it_whole(tool_ctx: ToolContext, tool: str,
                                                                              path: str) -> None:
    from gaia_lite.tools.data import analyze_data_file

    write_files(Path(tool_ctx.workdir), QUOTES)
    called = as_called({"analyze_data_file": analyze_data_file, "read_file": read_file}[tool])
    result = called(_asking(tool_ctx, "Compare the two roofing quotes: which one is cheaper in total?"), file_path=path)
    assert result["message"] == (f"{path} does not exist; the request compares, and 2 files are named like it, so "
                                 "here is each whole: home/roof/quote-apex.txt, home/roof/quote-northline.txt"), result
    assert result["home/roof/quote-northline.txt"] == QUOTES["home/roof/quote-northline.txt"]
    # no comparison asked: the failure names the candidates, as before
    assert called(_asking(tool_ctx, "what does the roofing quote say?"), file_path=path)["status"] == "error"


def test_a_name_search_puts_first_the_file_a_word_of_the_request_starts_alike(tool_ctx: ToolContext) -> None:
    # "where did i put the invoice from the plumber??" searched "invoice.txt": the roofer's came first (probe51)
    write_files(Path(tool_ctx.workdir), {"house/2023/roofer_invoice_nov.txt": "Roof\n",
                                         "house/2024/plumbing_invoice_june.txt": "Pipes\n",
                                         "house/2024/electrician_invoice_may.txt": "Wires\n"})
    result = as_called(search_file)(_asking(tool_ctx, "where did i put the invoice from the plumber??"),
                                    file_pattern=str(Path(tool_ctx.workdir) / "invoice.txt"))
    assert result["files"][0]["name"] == "plumbing_invoice_june.txt", result["files"]
    assert result["message"].startswith("No file name holds 'invoice.txt' exactly. Closest: "
                                        "house/2024/plumbing_invoice_june.txt"), result["message"]


TANKS = {"aquarium/config/tank.yaml": "# Main display tank - current settings\nheater:\n  target_temp_c: 25.5\n",
         "aquarium/config/backup/tank.yaml": "# Main display tank - backup\nheater:\n  target_temp_c: 24.0\n",
         "aquarium/quarantine/config/tank.yaml": "# Quarantine tank\nheater:\n  target_temp_c: 26\n"}


def test_a_made_up_name_reads_the_file_alike_whose_words_the_request_says(tool_ctx: ToolContext) -> None:
    # three tank.yaml files for "the current config for my main display tank"; the 1.5B's made-up name got an error
    # listing all three (probe54)
    write_files(Path(tool_ctx.workdir), TANKS)
    ctx = _asking(tool_ctx, "What temperature is the heater set to in the current config for my main display tank?")
    assert as_called(read_file)(ctx, "config/main_display_tank_config.txt")["file_path"].endswith(
        "aquarium/config/tank.yaml")


SETTINGS = {"app/config/settings.ini": "[database]\nport = 5433\n", "app/config/settings.ini.orig": "[database]\nport = 5432\n",
            "app/tests/fixtures/settings.ini": "[database]\nport = 6543\n",
            "app/docker/settings.example.ini": "[database]\nport = 5440\n"}


def test_the_real_config_is_read_not_its_original_example_or_the_fixture_left_out(tool_ctx: ToolContext) -> None:
    # the 1.5B read settings.ini.orig and answered 5432 (probe54)
    write_files(Path(tool_ctx.workdir), SETTINGS)
    ctx = _asking(tool_ctx, "What database port does the app use according to its settings.ini? The real config, "
                            "not the test fixture.")
    for asked in ("settings.ini", "app/config/settings.ini.orig"):
        read = as_called(read_file)(ctx, asked)
        assert read["file_path"].endswith("app/config/settings.ini") and "5433" in read["content"], (asked, read)


def test_a_pattern_of_a_file_type_searched_in_text_is_a_count_of_those_files(tool_ctx: ToolContext) -> None:
    # ".*\.py$" in the files' text found a README line saying "cli.py" (probe54)
    write_files(Path(tool_ctx.workdir), {"src/pkg/a.py": "x\n", "src/pkg/io/b.py": "y\n", "src/pkg/c.py.bak": "z\n",
                                         "src/pkg/README.md": "Entry point: a.py\n"})
    ctx = _asking(tool_ctx, "How many Python files are there under src, including all subfolders?")
    for pattern in (r".*\.py$", "*.py", r"\.py", "src/*.py"):
        message = as_called(search_file_content)(ctx, pattern, "src")["message"]
        assert message.startswith("2 .py files under src/, subfolders included"), (pattern, message)
