"""``gaia-lite tools list|select|companions|examples``: the registry, the loader and what it learned, offline."""

from __future__ import annotations

import json

from contextlib import contextmanager
from typing import Any, Iterator

from rich.console import Console
from rich.table import Table

from gaia_lite.config import Settings
from gaia_lite.errors import GaiaError
from gaia_lite.eval.tokens import make_token_counter
from gaia_lite.loader.bundles import load_bundles
from gaia_lite.loader.companions import MIN_CONFIDENCE, MIN_SUPPORT, learn_companions
from gaia_lite.loader.loader import selection_query
from gaia_lite.memory.store import MemoryStore
from gaia_lite.registry.render import native_json, render_native, render_text
from gaia_lite.skills.learning import LearningStore
from gaia_lite.skills.recall import SkillService
from gaia_lite.tools.os_sandbox import status_line as shell_sandbox_status

from .wiring import build_embedder, build_loader, build_mcp, build_registry, loader_off_state, read_learning

__all__ = ["tools_list_rows", "print_tools_table", "select_for_query", "print_selection", "companion_rows",
           "print_companions", "example_rows", "print_examples"]


MCP_WAIT_S = 60.0  # the offline commands wait for every configured MCP server (they have no later turn)


def _join_mcp(settings: Settings, registry: Any, loader: Any = None) -> dict[str, str]:
    """Start the configured MCP servers, wait for them, add their tools to ``registry`` (and their
    bundles to ``loader``); tool -> bundle. A server that fails is named in one warning line."""
    manager = build_mcp(settings, loader, grace=MCP_WAIT_S, tool_cache=False)
    if manager is None:
        return {}
    bundle_of: dict[str, str] = {}
    try:
        for join in manager.joins():
            registry.add_all(join.specs)
            if join.bundle is not None:
                bundle_of.update({s.name: join.bundle.name for s in join.specs})
                if loader is not None:
                    loader.add_bundle(join.bundle)
    finally:
        manager.close()
    return bundle_of


