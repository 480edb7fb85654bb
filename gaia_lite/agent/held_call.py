"""A turn whose first reply is held to one call: the message names one file, and what to do with it is plain.

- A change to a small text file ("turn off debug in config/app.yaml") is an ``edit_file`` call. Left to pick,
  both Qwen2.5-Coder models called ``update_memory`` or ``set_loop_state``, or read the file and described the
  change instead of making it (probe42, the built-in test split). Shown the file, they copy the line to change.
- A question about a table ("billing/invoices.csv - which invoices haven't been paid yet?") is
  ``analyze_data_file``'s SQL query. Left to pick, both models read the file or asked the document index, then
  had to count and add up rows themselves, and mostly could not (probe_data2: 1.5B 2 of 8, 0.5B 1 of 8). Shown
  the table as a query reads it and asked for one SELECT, they write what a small model cannot do in its head
  (1.5B 6 of 8, 0.5B 3 to 4 of 8).

Where the reply mode can hold a reply to a call (a grammar on a llama.cpp server), the first reply is the call,
written up to the argument the model writes (``"query": "SELECT``) and asked for off the record with what it needs
to see; elsewhere a table is shown beside the message and the model picks its first call.
"""

from __future__ import annotations

import re

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Sequence

from .facts import asked_to_keep
from .lexicon import ASKS_CHANGE, ASKS_REWRITE, CHANGES_TOPIC, QUESTION

if TYPE_CHECKING:
    from gaia_lite.loader.worked import WorkedPick
    from .named import NamedInWords
    from gaia_lite.registry.context import ToolContext
    from gaia_lite.registry.execute import ToolResult
    from gaia_lite.tools.find import Found

__all__ = ["HeldCall", "held_call", "read_first", "list_first", "example_first", "pointed_look", "LOOKS_ONLY",
           "QUERY_REQUEST", "QUERY_ANSWER", "EDIT_REQUEST"]

# Asked for off the record, in the words text-to-SQL prompts use: in the agent's own prompt alone, the 1.5B put the
# file's path in FROM and a column's type into its query
QUERY_REQUEST = "{brief}\nQuestion: {question}\nWrite one SQLite SELECT over data that answers the question."
# After its own query, the 0.5B answered with more SQL ("SELECT item FROM data WHERE qty < 5"), asked or not
QUERY_ANSWER = "Answer my question in plain sentences, from the rows the query found (not with SQL): {question}"
# The tools the agent may call by itself from a worked example (example_first): they only look, and show nothing
# the message did not ask to see (the clipboard, which may hold a password, is not among them)
LOOKS_ONLY = frozenset({"browse_directory", "get_system_info", "list_windows", "rag_status", "list_indexed_documents"})
EDIT_REQUEST = ("{brief}\nRequest: {request}\nWrite the edit for it: old_content is the exact text to change, copied "
                "from the file; new_content is the text that replaces it.")


@dataclass(frozen=True)
class HeldCall:
    """The call a turn's first reply is held to, and what the model is asked around it."""

    tool: str
    file_path: str  # the file it works on, as the user reads its path
    writes: tuple[str, ...]  # the string arguments the model writes, in order
    start: str  # how the first of them starts ("SELECT"; "" for any text)
    request: str  # asked off the record with the held reply: what the call needs to see, and the request
    beside: str = ""  # shown beside the message instead, where the reply mode cannot hold a reply to the call
    answer: str = ""  # asked off the record of the reply after the call succeeded ("" for nothing)
    options: tuple[str, ...] = ()  # the values the first of ``writes`` may take (() for any text)

    def answer_request(self, done: ToolResult | None) -> str:
        """What the reply after the call is asked: ``answer`` when the call ran, else nothing (it may try again)."""
        return self.answer if done is not None and done.ok and done.name == self.tool else ""


