"""Offline recall of the tool loader on a judged set (``gaia-lite eval recall``).

Every case runs in a fresh loader session: its ``history`` turns are selected
first (as earlier user turns), then the case query. A case passes when every
expected tool is in the loaded set (any one of them for ``match: "any"``).
Cases that expect no tool (chit-chat) are not scored for recall; they report
how many tools were loaded anyway (``no_tool_mean_loaded``).

Ranking metrics (``r_at_k``, ``mrr``) rank *every* registry tool by the
loader's semantic score for the case's final query, independent of τ and the
cap: r@k = all expected tools (any one for ``match: any``) within the top k;
mrr = mean of 1 / rank of the best-ranked expected tool.

Costs are tokens of what the model would see: ``json.dumps`` of the OpenAI
schemas (native path) and the text block (text path) of the loaded set,
against the same renders of the whole tool set without ``load_tools`` (the
build without the loader).
"""

from __future__ import annotations

import dataclasses
import json
import logging
import random
import statistics
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from gaia_lite.embed.base import Embedder
from gaia_lite.loader.bundles import ToolBundle, load_bundles
from gaia_lite.loader.cache import DocEmbeddingCache
from gaia_lite.loader.documents import load_examples
from gaia_lite.loader.loader import ToolLoader, selection_query
from gaia_lite.loader.presets import LoaderSettings, preset as get_preset
from gaia_lite.registry.jsonspec import spec_from_json_schema
from gaia_lite.registry.registry import ToolRegistry
from gaia_lite.registry.render import native_json, render_native, render_text
from gaia_lite.memory.store import MemoryStore
from gaia_lite.skills.learning import LearnedTools, LearningStore
from gaia_lite.skills.store import ProcedureStore
from gaia_lite.tools.catalog import doc_tool_specs

from .judged_format import load_judged_set
from .tokens import CharTokenCounter, TokenCounter

__all__ = ["JudgedCase", "load_cases", "doc_registry", "dataset_registry", "run_recall", "select_report",
           "case_kind", "learn_from_cases", "turn_tools", "KINDS", "MAX_DATASET_BUNDLE"]

KINDS = ("single", "multi", "drift", "ambiguous", "chitchat")
# GAIA keeps bundles <= 6 members so one pull-in cannot swamp the slots; a
# dataset group larger than that (a whole BFCL category) becomes one bundle per tool.
MAX_DATASET_BUNDLE = 6
LOAD_TOOLS = "load_tools"


@dataclass(frozen=True)
class JudgedCase:
    id: str
    query: str
    expected: tuple[str, ...]
    match: str
    history: tuple[str, ...]
    kind: str


def case_kind(raw: Mapping[str, Any]) -> str:
    """The case's ``group`` when it names a kind, else derived from its shape."""
    group = raw.get("group")
    if isinstance(group, str) and group in KINDS:
        return group
    expected = raw.get("expected_tools") or []
    if not expected:
        return "chitchat"
    if raw.get("history"):
        return "drift"
    return "multi" if len(expected) > 1 else "single"


def load_cases(data: Mapping[str, Any]) -> list[JudgedCase]:
    return [JudgedCase(str(c["id"]), str(c["query"]), tuple(c.get("expected_tools") or ()),
                       str(c.get("match") or "all"), tuple(str(h) for h in c.get("history") or ()), case_kind(c))
            for c in data["cases"]]


def doc_registry() -> tuple[ToolRegistry, frozenset[str], tuple[ToolBundle, ...], list[str]]:
    """The loader-on doc registry (37 tools + load_tools), CORE, bundles, and the baseline names."""
    baseline = [s.name for s in doc_tool_specs()]
    registry = ToolRegistry(doc_tool_specs(with_loader=True))
    config = load_bundles("doc")
    return registry, config.core, config.bundles, baseline