def tools_list_rows(settings: Settings) -> tuple[list[dict[str, Any]], str]:
    """One row per tool (the registry exactly as the agent builds it): name, bundles, CORE mark, text and
    native token cost."""
    registry = build_registry(settings, with_loader=loader_off_state(settings) is None)
    mcp_bundles = _join_mcp(settings, registry)
    config = load_bundles()
    counter = make_token_counter("auto", settings.base_url)
    rows = []
    for spec in registry:
        rows.append({
            "name": spec.name,
            "bundles": [b.name for b in config.bundles if spec.name in b.members] + (
                [mcp_bundles[spec.name]] if spec.name in mcp_bundles else []),
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


@contextmanager
def _user_memory(settings: Settings, embedder: Any) -> Iterator[MemoryStore | None]:
    """The user's memory database (learned procedures, examples, companions), or ``None`` when
    memory is off or there is none yet: nothing was learned, and a look must not create one."""
    path = settings.paths.memory_db
    if settings.memory_disabled or not path.is_file():
        yield None
        return
    memory = MemoryStore(path, embedder)
    try:
        yield memory
    finally:
        memory.close()


def select_for_query(settings: Settings, query: str, history: list[str]) -> dict[str, Any]:
    """Run the real loader (real embedder, fresh session) over history + query, as a chat turn
    would: with what was learned from use, and each message recalling learned procedures first
    (the SKILL tier), as the agent does."""
    loader_settings = settings.replace(dynamic_tools=True)
    registry = build_registry(loader_settings, with_loader=loader_off_state(loader_settings) is None)
    embedder = build_embedder(loader_settings, settings.base_url)
    earlier: list[str] = []
    sel = None
    fired: list[str] = []
    with _user_memory(loader_settings, embedder) as memory:
        loader = build_loader(loader_settings, embedder, read_learning(memory))
        _join_mcp(loader_settings, registry, loader)
        skills = None if memory is None else SkillService(memory, embedder, registry, tau=settings.skill_tau)
        for message in [*history, query]:
            skill_tools = None
            if skills is not None:
                recalled = skills.recall_for_turn(message)
                skill_tools, fired = recalled.tools or None, recalled.names
            sel = loader.select(selection_query(earlier, message), registry, skill_tools=skill_tools)
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
        "requested": list(sel.record.requested),
        "companion": list(sel.record.companion),
        "learned": list(sel.record.learned),
        "examples": [{"request": p.example.request, "tool": p.example.tool, "arguments": dict(p.example.arguments),
                      "score": round(p.score, 4), "learned": p.example.learned} for p in sel.examples],
        "skills": fired,
        "skill_tau": settings.skill_tau,
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
    if report.get("skills"):
        console.print(f"learned procedures recalled (skill τ {report['skill_tau']}): {', '.join(report['skills'])}")
    for ex in report.get("examples", ()):
        mine = " (learned from you)" if ex["learned"] else ""
        console.print(f"worked example{mine} {ex['score']:.2f}: {ex['request']!r} -> {ex['tool']}"
                      f"({', '.join(f'{k}={v!r}' for k, v in ex['arguments'].items())})", markup=False)
    if report["skipped_at_cap"]:
        console.print(f"skipped at the cap: {', '.join(report['skipped_at_cap'])}")
    top = [f"{n} {s:.3f}" for n, s in list(report["scores"].items())[:8]]
    console.print("top scores: " + ", ".join(top))


# ---------------------------------------------------------------- what the loader learned
def _learning_memory(settings: Settings) -> MemoryStore | None:
    """The memory database to read or edit learning in; ``None`` if there is none (nothing learned).
    Memory off is an error: nothing is learned then, so there is nothing to show."""
    if settings.memory_disabled:
        raise GaiaError("memory is off (GAIA_MEMORY_DISABLED=1), so nothing is learned from use; unset it to learn")
    path = settings.paths.memory_db
    return MemoryStore(path) if path.is_file() else None


def companion_rows(settings: Settings) -> list[dict[str, Any]]:
    """Every companion edge with support: learned turns, prior pseudo-turns, confidence, and whether it fires."""
    prior = load_bundles().companions
    memory = _learning_memory(settings)
    try:
        graph = LearningStore(memory).companions(prior) if memory is not None else learn_companions([], prior)
    finally:
        if memory is not None:
            memory.close()
    edges = sorted(graph.edges, key=lambda e: (not e.strong, -e.confidence, -e.support, e.tool, e.companion))
    return [{"tool": e.tool, "companion": e.companion, "learned_turns": e.learned, "prior": e.prior,
             "tool_turns": e.tool_turns, "confidence": round(e.confidence, 3), "fires": e.strong}
            for e in edges if e.learned > 0 or e.prior > 0]


def print_companions(rows: list[dict[str, Any]]) -> None:
    console = Console()
    if not rows:
        console.print("No companions yet: they are learned from turns that call several tools.")
        return
    table = Table(title=f"{sum(r['fires'] for r in rows)} of {len(rows)} companion edges fire "
                        f"(support ≥ {MIN_SUPPORT} turns, confidence ≥ {MIN_CONFIDENCE:.2f})", title_justify="left")
    for col, justify in (("when selected", "left"), ("also load", "left"), ("turns together", "right"),
                         ("prior", "right"), ("confidence", "right"), ("fires", "center")):
        table.add_column(col, justify=justify)  # type: ignore[arg-type]
    for r in rows:
        table.add_row(r["tool"], r["companion"], str(r["learned_turns"]), str(r["prior"] or ""),
                      f"{r['confidence']:.2f}", "●" if r["fires"] else "")
    console.print(table)
    console.print("prior: pseudo-turns of the edges shipped in bundles/doc.toml; one observed turn confirms one.")


def example_rows(settings: Settings, tool: str | None, forget: bool) -> tuple[list[dict[str, Any]], int]:
    """Learned example requests (newest first per tool), and how many ``forget`` deleted."""
    memory = _learning_memory(settings)
    if memory is None:
        return [], 0
    try:
        store = LearningStore(memory)
        rows = [{"tool": e.tool, "text": e.text, "created_at": e.created_at,
                 "arguments": json.loads(e.arguments) if e.arguments else None} for e in store.list_examples(tool)]
        forgotten = store.forget_examples(tool) if forget else 0
    finally:
        memory.close()
    return rows, forgotten


def print_examples(rows: list[dict[str, Any]], tool: str | None, forgotten: int, forget: bool) -> None:
    console = Console()
    whose = f"for {tool} " if tool else ""
    if forget:
        console.print(f"Forgot {forgotten} learned example{'s' if forgotten != 1 else ''} {whose}".rstrip() + ".")
        return
    if not rows:
        console.print(f"No learned examples {whose}yet: a message whose turn called a tool successfully "
                      "becomes one.")
        return
    table = Table(title=f"{len(rows)} learned examples {whose}(the user's own wording; newest first)",
                  title_justify="left")
    table.add_column("tool")
    table.add_column("example request")
    table.add_column("the call that served it")
    table.add_column("learned", justify="right")
    for r in rows:
        call = ", ".join(f"{k}={v!r}" for k, v in (r.get("arguments") or {}).items())
        table.add_row(r["tool"], r["text"], call, r["created_at"][:16].replace("T", " "))
    console.print(table)
