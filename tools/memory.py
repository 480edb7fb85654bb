"""Memory tools: remember, recall, update and forget facts; search past conversations.

All five reach storage through ``ctx.memory`` (a ``MemoryStore``). When memory
is off, ``ctx.memory`` is None and every tool returns one explanatory error.
Bad input surfaces from the store as ``ValueError`` (``MemoryInputError``)
whose message already says what to fix.
"""

from __future__ import annotations

import difflib
import os
import re
from pathlib import Path
from typing import Any

from gaia_lite.memory.credentials import mask_credentials
from gaia_lite.memory.records import CATEGORIES
from gaia_lite.memory.store import MAX_FACT_CHARS
from gaia_lite.registry.context import ToolContext
from gaia_lite.registry.spec import Redirect, tool
from gaia_lite.registry.failure import error_payload

from .file_count import count_asked
from .find import files_named, pointed_by_request, pointed_message, scan
from .grep import where
from .query_meant import sql_meant

__all__ = ["TOOLS", "remember", "recall", "update_memory", "forget", "search_past_conversations"]

DISABLED = ("memory is disabled (GAIA_MEMORY_DISABLED=1) or unavailable this session; "
            "unset GAIA_MEMORY_DISABLED and restart to use memory")
TURN_PREVIEW_CHARS = 600


def _as_int(value: Any, name: str) -> int:
    try:
        return int(str(value).strip() or 0)
    except ValueError:
        raise ValueError(f"{name} must be a whole number, got {value!r}") from None


def _as_bool(value: Any) -> bool:
    return str(value).strip().lower() in {"true", "1", "yes", "on"}


def _category(value: str, default: str) -> tuple[str, str]:
    """(the category to use, a note for the model). Small models write "preferences", "Reminders" or
    "general knowledge": a plural, another case or a near spelling is read as the category it names,
    and anything else becomes ``default`` with a note, so a fact is never lost over its label."""
    word = (value or "").strip().lower()
    if not word or word in CATEGORIES:
        return word or default, ""
    if word.endswith("s") and word[:-1] in CATEGORIES:
        return word[:-1], ""
    close = difflib.get_close_matches(word, sorted(CATEGORIES), n=1, cutoff=0.8)
    used = close[0] if close else default
    shown = f"'{used}'" if used else "no category filter"
    return used, f"category {value!r} is not one of {', '.join(sorted(CATEGORIES))}; used {shown}"


def saved_text(fact: str) -> str:
    """The fact as the confirmation repeats it: credentials masked and cut where the store cuts it
    (a megabyte-long fact was kept as its first 2,000 characters and repeated whole)."""
    return mask_credentials(fact.strip()[:MAX_FACT_CHARS])


def facts_told(ctx: ToolContext, query: str = "") -> list[str]:
    """The saved facts close in meaning to the user's message, else to ``query`` (MemoryStore.relevant_facts); []
    without a memory, or when it cannot answer. A question about the user sent to a search of files or documents
    gets what the user said: asked "whats the combo for my bike lock again" in a new conversation, the 1.5B searched
    the files for "my bike lock code" and was told no line held it (probe51)."""
    if ctx.memory is None:
        return []
    try:
        # the model's query as well as the user's words: "is there anything i can't eat?" is 0.44 from "I'm allergic
        # to peanuts", under the bar, and the 0.5B queried the fact's own words (probe46)
        facts = ctx.memory.relevant_facts(ctx.request.message or query) or \
            (ctx.memory.relevant_facts(query) if query else [])
    except Exception:   # a memory that cannot answer leaves the search as it was
        return []
    return [f.content for f in facts]


def _brief(fact: Any) -> dict[str, Any]:
    """A fact as the model sees it: empty fields left out to save tokens."""
    d = fact.to_dict()
    keep = {"id", "category", "content", "created_at"}
    out = {k: v for k, v in d.items() if k in keep or (v not in ("", None, False, 0) and k in
           {"domain", "context", "entity", "sensitive", "due_at", "reminded_at", "score"})}
    out["created_at"] = fact.created_at[:10]
    return out


@tool
def remember(ctx: ToolContext, fact: str, category: str = "fact", domain: str = "", due_at: str = "",
             context: str = "", sensitive: bool = False, entity: str = "") -> dict[str, Any]:
    """Save a fact, preference or reminder about the user for future conversations.

    Args:
        fact: One self-contained statement.
        category: fact, preference, note, reminder, profile, skill, error, system or permission.
        domain: Topic area.
        due_at: Reminder due date (ISO).
        context: Project or situation.
        sensitive: True for private details.
        entity: Who or what it is about.
    """
    if ctx.memory is None:
        return error_payload(DISABLED)
    category, note = _category(category, "fact")
    try:
        saved = ctx.memory.remember(fact, category=category, domain=domain, due_at=due_at, context=context,
                                    sensitive=_as_bool(sensitive), entity=entity)
    except ValueError as exc:
        return error_payload(str(exc))
    message = "Updated a nearly identical memory." if saved.deduplicated else (
        "Remembered." if _as_bool(sensitive) else f"Remembered: {saved_text(fact)}")
    out = {"status": "stored", "knowledge_id": saved.id, "message": message}
    return {**out, "note": note} if note else out


