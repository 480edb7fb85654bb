"""TOOL_LOADER records as panel lines: the latest turn expanded, older records one line each.

Records are the payload dicts the events carry (selection, load_tools) plus the
escape-hatch and session-summary records the view derives; nothing here reads
log text.
"""

from __future__ import annotations

from rich.text import Text

from .view import LoaderEntry, PanelState
from .wrap import by_score, fmt_score, one_line, plural, sub_list

__all__ = ["loader_section"]


def _entry_one_line(entry: LoaderEntry, core: frozenset[str], width: int) -> Text:
    r = entry.record
    if entry.kind == "selection":
        added = [n for n in r.get("admitted") or () if n not in core]
        text = (f"t{entry.turn} select +{len(added)} -{len(r.get('evicted') or ())}"
                f" skip {len(r.get('skipped_at_cap') or ())} · {len(r.get('loaded') or ())} loaded")
    elif entry.kind == "load_tools":
        text = f"t{entry.turn} load_tools {r.get('bundle', '?')} +{len(r.get('admitted') or ())}"
    elif entry.kind == "escape_hatch":
        text = f"t{entry.turn} escape hatch: {r.get('tool', '?')} ran unlisted"
    else:
        text = (f"session summary: {plural(r.get('turns', 0), 'turn')}, "
                f"{plural(r.get('load_tools_count', 0), 'load')}, {plural(r.get('escape_hatch_count', 0), 'escape')}")
    return one_line("  " + text, "dim", width)


def _entry_expanded(entry: LoaderEntry, core: frozenset[str], width: int, list_lines: int) -> list[Text]:
    r = entry.record
    ms = r.get("selection_ms")
    timing = f" · {ms:.1f} ms" if isinstance(ms, (int, float)) else ""
    n = list_lines
    if entry.kind == "selection":
        scores = {k: float(v) for k, v in (r.get("scores") or {}).items()}
        admitted = list(r.get("admitted") or ())
        added = [x for x in admitted if x not in core]
        head = [(f"CORE×{len(admitted) - len(added)}", "dim")] if len(added) < len(admitted) else []
        matched = by_score(r.get("matched") or (), scores)
        lines = [one_line(f"▾ turn {entry.turn} · selection{timing}", "bold cyan", width)]
        lines += sub_list("  matched", [(f"{x} {fmt_score(scores.get(x))}", "") for x in matched], width, n)
        lines += sub_list("  admitted", head + [(x, "green") for x in added], width, n)
        lines += sub_list("  evicted", [(x, "red") for x in r.get("evicted") or ()], width, n)
        if r.get("skipped_at_cap"):
            skipped = by_score(r["skipped_at_cap"], scores)
            lines += sub_list("  skipped", [(x, "yellow") for x in skipped], width, n)
        if r.get("skill"):
            lines += sub_list("  skill", [(x, "magenta") for x in r["skill"]], width, n)
        if not matched and scores:
            best = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
            lines += sub_list("  best", [(f"{x} {fmt_score(s)}", "") for x, s in best], width, n)
        return lines
    if entry.kind == "load_tools":
        lines = [one_line(f"▾ turn {entry.turn} · load_tools {r.get('bundle', '?')}{timing}", "bold cyan", width)]
        lines += sub_list("  admitted", [(x, "cyan") for x in r.get("admitted") or ()], width, n,
                      "none (already loaded)")
        if r.get("evicted"):
            lines += sub_list("  evicted", [(x, "red") for x in r["evicted"]], width, n)
        if r.get("skipped_at_cap"):
            lines += sub_list("  skipped", [(x, "yellow") for x in r["skipped_at_cap"]], width, n)
        return lines
    if entry.kind == "session":
        rate = r.get("escape_hatch_rate")
        rate_text = f" · rate {rate:.2f}" if isinstance(rate, (int, float)) else ""
        return [one_line("▾ TOOL_LOADER_SESSION (logged by /reset)", "bold cyan", width),
                one_line(f"  {plural(r.get('turns', 0), 'turn')} · {plural(r.get('load_tools_count', 0), 'load')}"
                         f" · {plural(r.get('escape_hatch_count', 0), 'escape')}{rate_text}", "", width)]
    return [one_line(f"▾ turn {entry.turn} · escape hatch", "bold yellow", width),
            one_line(f"  {r.get('tool', '?')} ran from the full registry", "yellow", width)]


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
