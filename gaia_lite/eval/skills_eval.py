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
import logging
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any, Sequence

from gaia_lite.embed import make_embedder
from gaia_lite.embed.base import Embedder
from gaia_lite.loader.bundles import load_bundles
from gaia_lite.loader.cache import DocEmbeddingCache
from gaia_lite.loader.documents import load_examples
from gaia_lite.loader.loader import ToolLoader, selection_query
from gaia_lite.loader.presets import preset as get_preset
from gaia_lite.memory.store import MemoryStore
from gaia_lite.registry.render import native_json, render_native
from gaia_lite.skills.recall import SkillService
from gaia_lite.skills.store import seed_procedures

from .judged_format import load_judged_set
from .recall import doc_registry, load_cases
from .tokens import CharTokenCounter, TokenCounter

__all__ = ["run_skills_recall", "format_report", "main"]


def _quiet_logger(name: str) -> logging.Logger:
    return logging.Logger(name, level=logging.WARNING)  # unregistered: no global handlers touched


def _arm_summary(passes: Sequence[bool], loaded: Sequence[int], native: Sequence[int]) -> dict[str, float]:
    mean = statistics.fmean
    return {"recall": mean(passes) if passes else 0.0,
            "mean_loaded": mean(loaded) if loaded else 0.0,
            "mean_native_tokens": mean(native) if native else 0.0}


def run_skills_recall(dataset: str | Path, seeds_dir: str | Path, *, embedder: Embedder | None = None,
                      preset: str = "default", tau: float = 0.70, top_k: int = 2,
                      threshold: float | None = None, max_tools: int | None = None,
                      token_counter: TokenCounter | None = None, include_cases: bool = False) -> dict[str, Any]:
    """Run every case with skills off and on; return the report (see the module doc)."""
    embedder = embedder or make_embedder("onnx")
    raw = load_judged_set(Path(dataset))
    wanted_skill = {str(c["id"]): c.get("skill") for c in raw["cases"]}
    cases = load_cases(raw)
    registry, core, bundles, _baseline = doc_registry()
    settings = get_preset(preset)
    examples = load_examples("doc") if "examples" in settings.views else {}
    loader = ToolLoader(core, bundles, embedder, settings=settings, threshold=threshold, max_tools=max_tools,
                        examples=examples, aliases=load_bundles("doc").aliases, doc_cache=DocEmbeddingCache(None),
                        logger=_quiet_logger("gaia_lite.eval.skills"))
    counter = token_counter or CharTokenCounter()
    memo: dict[tuple[str, ...], int] = {}

    def native_tokens(names: Sequence[str]) -> int:
        key = tuple(names)
        if key not in memo:
            memo[key] = counter.count(native_json(render_native(registry, names)))
        return memo[key]

    def run(case: Any, skills: Any) -> tuple[Any, list[str]]:
        loader.reset_session()
        fired: list[str] = []
        for i, turn in enumerate([*case.history, case.query]):
            skill_tools = None
            if skills is not None:
                recalled = skills.recall_for_turn(turn)
                skill_tools = recalled.tools or None
                fired = recalled.names
            sel = loader.select(selection_query(list(case.history[:i]), turn), registry, skill_tools=skill_tools)
            if sel is None:
                raise RuntimeError("the embedder failed during the run; see the warning above")
        return sel, fired

    with tempfile.TemporaryDirectory(prefix="gaia-skills-eval-") as tmp:
        memory = MemoryStore(Path(tmp) / "memory.db", embedder)
        try:
            seeded = seed_procedures(memory, embedder, Path(seeds_dir))
            skills = SkillService(memory, embedder, registry, tau=tau, top_k=top_k)
            arms: dict[str, dict[str, list[int]]] = {a: {"pass": [], "loaded": [], "native": []} for a in ("off", "on")}
            fires = {"correct": 0, "missed": 0, "false": 0, "expected": 0}
            per_case = []
            for case in cases:
                if not case.expected or any(t not in registry for t in case.expected):
                    continue
                row: dict[str, Any] = {"id": case.id}
                for arm, svc in (("off", None), ("on", skills)):
                    sel, fired = run(case, svc)
                    ok = all(t in sel.loaded for t in case.expected) if case.match != "any" \
                        else any(t in sel.loaded for t in case.expected)
                    arms[arm]["pass"].append(ok)
                    arms[arm]["loaded"].append(len(sel.loaded))
                    arms[arm]["native"].append(native_tokens(sel.loaded))
                    row[arm] = {"pass": ok, "loaded": len(sel.loaded),
                                "missing": sorted(t for t in case.expected if t not in sel.loaded)}
                    if arm == "on":
                        row["fired"] = fired
                want = wanted_skill.get(case.id)
                if want:
                    fires["expected"] += 1
                    fires["correct" if want in row["fired"] else "missed"] += 1
                if any(name != want for name in row["fired"]):
                    fires["false"] += 1
                per_case.append(row)
        finally:
            memory.close()

    report: dict[str, Any] = {
        "cases": len(cases),
        "scored_cases": len(per_case),
        "procedures": len(seeded),
        "tau": tau, "top_k": top_k, "preset": preset,
        "threshold": loader.threshold, "max_tools": loader.max_tools,
        "embedder": getattr(embedder, "id", type(embedder).__name__),
        "off": _arm_summary(arms["off"]["pass"], arms["off"]["loaded"], arms["off"]["native"]),
        "on": _arm_summary(arms["on"]["pass"], arms["on"]["loaded"], arms["on"]["native"]),
        "skill_fires": fires,
        "tokenizer": getattr(counter, "name", type(counter).__name__),
    }
    for subset, keep in (("skill_cases", True), ("no_skill_cases", False)):
        idx = [i for i, r in enumerate(per_case) if bool(wanted_skill.get(r["id"])) == keep]
        report[subset] = {arm: _arm_summary([arms[arm]["pass"][i] for i in idx],
                                            [arms[arm]["loaded"][i] for i in idx],
                                            [arms[arm]["native"][i] for i in idx]) for arm in ("off", "on")}
        report[subset]["n"] = len(idx)
    if include_cases:
        report["case_results"] = per_case
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