@tool
def recall(ctx: ToolContext, query: str = "", category: str = "", domain: str = "", context: str = "",
           entity: str = "", limit: int = 0, offset: int = 0, time_from: str = "",
           time_to: str = "") -> dict[str, Any]:
    """Look up saved memories: facts, preferences and reminders about the user.

    Args:
        query: Search text; empty lists by filters.
        category: Filter by category.
        domain: Filter by topic area.
        context: Filter by project.
        entity: Filter by who or what.
        limit: Most results (0: default).
        offset: Results to skip.
        time_from: Saved on or after (ISO date).
        time_to: Saved on or before (ISO date).
    """
    if ctx.memory is None:
        return error_payload(DISABLED)
    category, note = _category(category, "")
    if not any(s.strip() for s in (query, category, domain, context, entity, time_from, time_to)):
        return error_payload(
            "give a query or at least one filter (category, domain, context, entity, time_from, time_to)")
    try:
        found = ctx.memory.recall(query, category=category, domain=domain, context=context, entity=entity,
                                  limit=_as_int(limit, "limit"), offset=_as_int(offset, "offset"),
                                  time_from=time_from, time_to=time_to)
    except ValueError as exc:
        return error_payload(str(exc))
    if not found.facts and query.strip() and (files := _files_named(ctx, query) or
                                              _files_pointed(ctx, "No saved memory matches")):
        # "do i have a passport scan saved anywhere?" was asked of memory, and its empty result answered "no" (1.5B,
        # probe46): a file named so was there
        return {**files, "count": 0, "results": []}
    out = {"status": "found" if found.facts else "empty", "count": len(found.facts),
           "offset": max(0, _as_int(offset, "offset")), "has_more": found.has_more,
           "results": [_brief(f) for f in found.facts]}
    return {**out, "note": note} if note else out


@tool
def update_memory(ctx: ToolContext, knowledge_id: str, content: str = "", category: str = "", domain: str = "",
                  due_at: str = "", reminded_at: str = "", context: str = "", sensitive: str = "",
                  entity: str = "") -> dict[str, Any]:
    """Change a saved memory by its id; empty fields stay as they are.

    Not for files: edit_file changes a file.

    Args:
        knowledge_id: Id from remember or recall.
        content: New text.
        category: New category.
        domain: New topic area.
        due_at: New due date (ISO; "none" clears).
        reminded_at: ISO time or "now".
        context: New project.
        sensitive: "true" or "false".
        entity: New subject.
    """
    if ctx.memory is None:
        return error_payload(DISABLED)
    fields: dict[str, Any] = {}
    category, note = _category(category, "fact") if category.strip() else ("", "")
    for name, value in (("content", content), ("category", category), ("domain", domain),
                        ("context", context), ("entity", entity)):
        if value.strip():
            fields[name] = value
    for name, value in (("due_at", due_at), ("reminded_at", reminded_at)):
        if value.strip():
            fields[name] = "" if value.strip().lower() in {"none", "null", "clear"} else value
    if str(sensitive).strip():
        fields["sensitive"] = _as_bool(sensitive)
    if not fields:
        return error_payload("nothing to change; pass content or another field to update")
    try:
        fact = ctx.memory.update(str(knowledge_id).strip(), **fields)
    except ValueError as exc:
        return error_payload(str(exc))
    said = ""
    if fact is None and "content" in fields and (close := _closest_fact(ctx, fields["content"])) is not None:
        fact = ctx.memory.update(close.id, **fields)
        said = f"No memory has the id {str(knowledge_id).strip()!r}; the one it stands for was updated: " \
               f"{saved_text(close.content)!r} now reads {saved_text(fields['content'])!r}."
    if fact is None:
        return _not_a_memory(ctx, str(knowledge_id).strip())
    out = {"status": "updated", **({"message": said} if said else {}), "knowledge_id": fact.id,
           "memory": _brief(fact)}
    return {**out, "note": note} if note else out


def _closest_fact(ctx: ToolContext, content: str) -> Any:
    """The one saved fact that the new ``content`` is a change of: the best match sharing two or more words of four
    letters or more with it, and more than any other; else None. Told Zoe's swim practice had moved, the 1.5B
    called update_memory("my_daughter_zoe_swim_practice", ...), an id it made up, and the old day stayed (probe53)."""
    new = set(re.findall(r"[a-z]{4,}", content.lower()))
    try:
        found = ctx.memory.recall(content, limit=3, count_use=False).facts
    except Exception:   # a memory that cannot answer: not found, as before
        return None
    shared = sorted(((len(new & set(re.findall(r"[a-z]{4,}", f.content.lower()))), i) for i, f in enumerate(found)),
                    reverse=True)
    if not shared or shared[0][0] < 2 or (len(shared) > 1 and shared[1][0] == shared[0][0]):
        return None
    return found[shared[0][1]]


