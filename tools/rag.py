"""Document tools: index files and folders, search and summarise indexed documents.

They reach the index through ``ctx.rag`` (a ``RagIndex``). Every path is
resolved against ``ctx.workdir`` and passed to ``ctx.sandbox.check`` before
anything is read or written.
"""

from __future__ import annotations

import functools

import re
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

from gaia_lite.memory.extract import SUPPORTED_EXTENSIONS, extract_pages
from gaia_lite.registry.context import ToolContext
from gaia_lite.registry.failure import ToolFailure, error_payload
from gaia_lite.registry.spec import tool

from .backup import backup_file
from .file_count import asks_count, count_asked, exts_named, lines_counted
from .file_walk import kind_asked
from .file_text import text_head
from .grep import counted, grep_words, hit_lines, text_files
from .list_entry import list_entries
from .find import (clear_winner, files_named, find, locate, named_in, one_pointed, pointed_by_request, pointed_message,
                   rank, request_words, scan, shown, current_ones, not_ruled_out, singled_out, singled_pointed, table_asked, words)
from .setting_paths import flat_settings
from .passages import answer_first, asked_words, beyond, passages, question_parts, ranked, units
from .passages import shown as shown_unit
from .patterns import MAX_PATTERN_CHARS, singular
from .query_meant import sql_meant
from .sandbox import SandboxError, resolve_user_path, resolved_or_none
from .skip import skip_reason
from .table_read import TABLE_SUFFIXES, _frame, _read_rows, _tabular
from .table_sql import query_result

__all__ = ["TOOLS", "query_documents", "query_specific_file", "search_indexed_chunks", "evaluate_retrieval",
           "index_document", "list_indexed_documents", "rag_status", "summarize_document", "dump_document",
           "index_directory", "add_watch_directory"]

NO_INDEX = "the document index is not available in this session"
NO_DOCS_HINT = ("No documents are indexed yet, and the question names no file I could find. Find the files "
                "first (search_file or browse_directory), index them with index_document or index_directory, "
                "then ask again.")
ON_DEMAND_BYTES = 20 * 1024 * 1024  # a file indexed in the middle of a question: bigger ones take minutes
# starts only where a run of path characters starts, as find.PATH_MENTION (why: there)
_FILE_MENTION = re.compile(r"(?<![\w~./\\-])[\w~./\\-]*\w\.(?:"
                           + "|".join(sorted(e.lstrip(".") for e in SUPPORTED_EXTENSIONS)) + r")\b", re.IGNORECASE)
CITE = "Answer only from these chunks and cite each source_file (and page) you use."
# what index/search failures look like: ExtractionError is a ValueError, EmbedderError a RuntimeError
INDEX_ERRORS = (ValueError, RuntimeError, OSError)
_QUESTION_WORDS = frozenset("the and for are was were what when where which who whom why how does did "
                            "can could would should about with from that this these those there their "
                            "have has had you your into than then them they".split())
# A document this small goes back whole: its chunks would overlap and cut its sentences apart
SMALL_DOC_CHARS = 6000
ANSWER_LINES = 5
# Words of "add the minutes folder to your docs": a request to index, not a question about the files
_INDEX_WORDS = "add index reindex take put include load ingest import folder directory dir docs documents document " \
               "collection library knowledge base your my the to into in and please pls"
SUMMARY_STYLES = {
    "brief": "a brief summary of 3 to 5 sentences",
    "detailed": "a detailed summary in a few paragraphs",
    "bullets": "a bulleted list of the key points",
}


def _checked(ctx: ToolContext, path: str, *, write: bool = False) -> Path:
    """The sandbox-approved absolute path (relative paths start at ctx.workdir)."""
    return Path(resolve_user_path(ctx, path, write=write))


def _allowed(ctx: ToolContext, path: Path) -> bool:
    try:
        ctx.sandbox.check(path)
        return True
    except PermissionError:
        return False


def _in_scope(ctx: ToolContext, path: str | Path) -> bool:
    """The one rule for indexed documents: visible only while inside the current
    roots or approved folders (and not a credential file). Documents indexed in an
    earlier session under other roots stay in the index but out of every answer;
    asking the user is for paths the model names, not for search results."""
    try:
        resolved = Path(path).resolve(strict=False)
    except (OSError, RuntimeError):
        return False
    folders = [Path(f) for f in (*ctx.sandbox.roots, *ctx.sandbox.approved)]
    if not any(resolved == f or f in resolved.parents for f in folders):
        return False
    return _allowed(ctx, resolved)


def _scope(ctx: ToolContext) -> list[Any]:
    """The indexed documents in scope (see ``_in_scope``)."""
    return [d for d in ctx.rag.list_documents() if _in_scope(ctx, d.path)]


def _chunk(hit: Any, chars: int = 2000) -> dict[str, Any]:
    return {"source_file": hit.source_file, "page": hit.page, "relevance_score": hit.score,
            "text": hit.text[:chars]}


def _best_passage(ctx: ToolContext, hits: list[Any], chars: int = 300) -> str:
    """The result's message: the best passage, with where it is from. It is what the user asked for, so
    it comes first, and an answer built from the result (the judge's contract) quotes it, not file names."""
    best = hits[0]
    text = " ".join(best.text.split())
    cut = text[:chars].rsplit(" ", 1)[0] + " ..." if len(text) > chars else text
    page = f", page {best.page}" if best.page else ""
    return f"{shown(Path(best.source_file), ctx.workdir)}{page}: {cut}"


def _embedder(ctx: ToolContext) -> Any:
    return ctx.embedder if ctx.embedder is not None else getattr(ctx.rag, "embedder", None)


def _asks(ctx: ToolContext, query: str) -> list[str]:
    """What is asked: each part of the user's message of the turn (the model's query often keeps one part
    of three, "sick days" for "sick days, PTO carry-over and the furniture allowance"), then the query."""
    message = ctx.request.message.strip()
    return list(dict.fromkeys([*(question_parts(message) if message else []), query]))


def _answer(ctx: ToolContext, asks: list[str], sources: list[tuple[str, int, str]],
            naming: str = "", meaning: bool = True) -> tuple[str, list[dict[str, Any]]]:
    """The sentences of ``sources`` ((file, page, text)) that answer ``asks``, best first, each with its
    file (the result's message: what the user asked for), and the passages they stand in (its
    ``chunks``: the sections, not the whole document, so a model that copies from the top copies the
    answer). ("", []) when no sentence holds the asks' words (or means what they ask)."""
    # not the files the request leaves out ("not the legacy one"), when others are there (probe54)
    sources = not_ruled_out(ctx.request.message, sources, Path(ctx.workdir).resolve(), lambda s: Path(s[0]))
    found = [u for path, page, text in sources for u in units(text, path, page)]
    found = list({(u.source, u.text): u for u in found}.values())   # overlapping chunks repeat sentences
    titles = " ".join([naming, *(Path(p).stem for p, _, _ in sources), *(u.heading for u in found[:1])])
    best = ranked(asks, found, embedder=_embedder(ctx) if meaning else None, limit=ANSWER_LINES, title=titles)
    if not best:
        return "", []
    best = _singled_first(ctx, best)
    where = {u.source: shown(Path(u.source), ctx.workdir) for u in best}
    lines = _said_once(best, asks)
    if len(where) == 1 and len(lines) == 1:
        # the file on the line itself: given "From letters/to-landlord.txt:" above it, the 0.5B answered "which of my
        # letters brings up the deposit?" with the line alone (probe46)
        message = f"{where[best[0].source]} says: {lines[0]}"
    elif len(where) == 1:
        message = f"From {where[best[0].source]}:\n" + "\n".join(f"- {line}" for line in lines)
    else:
        message = "\n".join(f"- {line} ({where[u.source]})" for u, line in zip(best, lines))
    wholes = {path: text for path, page, text in sources if not page and _small_text(ctx, path) == text}
    cited = [{"source_file": u.source, **({"page": u.page} if u.page else {}), "text": u.passage}
             for u in passages(best) if u.source not in wholes]
    # a short file read whole goes back whole, its answering sections first: a follow-up ("and what
    # does the CEO expect?") may need any of it, and a model copying from the top copies the answer
    cited += [{"source_file": path, "text": answer_first(text, [u for u in best if u.source == path])}
              for path, text in wholes.items() if any(u.source == path for u in best)]
    return message, cited


