"""A listing leads with what the request asks of the files under the folder (issue 42, probe48).

Asked how many photos and how many videos a holiday folder holds with its day subfolders, which files in an
invoices folder (not its paid subfolder) are bigger than 200 bytes, how many minutes mention the budget, or for
the files with "draft" in their names, both models listed a folder and answered from its top level, from the
subfolder they were told to leave out, or with the list of names. Real folders in temp dirs, the tools called as
the agent calls them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gaia_lite.registry.context import ToolContext
from gaia_lite.tools.data import analyze_data_file
from gaia_lite.tools.files import browse_directory, read_file, search_directory, search_file, search_file_content
from gaia_lite.tools.tree_asked import exts_asked, kinds_asked, mention_term, name_term, size_limit

from tests.tools.called import as_called, write_files

browse = as_called(browse_directory)
grep_tool = as_called(search_file_content)


_files = write_files


def _asking(ctx: ToolContext, message: str, earlier: str = "") -> ToolContext:
    ctx.request.message, ctx.request.earlier = message, earlier
    return ctx


# ---------------------------------------------------------------- what the words ask

@pytest.mark.parametrize("message, kinds, exts", [
    ("how many photos and how many videos are in trip?", ["photo", "video"], []),
    ("which files in dl r pdfs?", [], [".pdf"]),
    ("count the MP3 and flac files", [], [".mp3", ".flac"]),
    ("where did the docs go?", [], []),        # "docs", "go": words before extensions
    ("list the spreadsheets in taxes", ["spreadsheet"], []),
    # a type written as one, known or not: "2" from the top level's two folders was the 1.5B's answer (probe54)
    ("How many .gpx files are in the cycling/rides folder?", [], [".gpx"]),
    ("open the notes.txt files", [], []),      # a name, not a type
])
def test_kinds_and_extensions_are_read_from_the_request(message: str, kinds: list[str], exts: list[str]) -> None:
    assert (kinds_asked(message), exts_asked(message)) == (kinds, exts)


@pytest.mark.parametrize("message, limit", [
    ("how many files r bigger than 200 bytes?", (">", 200, "bigger than 200 bytes")),
    ("anything under 2 MB in there?", ("<", 2 * 1024 ** 2, "smaller than 2 MB")),
    ("how many empty files are in app?", ("=", 0, "empty (0 bytes)")),
    ("files with 0 bytes", ("=", 0, "empty (0 bytes)")),
    ("what is the biggest file?", None),
])
def test_a_size_limit_is_read_with_its_unit(message: str, limit: tuple | None) -> None:
    assert size_limit(message) == limit


@pytest.mark.parametrize("message, term", [
    ("How many of the minutes mention the budget?", "budget"),
    ("which notes contain the word 'frost date'?", "frost date"),
    ("does any file talk about refunds", "refunds"),
    ("how many files are in notes?", None),
])
def test_what_files_should_mention_is_read(message: str, term: str | None) -> None:
    assert mention_term(message) == term


@pytest.mark.parametrize("message, term", [
    ("find all files with draft in the name", "draft"),
    ("files whose names contain backup", "backup"),
    ('anything named "invoice" in there?', "invoice"),
    ("find the draft of my essay", None),
])
def test_what_names_should_hold_is_read(message: str, term: str | None) -> None:
    assert name_term(message) == term


# ---------------------------------------------------------------- a listing leads with the answer

def test_kinds_asked_are_counted_at_any_depth_in_any_case_and_compared(tool_ctx: ToolContext) -> None:
    _files(Path(tool_ctx.workdir), {"trip/d1/a.jpg": "j", "trip/d1/B.JPG": "j", "trip/d1/c.mp4": "v",
                                    "trip/d2/d.heic": "j", "trip/d2/e.mov": "v", "trip/plan.pdf": "p"})
    message = browse(_asking(tool_ctx, "how many photos and how many videos are in trip, day folders too? which "
                                       "is there more of?"), "trip")["message"]
    assert message.startswith(
        "3 photo files (.heic, .jpeg, .jpg, .png, .webp) under trip/ (subfolders included): trip/d1/B.JPG, "
        "trip/d1/a.jpg, trip/d2/d.heic. 2 video files (.avi, .mkv, .mov, .mp4, .webm) under trip/ (subfolders "
        "included): trip/d1/c.mp4, trip/d2/e.mov. There are more photo files than video files (3 to 2). (trip holds "
        "2 folders and 1 file at its top level.)"
    ), message


def test_a_listed_subfolder_the_request_leaves_out_stands_for_its_parent(tool_ctx: ToolContext) -> None:
    _files(Path(tool_ctx.workdir), {"inv/a.txt": "x" * 300, "inv/b.txt": "x" * 50, "inv/c.txt": "x" * 250,
                                    "inv/paid/old.txt": "x" * 900})
    result = browse(_asking(tool_ctx, "in the inv folder (not the paid subfolder), how many files r bigger than "
                                      "200 bytes?"), "inv/paid")
    assert result["message"].startswith(
        "2 files are bigger than 200 bytes in inv/ (inv/paid/ left out): inv/a.txt (300 B), "
        "inv/c.txt (250 B). (inv holds 1 folder and 3 files at its top level.)"), result["message"]
    assert Path(result["path"]) == Path(tool_ctx.workdir) / "inv"


def test_a_listed_subfolder_the_request_takes_in_stands_for_its_parent(tool_ctx: ToolContext) -> None:
    _files(Path(tool_ctx.workdir), {"dl/a.PDF": "%", "dl/b.txt": "t", "dl/old/c.pdf": "%"})
    message = browse(_asking(tool_ctx, "which files in dl r pdfs? include the old subfolder"), "dl/old")["message"]
    assert message.startswith("2 .pdf files under dl/ (subfolders included): dl/a.PDF, dl/old/c.pdf."), message


def test_a_subfolder_listed_alone_stays_listed_when_the_request_does_not_name_its_parent(tool_ctx: ToolContext) -> None:
    _files(Path(tool_ctx.workdir), {"dl/a.pdf": "%", "dl/old/c.pdf": "%"})
    message = browse(_asking(tool_ctx, "which pdfs are in the old folder, not counting anything else?"),
                     "dl/old")["message"]
    assert message.startswith("1 .pdf file in dl/old/: dl/old/c.pdf."), message


def test_empty_files_are_found_at_any_depth_hidden_ones_too(tool_ctx: ToolContext) -> None:
    _files(Path(tool_ctx.workdir), {"app/main.py": "run()\n", "app/pkg/__init__.py": "", "app/logs/.keep": "",
                                    "other/empty.txt": ""})
    message = browse(_asking(tool_ctx, "how many empty files are there in app, counting every subfolder?"),
                     ".")["message"]   # the working folder listed: the folder the request names is meant
    assert message.startswith("2 files are empty (0 bytes) under app/ (subfolders included): app/logs/.keep, "
                              "app/pkg/__init__.py."), message


def test_files_that_mention_a_word_are_counted_any_case(tool_ctx: ToolContext) -> None:
    _files(Path(tool_ctx.workdir), {"club/m1.txt": "The Budget passed.\n", "club/m2.txt": "New logo.\n",
                                    "club/m3.txt": "BUDGET cuts.\n", "club/photo.png": "budget"})
    message = browse(_asking(tool_ctx, "How many of the minutes in club mention the budget?"), "club")["message"]
    assert message.startswith("2 files in club/ mention 'budget': club/m1.txt, club/m3.txt (3 files read)."), message


def test_the_smallest_file_of_a_tree_is_ranked_at_any_depth(tool_ctx: ToolContext) -> None:
    _files(Path(tool_ctx.workdir), {"school/a.txt": "x" * 40, "school/bio/lab/ok.txt": "ok", "school/m/h.txt": "x" * 9})
    message = search_directory(_asking(tool_ctx, "whats the smallest file in school? look in all the subfolders"),
                               directory_name="school")["message"]
    assert ("Under school/ (subfolders included): by size, smallest first: school/bio/lab/ok.txt "
            "(2 B), school/m/h.txt (9 B), school/a.txt (40 B)") in message, message


def test_a_tree_s_total_size_is_added_up(tool_ctx: ToolContext) -> None:
    _files(Path(tool_ctx.workdir), {"pics/a.jpg": "x" * 1000, "pics/2024/b.jpg": "x" * 1500, "pics/2024/c.txt": "x"})
    message = browse(_asking(tool_ctx, "how much space does my pics folder take up?"), "pics")["message"]
    assert message.startswith("The 3 files under pics/ (subfolders included) take 2,501 B (2.4 KB) in all."), message


def test_empty_folders_are_named(tool_ctx: ToolContext) -> None:
    _files(Path(tool_ctx.workdir), {"proj/src/a.py": "x"})
    for empty in ("proj/build_old", "proj/src/tmp"):
        (Path(tool_ctx.workdir) / empty).mkdir(parents=True)
    message = browse(_asking(tool_ctx, "are there any empty folders in proj?"), "proj")["message"]
    assert message.startswith("2 empty folders under proj/ (subfolders included): proj/build_old/, proj/src/tmp/."), \
        message


def test_a_top_level_question_gets_no_count_of_deeper_folders(tool_ctx: ToolContext) -> None:
    _files(Path(tool_ctx.workdir), {"recipes/cakes/birthday/r.txt": "x", "recipes/soups/s.md": "x", "recipes/l.txt": "x"})
    message = browse(_asking(tool_ctx, "how many folders are directly inside recipes? just the top level ones"),
                     "recipes")["message"]
    assert message == "recipes holds 2 folders: cakes/, soups/ and 1 file: l.txt", message


def test_a_request_for_the_whole_structure_names_every_file(tool_ctx: ToolContext) -> None:
    _files(Path(tool_ctx.workdir), {f"site/{d}/f{i}.css": "x" for i, d in enumerate(["css", "css/v", "js", "img",
                                                                                      "img/icons", "img/icons"])})
    _files(Path(tool_ctx.workdir), {"site/index.html": "x", "site/js/app.js": "x"})
    message = browse(_asking(tool_ctx, "show me the folder structure of site, all subfolders and files"),
                     "site")["message"]
    assert "site/img/icons/f5.css" in message and "site/js/app.js" in message and "by subfolder" not in message


def test_a_tree_too_big_to_walk_gets_no_lead_rather_than_a_count_of_part_of_it(tool_ctx: ToolContext,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from gaia_lite.tools import tree_asked

    _files(Path(tool_ctx.workdir), {f"pics/d{i}/p{i}.jpg": "j" for i in range(6)})
    monkeypatch.setattr(tree_asked, "WALKED", 5)
    message = browse(_asking(tool_ctx, "how many photos are in pics, subfolders too?"), "pics")["message"]
    assert not message[0].isdigit(), message   # no "0 photo files" from the part walked
    assert message.startswith("pics holds 6 folders"), message


def test_a_listing_for_a_request_that_asks_nothing_of_its_files_is_as_before(tool_ctx: ToolContext) -> None:
    _files(Path(tool_ctx.workdir), {"notes/a.txt": "x", "notes/old/b.txt": "y"})
    message = browse(_asking(tool_ctx, "what's in notes?"), "notes")["message"]
    assert message.startswith("notes holds 1 folder: old/ and 1 file: a.txt."), message


def test_the_subfolder_with_the_most_files_is_named(tool_ctx: ToolContext) -> None:
    _files(Path(tool_ctx.workdir), {"club/fin/a.txt": "x", "club/fin/b.txt": "x", "club/tour/2024/c.pgn": "x",
                                    "club/tour/d.pgn": "x", "club/tour/e.pgn": "x", "club/flyer.png": "x"})
    message = browse(_asking(tool_ctx, "which folder inside club has the most files in it?"), "club")["message"]
    assert message.startswith("club/tour/ has the most files (3 at any depth); by subfolder: club/tour/ 3, "
                              "club/fin/ 2."), message


# ---------------------------------------------------------------- the other tools

def test_a_top_level_count_from_another_tool_counts_the_folders_too(tool_ctx: ToolContext) -> None:
    _files(Path(tool_ctx.workdir), {"recipes/cakes/r.txt": "x", "recipes/soups/s.md": "x", "recipes/l.txt": "x"})
    message = search_directory(_asking(tool_ctx, "how many folders are directly inside recipes? just the top level"),
                               directory_name=str(tool_ctx.workdir), max_depth=1)["message"]
    assert message == ("Directly in recipes/, subfolders not counted: 2 folders (cakes/, soups/) and 1 .txt file "
                       "(1 in all)."), message


def test_a_content_search_asked_for_names_leads_with_the_names(tool_ctx: ToolContext) -> None:
    _files(Path(tool_ctx.workdir), {"w/ch1_draft.docx": "x", "w/blog/Draft hike.md": "# Hike\n",
                                    "w/cooking.md": "This was a draft once.\n"})
    message = grep_tool(_asking(tool_ctx, "find me all files with draft in the name in w, any case"), pattern="draft",
                        directory="w")["message"]
    assert message == ("2 files have 'draft' in their name under w/ (subfolders included): w/blog/Draft hike.md, "
                       "w/ch1_draft.docx."), message   # cooking.md's text says "draft": not what was asked


def test_a_folder_given_as_a_table_gets_what_the_request_asks_of_its_files(tool_ctx: ToolContext) -> None:
    _files(Path(tool_ctx.workdir), {"app/main.py": "run()\n", "app/pkg/__init__.py": ""})
    result = as_called(analyze_data_file)(_asking(tool_ctx, "how many empty files are in app?"), file_path="app")
    assert result["message"] == ("app is a folder, not a table. 1 file is empty (0 bytes) under app/ (subfolders "
                                 "included): app/pkg/__init__.py."), result


def test_a_list_file_is_counted_by_its_entries(tool_ctx: ToolContext) -> None:
    _files(Path(tool_ctx.workdir), {"party/guests.txt": "Ann Lee\nBo Chan\n\nCy Diaz\nDee Fox\n"})
    message = read_file(_asking(tool_ctx, "How many people are on the guest list in party/guests.txt?"),
                        file_path="party/guests.txt")["message"]
    assert message.startswith("guests.txt has 4 entries, one a line (Ann Lee ... Dee Fox)"), message


def test_prose_is_not_counted_as_a_list(tool_ctx: ToolContext) -> None:
    _files(Path(tool_ctx.workdir), {"essay.txt": "It rained.\nWe stayed in.\nThe end.\n"})
    result = read_file(_asking(tool_ctx, "how many chapters does essay.txt have?"), file_path="essay.txt")
    assert "entries" not in str(result), result


def test_that_same_folder_is_the_one_the_conversation_named_last(tool_ctx: ToolContext) -> None:
    _files(Path(tool_ctx.workdir), {"docs/travel/ids/passport.pdf": "%", "docs/travel/ids/visa.pdf": "%",
                                    "docs/home/ins.pdf": "%"})
    ctx = _asking(tool_ctx, "What else is in that same folder?",
                  earlier="user: where is my passport scan?\nassistant: It is docs/travel/ids/passport.pdf.")
    result = browse(ctx, ".")
    assert result["message"].startswith("docs/travel/ids holds 2 files: passport.pdf, visa.pdf"), result["message"]


def test_a_listing_of_the_working_folder_stays_so_without_a_pointer_back(tool_ctx: ToolContext) -> None:
    _files(Path(tool_ctx.workdir), {"docs/a.txt": "x"})
    ctx = _asking(tool_ctx, "what's in here?", earlier="assistant: see docs/a.txt")
    assert Path(browse(ctx, ".")["path"]) == Path(tool_ctx.workdir)


# ---------------------------------------------------------------- probe50: left out by path, refused, said exactly

@pytest.mark.parametrize("message, exts", [
    ("how many .jpg pics are in my vacation folder incl subfolders? only .jpg, not .jpeg", [".jpg"]),
    ("How many .yaml files are under deploy/? Only the .yaml extension, not .yml.", [".yaml"]),
    ("How many times does the word Kepler appear across the files in observing_logs?", []),   # a name, no .log
])
def test_an_extension_refused_or_inside_a_name_is_not_asked_for(message: str, exts: list[str]) -> None:
    assert exts_asked(message) == exts


def test_a_folder_the_request_leaves_out_by_its_path_stands_for_its_parent(tool_ctx: ToolContext) -> None:
    # both models listed deploy/archive, the one folder the request says not to count (probe50)
    _files(Path(tool_ctx.workdir), {"deploy/base/a.yaml": "", "deploy/base/k.yml": "", "deploy/p/patch.yaml": "",
                                    "deploy/archive/old.yaml": "", "deploy/archive/v1/patch.yaml": ""})
    asked = "How many .yaml files are under deploy/, not counting anything in deploy/archive? Only .yaml, not .yml."
    message = browse(_asking(tool_ctx, asked), "deploy/archive")["message"]
    assert message.startswith("2 .yaml files under deploy/ (subfolders included, deploy/archive/ left out): "
                              "deploy/base/a.yaml, deploy/p/patch.yaml."), message
    # a follow-up about "those" keeps what the question before it left out
    message = grep_tool(_asking(tool_ctx, "and how many of those have patch in the name", earlier=asked),
                        pattern="patch", directory="deploy/archive")["message"]
    assert message.startswith("1 file has 'patch' in its name under deploy/ (subfolders included, deploy/archive/ "
                              "left out): deploy/p/patch.yaml."), message


def test_the_folder_of_the_very_name_searched_for_leads_over_those_named_after_it(tool_ctx: ToolContext) -> None:
    _files(Path(tool_ctx.workdir), {"vacation/d1/a.jpg": "", "vacation/d1/b.jpeg": "", "vacation/d2/c/d.jpg": "",
                                    "vacation_old/e.jpg": ""})
    message = search_directory(_asking(tool_ctx, "how many .jpg pics in my vacation folder? not .jpeg"),
                               directory_name="vacation")["message"]
    assert message.startswith("vacation/ is the folder named 'vacation'; 2 .jpg files under vacation/ (subfolders "
                              "included): vacation/d1/a.jpg, vacation/d2/c/d.jpg"), message
    assert message.endswith("Also named like it: vacation_old/."), message


def test_an_extension_said_without_a_dot_narrows_its_kind_and_a_path_names_no_kind(tool_ctx: ToolContext) -> None:
    # "jpg pics ... in photos/birds" counted every picture, owl.png too, twice over (pics, then photos/): probe56
    _files(Path(tool_ctx.workdir), {"photos/birds/heron.jpg": "", "photos/birds/2024/robin.jpg": "",
                                    "photos/birds/2024/spring/finch.jpg": "", "photos/birds/2023/owl.jpg": "",
                                    "photos/birds/2023/owl.png": "", "photos/birds/list.txt": "x",
                                    "photos/other/cat.jpg": ""})
    asked = "how many jpg pics are in photos/birds, subfolders too?"
    assert kinds_asked(asked) == ["pic"]
    message = browse(_asking(tool_ctx, asked), "photos/birds")["message"]
    assert message.startswith("4 .jpg files under photos/birds/ (subfolders included): photos/birds/2023/owl.jpg, "
                              "photos/birds/2024/robin.jpg, photos/birds/2024/spring/finch.jpg, "
                              "photos/birds/heron.jpg."), message
    assert "photo file" not in message and "pic file" not in message, message


def test_how_many_times_a_word_appears_counts_each_time_not_each_line(tool_ctx: ToolContext) -> None:
    _files(Path(tool_ctx.workdir), {"obs/a.txt": "Kepler and kepler again\nno\n", "obs/b.txt": "Kepler-22b\nKeplerian\n",
                                    "obs_old/c.txt": "Kepler\n"})
    message = browse(_asking(tool_ctx, 'How many times does the word "Kepler" appear in total across the files in obs?'),
                     "obs")["message"]
    assert message.startswith("In obs/, the word 'Kepler' appears 3 times in all: obs/a.txt (2), obs/b.txt (1)."), \
        message


def test_a_count_over_a_size_is_answered_by_a_name_search_too(tool_ctx: ToolContext) -> None:
    _files(Path(tool_ctx.workdir), {"tax/a.csv": "x" * 1500, "tax/sub/b.csv": "x" * 2000, "tax/c.txt": "x" * 90,
                                    "tax_backup/d.csv": "x" * 3000})
    result = as_called(search_file)(_asking(tool_ctx, "How many files in tax, including its subfolders, are larger "
                                                      "than 1 KB?"), file_pattern="*.csv", search_root="tax")
    assert result["message"].startswith("2 files are bigger than 1 KB under tax/ (subfolders included): tax/a.csv "
                                        "(1,500 B), tax/sub/b.csv (2,000 B)."), result["message"]


def test_a_folder_named_by_its_last_name_alone_is_the_one_folder_of_that_name(tool_ctx: ToolContext) -> None:
    # "whats the biggest file in my demos folder": music/demos, beside music/demos_archive (probe50)
    _files(Path(tool_ctx.workdir), {"music/demos/lyrics.txt": "x" * 800, "music/demos/setlist.txt": "x" * 50,
                                    "music/demos_archive/album.txt": "x" * 2900})
    result = browse(_asking(tool_ctx, "whats the biggest file in my demos folder"), "demos")
    assert result["path"].endswith("music/demos") and "the folder of that name" in result["note"], result
    result = browse(_asking(tool_ctx, "whats the biggest file in my demos folder"), str(tool_ctx.workdir))
    assert result["message"].endswith("By size, largest first: lyrics.txt (800 B), setlist.txt (50 B)"), result
    # the follow-up names no folder: the one named before
    result = as_called(search_file)(_asking(tool_ctx, "And which one is the smallest?",
                                            earlier="whats the biggest file in my demos folder"), file_pattern="*.txt")
    assert result["message"] == ("By size, smallest first: music/demos/setlist.txt (50 B), "
                                 "music/demos/lyrics.txt (800 B)"), result["message"]
