"""An edit's result says the change in words, and a failed rename is offered the call the request asks for
(issue 42, probe53). Real files in temp dirs, edit_file called as the agent calls it."""

from __future__ import annotations

from pathlib import Path

from gaia_lite.registry.context import ToolContext
from gaia_lite.tools.files import edit_file

from tests.tools.called import as_called, write_files

edit = as_called(edit_file)


def test_an_added_line_is_said_in_the_result(tool_ctx: ToolContext) -> None:
    # given the diff alone, the 1.5B answered "The line has been successfully added", the line unsaid (probe53)
    write_files(Path(tool_ctx.workdir), {"races.txt": "# 2025\nMar 15 - Shamrock 8k\nSep 21 - Bridge 10 miler\n"})
    tool_ctx.request.message = "add a line to the end of my race calendar: Oct 12 - Riverside 5k"
    result = edit(tool_ctx, "races.txt", "Sep 21 - Bridge 10 miler", "Oct 12 - Riverside 5k")
    assert result["message"] == "Edited races.txt: added 'Oct 12 - Riverside 5k'.", result
    assert (Path(tool_ctx.workdir) / "races.txt").read_text().endswith("Sep 21 - Bridge 10 miler\nOct 12 - Riverside 5k\n")


def test_a_changed_line_is_said_before_and_after(tool_ctx: ToolContext) -> None:
    write_files(Path(tool_ctx.workdir), {"backup.ini": "[backup]\nretention_days = 14\nkeep_monthly = 6\n"})
    tool_ctx.request.message = "bump the backup retention to 30 days"
    result = edit(tool_ctx, "backup.ini", "retention_days = 14", "retention_days = 30")
    assert result["message"] == "Edited backup.ini: 'retention_days = 14' is now 'retention_days = 30'."


def test_a_changed_line_is_said_without_double_quotes(tool_ctx: ToolContext) -> None:
    # copied into a JSON answer, '"max_players": 8' ended the 0.5B's answer at its first quote (probe55)
    write_files(Path(tool_ctx.workdir), {"config.json": '{\n  "max_players": 6,\n  "max_tables": 5\n}\n'})
    tool_ctx.request.message = "bump max players from 6 to 8 in config.json"
    result = edit(tool_ctx, "config.json", '"max_players": 6,', '"max_players": 8,')
    assert result["message"] == "Edited config.json: 'max_players: 6' is now 'max_players: 8'.", result
    assert '"max_players": 8,' in (Path(tool_ctx.workdir) / "config.json").read_text()


def test_a_failed_rename_is_offered_the_rename_not_a_key_named_like_the_file(tool_ctx: ToolContext) -> None:
    # the 1.5B replaced '"teams": [' with itself and was offered a change of the key "teams" (probe53)
    write_files(Path(tool_ctx.workdir), {"teams.json": '{"teams": [\n  {"name": "Red Dragons", "captain": "Imani"}\n]}\n'})
    tool_ctx.request.message = "in the teams file rename the Red Dragons to Crimson Dragons"
    error = edit(tool_ctx, "teams.json", '"teams": [', '"teams": [')["error"]
    assert error.endswith("The request asks for this call: edit_file(file_path='teams.json', "
                          "old_content='Red Dragons', new_content='Crimson Dragons')"), error


def test_a_written_file_is_said_by_its_path(tool_ctx: ToolContext) -> None:
    # "Note saved successfully." named no file (probe53)
    from gaia_lite.tools.files import write_file

    tool_ctx.request.message = "save a note called reading.md in journal that says: finished Dune"
    result = as_called(write_file)(tool_ctx, "journal/reading.md", "finished Dune\nstarting Piranesi\n")
    assert result["message"] == "Created journal/reading.md (2 lines).", result