def _singled_first(ctx: ToolContext, best: list[Any]) -> list[Any]:
    """``best`` (ranked units) with those of the one current file the request singles out first (find.singled_out:
    its folders, name, number or month). For "the march 2024 meeting", the February meeting's "Marta recommended the
    Cedar Marsh boardwalk" came before the March one's Alder Creek (probe54)."""
    base = Path(ctx.workdir).resolve()
    files = current_ones(list(dict.fromkeys(u.source for u in best)), base, Path)
    pick = singled_out(ctx.request.message, [shown(Path(f), base) for f in files])
    return best if pick is None else sorted(best, key=lambda u: u.source != files[pick])


def _said_once(best: list[Any], asks: list[str]) -> list[str]:
    """Each unit as the answer shows it, its heading in front only the first time: "Service contract:
    Brightwave Ltd." three times over is noise a model copies."""
    out, headed = [], set()
    for u in best:
        line = shown_unit(u, asks)
        if line != u.text:
            if (u.source, u.heading) in headed:
                line = u.text
            headed.add((u.source, u.heading))
        out.append(line)
    return out


def _small_text(ctx: ToolContext, path: str) -> str | None:
    """The whole text of an indexed one-page document (a text file, not a PDF: its pages are cited) small
    enough to read whole, else None."""
    pages = ctx.rag.document_pages(path)
    if len(pages) != 1 or len(pages[0][1]) > SMALL_DOC_CHARS:
        return None
    return pages[0][1]


def _tables(ctx: ToolContext, paths: list[str]) -> dict[str, Any] | None:
    """The figures of the tables among ``paths``, computed from every row (``table_facts``), else None."""
    from .table_facts import tables_result   # table_facts imports data.py, which imports this module
    from .table_read import table_question
    return tables_result(paths, table_question(ctx.request.message, ctx.request.asked_before))


def _found(ctx: ToolContext, query: str, hits: list[Any], naming: str = "") -> dict[str, Any]:
    """A search's result: the sentences that answer first (``message``), then the passages they stand in.
    A small document is read whole for them; a larger one's retrieved chunks are. Without such sentences,
    the best chunk's start is the message and the chunks (a small document's whole text, once) follow."""
    by_file: dict[str, list[Any]] = {}
    for h in hits:
        by_file.setdefault(h.source_file, []).append(h)
    tables = _tables(ctx, list(by_file))
    if tables is not None and hits[0].source_file in (tables.get("source_file"), *tables.get("source_files", ())):
        return tables   # the best passage is a table's: its figures answer, not a few of its rows
    sources, plain = [], []
    for file, its_hits in _current_first(ctx, by_file).items():
        whole = _small_text(ctx, file)
        whole = flat_settings(file, whole) or whole if whole is not None else None   # each value under its keys
        if whole is not None:
            sources.append((file, 0, whole))
            plain.append({"source_file": file, "text": whole})
        else:
            sources += [(file, h.page, h.text) for h in its_hits]
            plain += [_chunk(h) for h in its_hits]
    message, cited = _answer(ctx, _asks(ctx, query), sources, naming)
    for c in cited:  # the search's score of the passage's page (of its file, for a file read whole)
        c["relevance_score"] = max(h.score for h in by_file[c["source_file"]]
                                   if not c.get("page") or h.page == c["page"])
    return {"status": "success", "message": message or _best_passage(ctx, hits), "chunks": cited or plain}


def _current_first(ctx: ToolContext, by_file: dict[str, list[Any]]) -> dict[str, list[Any]]:
    """The files a search found, without their older copies (find.superseded) when a current file is among them:
    a heating schedule's backup/ copy led with its 06:45, the current file's 06:15 after it (probe52)."""
    return dict(current_ones(list(by_file.items()), Path(ctx.workdir).resolve(), lambda item: Path(item[0])))


def _read_through(ctx: ToolContext, query: str, paths: list[str]) -> dict[str, Any] | None:
    """The result for files a question names when the search matched no passage of them: the sentences
    of their stored text that answer (by words alone for a long text: embedding every sentence of a
    book costs minutes), else a small file's whole text; None when neither."""
    pages = [(p, ctx.rag.document_pages(p)) for p in paths]
    sources = [(p, n if len(its) > 1 else 0, t) for p, its in pages for n, t in its]
    short = sum(len(t) for _, _, t in sources) <= 4 * SMALL_DOC_CHARS
    message, cited = _answer(ctx, _asks(ctx, query), sources, meaning=short)
    if message:
        return {"status": "success", "message": message, "chunks": cited}
    whole = [(p, t) for p in paths if (t := _small_text(ctx, p)) is not None]
    if not whole:
        return None
    names = ", ".join(shown(Path(p), ctx.workdir) for p, _ in whole)
    return {"status": "success", "message": f"No passage matched {query!r}; this is the whole of {names}.",
            "chunks": [{"source_file": p, "text": t} for p, t in whole]}


def _top_n(chunk_count: int) -> int:
    """Adaptive depth: more chunks for larger corpora, within a small-model budget."""
    return 5 if chunk_count <= 500 else 8 if chunk_count <= 5000 else 10


def _document_named(ctx: ToolContext, name: str) -> tuple[Any, Path, str]:
    """(the indexed document or None, its file, a note) for a document a model names by path or name.

    An indexed document in scope is taken by its path or name; any other name is looked for among the
    files (``find.locate``: a guessed path finds the file it meant, with a note). Raises ToolFailure when
    the name matches several documents or no file."""
    found = [d for d in ctx.rag.find_documents(name) if _in_scope(ctx, d.path)]
    if len(found) > 1:
        names = ", ".join(d.path for d in found[:5])
        raise ToolFailure(f"{name!r} matches several documents ({names}); pass the full path")
    if found:
        return found[0], Path(found[0].path), ""
    path, note = locate_or_named(ctx, name, keep=ctx.rag.supports)
    doc = ctx.rag.document(path)
    return (doc if doc is not None and _in_scope(ctx, doc.path) else None), path, note


