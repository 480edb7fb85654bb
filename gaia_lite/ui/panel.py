"""The side panel and its one-line form, as pure functions of ``PanelState``.

The panel is built from single ``Text`` lines that this module wraps itself
(a tool name is never split), so its height is known without rendering and
``panel_lines`` can trade detail for height: older TOOL_LOADER lines go
first, then the legend, then long name lists shrink to one line ending in
``+N more``, then stat rows. The loaded set and the stats stay.

Marks in the loaded list (also printed as a legend)::

    C  CORE, always loaded          S  recalled by a learned skill
    +  admitted this turn, with its score (~ = score inherited from a bundle-mate)
    L  added by /load or load_tools  ·  loaded in an earlier turn
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from rich import box
from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.segment import Segment
from rich.cells import cell_len
from rich.text import Text

from .view import LoaderEntry, PanelState

Tok = tuple[str, str]  # (text, style): one unbreakable word of a wrapped list

__all__ = ["panel_lines", "render_panel", "render_status_bar", "tool_marks", "wrap_tokens", "LEGEND"]

LABEL_WIDTH = 12
SUB_LABEL_WIDTH = 10
LEGEND = ("C core  S skill  L /load  · earlier", "+ new this turn (score; ~ via bundle)")
_MARK_STYLE = {"C": "dim", "S": "magenta", "+": "bold green", "L": "cyan", "·": ""}


@dataclass(frozen=True)
class _Detail:
    """How much the panel shows; ``panel_lines`` walks ``_LEVELS`` until the lines fit."""

    older: int  # one-line TOOL_LOADER entries below the expanded ones
    legend: bool
    list_lines: int  # lines per name list (matched, skipped, ...)
    stat_rows: int


_LEVELS = (_Detail(5, True, 2, 3), _Detail(2, True, 2, 3), _Detail(0, True, 2, 3), _Detail(0, False, 2, 3),
           _Detail(0, False, 1, 3), _Detail(0, False, 1, 1))


# ---------------------------------------------------------------- small formatters
def _score(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}"


def _secs(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}s"


def _count(value: int | None) -> str:
    return "—" if value is None else f"{value:,}"


def _line(text: str = "", style: str = "", width: int = 0) -> Text:
    t = Text(text, style=style, no_wrap=True, overflow="ellipsis")
    if width:
        t.truncate(width, overflow="ellipsis")
    return t


def wrap_tokens(label: str, tokens: Sequence[Tok], width: int, *, label_style: str = "bold",
                label_width: int = LABEL_WIDTH, max_lines: int = 0) -> list[Text]:
    """``label`` then ``(text, style)`` tokens packed into lines of ``width`` cells; a token is
    never split. With ``max_lines``, what does not fit is replaced by a ``+N more`` token."""
    pad = label_width + 1 if label_width else 0
    avail = max(8, width - pad)
    rows: list[list[Tok]] = [[]]
    used = 0
    for tok in tokens:
        need = cell_len(tok[0]) + (1 if used else 0)
        if used and used + need > avail:
            rows.append([])
            used, need = 0, cell_len(tok[0])
        rows[-1].append(tok)
        used += need
    if max_lines and len(rows) > max_lines:
        rows = rows[:max_lines]
        shown = sum(len(r) for r in rows)
        while True:
            more = (f"+{len(tokens) - shown} more", "dim")
            last = rows[-1]
            if not last or sum(cell_len(t[0]) + 1 for t in last) + len(more[0]) <= avail:
                last.append(more)
                break
            last.pop()
            shown -= 1
    lines = []
    for i, row in enumerate(rows):
        head = ((label.ljust(label_width)[:label_width] + " ")[:pad], label_style) if i == 0 else (" " * pad, "")
        parts: list[Tok] = [head]
        for j, tok in enumerate(row):
            if j:
                parts.append((" ", ""))
            parts.append(tok)
        lines.append(_assemble(parts, width))
    return lines


def _assemble(parts: Sequence[Tok], width: int) -> Text:
    line = Text.assemble(*parts, no_wrap=True, overflow="ellipsis")
    if line.cell_len > width:
        line.truncate(width, overflow="ellipsis")
    return line


def _sub(label: str, tokens: Sequence[Tok], width: int, max_lines: int, empty: str = "none") -> list[Text]:
    return wrap_tokens(label, list(tokens) or [(empty, "dim")], width, label_style="",
                       label_width=SUB_LABEL_WIDTH, max_lines=max_lines)


def _by_score(names: Sequence[str], scores: Mapping[str, float]) -> list[str]:
    return sorted(names, key=lambda n: (-scores.get(n, float("-inf")), n))


# ---------------------------------------------------------------- the loaded set
def tool_marks(state: PanelState) -> dict[str, tuple[str, str]]:
    """tool -> (mark, score text) for every loaded tool."""
    layout = state.layout
    matched_by_bundle: dict[str, float] = {}
    for m in state.matched:
        b = layout.bundle_of(m)
        if b is not None and m in state.scores:
            matched_by_bundle[b] = max(matched_by_bundle.get(b, float("-inf")), state.scores[m])
    new = set(state.new_this_turn)
    out: dict[str, tuple[str, str]] = {}
    for name in state.loaded:
        reason = state.reasons.get(name, "loaded")
        if name in layout.core or reason == "core":
            out[name] = ("C", "")
        elif reason == "skill" and name in new:
            out[name] = ("S", "")
        elif reason.startswith("load_tools:"):
            out[name] = ("L", "")
        elif name in new and reason == "semantic":
            out[name] = ("+", _score(state.scores.get(name)))
        elif name in new and reason.startswith("bundle:"):
            inherited = matched_by_bundle.get(reason.split(":", 1)[1], state.scores.get(name))
            out[name] = ("+", "~" + _score(inherited) if inherited is not None else "")
        else:
            out[name] = ("·", "")
    return out


def _loaded_lines(state: PanelState, width: int) -> list[Text]:
    """One block per bundle (menu order): its CORE members packed after a ``C``,
    every other loaded member on its own line with its mark and score."""
    marks = tool_marks(state)
    groups: dict[str, list[str]] = {}
    for name in state.loaded:
        b = state.layout.bundle_of(name)
        groups.setdefault(b if b is not None else ("core" if name in state.layout.core else "other"), []).append(name)
    lines: list[Text] = []
    for group in ["core", *(name for name, _ in state.layout.bundles), "other"]:
        names = sorted(groups.get(group, ()))
        if not names:
            continue
        label = group
        core = [n for n in names if marks[n][0] == "C"]
        if core:
            packed = wrap_tokens(label, [(n, "dim") for n in core], width - 2)
            for i, ln in enumerate(packed):
                head, tail = ln[:LABEL_WIDTH + 1], ln[LABEL_WIDTH + 1:]
                lines.append(Text.assemble(head, ("C " if i == 0 else "  ", "dim"), tail, no_wrap=True,
                                           overflow="ellipsis"))
            label = ""
        for name in names:
            mark, score = marks[name]
            if mark == "C":
                continue
            lines.append(_assemble([(label.ljust(LABEL_WIDTH) + " ", "bold"), (f"{mark} {name}", _MARK_STYLE[mark]),
                                    (f" {score}" if score else "", "green")], width))
            label = ""
    return lines


def _header(state: PanelState) -> Text:
    if state.off_state is not None:
        return _line(f"Loader OFF · {state.off_state}", "bold red")
    cap = f"/{state.max_tools}" if state.max_tools else ""
    core = sum(1 for t in state.loaded if t in state.layout.core)
    text = f"Loaded {len(state.loaded)}{cap} · CORE {core}"
    if state.pending_core:
        text += " · new session"
    elif state.new_this_turn:
        text += f" · +{len(state.new_this_turn)} new"
    return _line(text, "bold")


def _tools_section(state: PanelState, width: int, d: _Detail, loaded: list[Text]) -> list[Text]:
    lines = [_header(state)]
    if state.off_state is not None:
        words = (state.off_reason or "the loader is off").split()
        lines += wrap_tokens("", [(w, "red") for w in words], width, label_width=0)
        lines.append(_line(f"All {state.registry_size} tools are in the prompt (no filter).", width=width))
        return lines
    lines += loaded
    if state.pending_core:
        lines.append(_line("selection runs on your next message", "dim", width))
    if state.evicted:
        lines += wrap_tokens("evicted", [(n, "red") for n in state.evicted], width, label_style="red",
                             max_lines=d.list_lines)
    if state.skipped:
        lines += wrap_tokens(f"skipped {len(state.skipped)}", [(n, "yellow") for n in _by_score(state.skipped, state.scores)],
                             width, label_style="yellow", max_lines=d.list_lines)
    if d.legend:
        lines += [_line(part, "dim", width) for part in LEGEND]
    return lines


# ---------------------------------------------------------------- TOOL_LOADER entries
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
        text = (f"session summary: {r.get('turns', 0)} turns, {r.get('load_tools_count', 0)} loads, "
                f"{r.get('escape_hatch_count', 0)} escapes")
    return _line("  " + text, "dim", width)


def _entry_expanded(entry: LoaderEntry, core: frozenset[str], width: int, d: _Detail) -> list[Text]:
    r = entry.record
    ms = r.get("selection_ms")
    timing = f" · {ms:.1f} ms" if isinstance(ms, (int, float)) else ""
    n = d.list_lines
    if entry.kind == "selection":
        scores = {k: float(v) for k, v in (r.get("scores") or {}).items()}
        admitted = list(r.get("admitted") or ())
        added = [x for x in admitted if x not in core]
        head = [(f"CORE×{len(admitted) - len(added)}", "dim")] if len(added) < len(admitted) else []
        matched = _by_score(r.get("matched") or (), scores)
        lines = [_line(f"▾ turn {entry.turn} · selection{timing}", "bold cyan", width)]
        lines += _sub("  matched", [(f"{x} {_score(scores.get(x))}", "") for x in matched], width, n)
        lines += _sub("  admitted", head + [(x, "green") for x in added], width, n)
        lines += _sub("  evicted", [(x, "red") for x in r.get("evicted") or ()], width, n)
        if r.get("skipped_at_cap"):
            skipped = _by_score(r["skipped_at_cap"], scores)
            lines += _sub("  skipped", [(x, "yellow") for x in skipped], width, n)
        if r.get("skill"):
            lines += _sub("  skill", [(x, "magenta") for x in r["skill"]], width, n)
        if not matched and scores:
            best = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
            lines += _sub("  best", [(f"{x} {_score(s)}", "") for x, s in best], width, n)
        return lines
    if entry.kind == "load_tools":
        lines = [_line(f"▾ turn {entry.turn} · load_tools {r.get('bundle', '?')}{timing}", "bold cyan", width)]
        lines += _sub("  admitted", [(x, "cyan") for x in r.get("admitted") or ()], width, n,
                      "none (already loaded)")
        if r.get("evicted"):
            lines += _sub("  evicted", [(x, "red") for x in r["evicted"]], width, n)
        if r.get("skipped_at_cap"):
            lines += _sub("  skipped", [(x, "yellow") for x in r["skipped_at_cap"]], width, n)
        return lines
    if entry.kind == "session":
        rate = r.get("escape_hatch_rate")
        rate_text = f" · rate {rate:.2f}" if isinstance(rate, (int, float)) else ""
        return [_line("▾ TOOL_LOADER_SESSION (logged by /reset)", "bold cyan", width),
                _line(f"  {r.get('turns', 0)} turns · {r.get('load_tools_count', 0)} loads · "
                      f"{r.get('escape_hatch_count', 0)} escapes{rate_text}", "", width)]
    return [_line(f"▾ turn {entry.turn} · escape hatch", "bold yellow", width),
            _line(f"  {r.get('tool', '?')} ran from the full registry", "yellow", width)]


def _loader_section(state: PanelState, width: int, d: _Detail) -> list[Text]:
    lines = [_line("TOOL_LOADER", "bold")]
    if state.off_state is not None:
        return lines + [_line("  no selection lines while the loader is off", "dim", width)]
    entries = list(state.entries)
    if not entries:
        return lines + [_line("  none yet", "dim", width)]
    latest_turn = entries[-1].turn
    expanded = [e for e in entries if e.turn == latest_turn][-2:]
    for e in reversed(expanded):
        lines += _entry_expanded(e, state.layout.core, width, d)
    older = [e for e in reversed(entries) if e not in expanded][:d.older]
    lines += [_entry_one_line(e, state.layout.core, width) for e in older]
    return lines


# ---------------------------------------------------------------- stats
def _stats_section(state: PanelState, width: int, d: _Detail) -> list[Text]:
    lines = [_line("Turn stats", "bold")]
    shown = list(state.stats)[-d.stat_rows:]
    if shown:
        lines.append(_line(f"{'turn':>4} {'TTFT':>7} {'prompt':>8} {'cached':>8}", "dim", width))
        for s in shown:
            flag = {"running": " …", "failed": " ✗"}.get(s.status, "")
            lines.append(_line(f"{s.turn:>4} {_secs(s.ttft_s):>7} {_count(s.prompt_tokens):>8} "
                               f"{_count(s.cached_tokens):>8}{flag}", "", width))
    else:
        lines.append(_line("  no turns yet", "dim", width))
    lines.append(_line(f"tools_hash changes {state.hash_changes} · escape hatches {state.escape_hatches}",
                       "", width))
    return lines


# ---------------------------------------------------------------- assembly
def panel_lines(state: PanelState, width: int, height: int | None = None) -> list[Text]:
    """The panel's content lines for an inner ``width``, at most ``height`` of them."""
    lines: list[Text] = []
    loaded = _loaded_lines(state, width) if state.off_state is None else []
    for d in _LEVELS:
        lines = [*_tools_section(state, width, d, loaded), Text(), *_loader_section(state, width, d), Text(),
                 *_stats_section(state, width, d)]
        if height is None or len(lines) <= height:
            return lines
    return lines[:height]