def test_found_files_carry_no_times_unless_the_request_asks_about_times(tool_ctx: ToolContext) -> None:
    # asked for the seed grant's deadline, the 1.5B gave the files' modified times as the date (probe53)
    from gaia_lite.tools.files import search_file

    write_files(Path(tool_ctx.workdir), {"grants/old/seed_grant_2024.md": "Due Nov 8\n",
                                         "grants/seed_grant_2025.md": "Due Nov 14\n"})
    tool_ctx.request.message = "which file has the deadline for this year's seed grant, and what's the date?"
    files = as_called(search_file)(tool_ctx, "seed_grant_*.pdf")["files"]
    assert [f["name"] for f in files] == ["seed_grant_2025.md", "seed_grant_2024.md"]   # the older copy after
    assert all("modified" not in f for f in files)
    tool_ctx.request.message = "which seed grant file did i change most recently?"
    assert all("modified" in f for f in as_called(search_file)(tool_ctx, "seed_grant_*.md")["files"])


def test_the_request_copied_as_new_content_becomes_the_change_it_names(tool_ctx: ToolContext) -> None:
    # asked to write the edit, the 0.5B wrote "Request: theres a typo ..." into the newsletter (probe55)
    write_files(Path(tool_ctx.workdir), {"news.txt": "Members will recieve the rota by email.\nOpen day: 26 April\n"})
    tool_ctx.request.message = "theres a typo in news.txt, 'recieve' should be 'receive'. fix it pls"
    result = edit(tool_ctx, "news.txt", "Members will recieve the rota by email.",
                  f"Request: {tool_ctx.request.message}")
    assert result["status"] == "success", result
    assert (Path(tool_ctx.workdir) / "news.txt").read_text() == "Members will receive the rota by email.\nOpen day: 26 April\n"
    tool_ctx.request.message = "fix it"   # a short request that the new text holds is no copy of it
    assert edit(tool_ctx, "news.txt", "Open day: 26 April", "Open day: 26 April (we fix it on the day)")["status"] \
        == "success"
    tool_ctx.request.message = "tidy up news.txt please"   # no change named: the copy is refused, the file kept
    result = edit(tool_ctx, "news.txt", "Open day: 26 April (we fix it on the day)", "Request: tidy up news.txt please")
    assert result["status"] == "error" and "new_content is the request itself" in result["error"]


def test_a_new_file_the_request_names_is_the_one_written(tool_ctx: ToolContext) -> None:
    # "Create a new file packing/tromso_list.txt with these four lines: ...": the 0.5B wrote
    # thermal_base_layers_headlamp_ice_cleats_power_bank.txt, one line of commas (probe55)
    from gaia_lite.registry.execute import Decision, ToolExecutor
    from gaia_lite.registry.registry import ToolRegistry
    from gaia_lite.registry.spec import spec_of
    from gaia_lite.tools.files import edit_file, write_file

    root = Path(tool_ctx.workdir)
    tool_ctx.request.message = ("Create a new file packing/tromso_list.txt with these four lines: thermal base layers, "
                                "headlamp, ice cleats, power bank.")
    executor = ToolExecutor(ToolRegistry([spec_of(write_file), spec_of(edit_file)]), tool_ctx,
                            approve=lambda s, a: Decision.ALLOW)
    made_up = "thermal_base_layers_headlamp_ice_cleats_power_bank.txt"
    result = executor.execute("write_file", {"file_path": made_up,
                                             "content": "thermal base layers, headlamp, ice cleats, power bank\n"})
    assert result.payload["message"] == "Created packing/tromso_list.txt (4 lines).", result.payload
    assert (root / "packing/tromso_list.txt").read_text() == "thermal base layers\nheadlamp\nice cleats\npower bank\n"
    assert not (root / made_up).exists()
    # a file the request names that exists is never written in place of another
    (root / "report.txt").write_text("Q3 was good.\n")
    tool_ctx.request.message = "summarize report.txt into a new file"
    executor.execute("write_file", {"file_path": "summary.md", "content": "Q3: good\n"})
    assert (root / "report.txt").read_text() == "Q3 was good.\n" and (root / "summary.md").exists()
