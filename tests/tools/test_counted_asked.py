"""Counts that take the request's own limits: a subfolder it leaves out, a checklist's open entries, a list's tags, a
log's levels (issue 42, probe52).

Written blind by a helper, probe52 asked how many .stl files sit under printing/models "dont count whats in the
archive folder", how many client folders there are without _archive, how many books on a reading list are
"[finished]", how many packing-list entries are "still not checked off" and how many errors a backup log holds;
the 1.5B answered 7 of 5, 6 of 5, 7 of 6, 18 of 7 and 7 of 4 from what the tools gave it. Real files in temp
dirs, the tools called as the agent calls them.
"""

from __future__ import annotations

from pathlib import Path

from gaia_lite.registry.context import ToolContext
from gaia_lite.tools.files import browse_directory, read_file, search_file

from tests.tools.called import as_called, write_files

browse, find, read = as_called(browse_directory), as_called(search_file), as_called(read_file)


def _asking(ctx: ToolContext, message: str) -> ToolContext:
    ctx.request.message = message
    return ctx


def test_a_count_of_files_leaves_out_the_subfolder_the_request_does_not_count(tool_ctx: ToolContext) -> None:
    write_files(Path(tool_ctx.workdir), {"models/a.stl": "s", "models/minis/b.stl": "s", "models/minis/c.3mf": "s",
                                         "models/archive/old.stl": "s", "models/archive/v.stl": "s"})
    ctx = _asking(tool_ctx, "how many stl files do i have under models incl the subfolders? dont count whats in the "
                            "archive folder")
    message = find(ctx, "models/*.stl", deep_search=True, file_types="stl")["message"]
    assert message.startswith("2 files of type stl under models/"), message   # "stl" is a type, not a word sought
    assert "(not counted, as asked: models/archive/)" in message
    assert "old.stl" not in message


def test_a_count_of_folders_says_the_one_left_out(tool_ctx: ToolContext) -> None:
    write_files(Path(tool_ctx.workdir), {"clients/acme/x.txt": "x", "clients/bolt/2024/y.txt": "y",
                                         "clients/_archive/old/z.txt": "z"})
    ctx = _asking(tool_ctx, "how many client folders r there in clients? dont count the _archive folder")
    message = browse(ctx, "clients/_archive")["message"]
    assert message == "clients/ holds 2 folders directly (_archive/ left out, as asked): acme/, bolt/.", message
    # a subfolder's bare name is enough; a word that names no subfolder leaves nothing out (probe54)
    ctx = _asking(tool_ctx, "How many folders are directly inside clients, not counting _archive?")
    assert browse(ctx, "clients")["message"].startswith("clients/ holds 2 folders directly (_archive/ left out")
    ctx = _asking(tool_ctx, "How many folders are in clients, not counting empty ones?")
    assert browse(ctx, "clients")["message"].startswith("clients holds 3 folders")
    # nothing left out: the listing's own count, as before
    assert browse(_asking(tool_ctx, "how many folders are in clients?"), "clients")["message"].startswith(
        "clients holds 3 folders")


def test_a_list_whose_entries_carry_tags_is_counted_by_tag(tool_ctx: ToolContext) -> None:
    write_files(Path(tool_ctx.workdir), {"reading.md": "# 2024\n- [finished] A\n- [abandoned] B (never finished)\n"
                                                       "- [finished] C\n- [to-read] Unfinished Tales\n"})
    counted = read(_asking(tool_ctx, "How many books on my reading list have I actually finished?"),
                   "reading.md")["counted"]
    assert counted == ["2 of the 4 list entries are tagged [finished]: lines 2, 4 (the others: [abandoned] 1; "
                       "[to-read] 1)"]


def test_a_checklist_question_about_what_is_left_gets_the_open_entries(tool_ctx: ToolContext) -> None:
    write_files(Path(tool_ctx.workdir), {"packing.md": "# Trip\n## Shelter\n- [x] Tent\n- [ ] Pads\n## Misc\n"
                                                       "- [ ] Map\n- [x] Lamp\n- [x] Bags\n"})
    result = read(_asking(tool_ctx, "how many things on my packing list are still not checked off"), "packing.md")
    assert result["counted"] == ["2 of the 5 list entries are open (not checked off): Pads, Map; 3 are ticked"]
    assert "one a line" not in result.get("message", "")   # headings are no entries
    result = read(_asking(tool_ctx, "how many items have i packed already"), "packing.md")
    assert result["counted"] == ["3 of the 5 list entries are ticked (checked off): Tent, Lamp, Bags; 2 are open"]


