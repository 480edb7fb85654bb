"""Synthesis from recorded spans (real embedder and DB; the LLM is a scripted port fake)."""

from __future__ import annotations

from typing import Any

import pytest

from gaia_lite.skills.recall import SkillService, span_succeeded
from gaia_lite.skills.synthesis import (SKIP, Distillation, SynthesisConfig, parse_distillation, required_tools,
                                        synthesis_due, synthesize, typical_sequence)

GOALS = [
    "Find the quarterly report PDF on my computer and summarize it",
    "Find the quarterly report pdf and give me a summary of it",
    "find my quarterly report PDF and summarize it for me",
]
SPAN = [("search_file", {"pattern": "str"}, True),
        ("index_document", {"path": "str"}, True),
        ("summarize_document", {"path": "str", "style": "str"}, True)]


class ScriptedLLM:
    """An LLMPort fake: returns queued answers and records the prompts."""

    def __init__(self, *answers: str | Exception) -> None:
        self.answers = list(answers)
        self.prompts: list[tuple[str, str | None, int]] = []

    def complete(self, prompt: str, *, system: str | None = None, max_tokens: int = 512) -> str:
        self.prompts.append((prompt, system, max_tokens))
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


GOOD_ANSWER = """<think>they all look for a report and summarize it</think>
```markdown
---
name: Find And Summarize Report
when_to_use: Find a report PDF on my computer and summarize it
tools_required: [made_up_tool, run_shell_command]
---
1. Use search_file to locate the document by name.
2. Index it with index_document.
3. Summarize it with summarize_document.
```"""


def _record(skills: SkillService, goals: list[str], span: list[Any], answered: bool = True) -> None:
    for goal in goals:
        skills.recall_for_turn(goal)
        skills.record_turn(goal, span, answered)


def test_three_successful_spans_become_one_procedure_with_tools_from_the_calls(
        memory: Any, embedder: Any, doc_registry: Any) -> None:
    skills = SkillService(memory, embedder, doc_registry)
    _record(skills, GOALS, SPAN)
    _record(skills, ["What's the weather in Paris today?"], SPAN)  # a different kind of goal
    _record(skills, ["Open notes.txt"], [("read_file", {"path": "str"}, True)])  # too short
    assert synthesis_due(skills.store)
    llm = ScriptedLLM(GOOD_ANSWER)
    report = synthesize(skills.store, llm, registry=doc_registry)

    assert report.created == ["find-and-summarize-report"]
    assert len(llm.prompts) == 1
    prompt, system, max_tokens = llm.prompts[0]
    assert all(g in prompt for g in GOALS) and "Paris" not in prompt
    assert "search_file(pattern: str)" in prompt and system and max_tokens == 600
    (proc,) = skills.store.all()
    assert proc.tools_required == ("search_file", "index_document", "summarize_document")  # never the LLM's list
    assert [s.tool for s in proc.tool_sequence] == ["search_file", "index_document", "summarize_document"]
    assert proc.tool_sequence[2].args == {"path": "str", "style": "str"}
    assert proc.when_to_use == "Find a report PDF on my computer and summarize it"
    assert proc.body.startswith("1. Use search_file") and proc.provenance == "synthesized"

    recalled = skills.recall_for_turn("Find the annual report PDF on my computer and summarize it")
    assert recalled.names == ["find-and-summarize-report"]
    assert recalled.tools == ["search_file", "index_document", "summarize_document"]

    again = synthesize(skills.store, ScriptedLLM())  # the spans are claimed: nothing to do, no LLM call
    assert again.outcomes == () and not synthesis_due(skills.store)


def test_a_cluster_an_existing_procedure_already_covers_is_not_distilled_again(
        memory: Any, embedder: Any, doc_registry: Any) -> None:
    skills = SkillService(memory, embedder, doc_registry)
    _record(skills, GOALS, SPAN)
    synthesize(skills.store, ScriptedLLM(GOOD_ANSWER), registry=doc_registry)
    _record(skills, [g.replace("quarterly", "annual") for g in GOALS], SPAN)
    report = synthesize(skills.store, ScriptedLLM(), registry=doc_registry)
    assert [o.status for o in report.outcomes] == ["covered"]
    assert report.outcomes[0].name == "find-and-summarize-report"
    assert len(skills.store.all()) == 1


