"""One content search (issue 42): search_file_content is the grep, literal by default, every subfolder,
binary and credential files skipped, each hit one ``path:line: text`` line; search_file counts a glob over
the whole tree; query_documents falls through to the same search when the index cannot answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from gaia_lite.agent.fallback import answer_from_result
from gaia_lite.registry.context import ToolContext
from gaia_lite.tools import files, rag

from tests.tools.called import as_called

search_file_content, search_file = as_called(files.search_file_content), as_called(files.search_file)
query_documents = as_called(rag.query_documents)


def _write(root: Path, tree: dict[str, str | bytes]) -> None:
    for rel, body in tree.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(body) if isinstance(body, bytes) else path.write_text(body)


@pytest.fixture
def notes(tool_ctx: ToolContext, tmp_path: Path) -> Path:
    _write(tmp_path, {
        "notes/todo.md": "# Todo\n\n- buy milk\n- TODO(anna): call the bank\n- check a.b and [x] the box\n",
        "src/app.py": "import os\n# TODO fix the retry\ndef main():\n    return axb  # FIXME\n",
        "src/deep/er/still.txt": "a todo three levels down\n",
    })
    return tmp_path


def _lines(result: dict) -> list[str]:
    """The hit lines of a search's message: after its count line, before the closing "(all in FILE)" of one file."""
    lines = result["message"].splitlines()[1:]
    return lines[:-1] if lines and lines[-1].startswith("(all in ") else lines


def test_the_hits_of_one_file_close_with_its_name(tool_ctx, notes: Path) -> None:
    # "which file talks about the warranty?": both models answered with the last line's text, its path dropped
    assert search_file_content(tool_ctx, "TODO(")["message"].endswith("\n(all in notes/todo.md)")
    assert "(all in" not in search_file_content(tool_ctx, "TODO")["message"]   # two files: the count line names them


# ---------------------------------------------------------------- literal by default, regex on request

@pytest.mark.parametrize("pattern, line", [
    ("TODO(", "notes/todo.md:4: - TODO(anna): call the bank"),   # an unbalanced parenthesis, as written
    ("a.b", "notes/todo.md:5: - check a.b and [x] the box"),     # the dot is a dot: "axb" is no hit
    ("[x]", "notes/todo.md:5: - check a.b and [x] the box"),     # brackets, not a character class
])
def test_special_characters_are_found_literally_by_default(tool_ctx, notes: Path, pattern: str, line: str) -> None:
    result = search_file_content(tool_ctx, pattern)
    assert result["status"] == "success" and _lines(result) == [line], result["message"]
    assert result["count"] == 1 and result["files"] == ["notes/todo.md (1)"]


def test_regex_true_reads_the_pattern_as_a_regular_expression(tool_ctx, notes: Path) -> None:
    dot = search_file_content(tool_ctx, "a.b", regex=True)
    assert _lines(dot) == ["notes/todo.md:5: - check a.b and [x] the box", "src/app.py:4: return axb  # FIXME"]
    either = search_file_content(tool_ctx, "TODO|FIXME", regex=True, case_sensitive=True)
    assert either["count"] == 3 and either["files"] == ["notes/todo.md (1)", "src/app.py (2)"]


def test_a_pattern_written_as_a_regex_that_no_line_holds_as_text_is_tried_as_one_and_says_so(tool_ctx,
                                                                                             notes: Path) -> None:
    result = search_file_content(tool_ctx, "todo|fixme")   # the model wrote a regex without regex=true
    assert result["message"].startswith("No line holds 'todo|fixme' as text; as a regular expression: ")
    assert result["count"] == 5


@pytest.mark.parametrize("pattern", ["foo(?=bar)", r"(a)\1", "f(x", "[abc"])
def test_a_regex_re2_cannot_run_is_a_one_line_error_that_says_why(tool_ctx, notes: Path, pattern: str) -> None:
    result = search_file_content(tool_ctx, pattern, regex=True)
    assert result["status"] == "error" and "\n" not in result["error"], result
    assert result["error"].startswith(f"pattern {pattern!r} is not a regular expression RE2 can run (")
    assert "regex=false" in result["error"]


