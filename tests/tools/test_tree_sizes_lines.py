"""What a folder's tree, its files' sizes and a file's lines say when the request asks for them (issue 42, probe46).

Asked "how many folders are there under projects, at any depth?", the 1.5B listed projects/ and said 2 (its top
level's); asked for "everything in the website folder, subfolders too", it gave a count by type and no name; asked
for the smallest file in music, it named the first one; asked for the three largest files in dl, it listed recent
files by date; asked "how many words are in essay.txt?" it said 168 for 30, and "whats on line 3 of poem.txt"
got "The poem has 4 lines." Real folders in temp dirs, the tools called as the agent calls them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gaia_lite.registry.context import ToolContext
from gaia_lite.tools.file_sizes import asks_size, by_size, size_answer
from gaia_lite.tools.files import (browse_directory, line_number_asked, list_recent_files, read_file, search_directory,
                                   search_file)

from tests.tools.called import as_called, write_files

browse = as_called(browse_directory)


_files = write_files


# ---------------------------------------------------------------- a folder's tree

def test_a_listing_counts_the_folders_at_every_depth_and_names_a_few_files(tool_ctx: ToolContext) -> None:
    _files(Path(tool_ctx.workdir), {"projects/alpha/src/main.py": "x\n", "projects/beta/docs/api/index.md": "x\n",
                                    "projects/readme.txt": "x\n"})
    assert browse(tool_ctx, "projects")["message"] == (
        "projects holds 2 folders: alpha/, beta/ and 1 file: readme.txt. Counting its subfolders: 5 folders at any "
        "depth; 1 .txt file, 1 .py file, 1 .md file (3 in all): projects/alpha/src/main.py, projects/beta/docs/api/index.md, "
        "projects/readme.txt.")


def test_a_listing_of_one_level_of_folders_says_no_depth_but_names_the_files(tool_ctx: ToolContext) -> None:
    _files(Path(tool_ctx.workdir), {"website/index.html": "<h1/>", "website/css/style.css": "b{}",
                                    "website/img/logo.svg": "<svg/>"})
    message = browse(tool_ctx, "website")["message"]
    assert "at any depth" not in message, message   # its two folders are the listing's own
    assert message.endswith("(3 in all): website/css/style.css, website/img/logo.svg, website/index.html."), message


def test_a_bigger_tree_is_counted_by_subfolder_not_named(tool_ctx: ToolContext) -> None:
    root = Path(tool_ctx.workdir)
    _files(root, {f"photos/2024/{m}/p{i}.jpg": "j" for m, i in [("jan", 1), ("jan", 2), ("jan", 3), ("feb", 4),
                                                               ("feb", 5)]})
    _files(root, {f"photos/2023/q{i}.jpg": "j" for i in range(1, 5)})
    message = browse(tool_ctx, "photos")["message"]
    assert "9 .jpg files (9 in all); by subfolder: 2023/ 4, 2024/ 5." in message, message
    assert "p1.jpg" not in message


# ---------------------------------------------------------------- a count of one type

def test_a_count_of_a_few_files_says_how_many_sit_directly_in_the_folder(tool_ctx: ToolContext) -> None:
    _files(Path(tool_ctx.workdir), {"notes/a.txt": "a", "notes/b.txt": "b", "notes/c.txt": "c", "notes/d.md": "d",
                                    "notes/old/e.txt": "e", "notes/old/f.txt": "f"})
    tool_ctx.request.message = "How many .txt files are in notes?"
    result = as_called(search_file)(tool_ctx, "*.txt")
    assert result["message"].endswith("notes/old/f.txt; 3 of them directly in notes/"), result["message"]
    (Path(tool_ctx.workdir) / "notes/old/e.txt").unlink()
    (Path(tool_ctx.workdir) / "notes/old/f.txt").unlink()
    assert "directly" not in as_called(search_file)(tool_ctx, "*.txt")["message"]   # all of them are


def test_a_count_asked_of_the_top_level_alone_leaves_the_subfolders_out(tool_ctx: ToolContext) -> None:
    _files(Path(tool_ctx.workdir), {"notes/a.txt": "a", "notes/b.txt": "b", "notes/c.txt": "c", "notes/d.md": "d",
                                    "notes/old/e.txt": "e", "notes/old/f.txt": "f"})
    for asked in ("How many .txt files are directly in notes? Don't count subfolders.",
                  "count the txt files in notes, not subfolders", "how many .txt files in notes, top level only?"):
        tool_ctx.request.message = asked
        result = as_called(search_file)(tool_ctx, "*.txt")
        assert result["message"] == ("3 .txt files directly in notes/, subfolders not counted (5 with them): "
                                     "notes/a.txt, notes/b.txt, notes/c.txt"), (asked, result)
        assert result["count"] == 3
    tool_ctx.request.message = "how many .txt files in notes and its subfolders?"
    assert as_called(search_file)(tool_ctx, "*.txt")["count"] == 5


def test_a_listing_asked_of_one_extension_says_how_many_of_the_tree_have_it(tool_ctx: ToolContext) -> None:
    _files(Path(tool_ctx.workdir), {"docs/a.pdf": "p", "docs/b.docx": "d", "docs/tax/c.pdf": "p", "docs/tax/d.pdf": "p"})
    tool_ctx.request.message = "hw many pdfs in my docs folder n its subfolders"
    assert browse(tool_ctx, "docs")["message"].startswith(
        "3 .pdf files under docs/ (subfolders included): docs/a.pdf, docs/tax/c.pdf, docs/tax/d.pdf. (docs holds 1 "
        "folder and 2 files at its top level.)"), browse(tool_ctx, "docs")
    tool_ctx.request.message = "whats in my docs folder"
    assert "of them are" not in browse(tool_ctx, "docs")["message"]


# ---------------------------------------------------------------- sizes, ranked when asked

@pytest.mark.parametrize("message, asked", [
    ("which is the smallest file in music?", True), ("what are the 3 largest files in dl?", True),
    ("what takes up the most space in downloads?", True), ("what's in music?", False),
    ("how big is song.mp3?", False),
])
def test_a_request_compares_sizes_by_its_words(message: str, asked: bool) -> None:
    assert asks_size(message) is asked


def test_sizes_are_ranked_in_the_order_the_request_asks() -> None:
    sized = [(500, "a.mp3"), (120, "b.mp3"), (900, "c.flac")]
    assert by_size("which is the smallest file?", sized) == \
        "By size, smallest first: b.mp3 (120 B), a.mp3 (500 B), c.flac (900 B)"
    assert by_size("the largest one?", sized).startswith("By size, largest first: c.flac (900 B)")
    assert by_size("what's in music?", sized) == "" and by_size("the largest?", sized[:1]) == ""


def test_the_size_answer_names_every_file_of_the_top_size() -> None:
    sized = [(500, "a.mp3"), (900, "b.mp3"), (900, "c.flac")]
    assert size_answer("which is the largest?", sized, "music") == \
        "The largest files in music are b.mp3, c.flac (900 B each)."
    assert size_answer("the smallest one?", sized, "music") == "The smallest file in music is a.mp3 (500 B)."
    assert size_answer("what's in music?", sized, "music") == ""


def test_a_listing_and_a_folder_found_rank_their_files_for_a_size_question(tool_ctx: ToolContext) -> None:
    _files(Path(tool_ctx.workdir), {"music/a.mp3": "a" * 500, "music/b.mp3": "b" * 120, "music/c.flac": "c" * 900})
    tool_ctx.request.message = "which is the smallest file in music?"
    ranked = "by size, smallest first: b.mp3 (120 B), a.mp3 (500 B), c.flac (900 B)"
    assert browse(tool_ctx, "music")["message"].endswith(ranked[:1].upper() + ranked[1:]), browse(tool_ctx, "music")
    # the answer leads the listing: given the ranking after the folder's names, the 0.5B named a file of the
    # listing (probe57)
    assert browse(tool_ctx, "music")["message"].startswith("The smallest file in music is b.mp3 (120 B).\n")
    assert [e["name"] for e in browse(tool_ctx, "music")["entries"]] == ["b.mp3", "a.mp3", "c.flac"]  # that order too
    assert as_called(search_directory)(tool_ctx, "music")["message"].endswith(f"; {ranked}.")
    tool_ctx.request.message = "what's in music?"
    assert "by size" not in browse(tool_ctx, "music")["message"].lower()


def test_recent_files_asked_for_the_largest_rank_the_named_folder_by_size(tool_ctx: ToolContext) -> None:
    _files(Path(tool_ctx.workdir), {"dl/movie.mkv": "m" * 5000, "dl/song.mp3": "s" * 3000, "dl/book.epub": "b" * 2000,
                                    "dl/note.txt": "n" * 100, "other/huge.iso": "h" * 9000})
    tool_ctx.request.message = "what are the 3 largest files in dl?"
    # the 1.5B's call: document types nobody named, every folder
    result = as_called(list_recent_files)(tool_ctx, file_types="pdf,docx,xlsx,pptx", max_results=3)
    assert result["message"] == ("By size, largest first: dl/movie.mkv (5,000 B), dl/song.mp3 (3,000 B), "
                                 "dl/book.epub (2,000 B), dl/note.txt (100 B)"), result
    assert [Path(f["path"]).name for f in result["files"]] == ["movie.mkv", "song.mp3", "book.epub"]
    tool_ctx.request.message = "what are the largest files I changed recently?"   # a date asked too: by date
    assert "changed in the last 30 days" in as_called(list_recent_files)(tool_ctx)["message"]


def test_a_count_search_asked_for_the_largest_ranks_the_named_folder_whatever_its_glob(tool_ctx: ToolContext) -> None:
    _files(Path(tool_ctx.workdir), {"dl/movie.mkv": "m" * 5000, "dl/note.txt": "n" * 100, "dl/pic.jpg": "p" * 800,
                                    "logs/a.log": "a" * 10, "logs/b.log": "b" * 900})
    tool_ctx.request.message = "what are the 3 largest files in dl?"
    # the 0.5B's call: a glob and a type nobody named, over the working folder
    result = as_called(search_file)(tool_ctx, "*.txt", file_types="text", search_root=str(tool_ctx.workdir))
    assert result["message"] == "By size, largest first: dl/movie.mkv (5,000 B), dl/pic.jpg (800 B), dl/note.txt (100 B)"
    tool_ctx.request.message = "which is the biggest .log file in logs?"   # the type asked: a count of it, as before
    assert as_called(search_file)(tool_ctx, "*.log")["message"].startswith("2 .log files under logs/")


# ---------------------------------------------------------------- a file's lines and words

@pytest.mark.parametrize("message, number", [
    ("whats on line 3 of poem.txt", 3), ("read me the 2nd line of poem.txt", 2), ("the third line?", 3),
    ("how many lines does poem.txt have?", None), ("line 0", None),
])
def test_the_line_a_request_asks_for(message: str, number: int | None) -> None:
    assert line_number_asked(message) == number


def test_a_read_gives_the_line_asked_for_and_the_words_counted(tool_ctx: ToolContext) -> None:
    _files(Path(tool_ctx.workdir), {"poem.txt": "Roses by the gate\nRain upon the slate\nLamps along the quay\n",
                                    "essay.txt": "The river rose slowly through the night.\nBy morning it fell.\n"})
    tool_ctx.request.message = "whats on line 3 of poem.txt"
    assert as_called(read_file)(tool_ctx, "poem.txt")["line_asked"] == "line 3: Lamps along the quay"
    tool_ctx.request.message = "whats on line 9 of poem.txt"   # past its end: nothing made up
    assert "line_asked" not in as_called(read_file)(tool_ctx, "poem.txt")
    tool_ctx.request.message = "how many words are in essay.txt?"
    read = as_called(read_file)(tool_ctx, "essay.txt")
    assert read["message"] == "essay.txt has 11 words." and list(read)[:2] == ["status", "message"], read


def test_a_folder_search_given_the_working_folder_gives_the_count_the_request_asks(tool_ctx: ToolContext) -> None:
    # the 0.5B's call for "how many folders are there under projects, at any depth?" (probe46): the working folder's
    # path as the name, and "1 folder: projects/" came back
    _files(Path(tool_ctx.workdir), {"projects/alpha/src/main.py": "x", "projects/beta/readme.md": "x"})
    tool_ctx.request.message = "how many folders are there under projects, at any depth?"
    message = as_called(search_directory)(tool_ctx, str(tool_ctx.workdir))["message"]
    assert message.startswith("Under projects/, counting its subfolders: 3 folders at any depth"), message
    tool_ctx.request.message = "which folders are there?"   # no count: what the working folder holds
    assert as_called(search_directory)(tool_ctx, str(tool_ctx.workdir))["message"] == (
        "the working folder is the folder searched, not a name to look for; the working folder: it holds 1 folder: "
        "projects/.")


def test_files_ranked_smallest_first_are_listed_in_that_order(tool_ctx: ToolContext) -> None:
    _files(Path(tool_ctx.workdir), {"music/a.mp3": "a" * 500, "music/b.mp3": "b" * 120, "music/c.flac": "c" * 900})
    tool_ctx.request.message = "which is the smallest file in music?"
    result = as_called(search_file)(tool_ctx, "*.mp3", file_types="audio/mp3", search_root=str(tool_ctx.workdir))
    assert result["message"].startswith("By size, smallest first: music/b.mp3 (120 B)"), result
    assert [f["name"] for f in result["files"]] == ["b.mp3", "a.mp3", "c.flac"]