def locate_or_named(ctx: ToolContext, raw: str, *, keep: Callable[[Path], bool]) -> tuple[Path, str]:
    """``find.locate``, and when the path fits no file, the file the user's message names in words
    ("handbook says how many sick days?" while the model asked for ``sick_days.txt``)."""
    try:
        return locate(ctx, raw, keep=keep)
    except ToolFailure:
        message = ctx.request.message
        guesses = (named_in(ctx, message, keep=keep) or _one_word_named(ctx, message, keep)
                   or _clearly_pointed(ctx, keep)) if message.strip() else []
        if not guesses:
            raise
    best = guesses[0]
    return ctx.sandbox.check(best.path), (f"{raw.strip()} does not exist; this is "
                                          f"{shown(best.path, ctx.workdir)} ({best.reason}).")


def _clearly_pointed(ctx: ToolContext, keep: Callable[[Path], bool]) -> list[Any]:
    """The one file the words of the request point to, well ahead of the next (by name and content); []
    when none or no clear one."""
    pointed = pointed_by_request(ctx, keep=keep)
    if not pointed or (len(pointed) > 1 and pointed[0].score - pointed[1].score < 0.1):
        return []
    return [pointed[0]]


def _one_word_named(ctx: ToolContext, message: str, keep: Callable[[Path], bool]) -> list[Any]:
    """The one file whose name holds a word of the message when no other file's name does ("handbook
    says how many sick days?" -> ``handbook_v4.md``, a name ``find.named_in`` passes over for its
    version tokens); [] when no word, or more than one file, fits."""
    entries = list(scan(ctx))
    found = {}
    for word in asked_words(message):
        if len(word) < 4 or word.isdigit():
            continue
        strict = [f for f in rank(word, entries, "file", keep=keep) if f.strict]
        if len(strict) == 1:
            found.setdefault(strict[0].path, replace(strict[0], reason=f"the request names {word}"))
    return list(found.values()) if len(found) == 1 else []


def _index_on_demand(ctx: ToolContext, path: Path) -> Any:
    """Index one file in the middle of a request, after the checks ``gaia-lite index`` makes (credential
    files, outside the allowed folders, unsupported, too big, binary); its DocumentInfo."""
    reason = skip_reason(path, ctx.sandbox)
    if reason:
        raise ToolFailure(f"{shown(path, ctx.workdir)} cannot be indexed: {reason}")
    if path.stat().st_size > ON_DEMAND_BYTES:
        raise ToolFailure(f"{path.name} is {path.stat().st_size // 2**20} MB: index it with index_document first "
                          "(that can take minutes), then ask again")
    try:
        ctx.rag.index_file(path)
    except INDEX_ERRORS as exc:
        raise ToolFailure(f"could not index {path.name}: {exc}") from None
    return ctx.rag.document(path)


def _added(where: str) -> str:
    """The note on a file indexed in the middle of a question. It says what happened in words that stay
    true when repeated: "X was not indexed; it is now" came back from the 0.5B as "X was not found in the
    index. It has been renewed." (a fresh home, "what's on my todo list in the notes folder?")."""
    return f"Added {where} to the document index to answer this."


def _indexed(ctx: ToolContext, name: str) -> tuple[Any, str]:
    """(the indexed document ``name`` means, a note): indexed on demand when it was not."""
    doc, path, note = _document_named(ctx, name)
    if doc is None:
        doc = _index_on_demand(ctx, path)
        note = (note + " " if note else "") + _added(shown(path, ctx.workdir))
    return doc, note


def _pages(ctx: ToolContext, name: str) -> tuple[Path, list[tuple[int, str]], str]:
    """(the document's file, its pages, a note) for a whole-document tool: an indexed document's stored
    pages, else the file read directly (the same checks as indexing), leaving the index as it was."""
    doc, path, note = _document_named(ctx, name)
    if doc is not None:
        return path, ctx.rag.document_pages(doc.path), note
    reason = skip_reason(path, ctx.sandbox)
    if reason:
        raise ToolFailure(f"{shown(path, ctx.workdir)} cannot be read as a document: {reason}")
    try:
        pages = extract_pages(path)
    except INDEX_ERRORS as exc:
        raise ToolFailure(f"could not read {path.name}: {exc}") from None
    return path, list(enumerate(pages, start=1)), note


def _mentions(text: str) -> list[str]:
    """The supported files ``text`` names by path or name, in order, once each."""
    return list(dict.fromkeys(m.group(0).strip("./") for m in _FILE_MENTION.finditer(text)))


def _question_documents(ctx: ToolContext, query: str, scope: list[Any]) -> tuple[list[Any], str]:
    """The documents a question is about, indexed on demand, and a note: the files it names
    ("According to policies/handbook.md ..."), else, with nothing indexed, the files whose names it
    holds in words ("what does the employee handbook say ..."). ([], "") when it names none. A query
    that names no file is read with the user's message of the turn (the model's query often drops the
    "According to policies/travel-policy.md" the user said)."""
    asked = [text for text in (query, ctx.request.message) if text.strip()]
    mentions = next((found for found in (_mentions(text) for text in asked) if found), [])
    docs, notes = [], []
    for name in mentions[:3]:
        try:
            doc, note = _indexed(ctx, name)
        except ToolFailure as exc:  # a name that is no file here ("settings.json" in a question about an app)
            notes.append(exc.message)
            continue
        docs.append(doc)
        notes += [note] if note else []
    if not docs and not scope:
        guesses = next((found for found in (named_in(ctx, text, keep=ctx.rag.supports) for text in asked) if found), [])
        for found in guesses:
            try:
                docs.append(_index_on_demand(ctx, found.path))
            except ToolFailure as exc:  # a guess that cannot be indexed is no answer: say why, try the next
                notes.append(exc.message)
                continue
            notes.append(_added(f"{shown(found.path, ctx.workdir)} ({found.reason})"))
            break
    if not mentions and (not docs or not scope):
        # a guess by a name's one word ("trails.md" for "which trail did marta recommend at the march 2024
        # meeting") is weighed beside the files the request's words point to: the meeting's notes (probe54)
        more_docs, more = _pointed_documents(ctx, scope or docs)   # the guess held: one file clearly better
        docs += more_docs
        notes += [more] if more else []
    return docs, " ".join(notes)


POINTED_FILES = 3  # files a question's words may index on demand in one call


def _pointed_documents(ctx: ToolContext, scope: list[Any]) -> tuple[list[Any], str]:
    """The files the words of the user's request point to (name first, then content), indexed on demand,
    and a note; ([], "") when the index already holds the best of them, or nothing fits. An empty index
    is no dead end ("No documents are indexed yet") and a weak hit in an index of other files is not the
    answer when a file here fits the question better ("handbook says ..." with only budget notes indexed)."""
    pointed = pointed_by_request(ctx, keep=ctx.rag.supports, limit=POINTED_FILES)
    held = {Path(d.path).resolve() for d in scope}
    if not pointed or pointed[0].path.resolve() in held:
        return [], ""
    # with documents indexed, only a file clearly ahead of every indexed one replaces them
    if scope and any(p.path.resolve() in held and p.score >= 0.8 * pointed[0].score for p in pointed):
        return [], ""
    chosen = pointed if not scope else pointed[:1]
    docs, notes = [], []
    for p in chosen:
        if p.path.resolve() in held:
            docs.append(ctx.rag.document(p.path))
            continue
        try:
            docs.append(_index_on_demand(ctx, p.path))
        except ToolFailure as exc:
            notes.append(exc.message)
            continue
        notes.append(_added(f"{shown(p.path, ctx.workdir)} ({p.reason})"))
    return [d for d in docs if d is not None], " ".join(notes)


