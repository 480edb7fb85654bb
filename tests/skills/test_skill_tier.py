"""The SKILL tier end to end: real MiniLM embedder, real memory DB, real doc registry and loader."""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from gaia_lite.loader.loader import selection_query
from gaia_lite.logline import SELECTION_PREFIX
from gaia_lite.skills.procedure import parse_skill_file
from gaia_lite.skills.recall import SkillService

SALES_SKILL = """---
name: sales-csv-report
when_to_use: Summarize the sales in a CSV file by region and save the totals as a markdown report
tools_required: [analyze_data_file, write_file]
---
1. Call `analyze_data_file` with a group-by on the region column.
2. Save the totals as a markdown table with `write_file`.
"""
SALES_GOAL = "Summarize sales_2025.csv by region and save the totals as report.md"


class CountingEmbedder:
    """Passes through to the real embedder and counts the calls (to prove none happen)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.id = inner.id
        self.calls = 0

    def embed_query(self, text: str) -> np.ndarray:
        self.calls += 1
        return self.inner.embed_query(text)


def _payloads(lines: list[str]) -> list[dict[str, Any]]:
    return [json.loads(line[len(SELECTION_PREFIX):]) for line in lines if line.startswith(SELECTION_PREFIX)]


def _turn(loader: Any, registry: Any, history: list[str], goal: str, skills: SkillService | None) -> Any:
    """What the agent does each turn: one recall, then select with its tools (None when empty)."""
    skill_tools = None
    if skills is not None:
        skill_tools = skills.recall_for_turn(goal).tools or None
    return loader.select(selection_query(history, goal), registry, skill_tools=skill_tools)


def test_skill_tools_load_ahead_of_a_higher_scoring_semantic_tool_at_the_cap(
        memory: Any, embedder: Any, doc_registry: Any, make_loader: Any) -> None:
    skills = SkillService(memory, embedder, doc_registry)
    skills.store.add(parse_skill_file(SALES_SKILL))
    recalled = skills.recall_for_turn(SALES_GOAL)
    assert recalled.names == ["sales-csv-report"]
    assert recalled.procedures[0].score >= 0.82
    assert recalled.tools == ["analyze_data_file", "write_file"]

    core_here = len([n for n in load_core() if n in doc_registry])
    cap = core_here + len(recalled.tools)  # exactly enough room for the skill's tools
    off = make_loader(max_tools=cap).loader.select(SALES_GOAL, doc_registry)
    rig = make_loader(max_tools=cap)
    on = rig.loader.select(SALES_GOAL, doc_registry, skill_tools=recalled.tools)

    weakest_skill_score = min(on.record.scores[t] for t in recalled.tools)
    displaced = [n for n in off.loaded if n not in on.loaded]
    assert displaced, "premise: without the skill, semantic picks fill the slots differently"
    assert any(on.record.scores[n] > weakest_skill_score for n in displaced), \
        f"premise: a semantic tool outscores a skill tool ({ {n: on.record.scores[n] for n in displaced} })"
    for tool in recalled.tools:
        assert tool in on.loaded and on.reasons[tool] == "skill"
    assert set(displaced) <= set(on.record.skipped_at_cap)
    assert on.record.skill == ("analyze_data_file", "write_file")
    (payload,) = _payloads(rig.lines)
    assert payload["skill"] == ["analyze_data_file", "write_file"]
    assert list(payload)[list(payload).index("loaded") + 1] == "skill"  # right after GAIA's keys


def load_core() -> frozenset[str]:
    from gaia_lite.loader.bundles import load_bundles

    return load_bundles("doc").core


def test_with_no_procedures_selection_and_log_lines_are_byte_identical_to_the_tier_off(
        memory: Any, embedder: Any, doc_registry: Any, make_loader: Any) -> None:
    counting = CountingEmbedder(embedder)
    skills = SkillService(memory, counting, doc_registry)
    goals = [SALES_GOAL, "Open notes.txt and show me what it says", "thanks! now remember that I prefer CSV"]
    off_rig, on_rig = make_loader(), make_loader()
    history: list[str] = []
    for goal in goals:
        recalled = skills.recall_for_turn(goal)
        assert recalled.tools == [] and recalled.prompt_block == "" and recalled.procedures == ()
        a = _turn(off_rig.loader, doc_registry, history, goal, None)
        b = _turn(on_rig.loader, doc_registry, history, goal, skills)
        assert a == b
        history.append(goal)
    assert counting.calls == 0, "no procedure stored: the goal must not even be embedded"
    assert off_rig.lines == on_rig.lines and len(_payloads(on_rig.lines)) == 3
    assert all("skill" not in p for p in _payloads(on_rig.lines))


def test_disabled_procedures_count_as_none(memory: Any, embedder: Any, doc_registry: Any) -> None:
    counting = CountingEmbedder(embedder)
    skills = SkillService(memory, counting, doc_registry)
    skills.store.add(parse_skill_file(SALES_SKILL), embed=False)
    skills.store.set_enabled("sales-csv-report", False)
    assert skills.recall_for_turn(SALES_GOAL).tools == []
    assert counting.calls == 0


def test_a_goal_with_no_matching_skill_falls_through_to_semantic(
        memory: Any, embedder: Any, doc_registry: Any, make_loader: Any) -> None:
    skills = SkillService(memory, embedder, doc_registry)
    skills.store.add(parse_skill_file(SALES_SKILL))
    goal = "Which windows are open on my desktop right now?"
    recalled = skills.recall_for_turn(goal)
    assert recalled.procedures == () and recalled.tools == [] and recalled.prompt_block == ""
    off_rig, on_rig = make_loader(), make_loader()
    a = _turn(off_rig.loader, doc_registry, [], goal, None)
    b = _turn(on_rig.loader, doc_registry, [], goal, skills)
    assert a == b and b.record.skill == ()
    assert "list_windows" in b.loaded and b.reasons["list_windows"] == "semantic"
    assert off_rig.lines == on_rig.lines and "skill" not in _payloads(on_rig.lines)[0]


def test_unknown_and_core_names_in_tools_required_are_dropped_silently(
        memory: Any, embedder: Any, doc_registry: Any, make_loader: Any, caplog: Any) -> None:
    text = SALES_SKILL.replace("[analyze_data_file, write_file]",
                               "[read_file, no_such_tool, analyze_data_file, query_documents, Frobnicate]")
    skills = SkillService(memory, embedder, doc_registry)
    skills.store.add(parse_skill_file(text))
    caplog.set_level("WARNING")
    recalled = skills.recall_for_turn(SALES_GOAL)
    assert "no_such_tool" not in recalled.tools and "Frobnicate" not in recalled.tools
    assert "no_such_tool" not in recalled.prompt_block
    rig = make_loader()
    sel = rig.loader.select(SALES_GOAL, doc_registry, skill_tools=recalled.tools)
    assert sel.record.skill == ("analyze_data_file",)  # read_file and query_documents are CORE: not SKILL
    assert sel.reasons["read_file"] == "core" and sel.reasons["analyze_data_file"] == "skill"
    assert _payloads(rig.lines)[0]["skill"] == ["analyze_data_file"]
    assert not [r for r in caplog.records if r.levelname in ("WARNING", "ERROR")]


def test_recall_feeds_the_prompt_block_once_per_turn_and_caps_bodies(memory: Any, embedder: Any,
                                                                    doc_registry: Any) -> None:
    counting = CountingEmbedder(embedder)
    skills = SkillService(memory, counting, doc_registry)
    long_body = SALES_SKILL.replace("2. Save the totals", "2. " + "Check every row carefully. " * 100 + "\n3. Save")
    skills.store.add(parse_skill_file(long_body))
    before = counting.calls
    recalled = skills.recall_for_turn(SALES_GOAL)
    assert counting.calls - before == 1  # one embedding of the goal, shared by block and tools
    block = recalled.prompt_block
    assert block.startswith("## Recalled procedures") and "### sales-csv-report" in block
    assert "Tools: analyze_data_file, write_file" in block
    body_part = block.split("Tools: analyze_data_file, write_file\n", 1)[1]
    assert len(body_part) <= 1500 + 2 and body_part.endswith("…")


def test_top_k_and_tau_are_honoured(memory: Any, embedder: Any, doc_registry: Any) -> None:
    strict = SkillService(memory, embedder, doc_registry, tau=0.99)
    strict.store.add(parse_skill_file(SALES_SKILL))
    assert strict.recall_for_turn(SALES_GOAL).procedures == ()
    none = SkillService(memory, embedder, doc_registry, top_k=0)
    assert none.recall_for_turn(SALES_GOAL).procedures == ()
    loose = SkillService(memory, embedder, doc_registry, tau=-1.0, top_k=5)
    loose.store.add(parse_skill_file(SALES_SKILL.replace("sales-csv-report", "other-skill")
                                     .replace("Summarize the sales", "Play some music")))
    scores = [r.score for r in loose.recall_for_turn(SALES_GOAL).procedures]
    assert len(scores) == 2 and scores == sorted(scores, reverse=True)