class _Boxed:
    """Lines in a rounded box titled ``title``, exactly ``width`` wide (and ``height`` tall if given).

    It draws what ``rich.panel.Panel(padding=(0, 1))`` would, without re-wrapping
    lines that are already cut to size; that keeps a panel redraw cheap.
    """

    def __init__(self, lines: list[Text], width: int, height: int | None, title: str) -> None:
        self.lines, self.width, self.height, self.title = lines, width, height, title

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = min(self.width, options.max_width)
        inner = width - 4
        b = box.ROUNDED
        rows = self.lines if self.height is None else self.lines[:max(0, self.height - 2)]
        if self.height is not None:
            rows = rows + [Text()] * (self.height - 2 - len(rows))
        title = f" {self.title} "[:max(0, width - 3)]
        new_line = Segment.line()
        yield Segment(b.top_left + b.top + title + b.top * (width - 3 - len(title)) + b.top_right)
        yield new_line
        left, right = Segment(b.mid_left + " "), Segment(" " + b.mid_right)
        for row in rows:
            line = row.copy() if row.cell_len != inner else row
            if line is not row:
                line.truncate(inner, overflow="ellipsis", pad=True)
            yield left
            yield from line.render(console)
            yield right
            yield new_line
        yield Segment(b.bottom_left + b.bottom * (width - 2) + b.bottom_right)
        yield new_line


