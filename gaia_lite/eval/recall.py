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

from gaia_lite.embed.base import Embedder, EmbedderError
from gaia_lite.loader.bundles import ToolBundle, load_bundles
from gaia_lite.loader.cache import DocEmbeddingCache
from gaia_lite.loader.documents import load_examples
from gaia_lite.loader.worked import load_worked
from gaia_lite.loader.loader import Selection, ToolLoader, selection_query
from gaia_lite.loader.presets import LoaderSettings, preset as get_preset
from gaia_lite.logline import SelectionRecord
from gaia_lite.registry.jsonspec import spec_from_json_schema
from gaia_lite.registry.registry import ToolRegistry
from gaia_lite.registry.render import native_json, render_native, render_text
from gaia_lite.memory.store import MemoryStore
from gaia_lite.skills.learning import LearnedTools, LearningStore
from gaia_lite.skills.store import ProcedureStore
from gaia_lite.tools.catalog import doc_tool_specs

from .judged_format import load_judged_set
from .tokens import CharTokenCounter, TokenCounter

__all__ = ["JudgedCase", "load_cases", "doc_registry", "dataset_registry", "run_recall", "run_recall_on",
           "select_report", "case_kind", "learn_from_cases", "turn_tools", "KINDS", "MAX_DATASET_BUNDLE",
           "RecallConfig", "RecallTools", "CaseOutcome", "ToolCosts", "select_case", "case_passes",
           "recall_metrics", "quiet_logger", "mean_or_zero"]

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


def quiet_logger(name: str = "gaia_lite.eval.recall") -> logging.Logger:
    """A loader logger for evals. Not registered with the logging manager: no global state, and
    INFO lines are never built (the loader checks isEnabledFor first). Warnings still reach stderr."""
    return logging.Logger(name, level=logging.WARNING)


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


def case_passes(case: JudgedCase, loaded: Iterable[str]) -> bool:
    """Strict recall of one case: every expected tool loaded, or any one for ``match: any``."""
    return _hit(case.expected, set(loaded).__contains__, case.match)


def mean_or_zero(values: Sequence[float]) -> float:
    return statistics.fmean(values) if values else 0.0


class ToolCosts:
    """Tokens of what the model sees for a set of tools, on both render paths, memoised per set."""

    def __init__(self, registry: ToolRegistry, counter: TokenCounter) -> None:
        self.registry, self.counter = registry, counter
        self._native: dict[tuple[str, ...], int] = {}
        self._text: dict[tuple[str, ...], int] = {}

    def native(self, names: Sequence[str]) -> int:
        key = tuple(names)
        if key not in self._native:
            self._native[key] = self.counter.count(native_json(render_native(self.registry, names)))
        return self._native[key]

    def text(self, names: Sequence[str]) -> int:
        key = tuple(names)
        if key not in self._text:
            self._text[key] = self.counter.count(render_text(self.registry, names))
        return self._text[key]


SkillTools = Callable[[str], Sequence[str] | None]  # a turn's text -> the SKILL tier's tools for it


def select_case(loader: ToolLoader, registry: ToolRegistry, case: JudgedCase,
                skill_tools: SkillTools | None = None) -> Selection[SelectionRecord]:
    """A fresh session: the case's history turns are selected first, as earlier user turns, then its query."""
    loader.reset_session()
    turns = [*case.history, case.query]
    sel = None
    for i, turn in enumerate(turns):
        sel = loader.select(selection_query(case.history[:i], turn), registry,
                            skill_tools=skill_tools(turn) if skill_tools is not None else None)
        if sel is None:
            raise EmbedderError("the embedder failed during the recall run; see the warning above")
    assert sel is not None  # a case always has its query
    return sel