def dataset_registry(tools: Sequence[Mapping[str, Any]]) -> tuple[ToolRegistry, frozenset[str], tuple[ToolBundle, ...]]:
    """Registry from a dataset's JSON tools: no CORE; bundles from ``group`` (<= 6 members) else one per tool."""
    if not tools:
        raise ValueError("this dataset has no tools: use --registry doc")
    registry = ToolRegistry(spec_from_json_schema(t["name"], t.get("description", ""), t.get("parameters"))
                            for t in tools)
    groups: dict[str, list[str]] = {}
    for t in tools:
        group = t.get("group")
        if isinstance(group, str) and group:
            groups.setdefault(group, []).append(t["name"])
    bundles: list[ToolBundle] = []
    grouped: set[str] = set()
    for name, members in groups.items():
        if len(members) <= MAX_DATASET_BUNDLE:
            bundles.append(ToolBundle(f"group:{name}", frozenset(members)))
            grouped.update(members)
    bundles.extend(ToolBundle(t["name"], frozenset({t["name"]})) for t in tools if t["name"] not in grouped)
    return registry, frozenset(), tuple(bundles)


def turn_tools(case: JudgedCase) -> tuple[str, ...]:
    """The tools a successful turn of this case would have called: every expected tool, or the
    first one where any of them will do (``match: any``)."""
    return case.expected[:1] if case.match == "any" else case.expected


def learn_from_cases(cases: Sequence[JudgedCase], registry: ToolRegistry, *,
                     prior: Mapping[str, Sequence[str]] | None = None) -> LearnedTools:
    """The replay protocol: each case with expected tools becomes a successful past turn (its
    message, its tools each called once and succeeding) in a throwaway memory database, recorded
    exactly as the agent records a turn; returns what the loader learns from that memory."""
    with tempfile.TemporaryDirectory(prefix="gaia-learn-") as tmp:
        memory = MemoryStore(Path(tmp) / "memory.db")
        try:
            spans, learning = ProcedureStore(memory), LearningStore(memory)
            for case in cases:
                calls = [(t, {}, True) for t in turn_tools(case) if t in registry]
                if not calls:
                    continue
                spans.record_turn(case.query, calls, success=True, answered=True)
                learning.learn_turn(case.query, calls)
            return learning.snapshot(prior)
        finally:
            memory.close()


def _quiet_logger() -> logging.Logger:
    # Not registered with the logging manager: no global state, and INFO lines are
    # never built (the loader checks isEnabledFor first). Warnings still reach stderr.
    return logging.Logger("gaia_lite.eval.recall", level=logging.WARNING)


def _forget_queries(embedder: Embedder) -> None:
    """Empty the embedder's in-process LRU so every case pays for its query embedding.

    Judged sets repeat history turns and presets are run back to back; cached
    query vectors would make ``selection_ms`` look faster than a real turn.
    Tool documents are unaffected: they come from the loader's own cache.
    """
    lru = getattr(embedder, "_cache", None)
    if hasattr(lru, "clear"):
        lru.clear()


