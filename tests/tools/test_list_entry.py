"""An entry added to a list in a file (tools/list_entry.py), through the real edit_file on real files."""

from __future__ import annotations

from pathlib import Path

import pytest

from gaia_lite.registry.context import TurnRequest
from gaia_lite.tools.files import edit_file
from gaia_lite.tools.list_entry import added_entry, entry

READING = "# To read\n\n- The Overstory - Richard Powers\n- Klara and the Sun\n- The Dispossessed\n\n## Maybe\n- Dune\n"


def _asked(tool_ctx, message: str):
    tool_ctx.request = TurnRequest(message=message)
    return tool_ctx


def test_an_entry_written_over_another_when_asked_to_add_is_added_at_the_end_of_its_list(tool_ctx, tmp_path: Path):
    (tmp_path / "to-read.md").write_text(READING)
    ctx = _asked(tool_ctx, "add piranesi by susanna clarke to my to-read list")
    result = edit_file(ctx, "to-read.md", "- Klara and the Sun", "Piranesi - Susanna Clarke")
    assert result["status"] == "success"
    assert (tmp_path / "to-read.md").read_text() == READING.replace(
        "- The Dispossessed\n", "- The Dispossessed\n- Piranesi - Susanna Clarke\n")
    assert "was kept" in result["note"]


def test_a_numbered_list_with_boxes_gets_the_next_number_and_an_open_box(tool_ctx, tmp_path: Path):
    (tmp_path / "todo.md").write_text("1. [x] fix tap\n2. [ ] paint fence\n")
    edit_file(_asked(tool_ctx, "append 'book the MOT' to todo.md"), "todo.md", "1. [x] fix tap", "book the MOT")
    assert (tmp_path / "todo.md").read_text() == "1. [x] fix tap\n2. [ ] paint fence\n3. [ ] book the MOT\n"


def test_a_plain_list_of_lines_gets_a_plain_line(tool_ctx, tmp_path: Path):
    (tmp_path / "groceries.txt").write_text("oat milk\neggs\nspinach\n")
    edit_file(_asked(tool_ctx, "add bread to groceries.txt"), "groceries.txt", "eggs", "bread")
    assert (tmp_path / "groceries.txt").read_text() == "oat milk\neggs\nspinach\nbread\n"


def test_an_entry_sharing_words_with_the_last_one_is_added_after_it(tool_ctx, tmp_path: Path):
    # "2024-08-03 tomatoes 2.4 kg" says "2024" and "tomatoes" of the last entry: still a new one (probe56)
    (tmp_path / "harvest.md").write_text("# Harvest\n\n- 2024-07-28 beans 0.9 kg\n- 2024-07-30 tomatoes 1.1 kg\n")
    ctx = _asked(tool_ctx, "add a line to harvest.md: 2024-08-03 tomatoes 2.4 kg")
    edit_file(ctx, "harvest.md", "- 2024-07-30 tomatoes 1.1 kg", "- 2024-08-03 tomatoes 2.4 kg")
    assert (tmp_path / "harvest.md").read_text() == \
        "# Harvest\n\n- 2024-07-28 beans 0.9 kg\n- 2024-07-30 tomatoes 1.1 kg\n- 2024-08-03 tomatoes 2.4 kg\n"


@pytest.mark.parametrize("message,old,new,after", [
    # a change of the entry the message names is a change
    ("change klara and the sun to klara and the sun (signed copy)", "- Klara and the Sun", "- Klara and the Moon",
     READING.replace("Klara and the Sun", "Klara and the Moon")),
    # no word of adding: the edit is as written
    ("swap the dune entry for piranesi", "- Dune", "- Piranesi", READING.replace("- Dune", "- Piranesi")),
    # the model kept the entry itself
    ("add piranesi to my list", "- Dune", "- Dune\n- Piranesi", READING.replace("- Dune", "- Dune\n- Piranesi")),
], ids=["names-the-old-entry", "no-word-of-adding", "kept-by-the-model"])
def test_other_edits_of_an_entry_are_written_as_asked(tool_ctx, tmp_path: Path, message, old, new, after):
    (tmp_path / "to-read.md").write_text(READING)
    edit_file(_asked(tool_ctx, message), "to-read.md", old, new)
    assert (tmp_path / "to-read.md").read_text() == after