def test_matching_ignores_case_unless_asked(tool_ctx, notes: Path) -> None:
    assert search_file_content(tool_ctx, "todo")["count"] == 4   # "# Todo", "TODO(", "# TODO", "a todo"
    assert search_file_content(tool_ctx, "todo", case_sensitive=True)["files"] == ["src/deep/er/still.txt (1)"]


# ---------------------------------------------------------------- what is searched

def test_every_subfolder_is_searched_and_hidden_vendor_binary_and_credential_files_are_not(tool_ctx,
                                                                                            tmp_path: Path) -> None:
    _write(tmp_path, {
        "a/b/c/d/deep.md": "marker deep\n", "top.txt": "marker top\n", "NOTES": "marker without extension\n",
        "blob.txt": b"marker\x00binary", "photo.png": b"marker", ".env": "MARKER=1\n", "deploy.env": "marker\n",
        "keys/server.pem": "marker\n", "id_rsa": "marker\n", "credentials.json": '{"marker": 1}\n',
        ".ssh/config": "marker\n", ".git/config": "marker\n", "node_modules/pkg/index.js": "marker\n",
    })
    result = search_file_content(tool_ctx, "marker")
    assert result["files"] == ["NOTES (1)", "a/b/c/d/deep.md (1)", "top.txt (1)"], result
    every = search_file_content(tool_ctx, "marker", file_pattern="*")   # a glob of every name: the same rules
    assert every["files"] == result["files"]


def test_a_hit_is_one_line_path_line_text_with_counts_per_file_first(tool_ctx, notes: Path) -> None:
    result = search_file_content(tool_ctx, "b")
    head, *lines = result["message"].splitlines()
    assert head == "4 matching lines in 2 files: notes/todo.md (3), src/app.py (1)"
    assert lines == ["notes/todo.md:3: - buy milk", "notes/todo.md:4: - TODO(anna): call the bank",
                     "notes/todo.md:5: - check a.b and [x] the box", "src/app.py:4: return axb  # FIXME"]
    assert result["count"] == 4 and result["files"] == ["notes/todo.md (3)", "src/app.py (1)"]
    assert result["truncated"] is False
    assert answer_from_result("search_file_content", result) == result["message"]   # the judge's built answer


def test_long_lines_are_cut_and_many_hits_are_counted_but_not_all_shown(tool_ctx, tmp_path: Path) -> None:
    _write(tmp_path, {"log.txt": "".join(f"ERROR {i} " + "x" * 300 + "\n" for i in range(45))})
    result = search_file_content(tool_ctx, "error")
    head, first = result["message"].splitlines()[:2]
    assert head == "45 matching lines in 1 file: log.txt (45)"
    assert first.startswith("log.txt:1: ERROR 0 xxx") and first.endswith("...")
    assert len(first) == len("log.txt:1: ") + 160
    assert result["count"] == 45 and result["truncated"] is True
    assert result["message"].count("\nlog.txt:") == 30 and "the first 30 lines are shown" in result["message"]


def test_context_lines_come_grep_style_and_separate_groups(tool_ctx, tmp_path: Path) -> None:
    _write(tmp_path, {"a.txt": "one\nhit 1\nthree\nfour\nfive\nsix\nhit 2\neight\n"})
    result = search_file_content(tool_ctx, "hit", context_lines=1)
    assert _lines(result) == ["a.txt-1- one", "a.txt:2: hit 1", "a.txt-3- three", "--",
                              "a.txt-6- six", "a.txt:7: hit 2", "a.txt-8- eight"]


def test_old_calls_keep_working(tool_ctx, notes: Path) -> None:
    result = search_file_content(tool_ctx, "retry", "src", "*.py", False, 0)   # the five old parameters
    assert _lines(result) == ["src/app.py:2: # TODO fix the retry"]
    for globs in ("*.py, *.md", "*.py|*.md", "*.{py,md}"):   # a list of globs, as the models write one
        several = search_file_content(tool_ctx, "todo", file_pattern=globs)
        assert several["files"] == ["notes/todo.md (2)", "src/app.py (1)"], globs


