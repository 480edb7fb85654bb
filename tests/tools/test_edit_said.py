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


def test_a_failed_rename_is_offered_the_rename_not_a_key_named_like_the_file(tool_ctx: ToolContext) -> None:
    # the 1.5B replaced '"teams": [' with itself and was offered a change of the key "teams" (probe53)
    write_files(Path(tool_ctx.workdir), {"teams.json": '{"teams": [\n  {"name": "Red Dragons", "captain": "Imani"}\n]}\n'})
    tool_ctx.request.message = "in the teams file rename the Red Dragons to Crimson Dragons"
    error = edit(tool_ctx, "teams.json", '"teams": [', '"teams": [')["error"]
    assert error.endswith("The request asks for this call: edit_file(file_path='teams.json', "
                          "old_content='Red Dragons', new_content='Crimson Dragons')"), error