def held_call(message: str, ctx: ToolContext, tool_names: Iterable[str],
              in_words: Callable[[], Sequence[Found]], last_table: Path | None = None,
              last_read: Path | None = None) -> HeldCall | None:
    """The call the first reply to ``message`` is held to, or None: it names no one file, asks for a fact to be
    kept, or what it asks of the file is not plain (a rewrite is write_file's; two files, or none, are the model's
    to choose). ``in_words``: the turn's look at the files the message names in words (named.in_words_once).
    ``last_table``: the table the conversation's last turn queried; a message that names no file but says one of
    its columns or values ("and what was its q1?", "and for the west?") asks it again. ``last_read``: the text file
    the last turn read or edited; a change asked in words of change that names no file ("bump it up to 26 please")
    is a change to it."""
    names = set(tool_names)
    if asked_to_keep(message) or ASKS_REWRITE.search(message):
        return None
    asks = _asks(message)
    change = not asks and ASKS_CHANGE.search(message) is not None
    if not asks and "edit_file" in names and (edit := _edit(message, ctx, change, in_words, last_read)):
        return edit
    if change:   # a change to no small file here: the model's to do
        return None
    if not asks and "edit_file" in names and (rows := _rows_edit(message, ctx, in_words)):
        return rows
    return _query(message, ctx, in_words, last_table) if "analyze_data_file" in names else None


def _edit(message: str, ctx: ToolContext, change_said: bool, in_words: Callable[[], Sequence[Found]],
          last_read: Path | None) -> HeldCall | None:
    """edit_file's held call for a change to one small text file: the message names it by path, or in words when
    it says the change ("add piranesi to my to-read list" for reading/to-read.md), and asks the change in words of
    change (``change_said``) or by naming a key of the file with a new number for it (file_brief.sets_new_value);
    or, naming no file, it says a change right after a turn that read one (``last_read``)."""
    from gaia_lite.tools.file_brief import edit_brief, edit_lines, named_file, sets_new_value
    from gaia_lite.tools.file_text import TEXT_EXTS
    from gaia_lite.tools.list_entry import entry_to_follow

    def text(p: Path) -> bool:
        return p.suffix.lower() in TEXT_EXTS

    # in words only when it names no path: "create notes/trip-todo.md" is a new file, not todo.md's edit
    path = named_file(ctx, message, keep=text, by_words=in_words if change_said and _no_path(message) else None)
    if path is None and change_said and last_read is not None and text(last_read) and _names_no_file(message, in_words):
        path = last_read
    brief = edit_brief(path, ctx.workdir) if path is not None else None
    if path is None or brief is None or not (change_said or sets_new_value(path, message)):
        return None
    follow = entry_to_follow(message, path.name, path.read_text(encoding="utf-8", errors="replace"))
    return HeldCall("edit_file", _shown(path, ctx), ("old_content", "new_content"), "",
                    EDIT_REQUEST.format(brief=brief, request=message),
                    options=(follow,) if follow else edit_lines(path, message))


def _rows_edit(message: str, ctx: ToolContext, in_words: Callable[[], Sequence[Found]]) -> HeldCall | None:
    """edit_file's held call for rows a message adds to one small table it names ("log my race in
    running/races_2025.csv: ..."), starting from the table's last row (table_rows.row_to_follow); the new rows go
    after it. Held to a query, the 1.5B looked for the race it was asked to log (probe55)."""
    from gaia_lite.tools.file_brief import edit_brief, named_file
    from gaia_lite.tools.table_rows import TABLE_SUFFIXES, row_to_follow

    path = named_file(ctx, message, keep=lambda p: p.suffix.lower() in TABLE_SUFFIXES, by_words=in_words)
    brief = edit_brief(path, ctx.workdir) if path is not None else None
    if path is None or brief is None:
        return None
    last = row_to_follow(message, path.name, path.read_text(encoding="utf-8", errors="replace"))
    if last is None:
        return None
    return HeldCall("edit_file", _shown(path, ctx), ("old_content", "new_content"), "",
                    EDIT_REQUEST.format(brief=brief, request=message), options=(last,))


def _names_no_file(message: str, in_words: Callable[[], Sequence[Found]]) -> bool:
    """Whether ``message`` names no file, by path, by name or in words."""
    return _no_path(message) and not in_words()


def _asks(message: str) -> bool:
    """Whether ``message`` asks a question: it ends in "?" or opens as one ("when was the last oil change")."""
    return message.rstrip().endswith("?") or QUESTION.search(message) is not None


def _only_looks(message: str) -> bool:
    """Whether what ``message`` asks may be looked up by the agent itself: no change asked, no fact to keep. "whats max
    players set to on my minecraft server? server.properties" asks none (ASKS_CHANGE): read as a change, the file it
    named was not read first, and the 0.5B read the 2023 backup beside it (probe57)."""
    return not asked_to_keep(message) and ASKS_CHANGE.search(message) is None