FILES_SEARCHED = 5_000   # files the fall-through's walk looks at, at most


COUNTED_INSTEAD = "No documents were indexed here, and a count is of every file's lines, so the files were searched"


def _files_say(ctx: ToolContext, query: str, why: str) -> dict[str, Any] | None:
    """A document question the index cannot answer, asked of the files instead: the lines of the text files
    in the working folder that hold the question's words (the user's, else the query's), as
    ``path:line: text`` under ``why``; None when the question has no such words or no line holds them."""
    terms = request_words(ctx.request.message) or request_words(query)
    if not terms:
        return None
    base = Path(ctx.workdir)
    found = grep_words(ctx, text_files(ctx, base, limit=FILES_SEARCHED), terms)
    if not found.hits:
        return None
    return {"status": "success", "match": "file_search",
            "message": f"{why} for {', '.join(terms)}: {counted(found, base)}\n" + "\n".join(hit_lines(found, base))}


_COUNTED_NOUN = re.compile(r"\bho?w\s+many\s+(?:[\w-]+\s+){0,2}?(?P<noun>[a-z][\w-]{2,})\s+(?:do|does|did|are|is|can|will|"
                           r"should|must|have|has|were|was|would)\b", re.IGNORECASE)


def _stated_figure(ctx: ToolContext, pointed: list[Any]) -> bool:
    """Whether "how many" asks a figure a file the request points to states ("8 paid sick days"), not a count of
    lines or files: "How many paid sick days do part-time staff get" was answered with lines counted over every
    file, the handbook's sentence cut short (probe55)."""
    m = _COUNTED_NOUN.search(ctx.request.message)
    if m is None:
        return False
    stated = re.compile(rf"\b\d+(?:[.,]\d+)?\s+(?:[\w-]+\s+){{0,2}}{re.escape(singular(m.group('noun').lower()))}",
                        re.IGNORECASE)
    return any(stated.search(line) for p in pointed[:3] for _, line in p.lines)


def _counted_instead(ctx: ToolContext, query: str, pointed: list[Any]) -> dict[str, Any] | None:
    """A count asked with nothing indexed: of the files' lines that hold its words, else of the files in the folder
    it names. "How many TODOs are there in total across src?" got one passage of one file indexed for it, and the
    0.5B answered with that passage; "how many photos did i take in 2024? theyre in photos/2024" got "No documents
    are indexed yet" (probe46)."""
    counted = count_asked(ctx)
    folder = {"status": "success", "match": "folder_count",
              "message": f"No documents were indexed here. {counted}"} if counted else None
    if folder and (kind_asked(ctx.request.message) or exts_named(ctx.request.message)):
        return folder   # files of a kind are counted, not lines: "2024" also stood in reports' lines
    return _list_counted(ctx, pointed) or _lines_counted_in(ctx, pointed) or _files_say(ctx, query, COUNTED_INSTEAD) \
        or folder


def _lines_counted_in(ctx: ToolContext, pointed: list[Any]) -> dict[str, Any] | None:
    """A count asked of the one file the request singles out among those its words point to (its folders, month, a
    word it leaves out), nothing indexed: the lines that hold each of its words, counted (file_count.lines_counted).
    "how many shifts is priya down for in the march roster? the final one not the draft" got the header lines of
    both rosters, and the 1.5B answered that none were listed (probe52)."""
    one = singled_pointed(ctx, pointed)
    if one is None:
        return None
    path = one.path
    text = text_head(ctx, path, lines=400, chars=40_000)
    counted = lines_counted(ctx.request.message, text, shown(path, ctx.workdir)) if text else []
    if not counted:
        return None
    where_ = shown(path, ctx.workdir)
    return {"status": "success", "match": "lines_counted", "file": where_,
            "message": f"No documents were indexed here. In {where_}, " + "; ".join(counted) + "."}


def _list_counted(ctx: ToolContext, pointed: list[Any]) -> dict[str, Any] | None:
    """A count asked of the one list file the request points to, with nothing indexed: its entries counted, its text
    after them. "how many things are still unchecked on my garden todo list" got the two lists' title lines, the
    0.5B answered from them (probe50)."""
    one = one_pointed(pointed, Path(ctx.workdir))
    text = text_head(ctx, one.path, lines=120, chars=8_000) if one is not None else ""
    entries = list_entries(text) if text else None
    if one is None or entries is None:
        return None
    where = shown(one.path, ctx.workdir)
    return {"status": "success", "match": "list_count", "file": where,
            "message": f"No documents were indexed here. List entries in {where}: {entries}. Its text:\n{text}"}


def _told_before(ctx: ToolContext, query: str) -> dict[str, Any] | None:
    """With no document indexed: the saved facts close in meaning to the question (MemoryStore.relevant_facts), or
    None. A question about the user sent here: asked "What did I tell you about my diet?" after "Keep in mind that
    I'm vegetarian.", the 0.5B searched the empty index, then tried to index a diet.txt it made up (built-in test
    split; that pair is at cosine 0.365 in MiniLM, too far to be shown, "Do I prefer tea or coffee?" at 0.889)."""
    from .memory import facts_told   # kept local: memory's tools import the finders this module does

    facts = facts_told(ctx, query)
    if not facts:
        return None
    return {"status": "success", "match": "saved_facts",
            "message": "No documents are indexed here, but you told me: " + "; ".join(facts)}


