"""What counts as a specific in an answer, and when the evidence backs it (agent/grounding.py)."""

from __future__ import annotations

import pytest

from gaia_lite.agent.grounding import specifics, unsupported

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
