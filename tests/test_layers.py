"""The layers of gaia-lite, and a test that no import runs up them or goes round in a circle.

Each line below is one layer; a module may import only from its own package or
from a layer further down. Packages on one line are siblings and may not import
each other. Every import counts: at module level, inside a function (lazy) and
under ``TYPE_CHECKING`` (type-only), because each one is a dependency a reader
and a refactoring have to respect.

    __main__                               python -m gaia_lite
    cli                                    the typer app and the composition root
    ui | eval | runtime                    what the CLI drives: views, benchmarks, llama-server
    agent                                  the turn loop
    skills | mcp                           the SKILL tier; MCP servers as tools
    loader | tools                         tool selection; the built-in tools (repo folder tools/)
    registry                               ToolSpec, ToolRegistry, ToolContext, the executor
    memory                                 SQLite store, RAG, watches
    llm | embed                            the chat server client; embedders
    config | events | messages | jsonfile  leaf modules
    errors | logline                       the GaiaError tree; the TOOL_LOADER line format
    __init__ | data                        the public surface and package data: import nothing

The repo folder ``tools/`` ships as ``gaia_lite.tools`` (see pyproject.toml) and
is checked as that package. Imports are read with ``ast``, so the test needs no
import of the code it checks.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from tests.codebase import modules, parse, where

# Top to bottom. Each entry lists sibling packages (or top-level modules) of gaia_lite.
LAYERS: list[tuple[str, ...]] = [
    ("__main__",),
    ("launch",),
    ("cli",),
    ("ui", "eval", "runtime", "warm"),
    ("agent",),
    ("skills", "mcp"),
    ("loader", "tools"),
    ("registry",),
    ("memory",),
    ("llm", "embed"),
    ("config", "events", "messages", "jsonfile"),
    ("errors", "logline"),
    ("__init__", "data"),
]
RANK = {part: len(LAYERS) - i for i, layer in enumerate(LAYERS) for part in layer}


@dataclass(frozen=True)
class Import:
    source: str  # importing module, dotted
    target: str  # imported module, dotted (a submodule when `from pkg import sub` names one)
    path: Path
    line: int

    def where(self) -> str:
        return where(self.path, self.line)


def _resolve(source: str, path: Path, node: ast.ImportFrom) -> str | None:
    if node.level:
        base = source.split(".")
        if path.name != "__init__.py":
            base.pop()
        base = base[: len(base) - (node.level - 1)]
        return ".".join(base + ([node.module] if node.module else []))
    return node.module


def collect_imports() -> list[Import]:
    mods = modules()
    found: list[Import] = []
    for source, path in mods.items():
        for node in ast.walk(parse(source)):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                module = _resolve(source, path, node)
                if module is None:
                    continue
                # `from pkg import sub` imports the submodule when one exists, else a name of pkg
                targets = [f"{module}.{a.name}" if f"{module}.{a.name}" in mods else module for a in node.names]
            else:
                continue
            for target in targets:
                if target.startswith("tools.") or target == "tools":  # never installed under that name
                    target = "gaia_lite." + target
                if target.split(".")[0] == "gaia_lite":
                    while target not in mods and "." in target:  # `import gaia_lite.x.name` -> the module
                        target = target.rsplit(".", 1)[0]
                    found.append(Import(source, target, path, node.lineno))
    return list(dict.fromkeys(found))  # `from m import a, b` is one import of m


def part_of(module: str) -> str:
    """The layer entry a module belongs to: gaia_lite.loader.x -> loader, gaia_lite -> __init__."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def upward_imports(imports: list[Import]) -> list[str]:
    bad = []
    for imp in imports:
        src, dst = part_of(imp.source), part_of(imp.target)
        if src == dst:
            continue
        if RANK[dst] >= RANK[src]:
            how = "a sibling of" if RANK[dst] == RANK[src] else "a layer above"
            bad.append(f"{imp.where()}: {imp.source} imports {imp.target} ({dst} is {how} {src})")
    return bad


def import_cycles(imports: list[Import]) -> list[list[Import]]:
    """One cycle per strongly connected component of the module graph (Tarjan), as its import edges."""
    graph: dict[str, list[Import]] = {}
    for imp in imports:
        if imp.source != imp.target:
            graph.setdefault(imp.source, []).append(imp)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for imp in graph.get(node, []):
            if imp.target not in index:
                visit(imp.target)
                low[node] = min(low[node], low[imp.target])
            elif imp.target in on_stack:
                low[node] = min(low[node], index[imp.target])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(component)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return [[imp for imp in imports if imp.source in c and imp.target in c] for c in components]


def test_every_module_sits_in_a_layer() -> None:
    unplaced = sorted({part_of(m) for m in modules()} - set(RANK))
    assert not unplaced, f"place these in LAYERS of tests/test_layers.py: {unplaced}"


def test_no_import_runs_up_the_layers() -> None:
    bad = upward_imports(collect_imports())
    assert not bad, "imports that run up the layers:\n" + "\n".join(bad)


def test_no_import_cycle() -> None:
    cycles = import_cycles(collect_imports())
    text = "\n\n".join("\n".join(f"{i.where()}: {i.source} imports {i.target}" for i in c) for c in cycles)
    assert not cycles, "import cycles:\n" + text


def test_the_checks_catch_what_they_should() -> None:
    """The rules above would pass on an empty scan; prove each one fires on a real shape."""
    here = Path(__file__)
    up = Import("gaia_lite.mcp.manager", "gaia_lite.agent.selection", here, 1)
    side = Import("gaia_lite.loader.x", "gaia_lite.tools.files", here, 2)
    down = Import("gaia_lite.agent.loop", "gaia_lite.registry.spec", here, 3)
    assert len(upward_imports([up, side, down])) == 2
    assert "mcp.manager imports gaia_lite.agent.selection" in upward_imports([up])[0]
    ring = [Import("gaia_lite.memory.rag", "gaia_lite.memory.watch", here, 4),
            Import("gaia_lite.memory.watch", "gaia_lite.memory.rag", here, 5)]
    assert [len(c) for c in import_cycles([*ring, down])] == [2]
    assert len(collect_imports()) > 300  # the scan sees the codebase