def _asks_plainly(message: str, tool: str, tool_names: Iterable[str]) -> bool:
    """Whether ``message`` asks a question that ``tool`` may look up before the first reply (read first and list
    first)."""
    return _asks(message) and tool in set(tool_names) and _only_looks(message)


def _name_words(path: Path) -> list[str]:
    """The words of a file's name, without its extension ("plot-rules-2026.md": plot, rules, 2026)."""
    return "".join(c if c.isalnum() else " " for c in path.stem).split()


def _no_path(message: str) -> bool:
    """Whether ``message`` names no file by path or name ("notes/todo.md", "todo.md"), existing or not."""
    from gaia_lite.tools.find import PATH_MENTION

    return PATH_MENTION.search(message) is None


def _query(message: str, ctx: ToolContext, in_words: Callable[[], Sequence[Found]],
           last_table: Path | None) -> HeldCall | None:
    from gaia_lite.tools.file_brief import named_file
    from gaia_lite.tools.table_brief import QUERIED_SUFFIXES, asked_of_table, table_brief

    path = named_file(ctx, message, keep=lambda p: p.suffix.lower() in QUERIED_SUFFIXES, by_words=in_words)
    if path is None and last_table is not None and _follows_up(message, last_table, in_words):
        path = last_table
    brief = table_brief(path, ctx.workdir) if path is not None else None
    if path is None or brief is None:
        return None
    request = QUERY_REQUEST.format(brief=brief, question=asked_of_table(message, path))
    return HeldCall("analyze_data_file", _shown(path, ctx), ("query",), "SELECT", request, beside=brief,
                    answer=QUERY_ANSWER.format(question=message))


def _follows_up(message: str, table: Path, in_words: Callable[[], Sequence[Found]]) -> bool:
    """Does ``message`` ask ``table`` again: it names no file, by path or in words, does not say it changes the
    topic, and says a word of the table's columns or values (table_brief.table_words)? The words are the table's,
    in any language."""
    from gaia_lite.tools.table_brief import table_words
    from gaia_lite.tools.table_sql import said_in

    if not _names_no_file(message, in_words) or CHANGES_TOPIC.search(message):
        return False
    said = said_in(message)  # as a query's conditions are read: "beans" names bean, "tomatoes" tomato
    return any(said(word) for word in table_words(table))


def _shown(path: Path, ctx: ToolContext) -> str:
    from gaia_lite.tools.find import shown

    return shown(path, Path(ctx.workdir).resolve())


def read_first(message: str, ctx: ToolContext, tool_names: Iterable[str],
               in_words: Callable[[], Sequence[Found]]) -> str | None:
    """The path (as the user reads it) of the one small text file a question names, by path or in words, for the
    agent to read before the model's first reply; None when it asks no question, asks a change or for a fact to be
    kept, names no such file or two, or names a table (a table's question is held to a query). "According to the
    2026 allotment rules, what deposit do I pay for a half plot?" names plot-rules-2026.md in words; left to pick,
    the 0.5B searched for "half_plot" and answered from both years' rules, and the 1.5B answered "20 degrees" for a
    heater whose setting it never read."""
    from gaia_lite.tools.file_brief import edit_brief, named_file
    from gaia_lite.tools.file_text import TEXT_EXTS
    from gaia_lite.tools.table_brief import QUERIED_SUFFIXES

    if not _asks_plainly(message, "read_file", tool_names):
        return None

    def keep(p: Path) -> bool:
        return p.suffix.lower() in TEXT_EXTS - set(QUERIED_SUFFIXES)

    # in words, a name of two words or more: a one-word name said in a sentence ("what time is it in Tokyo?" and a
    # time.md somewhere) is no sign the question is about that file
    path = named_file(ctx, message, keep=keep,
                      by_words=lambda: [f for f in in_words() if len(_name_words(f.path)) >= 2
                                        and not _names_missed(message, f.path, ctx)])
    # small enough to show whole, as an edit's brief is: a long one is the model's to search
    return _shown(path, ctx) if path is not None and edit_brief(path, ctx.workdir) is not None else None


_PROPER = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]{2,}\b")