def test_the_new_text_must_be_what_the_message_adds():
    # "add a note that the meeting moved": the new text is not words of the message, so it is no new entry
    assert added_entry("add a note that the meeting moved", "- one\n- two\n", "- two", "- Meeting: Thursday 4pm") is None
    assert added_entry("add milk", "- one\n- two\n", "- two", "- milk") == \
        ("- one\n- two\n- milk\n", "the request adds an entry: '- two' was kept and '- milk' added at the end of its list")


def test_a_write_of_the_one_entry_asked_for_over_a_list_adds_it_instead(tool_ctx, tmp_path: Path):
    from gaia_lite.registry import ToolRegistry
    from gaia_lite.registry.execute import Decision, ToolExecutor
    from gaia_lite.tools.files import write_file

    (tmp_path / "shopping.md").write_text("# Shopping\n- oat milk\n- eggs\n")
    ex = ToolExecutor(ToolRegistry([write_file, edit_file]), _asked(tool_ctx, "add bread to my shopping list"),
                      approve=lambda *_: Decision.ALLOW)
    result = ex.execute("write_file", {"file_path": "shopping.md", "content": "bread"})
    assert result.ok and result.name == "edit_file" and result.requested == "write_file"
    assert (tmp_path / "shopping.md").read_text() == "# Shopping\n- oat milk\n- eggs\n- bread\n"
    # asked to write it anew, the write is written as asked
    ex.ctx.request = TurnRequest(message="make shopping.md just say bread")
    assert ex.execute("write_file", {"file_path": "shopping.md", "content": "bread"}).name == "write_file"
    assert (tmp_path / "shopping.md").read_text() == "bread"


@pytest.mark.parametrize("name,text,message,line", [
    ("to-read.md", READING, "add piranesi to my to-read list", "- Dune"),
    ("groceries.txt", "oat milk\neggs\n", "put bread on groceries.txt", "eggs"),
    ("to-read.md", READING, "change dune to piranesi", None),               # no word of adding
    ("deploy.yaml", "hosts:\n  - web\n  - db\n", "add cache to deploy.yaml", None),   # a config's items are settings
    ("one.md", "- only\n", "add two to one.md", None),                      # one line is no list to follow
])
def test_the_entry_a_new_one_follows(name, text, message, line):
    from gaia_lite.tools.list_entry import entry_to_follow

    assert entry_to_follow(message, name, text) == line


def test_a_config_files_list_item_is_not_kept_as_an_entry(tool_ctx, tmp_path: Path):
    (tmp_path / "deploy.yaml").write_text("hosts:\n  - web\n  - db\n")
    edit_file(_asked(tool_ctx, "add cache to deploy.yaml"), "deploy.yaml", "- db", "- cache")
    assert (tmp_path / "deploy.yaml").read_text() == "hosts:\n  - web\n  - cache\n"   # written as asked


def test_an_edit_that_writes_the_files_other_lines_again_is_not_written(tool_ctx, tmp_path: Path):
    (tmp_path / "to-read.md").write_text(READING)
    ctx = _asked(tool_ctx, "add piranesi by susanna clarke to my to-read list")
    from gaia_lite.registry.failure import ToolFailure

    with pytest.raises(ToolFailure, match=r"repeats 2 line\(s\)"):
        edit_file(ctx, "to-read.md", "- Dune", "The Overstory - Richard Powers\nKlara and the Sun\nDune")
    assert (tmp_path / "to-read.md").read_text() == READING
    with pytest.raises(ToolFailure, match=r"repeats 1 line\(s\)"):   # one entry written over another's copy
        edit_file(ctx, "to-read.md", "- Dune", "The Overstory - Richard Powers")
    # a block rewritten in place repeats only its own lines: written
    edit_file(ctx, "to-read.md", "- Klara and the Sun\n- The Dispossessed", "- Klara and the Sun\n- The Dispossessed (2)")
    assert "- The Dispossessed (2)\n" in (tmp_path / "to-read.md").read_text()


