"""Tool choice among look-alikes (issue 28, principle 7): a tool that acts, or that looks like another,
says in the description the model reads when it is *not* the one to use. The sentence stays out of the
summary line the loader embeds, so its words ("file", "sentence") cannot pull the tool into a turn."""

from __future__ import annotations

import pytest

from gaia_lite.registry.spec import spec_of
from gaia_lite.tools import clipboard, desktop, files, memory

# (what went wrong on the held-out suites, tool, what its description must say)
LOOK_ALIKES = [
    ("update_memory used for a file edit", memory.update_memory, "Not for files: edit_file changes a file"),
    ("search_past_conversations used to find a recipe", memory.search_past_conversations,
     "Not for files (search_file)"),
    ("text_to_speech on 'say in one sentence'", desktop.text_to_speech, "\"say in one sentence\" wants a written answer"),
    ("a notification nobody asked for", desktop.notify_desktop, "Only when the user asks to be notified"),
    ("the clipboard written unasked", clipboard.write_clipboard, "Only when the user asks to copy"),
    ("the clipboard read for a saved fact", clipboard.read_clipboard, "Only when the user mentions the clipboard"),
    ("a two-line poem written to a file", files.write_file, "a poem, a summary or an answer is simply replied"),
]


@pytest.mark.parametrize("what, fn, says", LOOK_ALIKES, ids=[case[0] for case in LOOK_ALIKES])
def test_a_look_alike_tool_says_when_not_to_use_it(what: str, fn, says: str) -> None:
    spec = spec_of(fn)
    assert says in spec.openai_schema()["function"]["description"]   # what the model reads
    assert says not in spec.summary                                      # what the loader embeds
