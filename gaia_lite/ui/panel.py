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

from rich import box
from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.segment import Segment
from rich.text import Text

from .loaderlog import loader_section
from .view import PanelState
from .wrap import LABEL_WIDTH, assemble, by_score, fmt_count, fmt_score, fmt_secs, one_line, wrap_tokens

__all__ = ["panel_lines", "render_panel", "render_status_bar", "tool_marks", "LEGEND"]

LEGEND = ("C core  R named  S skill  & companion", "L /load  · earlier  + new (score; ~ bundle)")
_MARK_STYLE = {"C": "dim", "R": "bold blue", "S": "magenta", "&": "green", "+": "bold green", "L": "cyan", "·": ""}


@dataclass(frozen=True)
class _Detail:
    """How much the panel shows; ``panel_lines`` walks ``_LEVELS`` until the lines fit."""

    older: int  # one-line TOOL_LOADER entries below the expanded ones
    legend: bool
    list_lines: int  # lines per name list (matched, skipped, ...)
    stat_rows: int


_LEVELS = (_Detail(5, True, 3, 3), _Detail(2, True, 3, 3), _Detail(2, True, 2, 3), _Detail(0, True, 2, 3),
           _Detail(0, False, 2, 3), _Detail(0, False, 1, 3), _Detail(0, False, 1, 1))


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
        elif reason == "requested" and name in new:
            out[name] = ("R", "")
        elif reason == "skill" and name in new:
            out[name] = ("S", "")
        elif reason.startswith("companion") and name in new:
            out[name] = ("&", "")
        elif reason.startswith("load_tools:"):
            out[name] = ("L", "")
        elif name in new and reason in ("semantic", "learned"):
            out[name] = ("+", fmt_score(state.scores.get(name)))
        elif name in new and reason.startswith("bundle:"):
            inherited = matched_by_bundle.get(reason.split(":", 1)[1], state.scores.get(name))
            out[name] = ("+", "~" + fmt_score(inherited) if inherited is not None else "")
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
            lines.append(assemble([(label.ljust(LABEL_WIDTH) + " ", "bold"), (f"{mark} {name}", _MARK_STYLE[mark]),
                                    (f" {score}" if score else "", "green")], width))
            label = ""
    return lines


def _count(state: PanelState) -> str:
    """"13/16"; a sticky session that kept more than the cap shows "24 (cap 16, all kept)"."""
    n, cap = len(state.loaded), state.max_tools
    if not cap:
        return str(n)
    return f"{n}/{cap}" if n <= cap else f"{n} (cap {cap}, all kept)"


def _header(state: PanelState) -> Text:
    if state.off_state is not None:
        return one_line(f"Loader OFF · {state.off_state}", "bold red")
    core = sum(1 for t in state.loaded if t in state.layout.core)
    text = f"Loaded {_count(state)} · CORE {core}"
    if state.pending_core:
        text += " · new session"
    elif state.new_this_turn:
        text += f" · +{len(state.new_this_turn)} new"
    return one_line(text, "bold")


def _tools_section(state: PanelState, width: int, d: _Detail, loaded: list[Text]) -> list[Text]:
    lines = [_header(state)]
    if state.off_state is not None:
        words = (state.off_reason or "the loader is off").split()
        lines += wrap_tokens("", [(w, "red") for w in words], width, label_width=0)
        lines.append(one_line(f"All {state.registry_size} tools are in the prompt (no filter).", width=width))
        return lines
    lines += loaded
    if state.pending_core:
        lines.append(one_line("selection runs on your next message", "dim", width))
    if state.evicted:
        lines += wrap_tokens("evicted", [(n, "red") for n in state.evicted], width, label_style="red",
                             max_lines=d.list_lines)
    if state.skipped:
        lines += wrap_tokens(f"skipped {len(state.skipped)}",
                             [(n, "yellow") for n in by_score(state.skipped, state.scores)],
                             width, label_style="yellow", max_lines=d.list_lines)
    if d.legend:
        lines += [one_line(part, "dim", width) for part in LEGEND]
    return lines


# ---------------------------------------------------------------- stats
def _stats_section(state: PanelState, width: int, d: _Detail) -> list[Text]:
    lines = [one_line("Turn stats", "bold")]
    shown = list(state.stats)[-d.stat_rows:]
    if shown:
        lines.append(one_line(f"{'turn':>4} {'TTFT':>7} {'prompt':>8} {'cached':>8}", "dim", width))
        for s in shown:
            flag = {"running": " …", "failed": " ✗"}.get(s.status, "")
            lines.append(one_line(f"{s.turn:>4} {fmt_secs(s.ttft_s):>7} {fmt_count(s.prompt_tokens):>8} "
                               f"{fmt_count(s.cached_tokens):>8}{flag}", "", width))
    else:
        lines.append(one_line("  no turns yet", "dim", width))
    lines.append(one_line(f"tools_hash changes {state.hash_changes} · escape hatches {state.escape_hatches}",
                       "", width))
    return lines


# ---------------------------------------------------------------- assembly
def panel_lines(state: PanelState, width: int, height: int | None = None) -> list[Text]:
    """The panel's content lines for an inner ``width``, at most ``height`` of them."""
    lines: list[Text] = []
    loaded = _loaded_lines(state, width) if state.off_state is None else []
    for d in _LEVELS:
        lines = [*_tools_section(state, width, d, loaded), Text(),
                 *loader_section(state, width, older=d.older, list_lines=d.list_lines), Text(),
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
        parts.append(Text(f"tools {_count(state)}", style="bold"))
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
        parts.append(Text(f"t{s.turn} TTFT {fmt_secs(s.ttft_s)} · prompt {fmt_count(s.prompt_tokens)}"
                          f" ({fmt_count(s.cached_tokens)} cached)"))
    parts.append(Text(f"hashΔ {state.hash_changes} · esc {state.escape_hatches}"))
    if hint:
        parts.append(Text(hint, style="dim"))
    bar = Text(" │ ", style="dim").join(parts)
    bar.no_wrap, bar.overflow = True, "ellipsis"
    bar.truncate(width, overflow="ellipsis")
    return bar
