"""Is an answer's every specific backed by the turn's evidence?

A small model that read a file still writes "The initech client's phone number is 1234567890" or "the
contract ends on October 15, 2023" when neither is in anything it was shown. Those answers look right
and are wrong, which is worse than "I could not find it". Here an answer's *specifics* — numbers and
file names — are looked up in the evidence: the tool results of the conversation, the user's own
messages and the saved facts shown (``TurnFinished.facts``). It is a figure, not a guard (issue 43: as a
guard it turned no blind task from fail to pass): ``eval tasks`` reports the turns whose answer states an
unbacked specific as ``ungrounded_turns``.

Looking up is forgiving on purpose, because a false alarm costs a good answer: small whole numbers
(counts, days of a week, "3 files") pass; a number matches the evidence rounded to the answer's
decimals, with thousands separators, and in thousands, millions, KiB or MiB or per cent of one
(1077 bytes is "1.05 KB", "14.2 million" is 14,200,000, 0.25 is "25 %"). A name counts only as two
or more capitalised words in a row ("John Doe", "Brightwave Media"), and is backed when any of its
words is in the evidence: one capitalised word ("Python", "Monday") could be any word at all.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Sequence

from gaia_lite.agent.lexicon import CHANGES_TOPIC, NOT_NAMES
from gaia_lite.events import ToolCallFinished

__all__ = ["Specific", "specifics", "unsupported", "ungrounded_in", "result_text", "SMALL_NUMBER"]

SMALL_NUMBER = 20  # whole numbers up to this are counts and ordinals, said without a source
_SCALES = (1.0, 1e3, 1e6, 1e9, 1024.0, 1024.0 ** 2, 1024.0 ** 3, 0.01)

# A number standing alone: not part of a word, a version, a file name, a time's minutes or an id
# (Q3, v2, 2nd, budget-2025.csv, 3.4.1, GM-55-0912). Thousands separators are one number.
_NUMBER = re.compile(r"(?<![\w./\-:#])(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(?![\w/\-]|\.\d|\.[A-Za-z])")
_EVIDENCE_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_EXTENSIONS = ("txt|md|markdown|csv|tsv|json|jsonl|ya?ml|toml|ini|cfg|conf|env|py|ts|html?|css|xml|pdf|docx?|"
               "xlsx?|pptx?|log|sh|sql|db|png|jpe?g|gif|svg|zip|gz|tar|rst|ipynb")
_NAME = re.compile(r"\b[A-Z][a-z]{2,}(?:[ -][A-Z][a-z]{2,})+\b")
_FILE = re.compile(rf"(?<![\w@.-])((?:[\w.-]+/)*\w[\w.-]{{0,80}}?\.(?:{_EXTENSIONS}))(?![\w/])", re.IGNORECASE)


@dataclass(frozen=True)
class Specific:
    kind: str  # "number", "file" or "name"
    text: str  # as the answer wrote it


def specifics(answer: str) -> list[Specific]:
    """The file names, numbers and names of ``answer``, in that order."""
    found = [Specific("file", m.group(1).rsplit("/", 1)[-1]) for m in _FILE.finditer(answer)]
    without_files = _FILE.sub(" ", answer)
    found += [Specific("number", m.group(0)) for m in _NUMBER.finditer(without_files)]
    for m in _NAME.finditer(without_files):
        words = [w for w in re.split(r"[ -]", m.group(0)) if w.lower() not in NOT_NAMES.words]
        if len(words) >= 2:
            found.append(Specific("name", " ".join(words)))
    return found


def unsupported(answer: str, evidence: str) -> Specific | None:
    """The first specific of ``answer`` that ``evidence`` does not back, or None when all are backed."""
    said = evidence.lower()
    numbers = _numbers(evidence)
    for item in specifics(answer):
        if item.kind == "file" and item.text.lower() not in said:
            return item
        if item.kind == "number" and not _number_backed(item.text, numbers):
            return item
        if item.kind == "name" and not any(w.lower() in said for w in item.text.split()):
            return item
    return None


def ungrounded_in(answer: str, results: Sequence[ToolCallFinished], earlier: Sequence[str],
                  user_messages: Sequence[str], facts: Sequence[str]) -> str | None:
    """The first number, file name or name of ``answer`` that nothing the conversation was shown holds, or
    None. ``results`` are this turn's calls, ``earlier`` the conversation's earlier results (as JSON text). Checked
    only where the answer may draw on evidence: a call succeeded this turn, saved facts were shown, or no tool
    ran and earlier turns' results are there (a follow-up: "and its q1?"). "Rome" to a plain question, or "144"
    after a denied call, has no source to be checked against. A call's arguments count (a file it read is named
    there). A message that says it changes the topic ("Unrelated question: how many minutes in two hours?") is
    no follow-up: "120" was flagged there after a report was read, for both models (dev split, 32d9094)."""
    follow_up = earlier and not results and not (user_messages and CHANGES_TOPIC.search(user_messages[-1]))
    if not (any(r.outcome == "ok" for r in results) or facts or follow_up):
        return None
    found = unsupported(answer, "\n".join([*earlier, *user_messages, *facts, *map(result_text, results)]))
    return found.text if found is not None else None


def result_text(result: ToolCallFinished) -> str:
    """A call's arguments and result as evidence: the file it read is named in its arguments."""
    return json.dumps([result.arguments, result.result], ensure_ascii=False, default=str)


def _numbers(text: str) -> list[float]:
    plain = re.sub(r"(?<=\d),(?=\d{3}\b)", "", text)
    return [float(m.group(0)) for m in _EVIDENCE_NUMBER.finditer(plain)]


def _number_backed(text: str, evidence: list[float]) -> bool:
    value = float(text.replace(",", ""))
    decimals = len(text.partition(".")[2])
    if decimals == 0 and value <= SMALL_NUMBER:
        return True
    slack = 0.5 * 10 ** -decimals + 1e-9
    return any(abs(e / scale - value) <= slack or abs(e * scale - value) <= slack
               for e in evidence for scale in _SCALES)

