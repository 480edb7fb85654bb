"""The entries of a list in a text file: how many there are, and one added without losing another.

"add piranesi by susanna clarke to my to-read list" is an edit whose old text is an entry and whose new text
is that entry and one more. Asked for "the exact text to change" and "the text that replaces it", a small model
writes the new entry alone, and the entry it copied is gone. When the user's message asks to add, names the
new entry and not the one copied, the copied entry is kept and the new one goes at the end of its list, in the
list's own style.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

__all__ = ["list_entries", "entry", "added_entry", "added_entries", "entry_to_follow", "repeated_lines", "ADD_WORDS",
           "LIST_SUFFIXES", "MAX_ADDED"]

_ENTRY = re.compile(r"^(?P<lead>[ \t]*(?:(?P<bullet>[-*+\u2022])|(?P<number>\d{1,3})(?P<stop>[.)]))[ \t]+)"
                    r"(?:\[(?P<box>[ xX])\][ \t]*)?(?P<text>\S.*)$")
_BARE_BOX = re.compile(r"\[[ xX]\]\s*")
_HEADING = re.compile(r"^#{1,6}[ \t]+(?P<title>.+?)[ \t#]*$")
# the words that ask for an entry more, not a change of one (tools may read the request; the judge may not)
ADD_WORDS = frozenset("add adding append insert include put stick".split())
_WORD = re.compile(r"[^\W_]+")
# the files whose lists are lists of things; a YAML or INI file's "- item" lines are settings, edited as such
LIST_SUFFIXES = frozenset({".md", ".markdown", ".txt", ".text", ""})


def list_entries(text: str) -> str | None:
    """How many entries the lists of a text hold, when it holds two or more: "7 (under Groceries 4, under
    Hardware 3; 2 ticked (checked), 5 open (unchecked))". Entries are lines that start with a bullet or a number
    ("- ", "* ", "3. "), outside code blocks; entries indented under another are said apart ("and 2 nested"). A
    file's line count is no count of its entries: asked how many things were on a packing list, what a small model
    had to go on was "lines: 9" for seven entries, a title and a blank line."""
    top: list[tuple[str, str | None]] = []   # (heading above it, box) for each entry at the outer level
    nested = 0
    heading, outer, in_code = "", None, False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            continue
        if m := _HEADING.match(line):
            heading, outer = m.group("title"), None
        elif m := _ENTRY.match(line):
            indent = len(m.group("lead").expandtabs(4)) - len(m.group("lead").expandtabs(4).lstrip())
            outer = indent if outer is None else min(outer, indent)
            if indent > outer:
                nested += 1
            else:
                top.append((heading, m.group("box")))
    if len(top) + nested < 2:
        return None
    parts = []
    sections = Counter(h for h, _ in top)
    if len(sections) > 1:
        parts.append(", ".join(f"under {h or 'no heading'} {n}" for h, n in sections.items()))
    boxes = [b for _, b in top if b is not None]
    if boxes:
        ticked = sum(b in "xX" for b in boxes)
        parts.append(f"{ticked} ticked (checked), {len(boxes) - ticked} open (unchecked)")
    said = f"{len(top)}" + (f" ({'; '.join(parts)})" if parts else "")
    return said + (f", and {nested} nested under them" if nested else "")


def added_entry(message: str, text: str, old: str, new: str, name: str = "") -> tuple[str, str] | None:
    """``text`` with ``new`` added as the last entry of the list ``old`` is an entry of, keeping ``old``, and a note
    saying so; None unless that is what was asked: ``message`` says a word of ``ADD_WORDS`` and most words of
    ``new``, and not ``old``'s; ``old`` and ``new`` are one line each; ``new`` does not hold ``old``'s entry (an
    edit that kept it is the model's own); ``name``, the file's, is a list file's (``LIST_SUFFIXES``)."""
    lines = text.splitlines()
    if (at := _entry_at(message, lines, old, new, name)) is None:
        return None
    out, (entry,) = _appended(text, lines, at, [new])
    return out, f"the request adds an entry: {old.strip()!r} was kept and {entry.strip()!r} added at the end of its list"


MAX_ADDED = 12  # entries one request adds at once; more is a new list, written as asked


def added_entries(message: str, text: str, old: str, new: str, name: str = "") -> tuple[str, str] | None:
    """As ``added_entry`` for a ``new`` of several lines, each an entry the message adds: "put eggs and flour on
    the shopping list", written as "eggs\nflour" over the whole list, lost the list. They go at the end of
    ``old``'s list, in its style; None unless ``added_entry`` would add each line after ``old``."""
    headings = {ln.strip() for ln in text.splitlines() if _HEADING.match(ln)}
    # the list's own heading written above the new entries is kept, not added ("# Shopping\n- eggs\n- flour")
    news = [ln for ln in new.splitlines() if ln.strip() and ln.strip() not in headings]
    lines = text.splitlines()
    if not 2 <= len(news) <= MAX_ADDED or (at := _entry_at(message, lines, old, news[0], name)) is None \
            or any(_entry_at(message, lines, old, ln, name) is None for ln in news[1:]):
        return None
    out, entries = _appended(text, lines, at, news)
    said = ", ".join(repr(e.strip()) for e in entries)
    return out, f"the request adds entries: {old.strip()!r} was kept and {said} added at the end of its list"


def _entry_at(message: str, lines: list[str], old: str, new: str, name: str) -> int | None:
    """The index of ``old``'s line, when adding the one line ``new`` after its list is what ``message`` asks
    (``added_entry``'s conditions); else None."""
    if Path(name).suffix.lower() not in LIST_SUFFIXES:
        return None
    old, new = old.strip("\r\n"), new.strip()
    if "\n" in old or "\n" in new or not old.strip() or not new:
        return None
    at = next((i for i, line in enumerate(lines) if line.strip() == old.strip()), None)
    if at is None:
        return None
    said = {w.casefold() for w in _WORD.findall(message)}
    old_text, new_text = _entry_text(lines[at]), _entry_text(new)
    new_words = [w.casefold() for w in _WORD.findall(new_text) if len(w) >= 3]
    if not ADD_WORDS & said or not new_words or old_text.casefold() in new.casefold():
        return None
    # the old entry's words the new one says too are no sign it is named: "add a line to harvest_log.md: 2024-08-03
    # tomatoes 2.4 kg" says "2024" and "tomatoes" of the last entry, and the 1.5B's edit over it replaced it (probe56)
    if sum(w in said for w in new_words) * 2 < len(new_words) or _words_in(old_text, said - set(new_words)):
        return None
    return at


def _appended(text: str, lines: list[str], at: int, news: list[str]) -> tuple[str, list[str]]:
    """``text`` with ``news`` as entries after the end of the list the line ``at`` is in, each styled after the
    one before it, and those entries as written."""
    last = _list_end(lines, at)
    entries = [lines[last]]
    for line in news:
        entries.append(_styled(entries[-1], _entry_text(line.strip())))
    out = "\n".join(lines[:last + 1] + entries[1:] + lines[last + 1:]) + ("\n" if text.endswith("\n") else "")
    return out, entries[1:]


def entry_to_follow(message: str, name: str, text: str) -> str | None:
    """The line a new entry goes after, when ``message`` asks to add one to the list file ``name`` holds as
    ``text``: the last entry of its last list (or its last line, for a list of plain lines); else None. A held edit
    starts from it: given every line, the 0.5B replaced the list's title with the title and every entry again
    (probe_files)."""
    if Path(name).suffix.lower() not in LIST_SUFFIXES or not ADD_WORDS & {w.casefold() for w in _WORD.findall(message)}:
        return None
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) < 2:
        return None
    entries = [ln for ln in lines if _ENTRY.match(ln)]
    last = entries[-1] if entries else lines[-1]
    return last.strip()