# ---------------------------------------------------------------- how many files, subfolders included

@pytest.fixture
def docs(tool_ctx: ToolContext, tmp_path: Path) -> Path:
    _write(tmp_path, {**{f"docs/{n}.md": "x" for n in ("index", "intro", "faq")},
                      **{f"docs/api/{n}.md": "x" for n in "abcde"},
                      **{f"docs/guides/how-to/{n}.md": "x" for n in "wxyz"},
                      "docs/api/notes.txt": "x", "README.md": "x", "src/m.md": "x"})
    return tmp_path


COUNTED = "12 .md files under docs/, subfolders included: docs/ 3, docs/api/ 5, docs/guides/how-to/ 4"


@pytest.mark.parametrize("args", [
    {"file_pattern": "*.md", "search_root": "docs"},
    {"file_pattern": "docs/**/*.md"},
    {"file_pattern": "docs/*.md"},
    {"file_pattern": "*.md"},   # the folder is the one the request puts the count in
], ids=["search-root", "globstar-path", "folder-in-pattern", "folder-in-request"])
def test_a_glob_counts_every_match_under_the_folder_with_each_subfolders_share(tool_ctx, docs: Path,
                                                                              args: dict) -> None:
    tool_ctx.request.message = "how many .md files are under docs, subfolders included?"
    result = search_file(tool_ctx, **args)
    assert result["message"] == COUNTED     # the total over the tree leads; the top level alone (3) is not it
    assert result["count"] == 12 and len(result["files"]) == 12 and "docs/guides/how-to/w.md" in result["files"]
    assert answer_from_result("search_file", result) == COUNTED


def test_a_type_named_by_its_format_counts_its_files(tool_ctx, docs: Path) -> None:
    # the 0.5B's call for "how many markdown files are there under docs, counting subfolders?": with
    # "markdown" read as an extension, every .md file was "not of type markdown"
    tool_ctx.request.message = "how many markdown files are there under docs, counting subfolders?"
    result = search_file(tool_ctx, "*.md", deep_search=True, file_types="markdown", search_root="docs")
    assert result["message"] == COUNTED.replace(".md files", "markdown files (.md, .markdown)")
    assert result["count"] == 12


def test_a_glob_with_file_types_and_no_folder_counts_the_whole_working_folder(tool_ctx, docs: Path) -> None:
    tool_ctx.request.message = "how many markdown files are there?"
    result = search_file(tool_ctx, "*", file_types="md")
    assert result["message"] == ("14 markdown files (.md, .markdown) under the working folder, subfolders included: "
                                 "./ 1, docs/ 3, docs/api/ 5, docs/guides/how-to/ 4, src/ 1")
    missing = search_file(tool_ctx, "*.md", search_root="nowhere")
    assert missing["status"] == "error" and "is not an existing folder" in missing["error"]


@pytest.fixture
def holiday(tool_ctx: ToolContext, tmp_path: Path) -> Path:
    _write(tmp_path, {**{f"holiday/{n}": "x" for n in ("a.jpg", "b.JPG", "day1/c.png", "day1/d.heic", "day2/e.jpeg",
                                                          "day2/raw/f.jpg", "notes.txt", "day2/clip.mp4")},
                      "docs/scan.jpg": "x"})
    tool_ctx.request.message = "how many photos are in my holiday folder, including subfolders?"
    return tmp_path


PHOTOS = ("6 photo files (.png, .jpg, .jpeg, .heic, .webp) under holiday/, subfolders included: holiday/a.jpg, "
          "holiday/b.JPG, holiday/day1/c.png, holiday/day1/d.heic, holiday/day2/e.jpeg, holiday/day2/raw/f.jpg; "
          "2 of them directly in holiday/")   # the top level's share, said when the files are named (probe46)


