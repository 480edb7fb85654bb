"""What counts as a specific in an answer, and when the evidence backs it (eval/grounding.py); and when
``eval tasks`` counts an answer as ungrounded (``ungrounded_in``: its ungrounded_turns)."""

from __future__ import annotations

import pytest

from gaia_lite.eval.grounding import specifics, ungrounded_in, unsupported
from gaia_lite.events import ToolCallFinished

REPORT = ('reports/acme_q3_report.md says: Q3 revenue was $14.2 million, up 11 % from Q3 2024. '
          'size_bytes: 1077. top: Sarah Chen 70,000. mean: 16304.3478. share: 0.25')


@pytest.mark.parametrize("answer, found", [
    ("The total is 1,234.50 and 7 rows.", ["1,234.50", "7"]),
    ("See reports/acme_q3_report.md, line 12.", ["acme_q3_report.md", "12"]),
    ("Q3 and v2 of budget-2025.csv, version 3.4.1, id GM-55-0912, at 15:30.", ["budget-2025.csv", "15"]),
    ("Built with Node.js; mail hr@northwind.example.", []),
    ("The top seller was John Doe of Acme Corp, per The Handbook.", ["John Doe", "Acme Corp"]),
    ("On Monday the total was high.", []),
])
def test_specifics_are_numbers_and_file_names(answer: str, found: list[str]) -> None:
    assert [s.text for s in specifics(answer)] == found


@pytest.mark.parametrize("answer", [
    "Q3 revenue was $14.2 million, 11 % up.",
    "That is 14,200,000 dollars.",  # 14.2 million written out
    "The file is 1.05 KB.",  # 1077 bytes
    "Sarah Chen sold 70000.",
    "The mean is 16,304.35, or about 16304.",  # rounded to the answer's decimals
    "A quarter: 25 %.",  # 0.25
    "It is in acme_q3_report.md; 3 people and 12 days.",  # small whole numbers are counts
    "Sarah Chen sold the most.",
    "Ask Sarah Wong.",  # one of the name's words is in the evidence: not called invented
])
def test_specifics_the_evidence_holds(answer: str) -> None:
    assert unsupported(answer, REPORT) is None


@pytest.mark.parametrize("answer, first", [
    ("Revenue was $15.3 million.", "15.3"),
    ("The mean is 16,305.", "16,305"),
    ("It ends in 2023.", "2023"),
    ("See acme_q4_report.md.", "acme_q4_report.md"),
    ("The top seller was John Doe.", "John Doe"),
])
def test_specifics_the_evidence_does_not_hold(answer: str, first: str) -> None:
    found = unsupported(answer, REPORT)
    assert found is not None and found.text == first


# ---------------------------------------------------------------- eval's ungrounded metric

READ = ToolCallFinished("c1", "read_file", {"file_path": "notes.md"}, "success",
                        {"status": "success", "size_bytes": 1077, "lines": 35, "content": "buy milk"}, 0.1)
PACKAGE = 'package.json: {"name": "acme-web", "version": "2.1.0"}'  # an earlier turn's read


def _after_read(answer: str, *, seen: tuple[str, ...] = (), question: str = "What is in notes.md?") -> str | None:
    return ungrounded_in(answer, (READ,), seen, (question,), ())


@pytest.mark.parametrize("answer, found", [
    ("The initech client phone number is 1234567890.", "1234567890"),     # 0.5B, built-in suite: in no file
    ("The Brightwave contract ends on October 15, 2023.", "2023"),        # 0.5B, built-in suite: a date from nowhere
    ("The hotel limit per night in Paris is 100.000 euros.", "100.000"),  # 0.5B, built-in suite
    ("The office move is described in meeting_notes.txt.", "meeting_notes.txt"),  # a file name nothing showed
])
def test_an_answer_with_a_specific_nothing_showed_is_ungrounded(answer: str, found: str) -> None:
    assert _after_read(answer) == found


@pytest.mark.parametrize("answer", [
    "Rome is the capital of Italy.",
    "notes.md is 1077 bytes in 35 lines and says: buy milk.",
    'package.json says: {"name": "acme-web", "version": "2.1.0"}',
    "I read the file and it says to renew the passport on Friday.",
])
def test_answers_from_what_was_shown_are_grounded(answer: str) -> None:
    assert _after_read(answer, seen=(PACKAGE,)) is None


def test_an_answer_with_no_evidence_behind_it_is_not_checked() -> None:
    assert ungrounded_in("12 times 12 is 144.", (), (), ("what is 12 times 12?",), ()) is None  # no tool, no fact
    denied = ToolCallFinished("c1", "read_file", {"file_path": "notes.md"}, "denied", {"status": "denied"}, 0.0,
                              outcome="denied")
    assert ungrounded_in("12 times 12 is 144.", (denied,), (), ("what is 12 times 12?",), ()) is None


def test_specifics_found_in_messages_facts_and_earlier_results_are_grounded() -> None:
    for answer in ("budget-2025.csv is here.", "Your plate is KX 4471.", "The total is 16,304.35.", "About 16.3 thousand"):
        assert ungrounded_in(answer, (READ,), ("total: 16304.3478",), ("is budget-2025.csv in here?",),
                             ("my plate number is KX 4471",)) is None, answer


def test_a_follow_up_is_checked_against_earlier_results_but_a_turn_that_changes_topic_is_not() -> None:
    report = '{"status": "success", "content": "Q3 revenue was $14.2 million."}'
    for question in ("Unrelated question: how many minutes are there in two hours?", "different topic - minutes in 2h?"):
        assert ungrounded_in("120", (), (report,), ("Acme's Q3 revenue?", question), ()) is None, question
    # a follow-up: it points back, or only thanks first ("cool - which quarter was best?" is about the results)
    for question in ("and its Q4 revenue?", "Unrelated to that, but what was it in Q4?", "cool - and Q4 revenue?"):
        assert ungrounded_in("It was 120 million.", (), (report,), ("Acme's Q3 revenue?", question), ()) == "120", \
            question