def _not_a_memory(ctx: ToolContext, knowledge_id: str) -> dict[str, Any]:
    """The result for an id no memory has. A small model calls update_memory for "Update notes/todo.md:
    change 'buy milk' to 'buy oat milk'" with the file as the id: when the id or the user's message
    names a file in the allowed folders, the result sends it to edit_file with that file."""
    out: dict[str, Any] = {"status": "not_found", "knowledge_id": knowledge_id}
    file = _file_meant(ctx, knowledge_id)
    if file is None:
        return {**out, "message": "No memory has this id; use recall to find the right one."}
    return {**out, "file_path": file, "message": f"No memory has this id. {file} is a file, not a memory: "
            f"change its text with edit_file (file_path {file!r}), or rewrite it with write_file."}


def _file_meant(ctx: ToolContext, knowledge_id: str) -> str | None:
    """The existing file inside the allowed folders that ``knowledge_id`` or the user's message of the
    turn names (as the user wrote it), or None. Paths outside them are not looked at: a look must never
    ask the user to approve one."""
    from .file_walk import sandbox_roots
    from .find import PATH_MENTION
    from .sandbox import SandboxError, resolve_user_path

    base = Path(ctx.workdir).resolve()
    roots = [Path(r).resolve() for r in sandbox_roots(ctx)]
    for raw in (knowledge_id, *(m.group(0).rstrip(".") for m in PATH_MENTION.finditer(ctx.request.message))):
        here = Path(os.path.normpath(base / os.path.expanduser(raw)))
        if not PATH_MENTION.fullmatch(raw) or not any(here.is_relative_to(r) for r in roots):
            continue
        try:
            if resolve_user_path(ctx, raw).is_file():
                return raw
        except (SandboxError, OSError):
            continue
    return None


def _edit_meant(ctx: ToolContext, knowledge_id: str, content: str = "", **_: object) -> Redirect | None:
    """edit_file's call, when update_memory's id is a file here and its content is one ``key: value`` line
    that the file sets: "turn off debug in config/app.yaml" came as update_memory("config/app.yaml",
    "debug: false") from the 1.5B, in both of two runs, with edit_file in the prompt beside it. Told in
    the result to use edit_file, it apologised instead."""
    from .setting_line import config_text, key_set_to, lines_setting, set_line_call

    content = content if isinstance(content, str) else ""  # null content: there is no line to set
    file = _file_meant(ctx, str(knowledge_id).strip()) if content.strip() else None
    if file is None or ctx.memory is not None and ctx.memory.get(str(knowledge_id).strip()) is not None:
        return None
    if (read := config_text(ctx, file)) is None:
        return None
    text = read[1]
    # the new line itself, or the key as the id and its new value as the content ("version", "2.1.0")
    line = content.strip() if lines_setting(text, content) else key_set_to(text, str(knowledge_id), content)
    if line is None:
        return None
    return set_line_call(file, line, f"{file} is a file, not a saved memory: edit_file changed its line.")


update_memory.redirect = _edit_meant  # type: ignore[attr-defined]


_FILE_TO_WRITE = re.compile(r"\b(?:save|write|create|make|start|put)\b[^.?!]*?\b(?P<name>[\w-]+\.(?:md|txt|markdown|"
                            r"json|csv|ya?ml|ini|toml|py|html?|org|rst|log))\b(?:\s+(?:that|which)\s+(?:says?|reads?)|"
                            r"\s+saying|\s+with|\s+containing)?\s*:?\s*(?P<content>.*)$",
                            re.IGNORECASE | re.DOTALL)


def _write_instead(ctx: ToolContext, fact: str = "", **_: object) -> Redirect | None:
    """write_file's call, when the request asks to save a named file that is not here and the fact is that request:
    "save a note called reading.md that says: finished Dune on Sunday" came as remember("Save a note called
    reading.md that says: ...") from the 1.5B, and no file was written (probe53). The file goes in the one folder
    here that a saved preference names ("put notes in the journal folder"), else in the working folder."""
    m = _FILE_TO_WRITE.search(ctx.request.message)
    if m is None or not isinstance(fact, str) or m.group("name").lower() not in fact.lower() \
            or not m.group("content").strip():
        return None
    name = m.group("name")
    if any(e.path.name.lower() == name.lower() for e in scan(ctx, [Path(ctx.workdir)])):
        return None
    folder = _folder_told(ctx)
    path = f"{folder}/{name}" if folder else name
    where_ = f", in {folder}/ as you told me to" if folder else ""
    return Redirect("write_file", {"file_path": path, "content": m.group("content").strip() + "\n"},
                    f"{name} is a file to write, not a fact to remember: write_file wrote it{where_}.")