@pytest.mark.parametrize("args", [
    {"file_pattern": "*.jpg", "search_root": "holiday"},          # one extension of the kind asked
    {"file_pattern": "*.jpg"},                                    # the folder from the request
    {"file_pattern": "photos", "search_root": "holiday"},         # the kind's name as a pattern
    {"file_pattern": "*", "file_types": "jpg,png", "search_root": "holiday"},
])
def test_a_count_of_photos_counts_every_photo_whatever_extension_the_call_named(tool_ctx, holiday: Path,
                                                                                 args: dict) -> None:
    result = search_file(tool_ctx, **args)
    assert result["message"] == PHOTOS and result["count"] == 6


def test_a_count_the_message_asks_of_no_one_kind_keeps_the_calls_pattern(tool_ctx, holiday: Path) -> None:
    assert search_file(tool_ctx, "*.txt", search_root="holiday")["count"] == 1   # not a photo's extension
    tool_ctx.request.message = "how many photos and videos are in my holiday folder?"   # two kinds
    assert search_file(tool_ctx, "*.jpg", search_root="holiday")["count"] == 3
    tool_ctx.request.message = "how many jpgs are in my holiday folder?"   # an extension the user named
    assert search_file(tool_ctx, "*.jpg", search_root="holiday")["count"] == 3


@pytest.mark.parametrize("args", [{"file_pattern": "*.jpg"}, {"file_pattern": "*.png", "search_root": "holiday"},
                                  {"file_pattern": "*", "file_types": "jpg"}])
def test_a_count_of_extensions_the_message_names_counts_all_of_them(tool_ctx, holiday: Path, args: dict) -> None:
    tool_ctx.request.message = "how many pictures (jpg or PNG) do I have in holiday and everything below it"
    result = search_file(tool_ctx, **args)
    assert result["count"] == 4 and result["message"].startswith(
        "4 .jpg or .png files under holiday/, subfolders included: holiday/a.jpg, holiday/b.JPG, "), result
    tool_ctx.request.message = "how many .jpg files in holiday, and is there an mp4 too?"   # not the extension asked
    assert search_file(tool_ctx, "*.mp4", search_root="holiday")["count"] == 1


def test_a_count_of_every_file_written_as_a_glob_of_globs_or_with_a_mime_type_nobody_asked_counts_them_all(
        tool_ctx, holiday: Path) -> None:
    # "Count all the files inside holiday, including the ones in subdirectories.": the 0.5B searched "*/*" with
    # file_types "text/csv", and found no file named so
    tool_ctx.request.message = "Count all the files inside holiday, including the ones in subdirectories."
    for args in ({"file_pattern": "*/*"}, {"file_pattern": "**/*", "file_types": "text/csv"},
                 {"file_pattern": "*", "file_types": "image/jpeg", "search_root": "holiday"}):
        assert search_file(tool_ctx, **args)["count"] == 8, args
    tool_ctx.request.message = "how many jpg files are inside holiday?"   # a type the message names is kept
    assert search_file(tool_ctx, "*", file_types="image/jpeg", search_root="holiday")["count"] == 3


def test_a_listing_for_a_question_about_photos_adds_them_up(tool_ctx, holiday: Path) -> None:
    listing = files.browse_directory(tool_ctx, "holiday")
    assert listing["message"].startswith("6 photo files (.heic, .jpeg, .jpg, .png, .webp) under holiday/ (subfolders "
                                         "included): "), listing["message"]
    tool_ctx.request.message = "what is in my holiday folder?"
    assert "photo files" not in files.browse_directory(tool_ctx, "holiday")["message"]


# ---------------------------------------------------------------- query_documents falls through

def test_an_empty_index_falls_through_to_the_lines_of_the_files(rag_ctx: ToolContext) -> None:
    work = Path(rag_ctx.workdir)
    # .hcl: a settings file the index cannot take (YAML it can: tests/tools/test_setting_paths.py)
    _write(work, {"config/app.hcl": "server {\n  port = 8080\n  retry_limit = 5\n}\n", "config/log.hcl": "level = info\n",
                  ".env": "RETRY_LIMIT=9\n"})
    rag_ctx.request.message = "which config file sets the retry limit?"
    result = query_documents(rag_ctx, "retry limit")
    assert result["status"] == "success" and result["match"] == "file_search", result
    assert result["message"] == ("No documents are indexed here yet, so the files were searched instead for config, "
                                 "set, retry, limit: 1 matching line in 1 file: config/app.hcl (1)\n"
                                 "config/app.hcl:3: retry_limit = 5")
    assert rag_ctx.rag.list_documents() == []
    assert answer_from_result("query_documents", result) == result["message"]