@dataclass(frozen=True)
class RecallConfig:
    """How one recall run selects: the knobs of ``run_recall`` other than the set, embedder and counter."""

    registry_mode: str = "doc"
    preset: str = "default"
    settings: LoaderSettings | None = None  # overrides the preset (reported as "custom")
    threshold: float | None = None
    max_tools: int | None = None
    limit: int | None = None
    sample_seed: int = 0
    case_filter: Callable[[JudgedCase], bool] | None = None
    cache_dir: str | Path | None = None
    include_cases: bool = False
    learn_from: str | Path | None = None

    @property
    def loader_settings(self) -> LoaderSettings:
        return self.settings if self.settings is not None else get_preset(self.preset)

    def chosen(self, cases: list[JudgedCase]) -> list[JudgedCase]:
        """The cases this run scores: filtered, then a fixed random sample of ``limit``."""
        if self.case_filter is not None:
            cases = [c for c in cases if self.case_filter(c)]
        if self.limit is not None and self.limit < len(cases):
            cases = sorted(random.Random(self.sample_seed).sample(cases, self.limit), key=lambda c: c.id)
        return cases


@dataclass(frozen=True)
class RecallTools:
    """The tools a run selects from: a registry, its CORE and bundles, and the names the build
    without the loader would show; ``rename`` maps the set's tool names to the registry's."""

    registry: ToolRegistry
    core: frozenset[str]
    bundles: tuple[ToolBundle, ...]
    baseline: Sequence[str]
    rename: Mapping[str, str] | None = None


@dataclass(frozen=True)
class CaseOutcome:
    """One case through the loader. ``ranks`` (of the expected tools, among all tools by score)
    is None for a case that is not scored: it expects no tool, or one the registry lacks."""

    case: JudgedCase
    loaded: tuple[str, ...]
    selection_ms: float
    ranks: Mapping[str, int] | None = None
    native_tokens: int = 0
    text_tokens: int = 0

    @property
    def no_tool(self) -> bool:
        return not self.case.expected

    @property
    def passed(self) -> bool:
        return case_passes(self.case, self.loaded)

    def hit_at(self, k: int) -> bool:
        ranks = self.ranks or {}
        return _hit(self.case.expected, lambda t: ranks[t] <= k, self.case.match)

    def row(self) -> dict[str, Any]:
        """The per-case result of ``--cases``."""
        return {"id": self.case.id, "kind": self.case.kind, "pass": self.passed,
                "missing": sorted(t for t in self.case.expected if t not in self.loaded),
                "loaded": len(set(self.loaded)), "ranks": dict(self.ranks or {})}


def run_case(case: JudgedCase, loader: ToolLoader, registry: ToolRegistry, costs: ToolCosts,
             embedder: Embedder) -> CaseOutcome:
    _forget_queries(embedder)
    sel = select_case(loader, registry, case)
    outcome = CaseOutcome(case, tuple(sel.loaded), sel.record.selection_ms)
    if not case.expected or any(t not in registry for t in case.expected):
        return outcome
    ranks = _ranks(sel.record.scores)
    return dataclasses.replace(outcome, ranks={t: ranks[t] for t in case.expected},
                               native_tokens=costs.native(sel.loaded), text_tokens=costs.text(sel.loaded))


def recall_metrics(outcomes: Sequence[CaseOutcome], costs: ToolCosts, baseline: Sequence[str]) -> dict[str, Any]:
    """The report's figures, built from the outcomes (keys and order are the JSON interface)."""
    scored = [o for o in outcomes if o.ranks is not None]
    by_kind: dict[str, list[bool]] = {}
    for o in scored:
        by_kind.setdefault(o.case.kind, []).append(o.passed)
    native = [o.native_tokens for o in scored]
    latencies = [o.selection_ms for o in outcomes]
    n = len(scored)
    return {
        "cases": len(outcomes),
        "scored_cases": n,
        "skipped_cases": len(outcomes) - n,
        "recall": mean_or_zero([o.passed for o in scored]),
        "recall_by_kind": {k: statistics.fmean(v) for k, v in sorted(by_kind.items())},
        "mean_loaded": mean_or_zero([len(set(o.loaded)) for o in scored]),
        "mean_native_tokens": mean_or_zero(native),
        "baseline_native_tokens": costs.native(baseline),
        "mean_text_tokens": mean_or_zero([o.text_tokens for o in scored]),
        "baseline_text_tokens": costs.text(baseline),
        "no_tool_mean_loaded": mean_or_zero([len(set(o.loaded)) for o in outcomes if o.no_tool]),
        **{f"r_at_{k}": sum(o.hit_at(k) for o in scored) / n if n else 0.0 for k in (1, 5, 10)},
        "mrr": mean_or_zero([1.0 / min(o.ranks.values()) for o in scored if o.ranks]),
        "selection_ms_p50": _percentile(latencies, 0.50),
        "selection_ms_p95": _percentile(latencies, 0.95),
        "tokenizer": costs.counter.name,
        "no_tool_cases": sum(o.no_tool for o in outcomes),
        "native_cost_ratio": (statistics.fmean(native) / costs.native(baseline)) if native else 0.0,
    }


