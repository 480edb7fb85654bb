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
    ("how big is my starter log? not the 2025 one", ["log.txt", "log-2025.txt"], None),   # left out, not named
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
    assert result["garden/todo.md"].endswith("(list entries: 3 (under Beds 2, under Pests 1; 1 ticked (checked), "
                                             "2 open (unchecked)))\n"), result


def test_a_count_asked_of_documents_with_none_indexed_counts_the_list_the_request_points_to(
        rag_ctx: ToolContext) -> None:
    from gaia_lite.tools.rag import query_documents

    write_files(Path(rag_ctx.workdir), GARDEN)
    result = as_called(query_documents)(_asking(rag_ctx, "how many things are still unchecked on my garden todo list"),
                                        query="is not checked")
    assert result["message"].startswith("No documents were indexed here. List entries in garden/todo.md: 3 (under "
                                        "Beds 2, under Pests 1; 1 ticked (checked), 2 open (unchecked)). Its text:\n"
                                        "# Garden to-do\n"), result