@tool
def query_documents(ctx: ToolContext, query: str, debug: bool = False) -> dict[str, Any]:
    """Search all indexed documents for passages that answer a question.

    Args:
        query: The question or topic to look for.
        debug: True to include retrieval details.
    """
    if ctx.rag is None:
        return error_payload(NO_INDEX)
    if not query.strip():
        return error_payload("query is empty; pass the question to search for")
    scope = _scope(ctx)
    named, note = _question_documents(ctx, query, scope)
    if (tables := _tables(ctx, [d.path for d in named])) is not None:   # a table the question names
        return {**tables, "query": query, **({"note": note} if note else {})}
    if not named and (tables := _tables(ctx, _unindexable_tables(ctx, query))) is not None:
        return {**tables, "query": query, **({"note": note} if note else {})}
    # the files the request's words point to, looked for once: the branches below ask it up to four times
    pointed = functools.cache(lambda: pointed_by_request(ctx))
    if not scope and count_asked(ctx) is None and (one := table_asked(ctx, pointed())) is not None \
            and (tables := _tables(ctx, [str(one.path)])) is not None:
        # a figure asked of the one table the words point to: "How many hours did I log for Harbor & Finch in April
        # 2024?" got the lines of four files that held its words, and both models answered a figure of none (probe52)
        return {**tables, "query": query}
    if not scope and asks_count(ctx) and not _stated_figure(ctx, pointed()) \
            and (said := _counted_instead(ctx, query, pointed())) is not None:
        return {**said, "query": query}   # no note of the files indexed on the way: they did not answer
    if not named and not scope and (told := _told_before(ctx, query)) is not None:   # what the user told us
        return {**told, **({"note": note} if note else {})}
    if not named and not scope:   # nothing indexed, nothing the question names: the files' text may answer
        said = _files_say(ctx, query, "No documents are indexed here yet, so the files were searched instead")
        if said is not None:
            return {**said, **({"note": note} if note else {})}
        found = pointed()   # files named like the question's words: where they are
        if found:
            return {"status": "success", "match": "request", "message": pointed_message(ctx, found),
                    "files": [str(p.path) for p in found], **({"note": note} if note else {})}
        return {"status": "no_documents", "message": (note + " " if note else "") + NO_DOCS_HINT}
    total = ctx.rag.chunk_count()
    started = time.monotonic()
    try:
        hits = ctx.rag.search(query, k=_top_n(total), docs=[d.id for d in (named or scope)])
    except INDEX_ERRORS as exc:
        return error_payload(f"search failed: {exc}")
    read = _read_through(ctx, query, [d.path for d in named]) if not hits and named else None
    if read is not None:  # the question names these files: read them through, not "nothing found"
        return {**read, "query": query, "instruction": CITE, **({"note": note} if note else {})}
    if not hits:   # no indexed passage is close: the files' text may still hold the answer
        said = _files_say(ctx, query, "No indexed passage answers this, so the files were searched instead")
        if said is not None:
            return {**said, "query": query, **({"note": note} if note else {})}
        return {"status": "no_results", "query": query,
                "message": (note + " " if note else "") + "Nothing relevant found; try other words."}
    out = {**_found(ctx, query, hits), "query": query, "instruction": CITE, **({"note": note} if note else {})}
    if str(debug).strip().lower() in {"true", "1", "yes"}:
        out["debug"] = {"indexed_chunks": total, "seconds": round(time.monotonic() - started, 3),
                        "hits": [{"chunk_index": h.chunk_index, "vector": h.vector_score,
                                  "keyword_coverage": h.keyword_score} for h in hits]}
    return out


@tool
def query_specific_file(ctx: ToolContext, file_path: str, query: str) -> dict[str, Any]:
    """Search inside one document for passages that answer a question.

    Args:
        file_path: The document's path or file name.
        query: The question or topic to look for.
    """
    if (table := _table_queried(ctx, file_path, query)) is not None:
        return table
    if ctx.rag is None:
        return error_payload(NO_INDEX)
    doc, note = _indexed(ctx, file_path)
    if (tables := _tables(ctx, [doc.path])) is not None:
        return {**tables, "file": doc.path, **({"note": note} if note else {})}
    try:
        hits = ctx.rag.search(query, k=5, file=doc.path)
    except INDEX_ERRORS as exc:
        raise ToolFailure(f"could not search {file_path}: {exc}") from None
    if not hits:
        read = _read_through(ctx, query, [doc.path])   # the file asked about, read through
        if read is None:
            return {"status": "no_results", "message": (note + " " if note else "") + "Nothing relevant in this file.",
                    "file": doc.path}
        return {**read, "file": doc.path, "instruction": CITE, **({"note": note} if note else {})}
    return {**_found(ctx, query, hits), "file": doc.path, "instruction": CITE, **({"note": note} if note else {})}


def _unindexable_tables(ctx: ToolContext, query: str) -> list[str]:
    """The table files (.tsv, .xlsx) the query or the user's message names by path that the index cannot
    read, so _question_documents left them out: "how many tickets in support/tickets.tsv are high priority and
    still open?" was answered by the 0.5B from a grep's "1 matching line in 1 file" (query_documents)."""
    found = []
    for text in (query, ctx.request.message):
        # starts where a run of path characters starts (why: _FILE_MENTION)
        for name in re.findall(r"(?<![\w./~-])[\w./~-]+\.(?:tsv|xlsx|xlsm)\b", text, re.IGNORECASE):
            path = resolved_or_none(ctx, name)
            if path is not None and path.is_file() and not ctx.rag.supports(path):
                found.append(str(path))
    return list(dict.fromkeys(found))


def _table_queried(ctx: ToolContext, file_path: str, query: str) -> dict[str, Any] | None:
    """analyze_data_file's answer when query_specific_file is asked of a table file with a SQL SELECT, or of
    one the index cannot read (.tsv, .xlsx): the 1.5B sent "SELECT COUNT(*) ... WHERE priority = 'High'" here
    for support/tickets.tsv and got "cannot be indexed: unsupported type", then answered "none". None for
    anything else: a document, or a table asked in words, is searched as before."""
    path = resolved_or_none(ctx, file_path)
    if path is None or not path.is_file() or path.suffix.lower() not in TABLE_SUFFIXES or path.suffix.lower() == ".txt":
        return None
    sql = query.strip().lower().startswith(("select", "with"))
    if not sql and ctx.rag is not None and ctx.rag.supports(path):
        return None
    file = shown(path, ctx.workdir)
    if not sql:
        tables = _tables(ctx, [str(path)])
        return {**tables, "file": file} if tables is not None else None
    rows = _read_rows(path)
    if not _tabular(rows):
        return None
    try:
        result = query_result(_frame(rows), query)
    except ToolFailure as failure:
        return error_payload(str(failure))
    return {**result, "file": file, "note": "the query ran over the table's rows, as analyze_data_file runs one."}


@tool
def search_indexed_chunks(ctx: ToolContext, pattern: str) -> dict[str, Any]:
    """Find indexed passages containing an exact phrase, code or number.

    Args:
        pattern: Text to find, case-insensitive.
    """
    if ctx.rag is None:
        return error_payload(NO_INDEX)
    if not pattern.strip():
        return error_payload("pattern is empty; pass the text to find")
    if len(pattern) > MAX_PATTERN_CHARS:
        return error_payload(f"pattern is {len(pattern)} characters; the limit is {MAX_PATTERN_CHARS}")
    hits, total = ctx.rag.grep(pattern.strip(), limit=10, docs=[d.id for d in _scope(ctx)])
    matches = []
    for h in hits:
        at = h.text.lower().find(pattern.strip().lower())
        start = max(0, at - 200)
        matches.append({"source_file": h.source_file, "page": h.page,
                        "text": h.text[start:at + len(pattern) + 300]})
    return {"status": "success" if hits else "no_matches", "pattern": pattern, "total_matches": total,
            "matches": matches}


@tool
def evaluate_retrieval(ctx: ToolContext, question: str, retrieved_info: str) -> dict[str, Any]:
    """Check whether retrieved text is enough to answer a question.

    Args:
        question: The user's question.
        retrieved_info: The text found so far.
    """
    keywords = [w for w in dict.fromkeys(re.findall(r"\w+", question.lower()))
                if w not in _QUESTION_WORDS and len(w) > 2]
    found_words = set(re.findall(r"\w+", retrieved_info.lower()))
    missing = [w for w in keywords if w not in found_words]
    coverage = 1.0 - len(missing) / len(keywords) if keywords else 0.0
    sufficient = len(retrieved_info.strip()) > 50 and coverage > 0.3
    advice = ("Answer from the retrieved text." if sufficient else
              "Search again with other words, or query a specific file.")
    return {"status": "success", "sufficient": sufficient, "keyword_coverage": round(coverage, 2),
            "missing_keywords": missing[:10], "recommendation": advice}