def _folder_told(ctx: ToolContext) -> str:
    """The one folder here that the saved facts sharing a word with the request ("save", "note") name by its exact
    name, else ""."""
    if ctx.memory is None:
        return ""
    asked = {w for w in re.findall(r"[a-z]{4,}", ctx.request.message.lower())}
    try:
        found = ctx.memory.recall(ctx.request.message, limit=5, count_use=False).facts
    except Exception:   # a memory that cannot answer: the working folder
        return ""
    said = {w for f in found if asked & set(re.findall(r"[a-z]{4,}", f.content.lower()))
            for w in re.findall(r"[\w.-]+", f.content.lower())}
    folders = {where(e.path, Path(ctx.workdir)) for e in scan(ctx, [Path(ctx.workdir)])
               if e.is_dir and e.path.name.lower() in said}
    return folders.pop() if len(folders) == 1 else ""


remember.redirect = _write_instead  # type: ignore[attr-defined]


@tool
def forget(ctx: ToolContext, knowledge_id: str) -> dict[str, Any]:
    """Delete a saved memory by its id.

    Args:
        knowledge_id: The id returned by remember or recall.
    """
    if ctx.memory is None:
        return error_payload(DISABLED)
    if ctx.memory.forget(str(knowledge_id).strip()):
        return {"status": "removed", "knowledge_id": knowledge_id}
    return {"status": "not_found", "knowledge_id": knowledge_id,
            "message": "No memory has this id; use recall to find the right one."}


@tool
def search_past_conversations(ctx: ToolContext, query: str = "", days: int = 0, limit: int = 10,
                              time_from: str = "", time_to: str = "") -> dict[str, Any]:
    """Find what was said in earlier chats with the user.

    Not for files (search_file) or saved facts (recall).

    Args:
        query: Words to search for.
        days: Only the last N days.
        limit: Most messages (1-50).
        time_from: On or after (ISO date).
        time_to: On or before (ISO date).
    """
    if ctx.memory is None:
        return error_payload(DISABLED)
    try:
        days_n, limit_n = _as_int(days, "days"), _as_int(limit, "limit")
        if not (query.strip() or days_n or time_from.strip() or time_to.strip()):
            return error_payload("give a query, days, or a time_from/time_to bound")
        turns = ctx.memory.search_turns(query, days=days_n, time_from=time_from, time_to=time_to,
                                        limit=limit_n or 10)
    except ValueError as exc:
        return error_payload(str(exc))
    results = [{"role": t["role"], "content": t["content"][:TURN_PREVIEW_CHARS], "ts": t["ts"][:19],
                "session_id": t["session_id"]} for t in turns]
    if results:
        return {"status": "found", "count": len(results), "results": results}
    return _files_pointed(ctx) or {"status": "empty", "count": 0, "results": []}


def _files_named(ctx: ToolContext, query: str, shown: int = 5) -> dict[str, Any]:
    """For a memory look-up that found nothing: the files named with every word of ``query`` ({} when none)."""
    try:
        named = files_named(ctx, query)
    except OSError:
        return {}
    if not named:
        return {}
    base = Path(ctx.workdir).resolve()
    names = [where(p, base) for p in named[:shown]] + ([f"(+{len(named) - shown} more)"] if len(named) > shown else [])
    return {"status": "success", "message": "No saved memory matches; files here are named like it: " + ", ".join(names),
            "files": [str(p) for p in named[:shown]]}


def _files_pointed(ctx: ToolContext, none: str = "No earlier chat matches") -> dict[str, Any]:
    """For a search of past chats that found nothing: the files the words of the user's request point to,
    with their matching lines ({} when none). "where did I put my passport notes?" and "what is the deadline
    for the website redesign project?" were searched in past chats (1.5B, 0.5B), and the turn ended there."""
    try:
        counted = count_asked(ctx)   # "how many" of a folder: the count is the answer, ahead of files it names
        found = pointed_by_request(ctx) if ctx.request.message and not counted else []
    except OSError:
        return {}
    if counted:
        return {"status": "success", "message": f"{none}. {counted}"}
    if not found:
        return {}
    # the files' lines lead, with no "count: 0" before them: beside one, the 0.5B answered that nothing was found
    return {"status": "success", "message": f"{none}; the files here do. " + pointed_message(ctx, found),
            "files": [str(p.path) for p in found]}


search_past_conversations.redirect = sql_meant  # type: ignore[attr-defined]  # SQL is analyze_data_file's

TOOLS = [remember, recall, update_memory, forget, search_past_conversations]