def run_recall(
    dataset_path: str | Path,
    *,
    embedder: Embedder,
    token_counter: TokenCounter | None = None,
    **config: Any,
) -> dict[str, Any]:
    """Run the loader over a judged set and return the report dict (keys documented in the module).

    ``config`` holds the fields of ``RecallConfig``. ``learn_from``: a judged set whose cases are
    first fed into a throwaway memory as successful past turns (``learn_from_cases``); the loader
    then selects with what it learned. Without it the loader is built exactly as before, so cold
    start changes nothing.
    """
    run = RecallConfig(**config)
    data = load_judged_set(Path(dataset_path))
    if run.registry_mode == "doc":
        registry, core, bundles, baseline = doc_registry()
        return run_recall_on(RecallTools(registry, core, bundles, baseline), data, run, embedder, token_counter)
    if run.registry_mode == "dataset":
        registry, core, bundles = dataset_registry(data.get("tools") or [])
        return run_recall_on(RecallTools(registry, core, bundles, registry.names()), data, run, embedder,
                             token_counter)
    if run.registry_mode == "mcp":  # the set's tools through a real MCP session
        from .mcp_registry import mcp_registry  # kept lazy: starts a server and loads the MCP SDK

        served = mcp_registry(dataset_path)
        try:
            tools = RecallTools(served.registry, frozenset(), served.bundles, served.registry.names(), served.rename)
            report = run_recall_on(tools, data, run, embedder, token_counter)
        finally:
            served.close()
        report["mcp_connect_s"] = served.connect_s
        return report
    raise ValueError(f"registry_mode must be 'doc', 'dataset' or 'mcp', not {run.registry_mode!r}")


def run_recall_on(tools: RecallTools, data: Mapping[str, Any], run: RecallConfig, embedder: Embedder,
                  token_counter: TokenCounter | None = None) -> dict[str, Any]:
    """``run_recall`` on a registry already built."""
    bundle_config = load_bundles("doc") if run.registry_mode == "doc" else None
    learned = LearnedTools()
    if run.learn_from is not None:
        train = load_judged_set(Path(run.learn_from), allow_empty=True)
        learned = learn_from_cases(_renamed(load_cases(train), tools.rename), tools.registry,
                                   prior=bundle_config.companions if bundle_config else None)
    settings = run.loader_settings
    examples = load_examples("doc") if bundle_config and "examples" in settings.views else {}
    loader = ToolLoader(tools.core, tools.bundles, embedder, settings=settings, threshold=run.threshold,
                        max_tools=run.max_tools, examples=examples,
                        aliases=bundle_config.aliases if bundle_config else {}, learned_examples=learned.examples,
                        companions=learned.companions, doc_cache=DocEmbeddingCache(run.cache_dir),
                        worked=load_worked("doc") if bundle_config and settings.worked else (),
                        logger=quiet_logger())
    costs = ToolCosts(tools.registry, token_counter or CharTokenCounter())
    outcomes = [run_case(case, loader, tools.registry, costs, embedder)
                for case in run.chosen(_renamed(load_cases(data), tools.rename))]
    report = recall_metrics(outcomes, costs, tools.baseline)
    report.update({"preset": run.preset if run.settings is None else "custom", "threshold": loader.threshold,
                   "max_tools": loader.max_tools, "registry_mode": run.registry_mode, "tools": len(tools.registry)})
    if run.learn_from is not None:
        report["learned"] = {"from": str(run.learn_from), "examples": sum(len(v) for v in learned.examples.values()),
                             "tools_with_examples": len(learned.examples),
                             "companion_edges": sum(1 for e in learned.companions.edges if e.strong)}
    if run.include_cases:
        report["case_results"] = [o.row() for o in outcomes if o.ranks is not None]
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
