"""How ``gaia-lite index`` shows progress and its summary.

On a terminal, progress is a rich bar on stderr (files, chunks, rate, ETA).
Anywhere else (a pipe, a log file, CI) it is plain lines: one per tenth of
the files, or every few seconds, whichever comes first, and a last one.
"""

from __future__ import annotations

import sys
from collections import Counter
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator, TextIO

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

from .indexing import UNSUPPORTED, IndexProgress, IndexSummary

__all__ = ["progress_reporter", "plain_progress", "print_summary", "print_documents"]

PLAIN_EVERY_S = 5.0


def _eta(p: IndexProgress) -> str:
    eta = p.eta_s
    return "-" if eta is None else f"{eta:.0f} s"


def plain_progress(stream: TextIO) -> Callable[[IndexProgress], None]:
    """Plain progress lines on ``stream``: at each tenth of the files, every 5 s, and at the end."""
    state = {"tenth": 0, "last": 0.0}

    def report(p: IndexProgress) -> None:
        tenth = 10 * p.done // max(p.total, 1)
        if p.done < p.total and tenth == state["tenth"] and p.elapsed_s - state["last"] < PLAIN_EVERY_S:
            return
        state["tenth"], state["last"] = tenth, p.elapsed_s
        stream.write(f"indexing: {p.done}/{p.total} files ({100 * p.done // max(p.total, 1)} %) · "
                     f"{p.chunks} chunks · {p.files_per_s:.1f} files/s · {p.chunks_per_s:.1f} chunks/s · "
                     f"ETA {_eta(p)}\n")
        stream.flush()

    return report


@contextmanager
def _rich_progress(total: int) -> Iterator[Callable[[IndexProgress], None]]:
    columns = (TextColumn("indexing"), BarColumn(), TextColumn("{task.completed}/{task.total} files"),
               TextColumn("{task.fields[chunks]} chunks"), TextColumn("{task.fields[rate]}"),
               TimeRemainingColumn(), TextColumn("[dim]{task.fields[current]}"))
    with Progress(*columns, console=Console(stderr=True)) as bar:
        task = bar.add_task("indexing", total=total, chunks=0, rate="", current="")

        def report(p: IndexProgress) -> None:
            bar.update(task, completed=p.done, chunks=p.chunks, current=p.current[:30],
                       rate=f"{p.files_per_s:.1f} files/s · {p.chunks_per_s:.1f} chunks/s")

        yield report


@contextmanager
def progress_reporter(total: int, *, quiet: bool = False) -> Iterator[Callable[[IndexProgress], None] | None]:
    """The rich bar on a terminal, plain lines elsewhere, nothing when ``quiet``."""
    if quiet or total == 0:
        yield None
    elif sys.stderr.isatty():
        with _rich_progress(total) as report:
            yield report
    else:
        yield plain_progress(sys.stderr)


def _examples(paths: list[str], n: int = 3) -> str:
    names = [Path(p).name for p in paths[:n]]
    return ", ".join(names) + (f", … +{len(paths) - n}" if len(paths) > n else "")


def print_summary(summary: IndexSummary, index_path: Path) -> None:
    c = summary.counts
    secs = summary.seconds
    rate = (f" ({summary.files / secs:.1f} files/s, {summary.chunks / secs:.1f} chunks/s)" if secs > 0 else "")
    typer.echo(f"Indexed {summary.files} files: {c['indexed']} new, {c['updated']} updated, "
               f"{c['unchanged']} unchanged · {summary.chunks} chunks in {secs:.1f} s{rate}")
    if summary.skipped:
        typer.echo(f"Skipped {len(summary.skipped)} files:")
        by_reason: dict[str, list[str]] = {}
        for s in summary.skipped:
            by_reason.setdefault(s.reason, []).append(s.path)
        for reason, paths in by_reason.items():
            if reason == UNSUPPORTED:
                kinds = Counter(Path(p).suffix.lower() or "(no extension)" for p in paths)
                detail = ", ".join(f"{k} ×{n}" for k, n in kinds.most_common(5))
            else:
                detail = _examples(paths)
            typer.echo(f"  {reason}: {len(paths)} ({detail})")
    if summary.failed:
        typer.echo(f"Failed {len(summary.failed)} files:")
        for f in summary.failed[:10]:
            typer.echo(f"  {Path(f.path).name}: {f.reason}")
        if len(summary.failed) > 10:
            typer.echo(f"  … and {len(summary.failed) - 10} more (--json lists them all)")
    if summary.interrupted:
        typer.echo("Interrupted (Ctrl-C): the files above stay indexed; run the same command to finish.")
    typer.echo(f"Index: {index_path}")


def print_documents(docs: list[Any], watched: list[str], index_path: Path) -> None:
    if not docs:
        typer.echo(f"No documents indexed yet ({index_path}). Add some with `gaia-lite index PATH`.")
    else:
        typer.echo(f"{'PAGES':>5}  {'CHUNKS':>6}  {'SIZE':>9}  {'INDEXED':<16}  PATH")
        for d in docs:
            typer.echo(f"{d.pages:>5}  {d.chunks:>6}  {_size(d.size):>9}  {d.indexed_at[:16].replace('T', ' '):<16}  "
                       f"{d.path}")
        typer.echo(f"{len(docs)} documents, {sum(d.chunks for d in docs)} chunks · {index_path}")
    for folder in watched:
        typer.echo(f"watched: {folder}")


def _size(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    return f"{n / 1024:.1f} KB" if n < 1024 ** 2 else f"{n / 1024 ** 2:.1f} MB"