@tool(timeout=600)
def index_document(ctx: ToolContext, file_path: str) -> dict[str, Any]:
    """Add a file (PDF, text, Markdown, code, CSV, JSON) to the document index.

    Args:
        file_path: Path of the file to index.
    """
    if ctx.rag is None:
        return error_payload(NO_INDEX)
    try:  # a guessed path: the file it meant, with a note
        path, note = locate(ctx, file_path, keep=ctx.rag.supports)
    except ToolFailure:
        folder = _folder_meant(ctx, file_path)   # "index the minutes folder", passed as a file
        if folder is None:
            return _named_like_it(ctx, file_path)
        return _index_folder(ctx, folder, recursive=False, note=f"{file_path.strip()} is no file; indexed the "
                             f"folder {shown(folder, ctx.workdir)}/, which the request names.")
    if note and "outside the allowed folders" not in note:
        path, note = _request_over_guess(ctx, file_path, path, note)
    folder = _folder_in_request(ctx) if note else None
    if folder is not None and not path.is_relative_to(folder):
        # the path was a guess, and the user's own words name a folder: the words decide
        return _index_folder(ctx, folder, recursive=False, note=f"{file_path.strip()} does not exist; indexed the "
                             f"folder {shown(folder, ctx.workdir)}/, which the request names.")
    try:
        result = ctx.rag.index_file(path)
    except INDEX_ERRORS as exc:
        raise ToolFailure(str(exc)) from None
    info = result.to_dict()
    info["outcome"] = info.pop("status")  # indexed, updated or unchanged
    said = f"{shown(path, ctx.workdir)} is indexed ({info['outcome']})"
    if (tables := _tables(ctx, [str(path)])) is not None:   # what follows indexing a table: its figures
        return {**tables, "message": f"{tables['message']}\n({said}.)", **info,
                **({"note": note} if note else {})}
    asks = _request_question(ctx, path.stem)
    hits = _search_quietly(ctx, " ".join(asks), file=path) if asks else []
    if hits:  # "index X and tell me Y": Y is answered from X in the same call
        found = _found(ctx, " ".join(asks), hits, f"{path.stem} {_INDEX_WORDS}")
        return {"status": "success", "message": f"{said}. For your question, {_lower_first(found['message'])}",
                "chunks": found["chunks"], **info, **({"note": note} if note else {})}
    # indexing is a step, not an answer: the file's first lines come with it (the 0.5B answered "who is
    # the customer on it?" right after indexing, with a name it made up)
    head = text_head(ctx, path)
    said += f". It begins:\n{head}" if head else "."
    return {"status": "success", "message": said, **info, **({"note": note} if note else {})}


def _named_like_it(ctx: ToolContext, raw: str, shown_files: int = 5) -> dict[str, Any]:
    """For a path to index that fits no document: the files of any type whose names hold every word of its name, as
    the answer to where such a file is; re-raises locate's failure when there are none. "do i have a passport scan
    saved anywhere?" was asked of the index, "passport scan.pdf" was not there, and the 0.5B answered that no file is
    named like it, beside documents/id/passport_scan.png (probe46)."""
    stem = Path(raw.strip().replace("\\", "/")).stem
    named = files_named(ctx, stem, keep=lambda p: not ctx.rag.supports(p))
    if not named:
        locate(ctx, raw, keep=ctx.rag.supports)   # raises the failure, with its close names
    names = ", ".join(shown(p, ctx.workdir) for p in named[:shown_files])
    given = shown(Path(raw.strip()), ctx.workdir)
    return {"status": "not_indexed", "message": f"{given} does not exist. Named like it: {names} (not a document the "
            "index reads, so not indexed).", "files": [str(p) for p in named[:shown_files]]}


def _request_over_guess(ctx: ToolContext, raw: str, guess: Path, note: str) -> tuple[Path, str]:
    """(the file to index, its note) for a model's path that named no file and was matched to ``guess``:
    the file the user's words point to instead, when the guess's name holds none of them ("notes.txt"
    matched budget_notes.md for "handbook says how many sick days?", whose words point to the handbook)."""
    asked = set(request_words(ctx.request.message))
    if not asked or asked & set(words(guess.stem)):
        return guess, note
    pointed = pointed_by_request(ctx, keep=ctx.rag.supports)
    if not pointed or pointed[0].path.resolve() == guess.resolve():
        return guess, note
    best = pointed[0]
    return ctx.sandbox.check(best.path), (f"{raw.strip()} does not exist; this is {shown(best.path, ctx.workdir)}, "
                                          f"which the words of the request point to ({best.reason}).")


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:] if text.startswith("From ") else text


def _request_question(ctx: ToolContext, naming: str) -> list[str]:
    """The parts of the user's message of the turn that ask something of the files being indexed (not
    the request to index them, nor their names): "add the minutes folder to your docs and tell me who
    took notes in March" -> ["tell me who took notes in March"]."""
    message = ctx.request.message.strip()
    return beyond(question_parts(message), f"{naming} {_INDEX_WORDS}") if message else []


def _search_quietly(ctx: ToolContext, query: str, **where: Any) -> list[Any]:
    """Search hits, or none when the search fails: an answer on top of indexing is a bonus."""
    try:
        return ctx.rag.search(query, k=5, **where)
    except INDEX_ERRORS:
        return []


def _folder_meant(ctx: ToolContext, raw: str) -> Path | None:
    """The folder an index call means when its path is no file: the path itself when it is a folder, the
    one folder named like it, else the one folder the user's message names in words ("the minutes
    folder"). None when there is no such folder or several."""
    try:
        path = _checked(ctx, raw)
    except SandboxError:
        return None
    if path.is_dir():
        return path
    if path.exists():
        return None
    best = clear_winner(find(ctx, shown(path, Path(ctx.workdir).resolve()), "folder"))
    if best is not None and _allowed(ctx, best.path):
        return best.path
    return _folder_in_request(ctx)


def _is_file(ctx: ToolContext, raw: str) -> bool:
    try:
        return _checked(ctx, raw).is_file()
    except SandboxError:
        return False


def _folder_in_request(ctx: ToolContext) -> Path | None:
    """The one folder whose name the user's message holds in words, all of them ("add the minutes folder"
    -> ``minutes/``); a name said right before "folder" wins a tie."""
    said = words(ctx.request.message)
    if not said:
        return None
    text = " ".join(said)
    candidates: list[tuple[bool, int, Path]] = []
    for e in scan(ctx):
        own = words(e.path.name) if e.is_dir else []
        if own and set(own) <= set(said) and any(len(w) >= 3 and not w.isdigit() for w in own):
            named = any(f"{' '.join(own)} {kind}" in text for kind in ("folder", "directory", "dir"))
            candidates.append((named, len(own), e.path))
    if not candidates:
        return None
    candidates.sort(key=lambda c: (not c[0], -c[1], len(c[2].parts)))
    if len(candidates) > 1 and candidates[0][:2] == candidates[1][:2]:
        return None
    return candidates[0][2] if _allowed(ctx, candidates[0][2]) else None