def render_panel(state: PanelState, width: int, height: int | None = None) -> RenderableType:
    """The bordered side panel, ``width`` cells wide and (if given) exactly ``height`` lines tall."""
    inner = max(10, width - 4)
    lines = panel_lines(state, inner, None if height is None else max(1, height - 2))
    return _Boxed(lines, width, height, "tools")


def render_status_bar(state: PanelState, width: int, *, hint: str = "/panel") -> Text:
    """The collapsed panel: one line, cropped with an ellipsis."""
    parts: list[Text] = []
    if state.off_state is not None:
        parts.append(Text(f"loader OFF ({state.off_state}) · all {state.registry_size} tools", style="red"))
    else:
        cap = f"/{state.max_tools}" if state.max_tools else ""
        parts.append(Text(f"tools {len(state.loaded)}{cap}", style="bold"))
        marks = tool_marks(state)
        new = [f"+{n}" + (f" {marks[n][1]}" if marks[n][1] else "") for n in state.new_this_turn if n in marks]
        if new:
            parts.append(Text(" ".join(new), style="green"))
        if state.evicted:
            parts.append(Text(f"evicted {len(state.evicted)}", style="red"))
        if state.skipped:
            parts.append(Text(f"skipped {len(state.skipped)}", style="yellow"))
    if state.stats:
        s = state.stats[-1]
        parts.append(Text(f"t{s.turn} TTFT {_secs(s.ttft_s)} · prompt {_count(s.prompt_tokens)}"
                          f" ({_count(s.cached_tokens)} cached)"))
    parts.append(Text(f"hashΔ {state.hash_changes} · esc {state.escape_hatches}"))
    if hint:
        parts.append(Text(hint, style="dim"))
    bar = Text(" │ ", style="dim").join(parts)
    bar.no_wrap, bar.overflow = True, "ellipsis"
    bar.truncate(width, overflow="ellipsis")
    return bar
