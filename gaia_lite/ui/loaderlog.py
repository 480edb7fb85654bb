"""TOOL_LOADER records as panel lines: the latest turn expanded, older records one line each.

Records are the typed records the events carry (selection, load_tools) plus the
escape-hatch and session-summary dicts the view derives; nothing here reads log
text.
"""

from __future__ import annotations

from typing import Any, Mapping

from rich.text import Text

from gaia_lite.logline import LoadToolsRecord, SelectionRecord

from .view import LoaderEntry, PanelState
from .wrap import by_score, fmt_score, one_line, plural, sub_list

__all__ = ["loader_section"]


def _entry_one_line(entry: LoaderEntry, core: frozenset[str], width: int) -> Text:
    r = entry.record
    if isinstance(r, SelectionRecord):
        added = [n for n in r.admitted if n not in core]
        text = (f"t{entry.turn} select +{len(added)} -{len(r.evicted)}"
                f" skip {len(r.skipped_at_cap)} · {len(r.loaded)} loaded")
    elif isinstance(r, LoadToolsRecord):
        text = f"t{entry.turn} load_tools {r.bundle} +{len(r.admitted)}"
    elif entry.kind == "escape_hatch":
        text = f"t{entry.turn} escape hatch: {r.get('tool', '?')} ran unlisted"
    else:
        text = (f"session summary: {plural(r.get('turns', 0), 'turn')}, "
                f"{plural(r.get('load_tools_count', 0), 'load')}, {plural(r.get('escape_hatch_count', 0), 'escape')}")
    return one_line("  " + text, "dim", width)


def _selection_lines(r: SelectionRecord, turn: int, core: frozenset[str], width: int, n: int) -> list[Text]:
    scores = {k: float(v) for k, v in r.scores.items()}
    added = [x for x in r.admitted if x not in core]
    head = [(f"CORE×{len(r.admitted) - len(added)}", "dim")] if len(added) < len(r.admitted) else []
    matched = by_score(r.matched, scores)
    lines = [one_line(f"▾ turn {turn} · selection · {r.selection_ms:.1f} ms", "bold cyan", width)]
    lines += sub_list("  matched", [(f"{x} {fmt_score(scores.get(x))}", "") for x in matched], width, n)
    lines += sub_list("  admitted", head + [(x, "green") for x in added], width, n)
    lines += sub_list("  evicted", [(x, "red") for x in r.evicted], width, n)
    if r.skipped_at_cap:
        lines += sub_list("  skipped", [(x, "yellow") for x in by_score(r.skipped_at_cap, scores)], width, n)
    if r.requested:
        lines += sub_list("  requested", [(x, "bold blue") for x in r.requested], width, n)
    if r.skill:
        lines += sub_list("  skill", [(x, "magenta") for x in r.skill], width, n)
    if r.learned:
        lines += sub_list("  learned", [(x, "green") for x in r.learned], width, n)
    if r.companion:
        lines += sub_list("  companion", [(x, "green") for x in r.companion], width, n)
    if not matched and scores:
        best = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
        lines += sub_list("  best", [(f"{x} {fmt_score(s)}", "") for x, s in best], width, n)
    return lines


def _load_lines(r: LoadToolsRecord, turn: int, width: int, n: int) -> list[Text]:
    lines = [one_line(f"▾ turn {turn} · load_tools {r.bundle} · {r.selection_ms:.1f} ms", "bold cyan", width)]
    lines += sub_list("  admitted", [(x, "cyan") for x in r.admitted], width, n, "none (already loaded)")
    if r.evicted:
        lines += sub_list("  evicted", [(x, "red") for x in r.evicted], width, n)
    if r.skipped_at_cap:
        lines += sub_list("  skipped", [(x, "yellow") for x in r.skipped_at_cap], width, n)
    return lines


def _derived_lines(kind: str, r: Mapping[str, Any], turn: int, width: int) -> list[Text]:
    if kind == "session":
        rate = r.get("escape_hatch_rate")
        rate_text = f" · rate {rate:.2f}" if isinstance(rate, (int, float)) else ""
        return [one_line("▾ TOOL_LOADER_SESSION (logged by /reset)", "bold cyan", width),
                one_line(f"  {plural(r.get('turns', 0), 'turn')} · {plural(r.get('load_tools_count', 0), 'load')}"
                         f" · {plural(r.get('escape_hatch_count', 0), 'escape')}{rate_text}", "", width)]
    return [one_line(f"▾ turn {turn} · escape hatch", "bold yellow", width),
            one_line(f"  {r.get('tool', '?')} ran from the full registry", "yellow", width)]


def _entry_expanded(entry: LoaderEntry, core: frozenset[str], width: int, list_lines: int) -> list[Text]:
    r = entry.record
    if isinstance(r, SelectionRecord):
        return _selection_lines(r, entry.turn, core, width, list_lines)
    if isinstance(r, LoadToolsRecord):
        return _load_lines(r, entry.turn, width, list_lines)
    return _derived_lines(entry.kind, r, entry.turn, width)


def loader_section(state: PanelState, width: int, *, older: int, list_lines: int) -> list[Text]:
    """The TOOL_LOADER block: a title, the latest turn's records expanded, up to ``older`` more."""
    lines = [one_line("TOOL_LOADER", "bold")]
    if state.off_state is not None:
        return lines + [one_line("  no selection lines while the loader is off", "dim", width)]
    entries = list(state.entries)
    if not entries:
        return lines + [one_line("  none yet", "dim", width)]
    latest_turn = entries[-1].turn
    expanded = [e for e in entries if e.turn == latest_turn][-2:]
    for e in reversed(expanded):
        lines += _entry_expanded(e, state.layout.core, width, list_lines)
    older = [e for e in reversed(entries) if e not in expanded][:older]
    lines += [_entry_one_line(e, state.layout.core, width) for e in older]
    return lines
