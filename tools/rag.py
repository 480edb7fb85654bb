"""Document tools: index files and folders, search and summarise indexed documents.

They reach the index through ``ctx.rag`` (a ``RagIndex``). Every path is
resolved against ``ctx.workdir`` and passed to ``ctx.sandbox.check`` before
anything is read or written.
"""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path
from typing import Any

from gaia_lite.registry.context import ToolContext
from gaia_lite.registry.spec import tool
from gaia_lite.registry.failure import error_payload

from .backup import backup_file
from .patterns import MAX_PATTERN_CHARS
from .sandbox import resolve_user_path

__all__ = ["TOOLS", "query_documents", "query_specific_file", "search_indexed_chunks", "evaluate_retrieval",
           "index_document", "list_indexed_documents", "rag_status", "summarize_document", "dump_document",
           "index_directory", "add_watch_directory"]

NO_INDEX = "the document index is not available in this session"
NO_DOCS_HINT = ("No documents are indexed yet. Find the files first (search_file or browse_directory), "
                "index them with index_document or index_directory, then ask again.")
CITE = "Answer only from these chunks and cite each source_file (and page) you use."
# what index/search failures look like: ExtractionError is a ValueError, EmbedderError a RuntimeError
INDEX_ERRORS = (ValueError, RuntimeError, OSError)
_QUESTION_WORDS = frozenset("the and for are was were what when where which who whom why how does did "
                            "can could would should about with from that this these those there their "
                            "have has had you your into than then them they".split())
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


def _top_n(chunk_count: int) -> int:
    """Adaptive depth: more chunks for larger corpora, within a small-model budget."""
    return 5 if chunk_count <= 500 else 8 if chunk_count <= 5000 else 10


def _one_document(ctx: ToolContext, name: str) -> Any:
    """The indexed document ``name`` refers to (sandbox-checked), or an error dict."""
    found = [d for d in ctx.rag.find_documents(name) if _in_scope(ctx, d.path)]
    if not found:
        return error_payload(f"{name!r} is not indexed under the allowed folders; index it with index_document first")
    if len(found) > 1:
        names = ", ".join(d.path for d in found[:5])
        return error_payload(f"{name!r} matches several documents ({names}); pass the full path")
    return found[0]


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
    total = ctx.rag.chunk_count()
    scope = _scope(ctx)
    if not scope:
        return {"status": "no_documents", "message": NO_DOCS_HINT}
    started = time.monotonic()
    try:
        hits = ctx.rag.search(query, k=_top_n(total), docs=[d.id for d in scope])
    except INDEX_ERRORS as exc:
        return error_payload(f"search failed: {exc}")
    if not hits:
        return {"status": "no_results", "query": query,
                "message": "Nothing relevant found; try other words or index more documents."}
    out = {"status": "success", "query": query, "chunks": [_chunk(h) for h in hits], "instruction": CITE}
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
    if ctx.rag is None:
        return error_payload(NO_INDEX)
    found = [d for d in ctx.rag.find_documents(file_path) if _in_scope(ctx, d.path)]
    if len(found) > 1:
        return error_payload(f"{file_path!r} matches several documents; pass the full path")
    try:
        path = _checked(ctx, found[0].path if found else file_path)
        if not found:
            if not (path.is_file() and ctx.rag.supports(path)):
                return error_payload(f"{file_path!r} is not indexed and no supported file exists there")
            ctx.rag.index_file(path)
        hits = ctx.rag.search(query, k=5, file=path)
    except PermissionError as exc:
        return error_payload(str(exc))
    except INDEX_ERRORS as exc:
        return error_payload(f"could not search {file_path}: {exc}")
    if not hits:
        return {"status": "no_results", "file": str(path), "message": "Nothing relevant in this file."}
    return {"status": "success", "file": str(path), "chunks": [_chunk(h) for h in hits], "instruction": CITE}


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
    try:
        path = _checked(ctx, file_path)
        if not path.is_file():
            return error_payload(f"{path} does not exist or is not a file; check the path with search_file")
        result = ctx.rag.index_file(path)
    except PermissionError as exc:
        return error_payload(str(exc))
    except INDEX_ERRORS as exc:
        return error_payload(str(exc))
    info = result.to_dict()
    info["outcome"] = info.pop("status")  # indexed, updated or unchanged
    return {"status": "success", **info}