@tool
def list_indexed_documents(ctx: ToolContext) -> dict[str, Any]:
    """List the documents in the index with their pages and chunk counts."""
    if ctx.rag is None:
        return error_payload(NO_INDEX)
    docs = [d.to_dict() for d in _scope(ctx)]
    listed = _the_folder_asked_about(ctx, docs)
    return {"status": "success", **listed, "count": len(docs), "documents": docs}


def _folder_by_name(ctx: ToolContext) -> Path | None:
    """The one folder of the working folder's first two levels whose name the user's message holds as a
    word, in any case ("docs" in "what's in the docs folder?"), or None."""
    said = set(re.findall(r"[\w.-]+", ctx.request.message.casefold()))
    work = Path(ctx.workdir)
    try:
        levels = [p for top in work.iterdir() if top.is_dir() for p in (top, *(c for c in top.iterdir() if c.is_dir()))]
    except OSError:
        return None
    named = [p for p in levels if p.name.casefold() in said and not p.name.startswith(".")]
    return named[0] if len(named) == 1 else None


def _folder_down_the_path(ctx: ToolContext) -> Path | None:
    """The deepest of the folders the user's message names in words (every word of each name, at any depth) when
    they lie on one path: "which of the band's setlists is the biggest file?" names music-stuff/band and its
    setlists (the 1.5B listed an empty index for it, probe_files). None when they branch, or it names none."""
    named = sorted((f.path for f in named_in(ctx, ctx.request.message, kind="folder", min_share=1.0, limit=None)),
                   key=lambda p: len(p.parts))
    if not named or any(p not in named[-1].parents for p in named[:-1]):
        return None
    return named[-1]


def _the_folder_asked_about(ctx: ToolContext, docs: list[dict[str, Any]]) -> dict[str, Any]:
    """The listing of the folder the user's message names, when no indexed document lies in it: asked
    "what's in the docs folder?", the 0.5B listed the index (empty) and answered "The docs folder is empty"."""
    folder = _folder_down_the_path(ctx) or _folder_by_name(ctx)
    if folder is None:
        return {}
    if any(folder in Path(str(d.get("path", ""))).parents for d in docs):
        return {}
    from .files import browse_directory  # files imports rag's helpers; kept local, as data.py does

    listing = browse_directory(ctx, str(folder))
    return {"message": f"No indexed document is in {shown(folder, ctx.workdir)}/, a folder here. {listing['message']}",
            "entries": listing["entries"]}


@tool
def rag_status(ctx: ToolContext) -> dict[str, Any]:
    """Show document index status: counts, sizes, types and watched folders."""
    if ctx.rag is None:
        return error_payload(NO_INDEX)
    watchers = [{"directory": str(w.directory), "running": w.running, "reindexed": w.reindexed,
                 "errors": w.errors[-3:]} for w in ctx.rag.watchers()]
    return {"status": "success", **ctx.rag.status(), "active_watchers": watchers}


def _sections(pages: list[tuple[int, str]], max_words: int) -> list[tuple[str, str]]:
    """(label, text) sections of at most ``max_words``; each starts with its predecessor's last page."""
    pages = [(n, t) for n, t in pages if t.strip()]
    pieces: list[tuple[int, str]] = []
    for n, t in pages:  # a page longer than a section is cut into parts
        words = t.split()
        pieces.extend((n, " ".join(words[i:i + max_words])) for i in range(0, len(words), max_words))
    sections: list[tuple[str, str]] = []
    i = 0
    while i < len(pieces):
        group, count, j = [pieces[i]], len(pieces[i][1].split()), i + 1
        while j < len(pieces) and count + len(pieces[j][1].split()) <= max_words:
            group.append(pieces[j])
            count += len(pieces[j][1].split())
            j += 1
        first, last = group[0][0], group[-1][0]
        label = f"page {first}" if first == last else f"pages {first}-{last}"
        sections.append((label, "\n\n".join(f"[Page {n}]\n{t}" for n, t in group)))
        overlap = len(group) > 1 and j < len(pieces) and \
            len(pieces[j - 1][1].split()) + len(pieces[j][1].split()) <= max_words
        i = j - 1 if overlap else j  # the next section repeats this one's last page
    return sections


@tool(timeout=600)
def summarize_document(ctx: ToolContext, file_path: str, summary_type: str = "detailed",
                       max_words_per_section: int = 20000) -> dict[str, Any]:
    """Summarise a whole indexed document, section by section.

    Args:
        file_path: The document's path or file name.
        summary_type: brief, detailed or bullets.
        max_words_per_section: Words sent to the model per section.
    """
    if ctx.rag is None:
        return error_payload(NO_INDEX)
    if ctx.llm is None:
        raise ToolFailure("no language model is connected, so documents cannot be summarised; start the model server")
    style = SUMMARY_STYLES.get(summary_type.strip().lower())
    if style is None:
        raise ToolFailure(f"summary_type must be one of {', '.join(SUMMARY_STYLES)}")
    try:
        max_words = max(200, min(20000, int(max_words_per_section)))
    except (TypeError, ValueError):
        raise ToolFailure("max_words_per_section must be a whole number") from None
    path, pages, note = _pages(ctx, file_path)
    if (tables := _tables(ctx, [str(path)])) is not None:   # a table's summary is its figures, computed
        return {"status": "success", "summary": tables["message"], "file": str(path), **({"note": note} if note else {})}
    sections = _sections(pages, max_words)
    if not sections:
        raise ToolFailure(f"{path.name} has no extractable text to summarise")
    summary = _summarise(ctx, path.name, sections, style)
    if summary is None:
        return {"status": "cancelled", "file": str(path)}
    return {"status": "success", "summary": summary, "file": str(path), "summary_type": summary_type.strip().lower(),
            "sections": len(sections), "pages": len(pages), **({"note": note} if note else {})}


def _summarise(ctx: ToolContext, name: str, sections: list[tuple[str, str]], style: str) -> str | None:
    """Map each section to a summary, then reduce them in groups of eight; None when cancelled."""
    system = "You summarise documents faithfully, using only the text given. Keep names, numbers and dates."
    partials = []
    try:
        for i, (label, text) in enumerate(sections):
            if ctx.cancel.is_set():
                return None
            if ctx.progress:
                ctx.progress(f"summarising {name} {label}", i, len(sections))
            partials.append(ctx.llm.complete(f"Write {style} of {label} of '{name}'.\n\n{text}",
                                             system=system, max_tokens=700))
        while len(partials) > 1:  # reduce in groups so each prompt stays small
            groups = [partials[i:i + 8] for i in range(0, len(partials), 8)]
            partials = [ctx.llm.complete(f"Combine these partial summaries of '{name}' into {style}, "
                                         "without repeating points.\n\n" + "\n\n---\n\n".join(g),
                                         system=system, max_tokens=1000) for g in groups]
    except Exception as exc:  # the model server can fail in many ways; say so in words
        raise ToolFailure(f"the language model failed while summarising: {exc}") from None
    return partials[0].strip()


