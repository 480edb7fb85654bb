"""What the tool list costs in the prompt, and how that cost grows with the catalog.

``gaia-lite eval cost`` (GAIA's ``tool_cost`` benchmark), measured
on our registry with our token counters (``gaia_lite.eval.tokens``):

* per-tool cost on both render paths (each tool rendered alone): min, median,
  max, mean;
* the 37-tool baseline (the build without the loader), the CORE share, the
  bundle menu, and the loaded sets the real loader picks for a few fixed
  queries;
* the slope: the median-sized real tool is cloned K times (renamed, with its
  own bundles, so the loader scores and can select the clones like any other
  tool); the unfiltered cost and the loader-on cost are measured at each K for
  a fixed query that is about something else, and again for a query that *does*
  match the clones. Slope = tokens per added tool between the smallest and the
  largest K.

The native path is ``json.dumps`` of the OpenAI schemas (what ``tools=``
carries); the text path is the one-line-per-tool block of the system prompt.
The bundle menu sits in the system prompt of native-path models while the
loader is on (text-path models do not get it, as in GAIA), so it is reported
as its own series rather than hidden in either.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from gaia_lite.embed.base import Embedder, EmbedderError
from gaia_lite.loader.bundles import ToolBundle
from gaia_lite.loader.cache import DocEmbeddingCache
from gaia_lite.loader.documents import load_examples
from gaia_lite.loader.worked import load_worked
from gaia_lite.loader.loader import Selection, ToolLoader, selection_query
from gaia_lite.loader.presets import preset as get_preset
from gaia_lite.registry.registry import ToolRegistry
from gaia_lite.registry.render import native_json, render_native, render_text
from gaia_lite.registry.spec import ToolSpec

from .recall import doc_registry, quiet_logger
from .tokens import TokenCounter

__all__ = ["FIXED_QUERY", "MATCHING_QUERY", "TYPICAL_QUERIES", "DEFAULT_SIZES", "CLONE_BUNDLE_SIZE",
           "Costs", "clone_tools", "slope", "distribution", "run_cost"]

DEFAULT_SIZES = (0, 10, 100, 1000)
# GAIA keeps bundles at <= 6 members; clones come in bundles of 5, like a small MCP server each.
CLONE_BUNDLE_SIZE = 5
# A doc-profile request with nothing to do with the cloned tool (checked: no clone is loaded).
FIXED_QUERY = "How many paid vacation days do first-year employees get according to the employee handbook?"
# A request the clones *do* match when the median tool is the image question tool; the
# honest variant, where clones compete for the dynamic slots.
MATCHING_QUERY = "Look at the photo chart.png and tell me what the picture shows."
TYPICAL_QUERIES = (
    ("rag question", "What does the handbook say about working from home?"),
    ("index a folder", "Index all the PDFs in my reports folder so I can ask about them."),
    ("find a file", "Where is the Q3 budget spreadsheet? I can't remember which folder it is in."),
    ("edit a file", "Fix the typo 'recieve' in notes/todo.md."),
    ("data question", "What was the total revenue per region in sales_2025.csv?"),
    ("shell / system", "How much free disk space do I have?"),
    ("chit-chat", "What is the capital of France?"),
)


@dataclass(frozen=True)
class Costs:
    """Token counts of one set of tools on both render paths."""

    n: int
    text: int
    native: int
    text_chars: int
    native_chars: int


class _Meter:
    """Token counts of renders, memoised by the tuple of tool names."""

    def __init__(self, registry: ToolRegistry, counter: TokenCounter) -> None:
        self.registry = registry
        self.counter = counter
        self._memo: dict[tuple[str, ...], Costs] = {}

    def costs(self, names: Sequence[str]) -> Costs:
        key = tuple(names)
        hit = self._memo.get(key)
        if hit is None:
            text = render_text(self.registry, key)
            native = native_json(render_native(self.registry, key)) if key else ""
            hit = Costs(len(key), self.counter.count(text) if text else 0,
                        self.counter.count(native) if native else 0, len(text), len(native))
            self._memo[key] = hit
        return hit


def distribution(values: Sequence[int]) -> dict[str, float]:
    if not values:
        return {"min": 0, "median": 0, "max": 0, "mean": 0.0}
    return {"min": min(values), "median": statistics.median(values), "max": max(values),
            "mean": round(statistics.fmean(values), 2)}


def slope(series: Sequence[tuple[int, float]]) -> float | None:
    """Tokens per added tool between the smallest and the largest K (None with < 2 sizes)."""
    points = sorted(series)
    if len(points) < 2 or points[-1][0] == points[0][0]:
        return None
    (k0, c0), (k1, c1) = points[0], points[-1]
    return (c1 - c0) / (k1 - k0)


def _stub(**_: Any) -> dict[str, Any]:
    return {"status": "error", "error": "this is a cloned tool used only to measure prompt cost"}


def clone_tools(base: ToolSpec, k: int, *, bundle_size: int = CLONE_BUNDLE_SIZE
                ) -> tuple[list[ToolSpec], list[ToolBundle]]:
    """K renamed copies of ``base`` and the bundles that hold them.

    Each clone has its own name and a distinct first line (the loader embeds
    that), the same parameters and a description of the same length class, so
    each costs about what ``base`` costs.
    """
    clones: list[ToolSpec] = []
    for i in range(k):
        name = f"{base.name}_v{i:04d}"
        summary = f"{base.summary.rstrip('.')} (variant {i:04d})."
        rest = base.description.split("\n", 1)[1] if "\n" in base.description else ""
        description = summary + ("\n" + rest if rest else "")
        clones.append(ToolSpec(name, summary, description, base.params, _stub, base.gated, base.timeout, False))
    bundles = [ToolBundle(f"{base.name}_variants_{j // bundle_size:03d}",
                          frozenset(c.name for c in clones[j:j + bundle_size]),
                          f"More variants of {base.name} (set {j // bundle_size:03d}).")
               for j in range(0, k, bundle_size)]
    return clones, bundles


class _Lab:
    """Builds loaders over the doc registry (optionally with clones) sharing one vector cache."""

    def __init__(self, embedder: Embedder, preset: str, threshold: float | None, max_tools: int | None,
                 cache_dir: str | Path | None) -> None:
        self.embedder = embedder
        self.settings = get_preset(preset)
        self.threshold = threshold
        self.max_tools = max_tools
        self.cache = DocEmbeddingCache(cache_dir)
        self.registry, self.core, self.bundles, self.baseline = doc_registry()
        self.examples = load_examples("doc") if "examples" in self.settings.views else {}

    def loader(self, bundles: Sequence[ToolBundle]) -> ToolLoader:
        return ToolLoader(self.core, bundles, self.embedder, settings=self.settings, threshold=self.threshold,
                          max_tools=self.max_tools, examples=self.examples, doc_cache=self.cache,
                          worked=load_worked("doc") if self.settings.worked else (),
                          logger=quiet_logger("gaia_lite.eval.cost"))

    def select(self, loader: ToolLoader, registry: ToolRegistry, query: str) -> Selection:
        loader.reset_session()
        sel = loader.select(selection_query([], query), registry)
        if sel is None:
            raise EmbedderError("the embedder failed while measuring the loaded sets")
        return sel


def _share(part: Costs, whole: Costs) -> dict[str, float]:
    return {"text_share": round(part.text / whole.text, 4) if whole.text else 0.0,
            "native_share": round(part.native / whole.native, 4) if whole.native else 0.0}


def _set_report(label: str, names: Sequence[str], meter: _Meter, baseline: Costs, **extra: Any) -> dict[str, Any]:
    c = meter.costs(names)
    return {"label": label, **extra, "n": c.n, "loaded": list(names), "text_tokens": c.text,
            "native_tokens": c.native, **_share(c, baseline)}


def _series(lab: _Lab, base: ToolSpec, sizes: Sequence[int], query: str, counter: TokenCounter,
            bundle_size: int, progress: Callable[[str], None] | None) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for k in sorted(set(sizes)):
        if progress:
            progress(f"K={k}: {'scoring' if k else 'baseline'} for {query[:40]!r}")
        extra, clone_bundles = clone_tools(base, k, bundle_size=bundle_size)
        clone_names = {c.name for c in extra}
        off_registry = ToolRegistry([*lab.registry.specs(lab.baseline), *extra])
        on_registry = ToolRegistry([*lab.registry, *extra])
        loader = lab.loader([*lab.bundles, *clone_bundles])
        sel = lab.select(loader, on_registry, query)
        loaded = sel.loaded
        off = _Meter(off_registry, counter).costs(off_registry.names())
        on = _Meter(on_registry, counter).costs(loaded)
        menu = loader.format_bundle_menu()
        rows.append({
            "k": k, "tools_registered": len(off_registry),
            "unfiltered_native": off.native, "unfiltered_text": off.text,
            "loaded_native": on.native, "loaded_text": on.text,
            "menu_tokens": counter.count(menu) if menu else 0,
            "loaded_n": len(loaded), "clones_loaded": sum(1 for n in loaded if n in clone_names),
            "clones_matched": sum(1 for n in sel.record.matched if n in clone_names),
            "original_loaded": base.name in loaded,
        })
    return rows


def _slopes(rows: Sequence[dict[str, Any]]) -> dict[str, float | None]:
    keys = ("unfiltered_native", "loaded_native", "unfiltered_text", "loaded_text", "menu_tokens")
    out = {key: slope([(r["k"], r[key]) for r in rows]) for key in keys}
    out["loaded_menu"] = out.pop("menu_tokens")
    return {k: (round(v, 4) if v is not None else None) for k, v in out.items()}


def _path_report(path: str, baseline: Costs, per_tool: Mapping[str, Costs]) -> dict[str, Any]:
    """One render path's baseline and the distribution of its per-tool costs."""
    tokens = [getattr(c, path) for c in per_tool.values()]
    chars = [getattr(c, f"{path}_chars") for c in per_tool.values()]
    d, dc = distribution(tokens), distribution(chars)
    return {"baseline_tokens": getattr(baseline, path), "baseline_chars": getattr(baseline, f"{path}_chars"),
            "per_tool_min": d["min"], "per_tool_median": d["median"], "per_tool_max": d["max"],
            "per_tool_mean": d["mean"], "per_tool_chars": dc}