def test_unusable_llm_output_falls_back_to_the_cluster_goals(memory: Any, embedder: Any, doc_registry: Any) -> None:
    skills = SkillService(memory, embedder, doc_registry)
    _record(skills, GOALS, SPAN)
    report = synthesize(skills.store, ScriptedLLM("Sure! Here is what I think about these requests."))
    (outcome,) = report.outcomes
    assert outcome.status == "created" and "unusable" in outcome.detail
    proc = skills.store.get(outcome.name)
    assert proc is not None and proc.name.startswith("find-")
    assert proc.when_to_use in GOALS
    assert "`search_file`" in proc.body and proc.tools_required == ("search_file", "index_document",
                                                                     "summarize_document")


def test_skip_is_respected_and_not_asked_again(memory: Any, embedder: Any) -> None:
    skills = SkillService(memory, embedder, {"search_file", "index_document", "summarize_document"})
    _record(skills, GOALS, SPAN)
    report = synthesize(skills.store, ScriptedLLM("SKIP"))
    assert [o.status for o in report.outcomes] == ["declined"] and skills.store.all() == []
    assert synthesize(skills.store, ScriptedLLM()).outcomes == ()


def test_a_failing_model_leaves_the_spans_for_the_next_pass(memory: Any, embedder: Any) -> None:
    skills = SkillService(memory, embedder, {"search_file", "index_document", "summarize_document"})
    _record(skills, GOALS, SPAN)
    report = synthesize(skills.store, ScriptedLLM(ConnectionError("server down")))
    assert [o.status for o in report.outcomes] == ["failed"] and "server down" in report.outcomes[0].detail
    assert synthesize(skills.store, ScriptedLLM(GOOD_ANSWER)).created == ["find-and-summarize-report"]


def test_thresholds_occurrences_success_rate_and_steps(memory: Any, embedder: Any) -> None:
    skills = SkillService(memory, embedder, {"search_file", "index_document", "summarize_document", "load_tools"})
    _record(skills, GOALS[:2], SPAN)  # only two runs
    assert synthesize(skills.store, ScriptedLLM()).outcomes == ()
    failed = [SPAN[0], SPAN[1], ("summarize_document", {"path": "str"}, False)]
    _record(skills, GOALS[2:], failed)  # 2 of 3 succeeded: 67 % < 80 %
    assert synthesize(skills.store, ScriptedLLM()).outcomes == ()
    # load_tools is bookkeeping: a span of load_tools + 2 real calls has only 2 steps
    short = [("load_tools", {"bundle": "str"}, True), SPAN[0], SPAN[2]]
    skills2 = SkillService(memory, embedder, set())
    for goal in ["Find the invoice PDF and summarize it"] * 3:
        skills2.record_turn(goal, short, True)
    report = synthesize(skills2.store, ScriptedLLM(), config=SynthesisConfig(min_steps=3))
    assert report.spans == 3  # the three 3-step spans above; the load_tools ones do not count


def test_dry_run_reports_without_calling_the_model_or_writing(memory: Any, embedder: Any) -> None:
    skills = SkillService(memory, embedder, {"search_file", "index_document", "summarize_document"})
    _record(skills, GOALS, SPAN)
    report = synthesize(skills.store, None, dry_run=True)
    assert [o.status for o in report.outcomes] == ["planned"]
    assert report.outcomes[0].tools_required == ("search_file", "index_document", "summarize_document")
    assert skills.store.all() == [] and synthesis_due(skills.store)


# ----------------------------------------------------------------------------- pure pieces

@pytest.mark.parametrize("text", [
    "---\nname: a-b\nwhen_to_use: Do the thing\n---\n1. step",
    "```\n---\nname: a-b\nwhen_to_use: Do the thing\n---\n1. step\n```",
    '{"name": "a-b", "when_to_use": "Do the thing", "steps": ["step"]}',
    'Here you go: {"name": "A B", "when_to_use": "Do the thing", "body": "1. step"}',
    "name: a-b\nwhen_to_use: Do the thing\n\n1. step",
    "<think>hmm</think>---\nname: a_b!\nwhen_to_use: >\n  Do the\n  thing\n---\n1. step",
])
def test_parse_distillation_accepts_the_shapes_small_models_write(text: str) -> None:
    got = parse_distillation(text)
    assert isinstance(got, Distillation)
    assert got.name in ("a-b",) and got.when_to_use == "Do the thing" and "step" in got.body


