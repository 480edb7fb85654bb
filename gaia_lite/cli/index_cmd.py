"""``gaia-lite index``: the document index from the shell (what the agent's RAG tools do, and more).

    gaia-lite index PATH…            add files and folders (folders recursively)
    gaia-lite index --list           what is indexed, and the watched folders
    gaia-lite index --remove PATH    drop a document, or every document under a folder
    gaia-lite index --watch DIR      index DIR and keep it indexed in chat sessions (--follow: here, now)
    gaia-lite index --unwatch DIR    stop watching DIR

Paths go through the same sandbox as the agent's tools: the working directory
and ``--allowed-paths`` (or ``GAIA_ALLOWED_PATHS``) are allowed; a path
outside them is refused off a terminal and asked about on one; credential
files are never read.
"""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Iterator, List, Optional

import typer
from typing_extensions import Annotated

from gaia_lite.tools.sandbox import Sandbox, SandboxError, is_secret_path

from .outcome import BAD_INPUT, JsonOpt, emit, fail, settings_or_fail

if TYPE_CHECKING:  # type-only: the index loads numpy, which --help does not need
    from gaia_lite.cli.indexing import IndexSummary
    from gaia_lite.config import Settings
    from gaia_lite.memory.rag import RagIndex

__all__ = ["index"]

INTERRUPTED = 130


@contextmanager
def _open_index(settings: Settings, *, embed: bool) -> Iterator[RagIndex]:
    from gaia_lite.cli.wiring import build_document_index, build_embedder  # kept lazy: --help imports this module; the index loads numpy

    embedder = None
    if embed:
        try:
            embedder = build_embedder(settings, settings.base_url)
        except Exception as exc:  # a bad embedder setting: one line, not a traceback
            fail(f"cannot build the embedder: {exc}; `gaia-lite doctor` checks it", BAD_INPUT)
    try:
        rag = build_document_index(settings, embedder)
    except Exception as exc:  # a corrupt or locked file
        fail(f"cannot open the document index {settings.paths.rag_db}: {exc}; `gaia-lite doctor` checks it")
    try:
        yield rag
    finally:
        rag.close()


def _guard(settings: Settings, extra: list[str]) -> Sandbox:
    return Sandbox([Path.cwd(), *(Path(p).expanduser() for p in (*settings.allowed_paths, *extra))])


def _checked_roots(raw: list[Path], guard: Sandbox, *, folders_only: bool = False) -> list[Path]:
    """Existing, allowed paths; a folder outside the allowed ones is asked about on a terminal."""
    from gaia_lite.cli.indexing import shown  # kept lazy: --help imports this module; the index loads numpy

    roots = []
    for given in raw:
        try:
            path = given.expanduser().resolve()
        except (OSError, RuntimeError):  # Python 3.11 raises RuntimeError for a symlink loop
            fail(f"{shown(given)} is a symlink loop; check the path", BAD_INPUT)
        if not path.exists():
            fail(f"{shown(given)} does not exist; check the path", BAD_INPUT)
        if folders_only and not path.is_dir():
            fail(f"{shown(given)} is not a folder; --watch takes a folder", BAD_INPUT)
        if is_secret_path(path):
            fail(f"{shown(path)} looks like a credential file or folder; gaia-lite never reads those", BAD_INPUT)
        try:
            guard.check(path)
        except SandboxError as exc:
            folder = path if path.is_dir() else path.parent
            if not (sys.stdin.isatty() and typer.confirm(f"{shown(path)} is outside the allowed folders. "
                                                         f"Allow {shown(folder)}?")):
                fail(shown(f"{exc}".replace("restart with", "pass")), BAD_INPUT)
            guard.add_root(folder)
        roots.append(path)
    return roots


def _add(settings: Settings, guard: Sandbox, roots: list[Path], *, recursive: bool, json_out: bool,
         watch: bool = False) -> IndexSummary:
    # kept lazy: --help imports this module; the index loads numpy
    from gaia_lite.cli.index_view import print_summary, progress_reporter
    from gaia_lite.cli.indexing import plan_index, run_index

    plan = plan_index(roots, guard, recursive=recursive)
    with _open_index(settings, embed=bool(plan.files)) as rag:
        with progress_reporter(len(plan.files)) as report:
            summary = run_index(rag, plan, report)
        watching = watch and not summary.interrupted and summary.error is None  # else the command fails below
        if watching:
            rag.set_watched(roots[0])

    def text() -> None:
        print_summary(summary, settings.paths.rag_db)
        if watching:
            typer.echo(f"Watching {roots[0]}: chat sessions keep it indexed (`--unwatch` stops).")

    emit({**summary.to_dict(), "index": str(settings.paths.rag_db), **({"watching": str(roots[0])} if watch else {})},
         json_out, text)
    if summary.error:
        fail(f"{summary.error}; `gaia-lite doctor` checks the embedder")
    if summary.interrupted:
        raise typer.Exit(INTERRUPTED)
    return summary


def _remove(settings: Settings, targets: list[Path], json_out: bool) -> None:
    with _open_index(settings, embed=False) as rag:
        indexed = rag.list_documents()
        chosen: dict[Path, list[str]] = {}
        for target in targets:  # every target is checked before anything is removed
            path = target.expanduser().resolve()
            chosen[path] = [d.path for d in indexed if Path(d.path).is_relative_to(path)]
            if not chosen[path]:
                fail(f"{target} is not indexed (see `gaia-lite index --list`)")
        removed: list[str] = []
        for path, docs in chosen.items():
            for doc in docs:
                if rag.remove_document(doc):
                    removed.append(doc)
            if str(path) in rag.watched():
                rag.set_watched(path, False)
    emit({"removed": removed}, json_out, f"Removed {len(removed)} document(s) from the index.")