def _loaded_sets(lab: _Lab, doc_loader: ToolLoader, meter: _Meter, baseline: Costs, per_tool: Mapping[str, Costs],
                 typical_queries: Sequence[tuple[str, str]]) -> list[dict[str, Any]]:
    """CORE with and without load_tools, what typical queries load, and the worst case (the largest tools)."""
    core_10 = [n for n in lab.registry.names() if n in lab.core and n != "load_tools"]
    core_11 = [n for n in lab.registry.names() if n in lab.core]
    largest = sorted(lab.baseline, key=lambda n: (-per_tool[n].native, n))[:lab.loader([]).max_tools]
    sets = [_set_report("CORE without load_tools", core_10, meter, baseline),
            _set_report("CORE (with load_tools)", core_11, meter, baseline)]
    for label, q in typical_queries:
        sets.append(_set_report(label, lab.select(doc_loader, lab.registry, q).loaded, meter, baseline, query=q))
    sets.append(_set_report(f"{len(largest)} largest tools (worst case)", largest, meter, baseline))
    return sets


def _worked_report(lab: _Lab, doc_loader: ToolLoader, counter: TokenCounter,
                   typical_queries: Sequence[tuple[str, str]]) -> dict[str, Any]:
    """What the worked examples cost: each example line in the reply format's shape, the header, and the
    block each typical query gets. They ride in the user's message, so they cost the turn that shows
    them and never the cached prefix."""
    # kept lazy: the agent layer sits above the eval's loader code
    from gaia_lite.agent.prompt import WORKED_HEADER, worked_block
    from gaia_lite.loader.worked import WorkedPick

    bank = doc_loader.worked.examples
    lines = [counter.count(worked_block([WorkedPick(e, 1.0)], key="tool").split("\n", 1)[1]) for e in bank]
    per_query = []
    for label, q in typical_queries:
        picks = lab.select(doc_loader, lab.registry, q).examples
        block = worked_block(picks, key="tool")
        per_query.append({"label": label, "examples": [p.example.tool for p in picks],
                          "tokens": counter.count(block) if block else 0})
    return {"bank": len(bank), "per_turn": doc_loader.settings.worked, "shown": doc_loader.settings.show_worked,
            "header_tokens": counter.count(WORKED_HEADER),
            "line_tokens": distribution(lines) if lines else {}, "queries": per_query}