def test_errors_in_a_log_are_the_lines_at_that_level(tool_ctx: ToolContext) -> None:
    write_files(Path(tool_ctx.workdir), {"backup.log": "02:00 INFO start\n02:04 WARN slow read, retrying after error\n"
                                                       "02:05 ERROR read failed\n02:11 ERROR denied\n"
                                                       "02:55 INFO finished with errors\n"})
    counted = read(_asking(tool_ctx, "How many errors did last night's backup log?"), "backup.log")["counted"]
    assert counted == ["2 of the 5 lines are at level ERROR: lines 3, 4"]
    # a text that is no log: the word, wherever it stands
    write_files(Path(tool_ctx.workdir), {"notes.txt": "an error here\nall fine\nanother error\n"})
    assert read(_asking(tool_ctx, "how many errors are in notes.txt?"), "notes.txt")["counted"] == [
        "2 of the 3 lines hold 'error': lines 1, 3"]


def test_a_count_asked_of_documents_reads_the_one_file_the_request_singles_out(rag_ctx: ToolContext) -> None:
    # "how many shifts is priya down for in the march roster? the final one not the draft" got both rosters' title
    # lines, and the 1.5B answered that none were listed (probe52); "Priyanka" is no Priya
    from gaia_lite.tools.rag import query_documents

    write_files(Path(rag_ctx.workdir), {
        "rosters/march_2024.txt": "# March 2024 (FINAL)\nSat 02 | Priya, Tom\nWed 06 | Priyanka\nWed 13 | Priya, Dev\n",
        "rosters/march_2024_draft.txt": "# March 2024 DRAFT\nSat 02 | Priya\nWed 06 | Priya\nWed 13 | Priya\n"})
    rag_ctx.request.message = "how many shifts is priya down for in the march roster? the final one not the draft"
    result = as_called(query_documents)(rag_ctx, "March roster Priya")
    assert result["file"] == "rosters/march_2024.txt", result
    assert "2 of the 4 lines hold 'priya': lines 2, 4" in result["message"], result["message"]


def test_the_biggest_file_of_a_kind_in_a_folder_is_ranked_by_size(tool_ctx: ToolContext) -> None:
    # "Which CSV file directly in lab/data (not in the raw or old subfolders) is the biggest in size?": the count named
    # no file, and a made-up lab/data/summary.csv read summary.json's text (probe52)
    from gaia_lite.tools.data import analyze_data_file

    write_files(Path(tool_ctx.workdir), {"lab/data/run_01.csv": "a\n1\n", "lab/data/run_02.csv": "a\n" + "1\n" * 40,
                                         "lab/data/summary.json": '{"runs": 2}', "lab/data/raw/run_02_raw.csv": "a\n" * 99})
    ctx = _asking(tool_ctx, "Which CSV file directly in lab/data (not in the raw subfolder) is the biggest in size?")
    assert "By size, largest first: lab/data/run_02.csv (82 B), lab/data/run_01.csv (4 B)" in \
        browse(ctx, "lab/data")["message"]
    assert "by size, largest first: lab/data/run_02.csv (82 B)" in find(ctx, "*.csv", search_root="lab/data")["message"]
    message = as_called(analyze_data_file)(ctx, "lab/data/summary.csv")["message"]
    assert message.startswith("lab/data/summary.csv does not exist; of the files in lab/data:") and \
        "run_02.csv (82 B)" in message, message


def test_the_words_of_a_vocab_list_are_its_entries_not_every_word_in_it(tool_ctx: ToolContext) -> None:
    write_files(Path(tool_ctx.workdir), {"vocab3.txt": "# Unit 3 vocab\n# quiz friday\n\n## Food\nla manzana - apple\n"
                                                       "el pan - bread\n\n## Travel\nel billete - ticket\n"
                                                       "la maleta - suitcase\n",
                                         "essay.txt": "The sea - grey and wide - rolled in.\nWe watched it go.\n"})
    result = read(_asking(tool_ctx, "how many vocab words r in my unit 3 list"), "vocab3.txt")
    assert result["message"] == "vocab3.txt has 4 entries, one a line (la manzana - apple ... la maleta - suitcase)."
    # prose is no list of pairs: its words are counted, a dash none
    assert read(_asking(tool_ctx, "how many words are in essay.txt?"), "essay.txt")["message"] == "essay.txt has 11 words."


def test_markdown_said_as_a_word_is_md_files_and_a_log_said_of_game_nights_is_no_log_file(tool_ctx: ToolContext) -> None:
    # "how many markdown notes": 0 .markdown files; "this year's game night log": 0 .log files (probe54, 0.5B)
    write_files(Path(tool_ctx.workdir), {"novel/notes/a.md": "a", "novel/notes/people/b.md": "b",
                                         "novel/notes/archive/c.md": "c", "games/logs/nights_2024.json": "[]",
                                         "server/app.log": "x"})
    ctx = _asking(tool_ctx, "how many markdown notes do i have in novel/notes? dont count the archive folder")
    assert browse(ctx, "novel/notes")["message"].startswith("2 markdown files (.markdown, .md) under novel/notes/")
    ctx = _asking(tool_ctx, "In this year's game night log (2024), what's Lena's highest score?")
    assert ".log" not in browse(ctx, "games/logs")["message"]
    ctx = _asking(tool_ctx, "how many log files are in server?")
    assert browse(ctx, "server")["message"].startswith("1 .log file")