def _list(settings: Settings, json_out: bool) -> None:
    from gaia_lite.cli.index_view import print_documents  # kept lazy: --help imports this module; the index loads numpy

    if not settings.paths.rag_db.is_file():
        docs, watched = [], []
    else:
        with _open_index(settings, embed=False) as rag:
            docs, watched = rag.list_documents(), rag.watched()
    emit({"index": str(settings.paths.rag_db), "documents": [dict(d.to_dict(), path=d.path) for d in docs],
          "chunks": sum(d.chunks for d in docs), "watched": watched},
         json_out, lambda: print_documents(docs, watched, settings.paths.rag_db))


def _unwatch(settings: Settings, folder: Path, json_out: bool) -> None:
    path = str(folder.expanduser().resolve())
    with _open_index(settings, embed=False) as rag:
        if path not in rag.watched():
            fail(f"{folder} is not watched (see `gaia-lite index --list`)")
        rag.set_watched(path, False)
    emit({"unwatched": path}, json_out, f"Stopped watching {path}; its documents stay indexed (--remove drops them).")


def _follow(settings: Settings, guard: Sandbox, folder: Path, interval: float) -> None:
    """Re-index what changes under ``folder`` until Ctrl-C, one line per change."""
    # kept lazy: --help imports this module; the index loads numpy
    from gaia_lite.cli.indexing import skip_reason
    from gaia_lite.memory.watch import PollingWatcher

    typer.echo(f"Watching {folder} every {interval:g} s; Ctrl-C stops.", err=True)
    with _open_index(settings, embed=True) as rag:
        watcher = PollingWatcher(rag, folder, interval=interval, allow=lambda f: skip_reason(f, guard) is None)
        seen_errors = len(watcher.errors)  # the first scan reports only what changed since the indexing run
        try:
            while True:
                for r in watcher.scan_once():
                    if r.status != "unchanged":
                        typer.echo(f"{r.status} {r.path}: {r.chunks} chunks")
                for err in watcher.errors[seen_errors:]:
                    typer.echo(f"skipped {err}", err=True)
                seen_errors = len(watcher.errors)
                time.sleep(interval)
        except KeyboardInterrupt:
            typer.echo("Stopped following; the folder stays watched by chat sessions.", err=True)


def index(
    paths: Annotated[Optional[List[Path]], typer.Argument(help="Files or folders to add to the document index.", show_default=False)] = None,
    list_docs: Annotated[bool, typer.Option("--list", "-l", help="List the indexed documents and watched folders.")] = False,
    remove: Annotated[Optional[List[Path]], typer.Option("--remove", help="Drop this document, or every document under this folder (repeatable).", show_default=False)] = None,
    watch: Annotated[Optional[Path], typer.Option("--watch", help="Index this folder and keep it indexed: chat sessions re-index what changes.", show_default=False)] = None,
    follow: Annotated[bool, typer.Option("--follow", help="With --watch: stay here re-indexing changes until Ctrl-C.")] = False,
    interval: Annotated[float, typer.Option("--interval", help="With --follow: seconds between scans.")] = 5.0,
    unwatch: Annotated[Optional[Path], typer.Option("--unwatch", help="Stop watching this folder (its documents stay).", show_default=False)] = None,
    recursive: Annotated[bool, typer.Option("--recursive/--no-recursive", help="Include subfolders.")] = True,
    allowed_paths: Annotated[Optional[List[str]], typer.Option("--allowed-paths", help="Extra folders that may be indexed (repeatable). The working directory is always allowed.", show_default=False)] = None,
    json_out: JsonOpt = False,
) -> None:
    """Add files and folders to the document index the agent searches, with progress and a summary
    of what was skipped and why (secret, binary, too big, unsupported, outside the allowed folders).

    Example: `gaia-lite index ~/notes report.pdf`, then `gaia-lite index --list`.
    Exit codes: 0 done, 1 some files failed, 2 bad input, 130 interrupted.
    """
    actions = [bool(paths), list_docs, bool(remove), watch is not None, unwatch is not None]
    if sum(actions) != 1:
        fail("give PATH…, or one of --list, --remove PATH, --watch DIR, --unwatch DIR "
             "(see `gaia-lite index --help`)", BAD_INPUT)
    if follow and watch is None:
        fail("--follow goes with --watch DIR", BAD_INPUT)
    if interval <= 0:
        fail(f"--interval {interval:g} is invalid; expected seconds > 0", BAD_INPUT)
    settings = settings_or_fail()
    if list_docs:
        return _list(settings, json_out)
    if remove:
        return _remove(settings, remove, json_out)
    if unwatch is not None:
        return _unwatch(settings, unwatch, json_out)
    guard = _guard(settings, list(allowed_paths or ()))
    if watch is not None:
        roots = _checked_roots([watch], guard, folders_only=True)
        summary = _add(settings, guard, roots, recursive=True, json_out=json_out, watch=True)
        if follow:
            _follow(settings, guard, roots[0], interval)
    else:
        summary = _add(settings, guard, _checked_roots(list(paths or ()), guard), recursive=recursive,
                       json_out=json_out)
    if summary.failed:
        raise typer.Exit(1)
