"""The one file a user's message names, and a small text file shown whole for an edit.

The agent holds a turn's first reply to one call when the message names one file and what to do with it is plain:
a question about a table is a query (table_brief.py), a change to a small text file an ``edit_file`` call. The
model then needs to see what the call works on: shown the file, both Qwen2.5-Coder models copy the line to change
into ``old_content``; left to pick, they called ``update_memory`` or ``set_loop_state``, or read the file and
described the change instead of making it (probe42, the built-in test split).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence

from gaia_lite.registry.redact import redact_text

from .find import PATH_MENTION, Found, find, shown
from .sandbox import SandboxError, is_secret_path, resolve_user_path
from .setting_line import setting_of

if TYPE_CHECKING:
    from gaia_lite.registry.context import ToolContext

__all__ = ["named_file", "edit_brief", "edit_lines", "sets_new_value", "MAX_EDIT_BYTES", "MAX_EDIT_LINES"]

MAX_EDIT_BYTES = 4_000  # a file shown whole before the first reply; a larger one is read with a tool first
MAX_EDIT_LINES = 120   # lines a held edit chooses its old_content from (a 4,000-byte file has about that many)


def named_file(ctx: ToolContext, message: str, keep: Callable[[Path], bool], *,
               by_words: Callable[[], Sequence[Found]] | None = None) -> Path | None:
    """The one existing file ``message`` names that ``keep`` accepts, by its path from the working folder or by a
    name only one file in the allowed folders has ("expenses.csv" for finance/expenses.csv); ``by_words``: or, when
    it names none so, the one such file every word of whose name it says ("my expenses sheet" for
    money/expenses.csv), from ``find.named_in_words``'s look. None when it names none, or two. A secret file
    (``.env``) is never one."""
    found = _named_by_path(ctx, message, keep)
    if not found and by_words is not None:
        found = [p for p in [f.path for f in by_words() if keep(f.path)][:2] if not is_secret_path(p)]
    return found[0] if len(found) == 1 else None


def _named_by_path(ctx: ToolContext, message: str, keep: Callable[[Path], bool]) -> list[Path]:
    found: list[Path] = []
    for m in PATH_MENTION.finditer(message):
        raw = m.group(0).rstrip(".")
        if not keep(Path(raw)):
            continue
        try:
            path = resolve_user_path(ctx, raw)
        except (SandboxError, OSError):
            continue
        if not path.is_file():
            name = Path(raw).name.lower()
            same = [f.path for f in find(ctx, Path(raw).name, "file") if f.path.name.lower() == name]
            path = same[0] if len(same) == 1 else path
        if path.is_file() and not is_secret_path(path) and path not in found:
            found.append(path)
    return found


def edit_brief(path: Path, workdir: Path) -> str | None:
    """``path``'s text as the first reply of an edit reads it ("config/app.yaml holds: ..."), secrets redacted;
    None when it is larger than ``MAX_EDIT_BYTES``, empty or not text."""
    text = _small_text(path)
    if text is None:
        return None
    return f"{shown(path, Path(workdir).resolve())} holds:\n{redact_text(text.rstrip())[0]}"


_QUOTED = re.compile(r"""(?<!\w)['"`\u2018\u201c](?P<text>[^'"`\u2018\u2019\u201c\u201d\n]{2,80}?)['"`\u2019\u201d](?!\w)""")


def edit_lines(path: Path, message: str = "") -> tuple[str, ...]:
    """The lines an edit of ``path`` may start from, each once and without its indentation: the old_content of
    a held edit is one of them (``HeldCall.options``). Shown the file and asked for the text to change, the 0.5B
    wrote our request's own words as old_content ("old_content is the exact text to change, ...": probe_data3).
    A line with a secret redacted or with no letter or digit is not among them; () for a file edit_brief would not
    show, or of more than MAX_EDIT_LINES lines. When ``message`` quotes text that some lines hold, only those."""
    text = _small_text(path)
    if text is None:
        return ()
    shown_text = redact_text(text)[0]
    # not a line of brackets alone: given "{" first, the 0.5B chose it and wrote the setting after it as new_content
    lines = dict.fromkeys(ln.strip() for ln in text.splitlines() if any(c.isalnum() for c in ln) and ln in shown_text)
    # text the message quotes that some lines hold ("'anual' should be 'annual'"): the edit starts from those lines.
    # Given every line, the 0.5B took the first one, the newsletter's title, and wrote "(Annual)" into it
    quoted = [m.group("text") for m in _QUOTED.finditer(message)]
    holding = [ln for ln in lines if any(q in ln for q in quoted)]
    return tuple(holding) if holding else tuple(lines) if len(lines) <= MAX_EDIT_LINES else ()


_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)*(?!\w|\.\d)")   # "... to 100." ends a sentence


def sets_new_value(path: Path, message: str) -> bool:
    """Whether ``message`` names a key that the small text file ``path`` sets, with a number no line of that key
    holds: a change asked in any words ("scale deploy.yml to 4 replicas" for ``replicas: 2``, "chnage
    max_connections ... to 200"), where the list of change verbs (lexicon.ASKS_CHANGE) has none of them."""
    text = _small_text(path)
    said = PATH_MENTION.sub(" ", message)   # not the 2 of "q2.ini"
    numbers = set(_NUMBER.findall(said))
    if text is None or not numbers:
        return False
    held: dict[str, set[str]] = {}   # a key's numbers, over every line that sets it (a key set in two sections)
    for line in text.splitlines():
        if (key := setting_of(line)) is not None and len(key) > 2:
            held.setdefault(key, set()).update(_NUMBER.findall(re.split(r"[:=]", line, maxsplit=1)[-1]))
    return any(numbers - values and re.search(rf"(?<![\w.-]){re.escape(key)}(?![\w-])", said, re.IGNORECASE)
               for key, values in held.items())


def _small_text(path: Path) -> str | None:
    """``path``'s text when it is a UTF-8 file of at most ``MAX_EDIT_BYTES`` with something in it, else None."""
    try:
        if path.stat().st_size > MAX_EDIT_BYTES:
            return None
        raw = path.read_bytes()
    except OSError:
        return None
    if b"\0" in raw:
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return text if text.strip() else None