def _names_missed(message: str, path: Path, ctx: ToolContext) -> bool:
    """Whether ``message`` says a name (a capitalised word inside a sentence) that neither ``path`` nor its text
    holds: "a packing list for my Iceland trip" named the Lisbon trip's packing_list.md in words, and both models
    answered with its sandals (probe57)."""
    from gaia_lite.tools.file_text import text_start

    names = {m.group(0).lower() for m in _PROPER.finditer(message)}
    if not names:
        return False
    held = f"{_shown(path, ctx)}\n{text_start(ctx, path, 32_768)}".lower()
    return any(n not in held for n in names)


def list_first(message: str, ctx: ToolContext, tool_names: Iterable[str],
               folders_in_words: Callable[[], Sequence[Found]]) -> str | None:
    """The folder (as the user reads its path) a question names by two words or more of its path, for the agent to
    list before the model's first reply: "what was my most recent garden journal entry about?" names garden/journal,
    a folder of dated entries. Left to pick, the 0.5B recalled memories for it and the 1.5B answered that no
    garden_journal.txt exists (probe_files). None when it asks no question, asks a change or for a fact to be kept,
    or names no such folder, or two. ``folders_in_words``: the turn's look at the folders the message names in words
    (named.NamedInWords.folders)."""
    from gaia_lite.tools.find import request_words, words

    if not _asks_plainly(message, "browse_directory", tool_names):
        return None
    said, base = set(request_words(message)), Path(ctx.workdir).resolve()
    found = [f.path for f in folders_in_words()
             if f.path.is_relative_to(base) and len(said & set(words(str(f.path.relative_to(base))))) >= 2]
    return _shown(found[0], ctx) if len(found) == 1 else None


def example_first(message: str, sure: WorkedPick | None, tool_names: Iterable[str],
                  in_words: NamedInWords) -> tuple[str, dict[str, object]] | None:
    """The call of the worked example that serves ``message`` as it stands (the loader's ``Selection.sure``: "list
    the files in this folder" is "show me what files are here", browse_directory of "."), for the agent to make
    before the model's first reply: the model then answers from its result, or calls on. Written by the model, that
    call was ~0.4 s of decoding on 2 cores, and the same every time. None when there is no such example, its tool
    does more than look (LOOKS_ONLY), or the message names a file or folder (by path, or in words: the turn's one
    look, ``in_words``), another tool, a change or a fact to keep."""
    from .opening import tools_named

    names = set(tool_names)
    if sure is None or sure.example.tool not in LOOKS_ONLY or sure.example.tool not in names:
        return None
    if not _only_looks(message) or tools_named(message, names) - {sure.example.tool}:
        return None
    if not _no_path(message) or "/" in message or "\\" in message or in_words() or in_words.folders():
        return None
    return sure.example.tool, dict(sure.example.arguments)


POINTED_LOOK_SCORE = 0.6   # a file the request points to this strongly holds what it asks (find.pointed_by_request)
POINTED_FOLDER_SCORE = 0.45  # two files this strong, in one folder, point to it


def pointed_look(message: str, ctx: ToolContext, tool_names: Iterable[str],
                 seen: str = "") -> tuple[str, dict[str, object]] | None:
    """The look a question's words point to: the file here that stands out (read_file), or the one folder the two
    files it points to most sit in (browse_directory). The turn's first reply is then held to a call of the model's
    choosing: asked "which trail did marta recommend at the march 2024 meeting" or for "the confirmation number for
    my kyoto hotel", the 1.5B called nothing and said it had no access to the user's files (probe54, probe55). None
    when the message asks no question or a change, no file stands out, or ``seen`` (the conversation's results so
    far) names it."""
    from gaia_lite.tools.find import current_ones, one_pointed, pointed_by_request, singled_pointed

    if not _asks_plainly(message, "read_file", tool_names):
        return None
    base = Path(ctx.workdir).resolve()
    pointed = pointed_by_request(ctx, message, limit=4, files_scanned=300)
    one = one_pointed(pointed, base) or singled_pointed(ctx, current_ones(pointed, base, lambda p: p.path))
    if one is not None and one.score >= POINTED_LOOK_SCORE:
        shown = _shown(one.path, ctx)
        return None if shown in seen else ("read_file", {"file_path": shown})
    two_in_one = len(pointed) > 1 and pointed[1].score >= POINTED_FOLDER_SCORE \
        and pointed[0].path.parent == pointed[1].path.parent
    if two_in_one and "browse_directory" in set(tool_names) \
            and (folder := _shown(pointed[0].path.parent, ctx)) not in seen:
        return "browse_directory", {"directory_path": folder}
    return None