def _percentile(values: Sequence[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def _ranks(scores: Mapping[str, float]) -> dict[str, int]:
    order = sorted(scores, key=lambda n: -scores[n])  # stable: ties keep registry order
    return {n: i + 1 for i, n in enumerate(order)}


def _hit(expected: Iterable[str], visible: Callable[[str], bool], match: str) -> bool:
    flags = [visible(t) for t in expected]
    return any(flags) if match == "any" else all(flags)


def run_recall(
    dataset_path: str | Path,
    *,
    registry_mode: str = "doc",
    preset: str = "default",
    settings: LoaderSettings | None = None,
    threshold: float | None = None,
    max_tools: int | None = None,
    embedder: Embedder,
    token_counter: TokenCounter | None = None,
    limit: int | None = None,
    sample_seed: int = 0,
    case_filter: Callable[[JudgedCase], bool] | None = None,
    cache_dir: str | Path | None = None,
    include_cases: bool = False,
    learn_from: str | Path | None = None,
) -> dict[str, Any]:
    """Run the loader over a judged set and return the report dict (keys documented in the module).

    ``learn_from``: a judged set whose cases are first fed into a throwaway memory as successful
    past turns (``learn_from_cases``); the loader then selects with what it learned. Without it
    the loader is built exactly as before, so cold start changes nothing.
    """
    data = load_judged_set(Path(dataset_path))
    if registry_mode == "doc":
        registry, core, bundles, baseline = doc_registry()
    elif registry_mode == "dataset":
        registry, core, bundles = dataset_registry(data.get("tools") or [])
        baseline = registry.names()
    elif registry_mode == "mcp":  # the set's tools through a real MCP session
        from .mcp_registry import mcp_registry  # kept lazy: starts a server and loads the MCP SDK

        served = mcp_registry(dataset_path)
        try:
            report = run_recall_on(served.registry, frozenset(), served.bundles, served.registry.names(),
                                   data, registry_mode=registry_mode, preset=preset, settings=settings,
                                   threshold=threshold, max_tools=max_tools, embedder=embedder,
                                   token_counter=token_counter, limit=limit, sample_seed=sample_seed,
                                   case_filter=case_filter, cache_dir=cache_dir, include_cases=include_cases,
                                   learn_from=learn_from, rename=served.rename)
        finally:
            served.close()
        report["mcp_connect_s"] = served.connect_s
        return report
    else:
        raise ValueError(f"registry_mode must be 'doc', 'dataset' or 'mcp', not {registry_mode!r}")
    return run_recall_on(registry, core, bundles, baseline, data, registry_mode=registry_mode, preset=preset,
                         settings=settings, threshold=threshold, max_tools=max_tools, embedder=embedder,
                         token_counter=token_counter, limit=limit, sample_seed=sample_seed, case_filter=case_filter,
                         cache_dir=cache_dir, include_cases=include_cases, learn_from=learn_from)


def run_recall_on(
    registry: ToolRegistry, core: frozenset[str], bundles: tuple[ToolBundle, ...], baseline: Sequence[str],
    data: Mapping[str, Any], *, registry_mode: str, preset: str, settings: LoaderSettings | None,
    threshold: float | None, max_tools: int | None, embedder: Embedder, token_counter: TokenCounter | None,
    limit: int | None, sample_seed: int, case_filter: Callable[[JudgedCase], bool] | None,
    cache_dir: str | Path | None, include_cases: bool, learn_from: str | Path | None,
    rename: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """``run_recall`` on a registry already built; ``rename`` maps the set's tool names to the registry's."""
    loader_settings = settings if settings is not None else get_preset(preset)
    config = load_bundles("doc") if registry_mode == "doc" else None
    learned = LearnedTools()
    if learn_from is not None:
        train = load_judged_set(Path(learn_from), allow_empty=True)
        learned = learn_from_cases(_renamed(load_cases(train), rename), registry,
                                   prior=config.companions if config else None)
    examples = load_examples("doc") if config and "examples" in loader_settings.views else {}
    loader = ToolLoader(core, bundles, embedder, settings=loader_settings, threshold=threshold,
                        max_tools=max_tools, examples=examples, aliases=config.aliases if config else {},
                        learned_examples=learned.examples, companions=learned.companions,
                        doc_cache=DocEmbeddingCache(cache_dir),
                        logger=_quiet_logger())
    counter = token_counter or CharTokenCounter()

    cases = _renamed(load_cases(data), rename)
    if case_filter is not None:
        cases = [c for c in cases if case_filter(c)]
    if limit is not None and limit < len(cases):
        cases = sorted(random.Random(sample_seed).sample(cases, limit), key=lambda c: c.id)

    native_memo: dict[tuple[str, ...], int] = {}
    text_memo: dict[tuple[str, ...], int] = {}

    def native_tokens(names: Sequence[str]) -> int:
        key = tuple(names)
        if key not in native_memo:
            native_memo[key] = counter.count(native_json(render_native(registry, names)))
        return native_memo[key]

    def text_tokens(names: Sequence[str]) -> int:
        key = tuple(names)
        if key not in text_memo:
            text_memo[key] = counter.count(render_text(registry, names))
        return text_memo[key]

    scored = skipped = no_tool = 0
    passes: dict[str, list[bool]] = {}
    loaded_sizes: list[int] = []
    native_costs: list[int] = []
    text_costs: list[int] = []
    no_tool_sizes: list[int] = []
    latencies: list[float] = []
    rank_hits = {1: 0, 5: 0, 10: 0}
    reciprocal: list[float] = []
    per_case: list[dict[str, Any]] = []

    for case in cases:
        loader.reset_session()
        _forget_queries(embedder)
        for i, turn in enumerate(case.history):
            loader.select(selection_query(case.history[:i], turn), registry)
        sel = loader.select(selection_query(case.history, case.query), registry)
        if sel is None:
            raise RuntimeError("the embedder failed during the recall run; see the warning above")
        latencies.append(sel.record.selection_ms)
        loaded = set(sel.loaded)
        if not case.expected:
            no_tool += 1
            skipped += 1
            no_tool_sizes.append(len(loaded))
            continue
        if any(t not in registry for t in case.expected):
            skipped += 1
            continue
        scored += 1
        ok = _hit(case.expected, loaded.__contains__, case.match)
        passes.setdefault(case.kind, []).append(ok)
        loaded_sizes.append(len(loaded))
        native_costs.append(native_tokens(sel.loaded))
        text_costs.append(text_tokens(sel.loaded))
        ranks = _ranks(sel.record.scores)
        for k in rank_hits:
            rank_hits[k] += _hit(case.expected, lambda t, k=k: ranks[t] <= k, case.match)
        reciprocal.append(1.0 / min(ranks[t] for t in case.expected))
        if include_cases:
            per_case.append({"id": case.id, "kind": case.kind, "pass": ok,
                             "missing": sorted(t for t in case.expected if t not in loaded),
                             "loaded": len(loaded), "ranks": {t: ranks[t] for t in case.expected}})

    all_passes = [p for ps in passes.values() for p in ps]
    mean = statistics.fmean
    report: dict[str, Any] = {
        "cases": len(cases),
        "scored_cases": scored,
        "skipped_cases": skipped,
        "recall": mean(all_passes) if all_passes else 0.0,
        "recall_by_kind": {k: mean(v) for k, v in sorted(passes.items())},
        "mean_loaded": mean(loaded_sizes) if loaded_sizes else 0.0,
        "mean_native_tokens": mean(native_costs) if native_costs else 0.0,
        "baseline_native_tokens": native_tokens(baseline),
        "mean_text_tokens": mean(text_costs) if text_costs else 0.0,
        "baseline_text_tokens": text_tokens(baseline),
        "no_tool_mean_loaded": mean(no_tool_sizes) if no_tool_sizes else 0.0,
        "r_at_1": rank_hits[1] / scored if scored else 0.0,
        "r_at_5": rank_hits[5] / scored if scored else 0.0,
        "r_at_10": rank_hits[10] / scored if scored else 0.0,
        "mrr": mean(reciprocal) if reciprocal else 0.0,
        "selection_ms_p50": _percentile(latencies, 0.50),
        "selection_ms_p95": _percentile(latencies, 0.95),
        "tokenizer": counter.name,
        "no_tool_cases": no_tool,
        "native_cost_ratio": (mean(native_costs) / native_tokens(baseline)) if native_costs else 0.0,
        "preset": preset if settings is None else "custom",
        "threshold": loader.threshold,
        "max_tools": loader.max_tools,
        "registry_mode": registry_mode,
        "tools": len(registry),
    }
    if learn_from is not None:
        report["learned"] = {"from": str(learn_from), "examples": sum(len(v) for v in learned.examples.values()),
                             "tools_with_examples": len(learned.examples),
                             "companion_edges": sum(1 for e in learned.companions.edges if e.strong)}
    if include_cases:
        report["case_results"] = per_case
    return report


def _renamed(cases: list[JudgedCase], rename: Mapping[str, str] | None) -> list[JudgedCase]:
    if not rename:
        return cases
    return [dataclasses.replace(c, expected=tuple(rename.get(t, t) for t in c.expected)) for c in cases]


def select_report(query: str, history: Sequence[str], loader: ToolLoader,
                  registry: ToolRegistry) -> dict[str, Any]:
    """One selection as ``gaia-lite tools select`` prints it (a fresh session).

    History turns are selected first, as earlier user turns, so the loaded set
    is what the loader would show at this point of a conversation.
    """
    loader.reset_session()
    for i, turn in enumerate(history):
        loader.select(selection_query(history[:i], turn), registry)
    sel = loader.select(selection_query(history, query), registry)
    if sel is None:
        return {"loaded": None, "reasons": {}, "matched": [], "scores": {},
                "note": "the embedder failed: the loader is off and every tool would be shown"}
    ranked = sorted(sel.record.scores.items(), key=lambda kv: -kv[1])
    return {"loaded": list(sel.loaded), "reasons": dict(sel.reasons), "matched": list(sel.record.matched),
            "scores": {n: round(s, 4) for n, s in ranked}}
