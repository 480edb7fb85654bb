"""Recall with the SKILL tier off vs on, on goals that match seeded procedures.

    gaia-lite eval recall tests/data/skills_goals.json --skills tests/data/skills [--skill-tau 0.70] [--json]
    python -m gaia_lite.eval.skills_eval tests/data/skills_goals.json tests/data/skills [--tau 0.70] [--json]

The procedures in ``seeds_dir`` (skill files, see docs/skills.md) are seeded
into a throwaway memory database. Each case then runs twice in a fresh loader
session with the real doc registry: once as a build without skills would
(no ``skill_tools``), once with the tools of ``SkillService.recall_for_turn``
(its history turns recall too, as in a chat). A case passes when every
expected tool is loaded (strict, pre-recovery recall, as ``eval recall``).

Cases may carry ``"skill": NAME`` (the procedure that should fire, or null):
the report then counts correct fires, misses and false fires.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from gaia_lite.embed import make_embedder
from gaia_lite.embed.base import Embedder
from gaia_lite.loader.bundles import load_bundles
from gaia_lite.loader.cache import DocEmbeddingCache
from gaia_lite.loader.documents import load_examples
from gaia_lite.loader.worked import load_worked
from gaia_lite.loader.loader import Selection, ToolLoader
from gaia_lite.loader.presets import preset as get_preset
from gaia_lite.memory.store import MemoryStore
from gaia_lite.registry.registry import ToolRegistry
from gaia_lite.skills.recall import SkillService
from gaia_lite.skills.store import seed_procedures

from .judged_format import load_judged_set
from .recall import (JudgedCase, ToolCosts, case_passes, doc_registry, load_cases, mean_or_zero, quiet_logger,
                     select_case)
from .tokens import CharTokenCounter, TokenCounter

__all__ = ["run_skills_recall", "format_report", "main"]


@dataclass(frozen=True)
class ArmResult:
    """One case in one arm (skills off or on)."""

    passed: bool
    loaded: int
    native_tokens: int
    missing: list[str]

    def row(self) -> dict[str, Any]:
        return {"pass": self.passed, "loaded": self.loaded, "missing": self.missing}


@dataclass(frozen=True)
class SkillCaseOutcome:
    """One case run with skills off and on; ``wanted`` is the procedure that should fire (or None)."""

    id: str
    wanted: str | None
    off: ArmResult
    on: ArmResult
    fired: list[str]

    def arm(self, name: str) -> ArmResult:
        return self.off if name == "off" else self.on

    def row(self) -> dict[str, Any]:
        return {"id": self.id, "off": self.off.row(), "on": self.on.row(), "fired": self.fired}


def _arm_summary(results: Sequence[ArmResult]) -> dict[str, float]:
    return {"recall": mean_or_zero([r.passed for r in results]),
            "mean_loaded": mean_or_zero([r.loaded for r in results]),
            "mean_native_tokens": mean_or_zero([r.native_tokens for r in results])}


def _arm(case: JudgedCase, sel: Selection[Any], costs: ToolCosts) -> ArmResult:
    return ArmResult(case_passes(case, sel.loaded), len(sel.loaded), costs.native(sel.loaded),
                     sorted(t for t in case.expected if t not in sel.loaded))


def _run_case(case: JudgedCase, wanted: str | None, loader: ToolLoader, registry: ToolRegistry,
              skills: SkillService, costs: ToolCosts) -> SkillCaseOutcome:
    fired: list[str] = []

    def skill_tools(turn: str) -> Sequence[str] | None:
        nonlocal fired
        recalled = skills.recall_for_turn(turn)
        fired = recalled.names
        return recalled.tools or None

    off = _arm(case, select_case(loader, registry, case), costs)
    on = _arm(case, select_case(loader, registry, case, skill_tools), costs)
    return SkillCaseOutcome(case.id, wanted, off, on, fired)


def _fires(outcomes: Sequence[SkillCaseOutcome]) -> dict[str, int]:
    fires = {"correct": 0, "missed": 0, "false": 0, "expected": 0}
    for o in outcomes:
        if o.wanted:
            fires["expected"] += 1
            fires["correct" if o.wanted in o.fired else "missed"] += 1
        if any(name != o.wanted for name in o.fired):
            fires["false"] += 1
    return fires


def _skills_report(outcomes: Sequence[SkillCaseOutcome]) -> dict[str, Any]:
    """The arms, the fires and the two subsets, built from the outcomes."""
    report: dict[str, Any] = {arm: _arm_summary([o.arm(arm) for o in outcomes]) for arm in ("off", "on")}
    report["skill_fires"] = _fires(outcomes)
    for subset, keep in (("skill_cases", True), ("no_skill_cases", False)):
        chosen = [o for o in outcomes if bool(o.wanted) == keep]
        report[subset] = {arm: _arm_summary([o.arm(arm) for o in chosen]) for arm in ("off", "on")}
        report[subset]["n"] = len(chosen)
    return report


def run_skills_recall(dataset: str | Path, seeds_dir: str | Path, *, embedder: Embedder | None = None,
                      preset: str = "default", tau: float = 0.70, top_k: int = 2,
                      threshold: float | None = None, max_tools: int | None = None,
                      token_counter: TokenCounter | None = None, include_cases: bool = False) -> dict[str, Any]:
    """Run every case with skills off and on; return the report (see the module doc)."""
    embedder = embedder or make_embedder("onnx")
    raw = load_judged_set(Path(dataset))
    wanted = {str(c["id"]): c.get("skill") for c in raw["cases"]}
    cases = load_cases(raw)
    registry, core, bundles, _baseline = doc_registry()
    settings = get_preset(preset)
    examples = load_examples("doc") if "examples" in settings.views else {}
    loader = ToolLoader(core, bundles, embedder, settings=settings, threshold=threshold, max_tools=max_tools,
                        examples=examples, aliases=load_bundles("doc").aliases, doc_cache=DocEmbeddingCache(None),
                        worked=load_worked("doc") if settings.worked else (),
                        logger=quiet_logger("gaia_lite.eval.skills"))
    costs = ToolCosts(registry, token_counter or CharTokenCounter())
    with tempfile.TemporaryDirectory(prefix="gaia-skills-eval-") as tmp:
        memory = MemoryStore(Path(tmp) / "memory.db", embedder)
        try:
            seeded = seed_procedures(memory, embedder, Path(seeds_dir))
            skills = SkillService(memory, embedder, registry, tau=tau, top_k=top_k)
            outcomes = [_run_case(case, wanted.get(case.id), loader, registry, skills, costs) for case in cases
                        if case.expected and all(t in registry for t in case.expected)]
        finally:
            memory.close()
    arms = _skills_report(outcomes)
    report: dict[str, Any] = {
        "cases": len(cases), "scored_cases": len(outcomes), "procedures": len(seeded),
        "tau": tau, "top_k": top_k, "preset": preset, "threshold": loader.threshold, "max_tools": loader.max_tools,
        "embedder": getattr(embedder, "id", type(embedder).__name__),
        "off": arms["off"], "on": arms["on"], "skill_fires": arms["skill_fires"],
        "tokenizer": getattr(costs.counter, "name", type(costs.counter).__name__),
        "skill_cases": arms["skill_cases"], "no_skill_cases": arms["no_skill_cases"],
    }
    if include_cases:
        report["case_results"] = [o.row() for o in outcomes]
    return report


def format_report(report: dict[str, Any]) -> str:
    off, on = report["off"], report["on"]
    f = report["skill_fires"]
    lines = [
        f"{report['scored_cases']} cases, {report['procedures']} seeded procedures, tau {report['tau']}, "
        f"loader preset {report['preset']} (threshold {report['threshold']}, cap {report['max_tools']})",
        f"{'':16}{'recall':>8}{'mean loaded':>13}{'native tok':>12}",
        f"{'skills off':16}{off['recall']:>8.3f}{off['mean_loaded']:>13.2f}{off['mean_native_tokens']:>12.0f}",
        f"{'skills on':16}{on['recall']:>8.3f}{on['mean_loaded']:>13.2f}{on['mean_native_tokens']:>12.0f}",
    ]
    for subset in ("skill_cases", "no_skill_cases"):
        s = report[subset]
        lines.append(f"  {subset} (n={s['n']}): recall {s['off']['recall']:.3f} -> {s['on']['recall']:.3f}")
    lines.append(f"skill fired correctly on {f['correct']}/{f['expected']} goals; false fires: {f['false']}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gaia_lite.eval.skills_eval", description=__doc__.split("\n")[0])
    parser.add_argument("dataset")
    parser.add_argument("seeds_dir")
    parser.add_argument("--tau", type=float, default=0.70, help="skill similarity threshold (default 0.70)")
    parser.add_argument("--top-k", type=int, default=2)
    parser.add_argument("--preset", default="default", choices=("default", "gaia"))
    parser.add_argument("--max-tools", type=int, default=None)
    parser.add_argument("--cases", action="store_true", help="include per-case results (with --json)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    report = run_skills_recall(args.dataset, args.seeds_dir, tau=args.tau, top_k=args.top_k, preset=args.preset,
                               max_tools=args.max_tools, include_cases=args.cases)
    print(json.dumps(report, indent=1) if args.json else format_report(report))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