def test_several_entries_written_over_a_list_are_added_after_it_each_in_its_style(tool_ctx, tmp_path: Path):
    # "put eggs and flour on the shopping list" as write_file("eggs\nflour") lost the whole list
    from gaia_lite.registry import ToolRegistry
    from gaia_lite.registry.execute import Decision, ToolExecutor
    from gaia_lite.tools.files import write_file

    (tmp_path / "shopping.txt").write_text("- milk\n- bread\n")
    ex = ToolExecutor(ToolRegistry([write_file, edit_file]), _asked(tool_ctx, "put eggs and flour on the shopping list"),
                      approve=lambda *_: Decision.ALLOW)
    result = ex.execute("write_file", {"file_path": "shopping.txt", "content": "eggs\nflour"})
    assert result.ok and result.name == "edit_file", result.payload
    assert (tmp_path / "shopping.txt").read_text() == "- milk\n- bread\n- eggs\n- flour\n"
    assert result.payload["note"] == "shopping.txt holds more than those entries: edit_file added them and kept the rest."
    # asked to replace the list, the write is written as asked
    ex.ctx.request = TurnRequest(message="replace my shopping list with apples and pears")
    assert ex.execute("write_file", {"file_path": "shopping.txt", "content": "apples\npears"}).name == "write_file"
    assert (tmp_path / "shopping.txt").read_text() == "apples\npears"


def test_several_entries_written_over_the_last_get_the_next_numbers(tool_ctx, tmp_path: Path):
    (tmp_path / "steps.md").write_text("# Steps\n1. wet hands\n2. soap\n\nDone.\n")
    ctx = _asked(tool_ctx, "add two steps to steps.md: rinse hands, dry hands")
    result = edit_file(ctx, "steps.md", "2. soap", "rinse hands\ndry hands")
    assert (tmp_path / "steps.md").read_text() == "# Steps\n1. wet hands\n2. soap\n3. rinse hands\n4. dry hands\n\nDone.\n"
    assert result["note"] == ("the request adds entries: '2. soap' was kept and '3. rinse hands', '4. dry hands' added "
                              "at the end of its list")
    # one line the message does not add ("towel") makes it an edit as written
    edit_file(_asked(tool_ctx, "add rinse to steps.md"), "steps.md", "4. dry hands", "rinse\ntowel")
    assert "4. dry hands" not in (tmp_path / "steps.md").read_text()


def test_the_lists_heading_written_above_new_entries_is_not_added(tool_ctx, tmp_path: Path):
    (tmp_path / "shopping.md").write_text("# Shopping\n- milk\n- bread\n")
    ctx = _asked(tool_ctx, "add eggs and flour to my shopping list")
    edit_file(ctx, "shopping.md", "- bread", "# Shopping\n- eggs\n- flour")
    assert (tmp_path / "shopping.md").read_text() == "# Shopping\n- milk\n- bread\n- eggs\n- flour\n"
    # a list written again with an entry left out is a rewrite: written as asked
    edit_file(_asked(tool_ctx, "drop bread and add jam to my shopping list"), "shopping.md",
              "- milk\n- bread\n- eggs\n- flour", "- milk\n- eggs\n- flour\n- jam")
    assert (tmp_path / "shopping.md").read_text() == "# Shopping\n- milk\n- eggs\n- flour\n- jam\n"


def test_an_entry_is_its_box_and_text_and_a_bare_box_is_no_entry() -> None:
    assert entry("- [x] Tent") == ("x", "Tent")
    assert entry("  3. [ ] Pads ") == (" ", "Pads")
    assert entry("* [finished] Piranesi") == (None, "[finished] Piranesi")   # a tag, not a box
    assert entry("- [ ]") is None and entry("- [x] ") is None                # nothing to do, nothing done
    assert entry("# Shelter") is None and entry("plain line") is None
