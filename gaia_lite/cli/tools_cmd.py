"""``gaia-lite tools list`` and ``gaia-lite tools select``: the registry and the loader, offline."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from gaia_lite.config import Settings
from gaia_lite.errors import GaiaError
from gaia_lite.eval.tokens import make_token_counter
from gaia_lite.loader.bundles import load_bundles
from gaia_lite.loader.loader import selection_query
from gaia_lite.registry.render import native_json, render_native, render_text
from gaia_lite.tools.os_sandbox import status_line as shell_sandbox_status

from .wiring import build_embedder, build_loader, build_registry, loader_off_state

__all__ = ["tools_list_rows", "print_tools_table", "select_for_query", "print_selection"]


def tools_list_rows(settings: Settings) -> tuple[list[dict[str, Any]], str]:
    """One row per tool (the registry exactly as the agent builds it): name, bundles, CORE mark, text and
    native token cost."""
    registry = build_registry(settings, with_loader=loader_off_state(settings) is None)
    config = load_bundles()
    counter = make_token_counter("auto", settings.base_url)
    rows = []
    for spec in registry:
        rows.append({
            "name": spec.name,
            "bundles": [b.name for b in config.bundles if spec.name in b.members],
            "core": spec.name in config.core,
            "text_tokens": counter.count(render_text(registry, [spec.name])),
            "native_tokens": counter.count(native_json(render_native(registry, [spec.name]))),
        })
    return rows, counter.name


def print_tools_table(rows: list[dict[str, Any]], tokenizer: str) -> None:
    table = Table(title=f"{len(rows)} tools (tokens counted with {tokenizer})", title_justify="left")
    for col, justify in (("tool", "left"), ("bundles", "left"), ("core", "center"),
                         ("text tok", "right"), ("native tok", "right")):
        table.add_column(col, justify=justify)  # type: ignore[arg-type]
    for r in rows:
        table.add_row(r["name"], ", ".join(r["bundles"]) or "-", "●" if r["core"] else "",
                      str(r["text_tokens"]), str(r["native_tokens"]))
    table.add_section()
    table.add_row("total", "", str(sum(r["core"] for r in rows)),
                  str(sum(r["text_tokens"] for r in rows)), str(sum(r["native_tokens"] for r in rows)))
    Console().print(table)
    Console().print(shell_sandbox_status())


def select_for_query(settings: Settings, query: str, history: list[str]) -> dict[str, Any]:
    """Run the real loader (real embedder, fresh session) over history + query."""
    loader_settings = settings.replace(dynamic_tools=True)
    registry = build_registry(loader_settings, with_loader=loader_off_state(loader_settings) is None)
    loader = build_loader(loader_settings, build_embedder(loader_settings, settings.base_url))
    earlier: list[str] = []
    sel = None
    for message in [*history, query]:
        sel = loader.select(selection_query(earlier, message), registry)
        if sel is None:
            raise GaiaError("the embedder failed, so the loader cannot select; see the warning above")
        earlier.append(message)
    assert sel is not None
    return {
        "loaded": list(sel.loaded),
        "reasons": dict(sel.reasons),
        "matched": list(sel.record.matched),
        "scores": {n: round(s, 4) for n, s in sorted(sel.record.scores.items(), key=lambda kv: -kv[1])},
        "admitted": list(sel.record.admitted),
        "skipped_at_cap": list(sel.record.skipped_at_cap),
        "threshold": loader.threshold,
        "max_tools": loader.max_tools,
        "preset": settings.preset,
        "selection_ms": round(sel.record.selection_ms, 3),
    }


def print_selection(report: dict[str, Any]) -> None:
    console = Console()
    console.print(f"[bold]{len(report['loaded'])} tools loaded[/] (preset {report['preset']}, "
                  f"τ {report['threshold']}, cap {report['max_tools']}, {report['selection_ms']} ms)")
    table = Table(show_header=True)
    table.add_column("tool")
    table.add_column("reason")
    table.add_column("score", justify="right")
    for name in report["loaded"]:
        table.add_row(name, report["reasons"].get(name, ""), f"{report['scores'].get(name, 0.0):.3f}")
    console.print(table)
    if report["skipped_at_cap"]:
        console.print(f"skipped at the cap: {', '.join(report['skipped_at_cap'])}")
    top = [f"{n} {s:.3f}" for n, s in list(report["scores"].items())[:8]]
    console.print("top scores: " + ", ".join(top))