def test_no_close_chunk_in_the_index_falls_through_to_the_lines_of_the_files(rag_ctx: ToolContext) -> None:
    work = Path(rag_ctx.workdir)
    _write(work, {"recipes/soup.md": "Leek soup with potatoes.\n", "ops/deploy.hcl": "deploy_window = friday 18:00\n"})
    query_documents(rag_ctx, "leek soup")   # indexes the recipe on demand
    rag_ctx.request.message = "when is the deploy window?"
    result = query_documents(rag_ctx, "deploy window")
    assert result["status"] == "success" and result["match"] == "file_search", result
    assert result["message"].startswith("No indexed passage answers this, so the files were searched instead")
    assert result["message"].endswith("ops/deploy.hcl:1: deploy_window = friday 18:00")


def test_the_todo_list_on_a_fresh_home_comes_back_with_its_lines_and_a_true_note(rag_ctx: ToolContext) -> None:
    # "chat" on a fresh home: the answer was "... was not found in the index. It has been renewed."
    _write(Path(rag_ctx.workdir), {"notes/todo.md": "# Todo\n\n- buy milk\n- call the bank\n- renew passport\n",
                                   "notes/ideas.md": "# Ideas\n\nA garden shed.\n"})
    rag_ctx.request.message = "what's on my todo list in the notes folder?"
    result = query_documents(rag_ctx, "todo list")
    assert result["status"] == "success", result
    for item in ("buy milk", "call the bank", "renew passport"):
        assert item in result["message"], result["message"]
    assert result["note"] == "Added notes/todo.md (the request names todo) to the document index to answer this."


def test_a_listing_of_a_folder_with_subfolders_counts_the_whole_tree(tool_ctx, docs: Path) -> None:
    # the 1.5B listed docs/ for "how many markdown files are under docs, counting subfolders?" and counted
    # its top level; the listing now carries the tree's count
    from gaia_lite.tools.files import browse_directory

    message = browse_directory(tool_ctx, "docs")["message"]
    assert message.endswith("Counting its subfolders: 3 folders at any depth (docs/api/, docs/guides/, "
                            "docs/guides/how-to/); 12 .md files, 1 .txt file (13 in all); by subfolder: api/ 6, "
                            "guides/ 4."), message
    flat = browse_directory(tool_ctx, "docs/guides/how-to")["message"]
    assert "Counting" not in flat     # no subfolders: the listing is the count


def test_a_count_asked_of_an_empty_index_is_counted_over_the_files_lines(rag_ctx: ToolContext) -> None:
    # "How many TODOs are there in total across src?": one passage of one file was indexed and given, and the 0.5B
    # answered with it (probe46)
    work = Path(rag_ctx.workdir)
    _write(work, {"src/a.py": "# TODO: tidy\nx = 1\n# TODO: test\n", "src/b.py": "y = 2\n# TODO: rename\n",
                  "src/util/c.py": "# TODO docs\n# TODO types\n", "src/d.py": "z = 3\n"})
    rag_ctx.request.message = "How many TODOs are there in total across src, subfolders included?"
    result = query_documents(rag_ctx, "TODO")
    assert result["match"] == "file_search" and "note" not in result, result
    assert "5 matching lines in 3 files: src/a.py (2), src/b.py (1), src/util/c.py (2)" in result["message"], result


def test_a_question_of_an_empty_index_that_asks_no_count_gets_passages(rag_ctx: ToolContext) -> None:
    _write(Path(rag_ctx.workdir), {"src/a.py": "# TODO: tidy\nx = 1\n", "src/b.py": "# TODO: rename\n"})
    rag_ctx.request.message = "what do the TODOs in src say?"
    assert "matching lines" not in query_documents(rag_ctx, "TODO")["message"]


