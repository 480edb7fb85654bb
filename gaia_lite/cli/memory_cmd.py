"""``gaia-lite memory list|search|show|forget|export|import``: what the agent has remembered.

Facts (every category: facts, preferences, reminders…) are addressed by their
id; past conversations by their session id. Everything reads and writes
``memory.db`` in the data dir (``GAIA_HOME`` moves it) through the memory
store; export and import are in ``gaia_lite.memory.transfer``.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, Optional

import typer
from typing_extensions import Annotated

from gaia_lite.memory.records import CATEGORIES, MemoryInputError

from .outcome import BAD_INPUT, JsonOpt, emit, fail, settings_or_fail

if TYPE_CHECKING:  # type-only: the store loads numpy, which --help does not need
    from gaia_lite.config import Settings
    from gaia_lite.embed import Embedder
    from gaia_lite.memory.store import MemoryStore

__all__ = ["memory_app"]

memory_app = typer.Typer(
    help="What the agent remembers: facts, preferences and past conversations.\n\n"
         "Example: `gaia-lite memory list`, `gaia-lite memory export backup.jsonl`, then on another "
         "machine `gaia-lite memory import backup.jsonl`.",
    no_args_is_help=True,
)

ConversationsOpt = Annotated[bool, typer.Option("--conversations", "-c", help="Past conversations instead of facts.")]
CategoryOpt = Annotated[str, typer.Option("--category", help="Only this category: fact, preference, reminder, note, …")]
IdArg = Annotated[str, typer.Argument(help="A fact id or a conversation's session id (from `memory list`).")]


@contextmanager
def _store(*, create: bool = False, embed: bool = False) -> Iterator[MemoryStore | None]:
    """The memory store, closed afterwards; None when there is no database yet and ``create`` is off."""
    settings = settings_or_fail()
    path = settings.paths.memory_db
    if not create and not path.is_file():
        yield None
        return
    from gaia_lite.memory.store import MemoryStore  # kept lazy: --help imports this module; the stores load numpy

    embedder = _embedder(settings) if embed else None
    try:
        store = MemoryStore(path, embedder)
    except (sqlite3.Error, OSError) as exc:
        if _disk_full(exc):
            fail(storage_error(path, exc))
        fail(f"cannot open the memory database {path}: {exc}; `gaia-lite doctor` checks it")
    except Exception as exc:  # a corrupt or locked file: say which, no traceback
        fail(f"cannot open the memory database {path}: {exc}; `gaia-lite doctor` checks it")
    try:
        yield store
    finally:
        store.close()


def _disk_full(exc: BaseException) -> bool:
    import errno

    return getattr(exc, "errno", None) == errno.ENOSPC or "full" in str(exc).lower()


def storage_error(path: Path, exc: BaseException) -> str:
    """One line for a failed write to ``path``: a full disk names the disk (its mount point) and what
    is free there; anything else names the file and the error."""
    if not _disk_full(exc):
        return f"cannot write to {path}: {getattr(exc, 'strerror', None) or exc}"
    mount = path.parent
    while not os.path.ismount(mount) and mount != mount.parent:
        mount = mount.parent
    try:
        free = f"{shutil.disk_usage(mount).free / 2**20:.1f} MB free"
    except OSError:
        free = "free space unknown"
    return f"the disk holding {path} is full ({mount}: {free}); free some space and try again"


def _embedder(settings: Settings) -> Embedder | None:
    from gaia_lite.cli.wiring import build_embedder  # kept lazy: --help imports this module; the stores load numpy

    try:
        return build_embedder(settings, settings.base_url)
    except Exception as exc:  # search still works by keywords
        typer.echo(f"note: no embedder ({exc}); searching by keywords only", err=True)
        return None


def _one_line(text: str, width: int = 70) -> str:
    flat = " ".join((text or "").split())
    return flat if len(flat) <= width else flat[:width - 1] + "…"


def _print_facts(facts: list[Any]) -> None:
    typer.echo(f"{'ID':<12}  {'CATEGORY':<10}  {'UPDATED':<16}  {'USES':>4}  CONTENT")
    for f in facts:
        typer.echo(f"{f.id:<12}  {f.category:<10}  {f.updated_at[:16].replace('T', ' '):<16}  "
                   f"{f.use_count:>4}  {_one_line(f.content)}")


def _print_sessions(sessions: list[Any]) -> None:
    typer.echo(f"{'SESSION':<12}  {'MESSAGES':>8}  {'LAST ACTIVE':<16}  FIRST QUESTION")
    for s in sessions:
        typer.echo(f"{s.session_id:<12}  {s.turns:>8}  {s.last_ts[:16].replace('T', ' '):<16}  "
                   f"{_one_line(s.first_question, 60)}")


def _check_category(category: str) -> str:
    if category and category.strip().lower() not in CATEGORIES:
        fail(f"unknown category {category!r}; use one of {', '.join(sorted(CATEGORIES))}", BAD_INPUT)
    return category.strip().lower()


def _check_count(count: int) -> int:
    if not 1 <= count <= 100:
        fail(f"-n {count} is invalid; expected a whole number from 1 to 100", BAD_INPUT)
    return count


@memory_app.command("list")
def list_cmd(conversations: ConversationsOpt = False, category: CategoryOpt = "",
             count: Annotated[int, typer.Option("--count", "-n", help="How many, newest first (1-100).")] = 20,
             json_out: JsonOpt = False) -> None:
    """Remembered facts, newest first (or past conversations with --conversations).

    Example: `gaia-lite memory list --category preference`
    """
    from gaia_lite.memory.sessions import list_sessions  # kept lazy: --help imports this module; the stores load numpy

    category, count = _check_category(category), _check_count(count)
    with _store() as store:
        if conversations:
            rows = list_sessions(store, limit=count) if store else []
        else:
            rows = store.recall(category=category, limit=count, count_use=False).facts if store else []
    emit([r.to_dict() for r in rows], json_out, lambda: _print_list(rows, conversations))


def _print_list(rows: list[Any], conversations: bool) -> None:
    if not rows:
        typer.echo("Nothing remembered yet." if not conversations else "No past conversations yet.")
    elif conversations:
        _print_sessions(rows)
    else:
        _print_facts(rows)


@memory_app.command("search")
def search_cmd(query: Annotated[str, typer.Argument(help="What to look for, in quotes.")],
               conversations: ConversationsOpt = False, category: CategoryOpt = "",
               count: Annotated[int, typer.Option("--count", "-n", help="How many results (1-100).")] = 10,
               json_out: JsonOpt = False) -> None:
    """Search facts by meaning and keywords, as the agent does (or conversation messages with --conversations).

    Example: `gaia-lite memory search "coffee"`
    """
    if not query.strip():
        fail("the query is empty; pass the words to search for", BAD_INPUT)
    category, count = _check_category(category), _check_count(count)
    with _store(embed=not conversations) as store:
        if store is None:
            rows: list[Any] = []
        elif conversations:
            rows = store.search_turns(query, limit=min(count, 50))
        else:
            rows = store.recall(query, category=category, limit=count, count_use=False).facts
    emit([r if isinstance(r, dict) else r.to_dict() for r in rows], json_out,
         lambda: _print_found(rows, query, conversations))


def _print_found(rows: list[Any], query: str, conversations: bool) -> None:
    if not rows:
        typer.echo(f"Nothing found for {query!r}.")
    elif conversations:
        for r in rows:
            when = r["ts"][:16].replace("T", " ")
            typer.echo(f"{r['session_id']}  {when}  {r['role']:<9}  {_one_line(r['content'])}")
    else:
        _print_facts(rows)


@memory_app.command("show")
def show_cmd(item: IdArg, json_out: JsonOpt = False) -> None:
    """One fact with every field, or one past conversation message by message.

    Example: `gaia-lite memory show 3f9c2a1b7d4e`
    """
    from gaia_lite.memory.sessions import session_turns  # kept lazy: --help imports this module; the stores load numpy

    with _store() as store:
        fact = store.get(item) if store else None
        turns = session_turns(store, item) if store and fact is None else []
    if fact is None and not turns:
        fail(f"no fact or conversation with id {item!r} (see `gaia-lite memory list` and `memory list -c`)")
    emit({"fact": fact.to_dict()} if fact else {"session_id": item, "messages": turns}, json_out,
         lambda: _print_item(item, fact, turns))


def _print_item(item: str, fact: Any, turns: list[dict[str, Any]]) -> None:
    if fact is not None:
        for key, value in fact.to_dict().items():
            typer.echo(f"{key:<12} {value}")
        return
    typer.echo(f"conversation {item}: {len(turns)} messages")
    for t in turns:
        typer.echo(f"\n[{t['ts'][:19].replace('T', ' ')}] {t['role']}:\n{t['content']}")


@memory_app.command("forget")
def forget_cmd(item: IdArg,
               yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
               json_out: JsonOpt = False) -> None:
    """Delete a fact, or a whole past conversation (its messages and tool history), for good.

    Example: `gaia-lite memory forget 3f9c2a1b7d4e --yes`
    """
    from gaia_lite.memory.sessions import forget_session, session_turns  # kept lazy: --help imports this module; the stores load numpy

    with _store() as store:
        fact = store.get(item) if store else None
        turns = session_turns(store, item) if store and fact is None else []
        if fact is None and not turns:
            fail(f"no fact or conversation with id {item!r} (see `gaia-lite memory list`)")
        what = (f"fact {item} ({_one_line(fact.content, 50)})" if fact
                else f"conversation {item} ({len(turns)} messages)")
        if not yes and sys.stdin.isatty() and not typer.confirm(f"Forget {what}?"):
            raise typer.Exit(1)
        if fact is not None:
            store.forget(item)
        else:
            forget_session(store, item)
    emit({"forgotten": item, "kind": "fact" if fact else "conversation", "messages": 0 if fact else len(turns)},
         json_out, f"Forgot {what}.")


@memory_app.command("export")
def export_cmd(file: Annotated[Optional[Path], typer.Argument(help="Where to write; `-` or nothing for stdout.", show_default=False)] = None,
               json_out: JsonOpt = False) -> None:
    """Write everything remembered as JSON Lines: facts, conversations, tool history and learned procedures.

    Example: `gaia-lite memory export backup.jsonl` (vectors are rebuilt after an import).
    """
    from gaia_lite.memory.transfer import export_lines  # kept lazy: --help imports this module; the stores load numpy

    to_stdout = file is None or str(file) == "-"
    with _store() as store:
        lines = list(export_lines(store))
    if to_stdout:
        for line in lines:
            typer.echo(line)
        return
    try:
        file.parent.mkdir(parents=True, exist_ok=True)  # type: ignore[union-attr]
        file.write_text("".join(line + "\n" for line in lines), encoding="utf-8")  # type: ignore[union-attr]
    except OSError as exc:
        fail(f"cannot write {file}: {exc.strerror or exc}")
    records = len(lines) - 1
    emit({"file": str(file), "records": records}, json_out, f"Exported {records} records to {file}.")


@memory_app.command("import")
def import_cmd(file: Annotated[Path, typer.Argument(help="A file from `memory export`; `-` reads stdin.")],
               json_out: JsonOpt = False) -> None:
    """Read an export back: all or nothing, rows already here are skipped, so importing twice adds nothing.

    Example: `GAIA_HOME=/tmp/fresh gaia-lite memory import backup.jsonl`
    """
    # kept lazy: --help imports this module; the stores load numpy
    from gaia_lite.memory.transfer import bounded_lines, import_rows, parse_export
    from gaia_lite.skills.store import SKILL_MIGRATIONS

    try:
        if str(file) == "-":
            rows = parse_export(bounded_lines(sys.stdin))
        else:
            with open(file, encoding="utf-8") as fh:
                rows = parse_export(bounded_lines(fh))
    except (OSError, UnicodeDecodeError) as exc:
        fail(f"cannot read {file}: {getattr(exc, 'strerror', None) or exc}", BAD_INPUT)
    except MemoryInputError as exc:
        fail(f"{file}: {exc}; nothing was imported", BAD_INPUT)
    with _store(create=True) as store:
        try:
            store.apply_migrations(SKILL_MIGRATIONS)  # procedures live in their own table
            report = import_rows(store, rows)
        except MemoryInputError as exc:
            fail(f"{file}: {exc}; nothing was imported", BAD_INPUT)
        except (sqlite3.Error, OSError) as exc:  # a full disk, an I/O error: the transaction rolled back
            fail(f"{file}: {storage_error(store.path, exc)}; nothing was imported")
    emit({"file": str(file), **report.to_dict()}, json_out, lambda: _print_import(report, file))


def _print_import(report: Any, file: Path) -> None:
    added = ", ".join(f"{n} {kind}s" for kind, n in report.added.items()) or "nothing new"
    typer.echo(f"Imported {added} from {file}.")
    if report.already_there:
        typer.echo("Already here, skipped: " + ", ".join(f"{n} {k}s" for k, n in report.already_there.items()) + ".")
    if report.secrets_skipped:
        typer.echo(f"Skipped {len(report.secrets_skipped)} fact(s) that look like secrets: "
                   f"{', '.join(report.secrets_skipped)}.")