def repeated_lines(text: str, old: str, new: str) -> list[str]:
    """The lines of ``new`` that ``text`` already holds outside ``old`` (the text replaced), bullets aside: an edit
    that writes them again doubles them. Asked to add a book to a to-read list, the 0.5B replaced its last entry
    with every entry again, one of them misspelt, and not the new book (probe_files)."""
    elsewhere = Counter(_entry_text(ln).casefold() for ln in text.splitlines() if ln.strip())
    elsewhere.subtract(_entry_text(ln).casefold() for ln in old.splitlines() if ln.strip())
    return [ln for ln in new.splitlines() if ln.strip() and elsewhere[_entry_text(ln).casefold()] > 0]


def entry(line: str) -> tuple[str | None, str] | None:
    """The box (" ", "x" or None) and the text of a list entry ("- [x] Tent" -> ("x", "Tent")); None for a line that
    is no entry. An entry is text after a bullet or a number: a bare "- [ ]" has no text, so it is none."""
    m = _ENTRY.match(line)
    return (m.group("box"), m.group("text").strip()) if m and not _BARE_BOX.fullmatch(m.group("text")) else None


def _entry_text(line: str) -> str:
    m = _ENTRY.match(line)
    return m.group("text").strip() if m else line.strip()


def _words_in(text: str, said: set[str]) -> bool:
    """Whether the message says most of the words of ``text`` (it names that entry: a change of it, not an add)."""
    own = [w.casefold() for w in _WORD.findall(text) if len(w) >= 3]
    return bool(own) and sum(w in said for w in own) * 2 > len(own)


def _list_end(lines: list[str], at: int) -> int:
    """The index of the last line of the list that the line at ``at`` is part of: entries alike in form (all
    bulleted or numbered, or all plain lines), with no blank line or heading between them."""
    bulleted = _ENTRY.match(lines[at]) is not None
    end = at
    while end + 1 < len(lines) and lines[end + 1].strip() and not _HEADING.match(lines[end + 1]) \
            and (_ENTRY.match(lines[end + 1]) is not None) == bulleted:
        end += 1
    return end


def _styled(last: str, text: str) -> str:
    """``text`` as an entry after ``last``: the same bullet and indentation, the next number, an open box."""
    m = _ENTRY.match(last)
    if m is None:
        return text
    indent = m.group("lead")[:len(m.group("lead")) - len(m.group("lead").lstrip())]
    mark = m.group("bullet") or f"{int(m.group('number')) + 1}{m.group('stop')}"
    box = "[ ] " if m.group("box") is not None else ""
    return f"{indent}{mark} {box}{text}"