def test_a_plural_searched_finds_its_singular_too(tool_ctx: ToolContext) -> None:
    # "peanuts" found the allergy form alone, not the roster's and the menu's "peanut" (probe53)
    _write(Path(tool_ctx.workdir), {"camp/roster.csv": "name,allergies\nAva,peanut\nBen,none\n",
                                    "camp/form.txt": "list allergies (e.g. peanuts)\n",
                                    "camp/menu.txt": "Tue: peanut butter\nWed: pasta\n",
                                    "camp/policy.txt": "see the policies page\n"})
    grep = as_called(files.search_file_content)
    result = grep(tool_ctx, "peanuts", directory="camp")
    assert result["count"] == 3, result["message"]
    assert grep(tool_ctx, "policy", directory="camp")["count"] == 1   # and a singular its plural
    assert grep(tool_ctx, "policies", directory="camp")["count"] == 1


def test_a_guess_by_one_word_of_a_name_is_weighed_beside_the_file_the_words_point_to(rag_ctx: ToolContext) -> None:
    # "trail" named trails.md, and the March meeting's notes, where Marta's pick was, were never read (probe54)
    _write(Path(rag_ctx.workdir), {
        "club/trails.md": "# Local trails\n\n- Alder Creek loop - 6 km\n- Fox Hollow trail - 4 km\n",
        "club/meetings/2024-02-08_meeting.txt": "Club meeting - 8 February 2024\nMarta recommended Fox Hollow.\n",
        "club/meetings/2024-03-14_meeting.txt": "Club meeting - 14 March 2024\nMarta recommended the Alder Creek "
                                                "loop for early warblers.\n"})
    rag_ctx.request.message = "which trail did marta recommend at the march 2024 meeting"
    result = query_documents(rag_ctx, "trail marta recommended march 2024 meeting")
    first = result["message"].split("\n")[:3]
    assert any("Marta recommended the Alder Creek loop" in line for line in first), result["message"]
    assert "Fox Hollow" not in "\n".join(first[:2]), result["message"]


def test_how_many_of_a_figure_the_handbook_states_is_answered_from_it_not_counted(rag_ctx: ToolContext) -> None:
    # "How many paid sick days do part-time staff get" got lines counted over every file, the handbook's sentence
    # cut short (probe55)
    _write(Path(rag_ctx.workdir), {
        "docs/staff_handbook_2024.md": "# Staff handbook\n\n## Sick leave\n\nFull-time staff get 8 paid sick days a "
                                       "year.\nPart-time staff (under 30 hours a week) get 4 paid sick days a year.\n",
        "docs/archive/staff_handbook_2021.md": "Part-time staff get 3 paid sick days per year.\n"})
    rag_ctx.request.message = "How many paid sick days do part-time staff get?"
    result = query_documents(rag_ctx, "paid sick days part-time staff")
    assert "get 4 paid sick days" in result["message"].split("\n")[0], result["message"]
    assert "count" not in result["message"]


def test_a_table_row_found_says_each_cell_under_its_column(tool_ctx: ToolContext) -> None:
    # found as "| 3 | Harbor Lights | F# minor | 96 |", the key asked went unsaid (probe54)
    _write(Path(tool_ctx.workdir), {
        "setlist.md": "# Autumn show\n\n| # | Song | Key | BPM |\n|---|------|-----|-----|\n| 1 | Open Road | A | 120 |\n"
                      "| 3 | Harbor Lights | F# minor | 96 |\n",
        "orders.csv": "order_no,customer,price\n58212,Ana Ruiz,20.00\n58213,Jonas Berg,55.00\n",
        "notes.md": "| not a table row, Harbor Lights\n"})
    message = search_file_content(tool_ctx, "Harbor Lights")["message"]
    assert "setlist.md:6: #: 3, Song: Harbor Lights, Key: F# minor, BPM: 96" in message, message
    assert "notes.md:1: | not a table row, Harbor Lights" in message
    message = search_file_content(tool_ctx, "58213")["message"]
    assert "orders.csv:3: order_no: 58213, customer: Jonas Berg, price: 55.00" in message, message


