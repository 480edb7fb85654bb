"""``gaia-lite logs``: the last turns of ``ask`` and ``chat`` from the state dir's turn log."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from typing_extensions import Annotated

from .outcome import BAD_INPUT, emit, fail, json_option, settings_or_fail

__all__ = ["logs"]

PREVIEW_CHARS = 300
LogsJson = json_option("Print a JSON array of turn records; each holds the turn's TOOL_LOADER and TOOL_CALLS payloads, what `eval log` scores.")


def logs(
    count: Annotated[int, typer.Option("--count", "-n", help="How many turns, newest last.")] = 10,
    full: Annotated[bool, typer.Option("--full", help="Print whole questions and answers, not the first lines.")] = False,
    json_out: LogsJson = False,
) -> None:
    """Past turns: question, answer, tools called, loaded set and time to first token.

    Example: `gaia-lite logs -n 3`, or `gaia-lite logs --json | jq '.[].ttft_s'`
    """
    from gaia_lite.cli.turnlog import MAX_LAST, read_turns  # kept lazy: --help imports this module

    if count < 1:
        fail(f"-n {count} is invalid; expected a whole number >= 1", BAD_INPUT)
    count = min(count, MAX_LAST)  # more than the log holds is the whole log
    settings = settings_or_fail()
    path = settings.paths.turns_file
    records, bad = read_turns(path, count)
    if bad:
        typer.echo(f"note: skipped {bad} unreadable line(s) in {path} (a turn cut by a crash, or a record "
                   "that is not a turn)", err=True)
    emit(records, json_out, lambda: _print_turns(records, full, path))


def _print_turns(records: list[dict[str, Any]], full: bool, path: Path) -> None:
    if not records:
        typer.echo(f"No turns logged yet in {path}. `gaia-lite ask` and `gaia-lite chat` record each turn.")
        return
    for rec in records:
        _print_turn(rec, full)
    _print_recall(records)


def _clip(text: str, full: bool) -> str:
    text = (text or "").strip()
    if full or len(text) <= PREVIEW_CHARS:
        return text
    return text[:PREVIEW_CHARS].rstrip() + " …"


def _print_turn(rec: dict[str, Any], full: bool) -> None:
    ttft = rec.get("ttft_s")
    head = [str(rec.get("ts", "?")).replace("T", " ")[:19], rec.get("frontend", "?"), rec.get("model") or "?",
            f"turn {rec.get('turn', '?')}", f"TTFT {ttft:.2f} s" if isinstance(ttft, (int, float)) else "TTFT -"]
    typer.echo("── " + " · ".join(head))
    typer.echo(f"Q: {_clip(rec.get('question', ''), full)}")
    if rec.get("status") == "failed":
        typer.echo(f"failed: {rec.get('error')}")
    else:
        typer.echo(f"A: {_clip(rec.get('answer', ''), full)}")
    called = rec.get("tools_called") or []
    loaded = rec.get("loaded") or []
    typer.echo(f"tools called: {', '.join(called) or 'none'} · loaded {len(loaded)}: {', '.join(loaded)}")
    typer.echo("")


def _print_recall(records: list[dict[str, Any]]) -> None:
    """What `eval log` would score for these turns, when the loader was on for any of them."""
    # kept lazy: --help imports this module; the scorer loads numpy
    from gaia_lite.cli.turnlog import log_lines
    from gaia_lite.eval.logscore import score_lines

    score = score_lines(log_lines(records))
    if score.recall is None:
        return
    typer.echo(f"loader recall over these turns: {100 * score.recall:.1f} % of {len(score.scored)} "
               "(every called tool was loaded); `gaia-lite eval log` scores whole runs")