@tool
def list_indexed_documents(ctx: ToolContext) -> dict[str, Any]:
    """List the documents in the index with their pages and chunk counts."""
    if ctx.rag is None:
        return error_payload(NO_INDEX)
    docs = [d.to_dict() for d in _scope(ctx)]
    return {"status": "success", "count": len(docs), "documents": docs}


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
        return error_payload(
            "no language model is connected, so documents cannot be summarised; start the model server")
    style = SUMMARY_STYLES.get(summary_type.strip().lower())
    if style is None:
        return error_payload(f"summary_type must be one of {', '.join(SUMMARY_STYLES)}")
    doc = _one_document(ctx, file_path)
    if isinstance(doc, dict):
        return doc
    try:
        max_words = max(200, min(20000, int(max_words_per_section)))
    except (TypeError, ValueError):
        return error_payload("max_words_per_section must be a whole number")
    sections = _sections(ctx.rag.document_pages(doc.path), max_words)
    if not sections:
        return error_payload(f"{doc.name} has no extractable text to summarise")
    system = "You summarise documents faithfully, using only the text given. Keep names, numbers and dates."
    partials = []
    try:
        for i, (label, text) in enumerate(sections):
            if ctx.cancel.is_set():
                return {"status": "cancelled", "file": doc.path, "sections_done": i}
            if ctx.progress:
                ctx.progress(f"summarising {doc.name} {label}", i, len(sections))
            partials.append(ctx.llm.complete(f"Write {style} of {label} of '{doc.name}'.\n\n{text}",
                                             system=system, max_tokens=700))
        summary = partials[0]
        while len(partials) > 1:  # reduce in groups so each prompt stays small
            groups = [partials[i:i + 8] for i in range(0, len(partials), 8)]
            partials = [ctx.llm.complete(f"Combine these partial summaries of '{doc.name}' into {style}, "
                                         "without repeating points.\n\n" + "\n\n---\n\n".join(g),
                                         system=system, max_tokens=1000) for g in groups]
            summary = partials[0]
    except Exception as exc:  # the model server can fail in many ways; report, do not raise
        return error_payload(f"the language model failed while summarising: {exc}")
    return {"status": "success", "file": doc.path, "summary_type": summary_type.strip().lower(),
            "sections": len(sections), "pages": doc.pages, "summary": summary.strip()}


@tool(gated=True)
def dump_document(ctx: ToolContext, file_name: str, output_path: str | None = None) -> dict[str, Any]:
    """Export an indexed document's extracted text to a Markdown file.

    Args:
        file_name: The document's path or file name.
        output_path: Where to write; default is the app's data folder.
    """
    if ctx.rag is None:
        return error_payload(NO_INDEX)
    doc = _one_document(ctx, file_name)
    if isinstance(doc, dict):
        return doc
    text = ctx.rag.document_text(doc.path) or ""
    try:
        if output_path and output_path.strip():
            out = _checked(ctx, output_path, write=True)
        else:  # the app's own folder, not the user's files
            out = Path(ctx.data_dir) / "rag_dumps" / f"{Path(doc.path).stem}.md"
        if out.is_dir():
            return error_payload(f"{out} is a folder; give a file name for the export")
        if out.resolve() == Path(doc.path).resolve():
            return error_payload(f"{out} is the document itself; choose another output_path")
        out.parent.mkdir(parents=True, exist_ok=True)
        backup = backup_file(ctx, out) if out.exists() else None
        out.write_text(f"# {doc.name}\n\nSource: {doc.path}\n\n{text}\n", encoding="utf-8")
    except PermissionError as exc:
        return error_payload(str(exc))
    except OSError as exc:
        return error_payload(f"could not write the export: {exc}")
    return {"status": "success", "file": doc.path, "output_path": str(out), "chars": len(text),
            "pages": doc.pages, "backup_path": str(backup) if backup else None}


def _folder(ctx: ToolContext, path: str) -> Path | dict[str, Any]:
    """The sandbox-approved folder ``path`` names, or an error dict."""
    if ctx.rag is None:
        return error_payload(NO_INDEX)
    try:
        folder = _checked(ctx, path)
    except PermissionError as exc:
        return error_payload(str(exc))
    if not folder.is_dir():
        return error_payload(f"{folder} is not a folder; check the path with search_directory")
    return folder


@tool(timeout=900)
def index_directory(ctx: ToolContext, directory_path: str, recursive: bool = False) -> dict[str, Any]:
    """Add every supported file in a folder to the document index.

    Args:
        directory_path: The folder to index.
        recursive: True to include subfolders.
    """
    folder = _folder(ctx, directory_path)
    if isinstance(folder, dict):
        return folder
    deep = str(recursive).strip().lower() in {"true", "1", "yes"}
    summary = ctx.rag.index_directory(folder, recursive=deep, progress=ctx.progress, cancel=ctx.cancel,
                                      allow=lambda f: _allowed(ctx, f))
    if summary["files"] == 0:
        return {"status": "no_files", "directory": str(folder),
                "message": "No supported files here" + ("" if deep else "; try recursive=true") + "."}
    status = "cancelled" if summary["cancelled"] else "success"
    return {"status": status, "directory": str(folder), **summary, "failed": summary["failed"][:10]}


@tool(timeout=900)
def add_watch_directory(ctx: ToolContext, directory: str) -> dict[str, Any]:
    """Watch a folder and keep its documents indexed as files change.

    Args:
        directory: The folder to watch.
    """
    folder = _folder(ctx, directory)
    if isinstance(folder, dict):
        return folder
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


TOOLS = [query_documents, query_specific_file, search_indexed_chunks, evaluate_retrieval, index_document,
         list_indexed_documents, rag_status, summarize_document, dump_document, index_directory,
         add_watch_directory]