@tool(gated=True)
def dump_document(ctx: ToolContext, file_name: str, output_path: str | None = None) -> dict[str, Any]:
    """Export an indexed document's extracted text to a Markdown file.

    Args:
        file_name: The document's path or file name.
        output_path: Where to write; default is the app's data folder.
    """
    if ctx.rag is None:
        return error_payload(NO_INDEX)
    doc, note = _indexed(ctx, file_name)
    text = ctx.rag.document_text(doc.path) or ""
    try:
        if output_path and output_path.strip():
            out = _checked(ctx, output_path, write=True)
        else:  # the app's own folder, not the user's files
            out = Path(ctx.data_dir) / "rag_dumps" / f"{Path(doc.path).stem}.md"
        if out.is_dir():
            raise ToolFailure(f"{out} is a folder; give a file name for the export")
        if out.resolve() == Path(doc.path).resolve():
            raise ToolFailure(f"{out} is the document itself; choose another output_path")
        out.parent.mkdir(parents=True, exist_ok=True)
        backup = backup_file(ctx, out) if out.exists() else None
        out.write_text(f"# {doc.name}\n\nSource: {doc.path}\n\n{text}\n", encoding="utf-8")
    except SandboxError as exc:
        raise ToolFailure(str(exc)) from None
    except OSError as exc:
        raise ToolFailure(f"could not write the export: {exc}") from None
    return {"status": "success", "file": doc.path, "output_path": str(out), "chars": len(text), "pages": doc.pages,
            "backup_path": str(backup) if backup else None, **({"note": note} if note else {})}


def _folder(ctx: ToolContext, path: str) -> Path:
    """The sandbox-approved folder ``path`` names; a ToolFailure saying why it is not one."""
    if ctx.rag is None:
        raise ToolFailure(NO_INDEX)
    try:
        folder = _checked(ctx, path)
    except SandboxError as exc:
        raise ToolFailure(str(exc)) from None
    if not folder.is_dir():
        raise ToolFailure(f"{folder} is not a folder; check the path with search_directory")
    return folder


@tool(timeout=900)
def index_directory(ctx: ToolContext, directory_path: str, recursive: bool = False) -> dict[str, Any]:
    """Add every supported file in a folder to the document index.

    Args:
        directory_path: The folder to index.
        recursive: True to include subfolders.
    """
    if ctx.rag is None:
        raise ToolFailure(NO_INDEX)
    deep = str(recursive).strip().lower() in {"true", "1", "yes"}
    try:
        return _index_folder(ctx, _folder(ctx, directory_path), recursive=deep)
    except ToolFailure:
        folder = _folder_meant(ctx, directory_path)
        if folder is None:
            if _is_file(ctx, directory_path):   # a file given as the folder: index the file
                return index_document(ctx, directory_path)
            raise
        return _index_folder(ctx, folder, recursive=deep, note=f"{directory_path.strip()} is no folder; this is "
                             f"{shown(folder, ctx.workdir)}/, which the request names.")


def _index_folder(ctx: ToolContext, folder: Path, *, recursive: bool, note: str = "") -> dict[str, Any]:
    """Index a folder; when the user's message also asks something of it, the sentences that answer."""
    summary = ctx.rag.index_directory(folder, recursive=recursive, progress=ctx.progress, cancel=ctx.cancel,
                                      allow=lambda f: _allowed(ctx, f))
    noted = {"note": note} if note else {}
    # names that are not UTF-8, shown escaped; the key only when there are some (the model reads every key)
    bad_names = summary.pop("skipped", [])
    skipped = {"skipped": bad_names[:10]} if bad_names else {}
    # a count asked of the folder is the answer, whatever was indexed: asked "hw many pdfs in my docs folder n its
    # subfolders", the 1.5B indexed the working folder twice and answered from "No supported files here" (probe46)
    counted = count_asked(ctx)
    if summary["files"] == 0:
        none = "No supported files here" + ("" if recursive else "; try recursive=true") + "."
        return {"status": "no_files", "directory": str(folder),
                "message": f"{counted} ({none})" if counted else none, **skipped, **noted}
    status = "cancelled" if summary["cancelled"] else "success"
    out = {"status": status, "directory": str(folder), **summary, "failed": summary["failed"][:10], **skipped}
    asks = _request_question(ctx, folder.name)
    inside = [d.id for d in ctx.rag.list_documents() if Path(d.path).is_relative_to(folder) and _in_scope(ctx, d.path)]
    hits = _search_quietly(ctx, " ".join(asks), docs=inside) if asks and inside and status == "success" else []
    if hits:  # "add the minutes folder and tell me who took notes in March": answered in the same call
        found = _found(ctx, " ".join(asks), hits, f"{folder.name} {_INDEX_WORDS}")
        said = f"Indexed {summary['files']} files in {shown(folder, ctx.workdir)}/. For your question:\n"
        # the lines that answer are the result; their passages are not sent after them: the 0.5B copied the
        # passage's last line ("Decided: the spring sale starts on 1 April") for "who took notes in March".
        # The files they come from stay named (``answered_from``); query_documents gives passages on request.
        cited = list(dict.fromkeys(shown(Path(c["source_file"]), ctx.workdir) for c in found["chunks"]))
        out = {"status": status, "message": said + found["message"], "answered_from": cited,
               **{k: v for k, v in out.items() if k != "status"}}
    if counted:
        out["message"] = counted + (f"\n{out['message']}" if out.get("message") else "")
    return {**out, **noted}


@tool(timeout=900)
def add_watch_directory(ctx: ToolContext, directory: str) -> dict[str, Any]:
    """Watch a folder and keep its documents indexed as files change.

    Args:
        directory: The folder to watch.
    """
    folder = _folder(ctx, directory)
    watcher, first = _watch(ctx, folder)
    return {"status": "watching", "directory": str(watcher.directory), "poll_seconds": watcher.interval,
            "files": len(first), "indexed_now": sum(r.status != "unchanged" for r in first),
            "errors": watcher.errors[-5:]}


def _watch(ctx: ToolContext, folder: Path | str) -> tuple[Any, list[Any]]:
    """Start (or restart) the watcher of one folder (the index owns it and stops it when closed)."""
    return ctx.rag.watch(folder, interval=ctx.watch_interval_s, allow=lambda f: _allowed(ctx, f))


def resume_watches(ctx: ToolContext) -> tuple[list[str], list[str]]:
    """Restart the watchers of the folders saved by earlier ``add_watch_directory`` calls.

    Returns (folders resumed, folders skipped with why). The first scan of each
    folder runs on a background thread, so a chat starts at once.
    """
    if ctx.rag is None:
        return [], []
    resumed, skipped = [], []
    for saved in ctx.rag.watched():
        folder = Path(saved)
        if not folder.is_dir():
            skipped.append(f"{saved} (no longer a folder)")
        elif not _allowed(ctx, folder):
            skipped.append(f"{saved} (outside the allowed folders)")
        else:
            resumed.append(saved)
    if not resumed:
        return resumed, skipped

    def start() -> None:
        for saved in resumed:
            try:
                _watch(ctx, saved)
            except INDEX_ERRORS:  # a folder that fails now is retried at the next start
                continue

    threading.Thread(target=start, name="resume-watches", daemon=True).start()
    return resumed, skipped


query_documents.redirect = sql_meant  # type: ignore[attr-defined]  # SQL is analyze_data_file's

TOOLS = [query_documents, query_specific_file, search_indexed_chunks, evaluate_retrieval, index_document,
         list_indexed_documents, rag_status, summarize_document, dump_document, index_directory,
         add_watch_directory]