def test_lines_asked_to_be_listed_lead_and_their_count_closes(tool_ctx: ToolContext) -> None:
    # "List all the TODO comments in src, and say which file each one is in": the 1.5B answered with the count
    # line's files and numbers, no comment said; then, with "The 3 files: ..." first, with the files alone (probe55)
    _write(Path(tool_ctx.workdir), {"src/cli.py": "# TODO: add a --dry-run flag\n", "src/tags.py": "# TODO: ID3v1\n"})
    tool_ctx.request.message = "List all the TODO comments in the src folder, and say which file each one is in."
    message = search_file_content(tool_ctx, "TODO", "src")["message"]
    assert message.splitlines() == ["src/cli.py:1: # TODO: add a --dry-run flag", "src/tags.py:1: # TODO: ID3v1",
                                        "2 matching lines in 2 files: src/cli.py (1), src/tags.py (1)"], message
    assert "files" not in search_file_content(tool_ctx, "TODO", "src"), "listed, the lines name their files"
    tool_ctx.request.message = "how many TODO comments are in src?"   # a count leads with the count
    counted = search_file_content(tool_ctx, "TODO", "src")["message"]
    assert counted.index("2 matching lines") < counted.index("src/cli.py:1:"), counted


def test_a_marker_the_request_writes_in_capitals_is_searched_in_capitals(tool_ctx: ToolContext) -> None:
    # "list the NOTE lines": "2. Note that the probe must be rinsed" was among the notebook's NOTE lines (probe55)
    _write(Path(tool_ctx.workdir), {"notebook.md": "NOTE: jar B lid cracked\nplain line\n",
                                    "procedure.txt": "2. Note that the probe must be rinsed\n"})
    tool_ctx.request.message = "pls list the NOTE lines from my notebook"
    result = search_file_content(tool_ctx, "NOTE")
    assert result["count"] == 1 and "procedure.txt" not in result["message"], result
    tool_ctx.request.message = "pls list the note lines"   # said in any case: found in any case
    assert search_file_content(tool_ctx, "NOTE")["count"] == 2
    tool_ctx.request.message = "list the NOTE lines in procedure.txt"   # none in capitals: any case, not nothing
    assert search_file_content(tool_ctx, "NOTE", "procedure.txt")["count"] == 1


def test_listed_lines_of_a_file_with_an_older_copy_beside_it_are_the_current_files(tool_ctx: ToolContext) -> None:
    # "list the NOTE lines from my soil experiment notebook" got the draft's lines too (probe55)
    _write(Path(tool_ctx.workdir), {"experiment/notebook.md": "NOTE: after rain\nNOTE: lid cracked\n",
                                    "experiment/drafts/notebook_draft.md": "NOTE: lime dosage\n"})
    tool_ctx.request.message = "pls list the NOTE lines from my soil experiment notebook"
    message = search_file_content(tool_ctx, "NOTE")["message"]
    assert message.startswith("For the request: experiment/notebook.md: line 1: NOTE: after rain; line 2: NOTE: "
                              "lid cracked"), message
    assert "lime dosage" not in message
    tool_ctx.request.message = "which files have NOTE lines?"   # asked which files: every one
    assert "notebook_draft.md" in search_file_content(tool_ctx, "NOTE")["message"]


def test_a_number_of_the_pattern_is_searched_before_its_other_words(tool_ctx: ToolContext) -> None:
    # "order number 58213": the line with "order" was Mrs Hale's order 58123, and the 1.5B named her (probe55)
    _write(Path(tool_ctx.workdir), {"notes.txt": "Mrs Hale called about order 58123\n",
                                    "orders.csv": "order_no,customer\n58213,Jonas Berg\n"})
    tool_ctx.request.message = "Which file has order number 58213 in it, and who was the customer?"
    message = search_file_content(tool_ctx, "order number 58213")["message"]
    assert "orders.csv:2: order_no: 58213, customer: Jonas Berg" in message and "Hale" not in message, message