@pytest.mark.parametrize("text", ["SKIP", " skip.", "**SKIP**"])
def test_parse_distillation_skip(text: str) -> None:
    assert parse_distillation(text) == SKIP


@pytest.mark.parametrize("text", ["", "I cannot help with that.", "```\n```"])
def test_parse_distillation_rejects_unusable_output(text: str) -> None:
    assert parse_distillation(text) is None


@pytest.mark.parametrize("text, expected", [
    ("---\nname: x\n---\n1. step", Distillation("x", "", "1. step")),
    ("---\nname: Y!\nwhen_to_use: summarize_sales_2025.csv\n---\n", Distillation("y", "", "")),
    ('{"when_to_use": "Do the usual thing", "name": ""}', Distillation("", "Do the usual thing", "")),
])
def test_parse_distillation_blanks_the_fields_it_cannot_use(text: str, expected: Distillation) -> None:
    assert parse_distillation(text) == expected


# Qwen2.5-Coder-0.5B's real answer: one procedure per request, without the --- fences.
SMALL_MODEL_ANSWER = """name: summarize_sales_2025_csv
when_to_use: Summarize sales_2025.csv by region and save the totals as report.md
1. analyze_data_file(file_path: str, group_by: str)
2. write_file(file_path: str, content: str)

name: summarize_sales_csv
when_to_use: Summarize sales.csv by region and save the totals to a report
1. analyze_data_file(file_path: str, group_by: str)
2. write_file(file_path: str, content: str)
"""


# ... and another real one: the steps inside the front matter, then the next procedure.
SMALL_MODEL_ANSWER_2 = """---
name: summarize_sales_csv
when_to_use: Summarize sales.csv by region and save the totals to a report
1. analyze_data_file(file_path: str, group_by: str)
2. write_file(file_path: str, content: str)
---
name: summarize_q3_sales_csv
when_to_use: Summarize q3_sales.csv by region
1. analyze_data_file(file_path: str, group_by: str)
"""


def test_parse_distillation_takes_steps_written_inside_the_front_matter() -> None:
    got = parse_distillation(SMALL_MODEL_ANSWER_2)
    assert got == Distillation("summarize-sales-csv", "Summarize sales.csv by region and save the totals to a report",
                               "1. analyze_data_file(file_path: str, group_by: str)\n"
                               "2. write_file(file_path: str, content: str)")


def test_parse_distillation_keeps_only_the_first_of_several_procedures() -> None:
    got = parse_distillation(SMALL_MODEL_ANSWER)
    assert got == Distillation("summarize-sales-2025-csv",
                               "Summarize sales_2025.csv by region and save the totals as report.md",
                               "1. analyze_data_file(file_path: str, group_by: str)\n"
                               "2. write_file(file_path: str, content: str)")


def test_a_trigger_the_model_got_wrong_is_taken_from_the_goals(memory: Any, embedder: Any) -> None:
    skills = SkillService(memory, embedder, {"search_file", "index_document", "summarize_document"})
    _record(skills, GOALS, SPAN)
    answer = "---\nname: report-summary\nwhen_to_use: quarterly_report.pdf\n---\n1. search\n2. summarize"
    (outcome,) = synthesize(skills.store, ScriptedLLM(answer)).outcomes
    assert outcome.status == "created" and outcome.name == "report-summary"
    assert outcome.detail == "when_to_use taken from the recorded runs"
    proc = skills.store.get("report-summary")
    assert proc is not None and proc.when_to_use in GOALS and proc.body == "1. search\n2. summarize"


def test_required_tools_keeps_tools_used_in_half_the_spans_in_first_seen_order() -> None:
    from gaia_lite.skills.store import SpanRecord

    def span(*tools: str) -> SpanRecord:
        return SpanRecord(0, "g", tuple((t, {}, True) for t in tools), True, True, "")

    spans = [span("a", "b", "c", "b"), span("a", "c"), span("d", "a", "c"), span("a", "load_tools", "e")]
    assert required_tools(spans) == ["a", "c"]
    assert [s.tool for s in typical_sequence([span("a", "b"), span("a", "c"), span("a", "c")])] == ["a", "c"]


def test_span_success_counts_recovered_failures() -> None:
    ok, bad = ("t", {}, True), ("t", {}, False)
    assert span_succeeded([bad, ok], True) and not span_succeeded([ok, bad], True)
    assert not span_succeeded([ok], False) and span_succeeded([], True)