def run_cost(*, embedder: Embedder, counter: TokenCounter, sizes: Sequence[int] = DEFAULT_SIZES,
             preset: str = "default", threshold: float | None = None, max_tools: int | None = None,
             query: str = FIXED_QUERY, matching_query: str | None = MATCHING_QUERY,
             typical_queries: Sequence[tuple[str, str]] = TYPICAL_QUERIES,
             clone_bundle_size: int = CLONE_BUNDLE_SIZE, cache_dir: str | Path | None = None,
             progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """The full cost report as a JSON-ready dict (keys in the module docstring and docs/benchmarks.md)."""
    if any(k < 0 for k in sizes):
        raise ValueError("sizes must be >= 0")
    lab = _Lab(embedder, preset, threshold, max_tools, cache_dir)
    meter = _Meter(lab.registry, counter)
    baseline = meter.costs(lab.baseline)
    per_tool = {n: meter.costs([n]) for n in lab.baseline}
    # the median-sized real tool by native tokens (an actual tool: the lower middle on ties)
    ranked = sorted(lab.baseline, key=lambda n: (per_tool[n].native, n))
    median_tool = lab.registry[ranked[(len(ranked) - 1) // 2]]
    doc_loader = lab.loader(lab.bundles)
    lab.core = frozenset(doc_loader.core)  # the preset's CORE (default: without loop control)
    core_11 = [n for n in lab.registry.names() if n in lab.core]
    menu = doc_loader.format_bundle_menu()
    sets = _loaded_sets(lab, doc_loader, meter, baseline, per_tool, typical_queries)
    if progress:
        progress(f"slope: cloning {median_tool.name} up to {max(sizes, default=0)} times")
    rows = _series(lab, median_tool, sizes, query, counter, clone_bundle_size, progress)
    report: dict[str, Any] = {
        "tokenizer": counter.name,
        "tools": len(lab.baseline),
        "preset": preset,
        "threshold": doc_loader.threshold,
        "max_tools": doc_loader.max_tools,
        "text": _path_report("text", baseline, per_tool),
        "native": _path_report("native", baseline, per_tool),
        "per_tool": {n: {"text": c.text, "native": c.native} for n, c in per_tool.items()},
        "core": {"names": core_11, **_share(meter.costs(core_11), baseline),
                 "text_tokens": meter.costs(core_11).text, "native_tokens": meter.costs(core_11).native},
        "menu_tokens": counter.count(menu) if menu else 0,
        "loaded_sets": sets,
        "slope": {**_slopes(rows), "clone_of": median_tool.name,
                  "clone_native_tokens": per_tool[median_tool.name].native,
                  "clone_text_tokens": per_tool[median_tool.name].text,
                  "clone_bundle_size": clone_bundle_size, "query": query},
        "series": rows,
    }
    report["worked"] = _worked_report(lab, doc_loader, counter, typical_queries)
    if matching_query:
        match_rows = _series(lab, median_tool, sizes, matching_query, counter, clone_bundle_size, progress)
        report["matching"] = {"query": matching_query, "slope": _slopes(match_rows), "series": match_rows}
    return report