def test_the_file_led_with_is_not_one_the_request_leaves_out_and_shows_its_answering_lines(tool_ctx: ToolContext) -> None:
    # "whats the min python version the telemetry package needs? not the legacy one": the legacy pyproject led,
    # with lines that said "telemetry" and not its requires-python (probe54)
    _write(Path(tool_ctx.workdir), {
        "pk/telemetry_legacy/pyproject.toml": '[project]\nname = "telemetry-legacy"\nrequires-python = ">=3.8"\n',
        "pk/telemetry/pyproject.toml": '[project]\nname = "telemetry"\nversion = "2.1.0"\nrequires-python = ">=3.11"\n',
        "pk/ingest/pyproject.toml": '[project]\nname = "ingest"\nversion = "0.7"\nrequires-python = ">=3.10"\n'
                                    'dependencies = ["telemetry"]\n'})
    tool_ctx.request.message = "whats the min python version the telemetry package needs? not the legacy one"
    message = search_file_content(tool_ctx, "min python version the telemetry package needs")["message"]
    lead = message.splitlines()[0]
    assert lead.startswith("For the request: pk/telemetry/pyproject.toml:") and '">=3.11"' in lead, message


def test_a_count_asked_of_the_one_file_found_is_its_entries(tool_ctx: ToolContext) -> None:
    # "how many vocab words r in my spanish unit 3 list": "vocab" found the title line alone, and the 1.5B said 1
    _write(Path(tool_ctx.workdir), {"es/vocab_unit3.txt": "# Spanish - Unit 3 vocab\n\n## Food\nla manzana - apple\n"
                                                          "el pan - bread\n\n## Travel\nel billete - ticket\n"})
    tool_ctx.request.message = "how many vocab words r in my spanish unit 3 list"
    message = search_file_content(tool_ctx, "vocab words")["message"]
    assert message.startswith("es/vocab_unit3.txt has 3 entries, one a line"), message


def test_one_file_singled_out_for_the_request_is_not_led_by_every_file_found(tool_ctx: ToolContext) -> None:
    # "whats the confirmation number for my kyoto hotel and which email is it in": "The 4 files: ..." led, and the
    # 1.5B said the number was in no file (probe55)
    _write(Path(tool_ctx.workdir), {"emails/2025-02-11_hotel_kyoto.txt": "Sakura Inn Kyoto\nConfirmation number: KX7\n",
                                    "emails/kyoto_cancelled.txt": "Gion House Kyoto cancelled\n",
                                    "itinerary.md": "- Kyoto, Sakura Inn\n"})
    tool_ctx.request.message = "whats the confirmation number for my kyoto hotel and which email is it in"
    message = search_file_content(tool_ctx, "Kyoto")["message"]
    assert message.startswith("For the request: emails/2025-02-11_hotel_kyoto.txt:"), message
    tool_ctx.request.message = "which files mention kyoto?"   # the files asked for: every one leads
    assert search_file_content(tool_ctx, "Kyoto")["message"].startswith("The 3 files:")


def test_code_asked_of_in_no_one_language_is_searched_in_every_code_file(tool_ctx, tmp_path: Path) -> None:
    # "Find every code comment marked HACK in this project" searched "*.py" alone; the one in render.js was missed (probe57)
    _write(tmp_path, {"src/parser.py": "# HACK: strip the BOM by hand\n", "src/render.js": "// HACK: wait one tick\n",
                      "CONTRIBUTING.md": "- Please don't leave HACK comments in merged code.\n"})
    tool_ctx.request.message = "Find every code comment marked HACK in this project. Which files are they in?"
    result = search_file_content(tool_ctx, "HACK", file_pattern="*.py")
    assert result["files"] == ["src/parser.py (1)", "src/render.js (1)"], result
    assert "Not code, so not counted: CONTRIBUTING.md:1" in result["message"], result["message"]
    tool_ctx.request.message = "Find the HACK comments in the python code"   # one language named: its filter stays
    assert search_file_content(tool_ctx, "HACK", file_pattern="*.py")["files"] == ["src/parser.py (1)"]
