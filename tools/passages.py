"""The sentences of a document that answer a question, best first.

A retrieved chunk is 190 words; a small model given one copies its first sentence, or the one it
likes, not the one that answers ("The new Lisbon office opened in August" for "what was Q3 revenue?",
both in the same chunk). So the document tools put the few sentences that answer first: each
sentence (a list item, a table row read with its header) is scored by the question's words it holds,
rare words counting more, its section heading counting at half weight, and, when an embedder is at
hand, by meaning. A question in several parts ("sick days, PTO carry-over, furniture allowance") gets
the best sentence of each part before the second best of any.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from gaia_lite.memory.keywords import STOPWORDS

from .find import PATH_MENTION, singular
from .grep import denies

__all__ = ["Unit", "units", "question_parts", "ranked", "asked_words", "beyond", "shown", "passages",
           "answer_first"]

_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*)$")
_ITEM = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+")
_LABEL = re.compile(r"^\s*[^\W\d][\w /&'-]{0,30}:\s+\S")  # "Note-taker: Jonas Berg", one fact a line
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"“(]?[A-Z0-9$€£])")
_PAGE_MARK = re.compile(r"^\[Page \d+\]$")
# words of a request that ask, not what is asked about
_ASKING = frozenset("what which who whom whose when where why how many much does do did is are was were be been "
                    "say says said tell according give me us please pls can could would should there any "
                    "quick short briefing rundown summary summarize summarise about file document doc docs "
                    "know let find look".split())
_CONTENT_ROOT = 5  # "eligible" and "eligibility", "contractor" and "contractors": the first letters decide
_HEADING_WEIGHT = 0.5
_MEANING_WEIGHT = 0.5
# a question for an amount or a time is answered by a sentence with a figure in it
_WANTS_FIGURE = re.compile(r"\bhow (?:many|much|long|old|often)\b|\bwhen\b|\bwhat (?:time|date|year|day)\b|"
                           r"\bnumber of\b|\btotal\b|\bamount\b", re.IGNORECASE)
_FIGURE_BONUS = 0.15
_KEEP_SHARE = 0.5
PASSAGE_CHARS = 1200   # a section up to this long is one passage; in a longer one, the paragraph is


@dataclass(frozen=True)
class Unit:
    """One sentence, list item or table row, and the heading of the section it is in."""

    text: str
    heading: str = ""
    source: str = ""
    passage: str = ""   # the section (or, in a long one, the paragraph) it stands in
    page: int = 0


def asked_words(text: str) -> list[str]:
    """The words of a question that say what it is about, lower case and singular (no file names)."""
    text = PATH_MENTION.sub(" ", text)
    found = (singular(w) for w in re.findall(r"[^\W_]+", text.lower()))
    return list(dict.fromkeys(w for w in found if w not in STOPWORDS and w not in _ASKING and len(w) > 1))


def _cells(line: str) -> list[str]:
    return [c.strip().strip("*").strip() for c in line.strip().strip("|").split("|")]


RECORD_CHARS = 48  # a block of lines no longer than this is a list of records, not a wrapped paragraph
RECORDS_JOINED = 8  # up to this many records are one unit ("a; b; c"); more are a unit each


def units(text: str, source: str = "", page: int = 0) -> list[Unit]:
    """The sentences of ``text``: wrapped lines of a paragraph joined, list items and headings kept apart,
    and a Markdown table row read as ``header: cell`` pairs (a row alone, "| First year | 15 days |",
    does not say what 15 counts). Each knows the passage it stands in (``passage``)."""
    out: list[Unit] = []
    for heading, lines in _sections(text):
        section = "\n".join(lines).strip()
        if heading:
            out.append(Unit(heading, heading, source, section, page))
        for block in _blocks(lines[1:] if heading else lines):
            passage = section if len(section) <= PASSAGE_CHARS else "\n".join(
                [*(lines[:1] if heading else []), *block]).strip()
            out.extend(Unit(t, heading, source, passage, page) for t in _block_units(block))
    return out


def _sections(text: str) -> list[tuple[str, list[str]]]:
    """(heading, its lines: the heading line, then its body) for each part of ``text`` a heading opens;
    the part before the first heading has none."""
    found: list[tuple[str, list[str]]] = [("", [])]
    for line in text.splitlines():
        if m := _HEADING.match(line):
            found.append((m.group(2).strip().strip("#").strip(), [line]))
        elif not _PAGE_MARK.match(line.strip()):
            found[-1][1].append(line)
    return [(h, lines) for h, lines in found if h or any(x.strip() for x in lines)]


def _blocks(lines: list[str]) -> list[list[str]]:
    """Paragraphs, lists and tables: the runs of lines between blank lines."""
    found: list[list[str]] = [[]]
    for line in lines:
        if line.strip():
            found[-1].append(line)
        elif found[-1]:
            found.append([])
    return [b for b in found if b]


def _block_units(block: list[str]) -> list[str]:
    out: list[str] = []
    paragraph: list[str] = []
    header: list[str] = []
    # short plain lines, none wider than a record, are records ("10.0.0.40 cache01", "2 eggs"), not a wrapped
    # paragraph (whose lines but the last run near the full width): a few are one unit, each kept apart by
    # "; ". Joined by spaces, a hosts file's three lines read as one sentence, and the 1.5B gave 10.0.0.40
    # the name of the host before it; each alone, "2 eggs" lost its recipe, and the 0.5B answered "how many
    # eggs?" with the recipe's title.
    if len(block) > 1 and all(len(ln.strip()) <= RECORD_CHARS and not _ITEM.match(ln) and not _LABEL.match(ln)
                              and "|" not in ln for ln in block):
        records = [ln.strip() for ln in block]
        return ["; ".join(records)] if len(records) <= RECORDS_JOINED else records

    def flush() -> None:
        joined = " ".join(" ".join(paragraph).split())
        out.extend(s.strip() for s in _SENTENCE_END.split(joined) if s.strip())
        paragraph.clear()

    for line in block:
        stripped = line.strip()
        if stripped.startswith("|") or (header and "|" in stripped):
            flush()
            if _TABLE_RULE.match(stripped):
                continue
            cells = _cells(stripped)
            if not header:
                header = cells
                continue
            out.append(", ".join(f"{h}: {c}" if h else c for h, c in zip(header + [""] * len(cells), cells) if c))
            continue
        if _ITEM.match(line) or _LABEL.match(line):
            flush()
            paragraph.append(_ITEM.sub("", line))
            continue
        paragraph.append(stripped)
    flush()
    return out


def answer_first(text: str, found: Sequence[Unit]) -> str:
    """``text`` with the passages the units ``found`` stand in moved to its top, the rest after in its own
    order: all of a short document (a follow-up question may need any of it), the answer where a model
    that copies from the top starts copying."""
    first = [u.passage for u in passages(found, limit=len(found))]
    rest = ["\n".join(lines).strip() for _, lines in _sections(text)]
    rest = [r for r in rest if r and r not in first]
    return "\n\n".join([*first, *rest])


def passages(found: Sequence[Unit], limit: int = 3) -> list[Unit]:
    """The passages (a short section, else the paragraph or table) the units ``found`` stand in, in their
    order, once each: what the answer rests on, without the rest of the document."""
    seen: dict[tuple[str, str], Unit] = {}
    for u in found:
        seen.setdefault((u.source, u.passage), u)
    return list(seen.values())[:limit]


def question_parts(text: str, limit: int = 5) -> list[str]:
    """The parts of a compound question ("sick days, how many PTO days carry over, and the furniture
    allowance"), each with words of its own; the whole question when it has one part. A part that names
    the file ("give me a briefing from docs/handbook.md") frames the question and is left out."""
    pieces = [p.strip() for p in re.split(r"[,;:?!\n]+|\s+(?:and|also|plus)\s+|\s+&\s+", text)]
    parts = [p for p in pieces if asked_words(p)]
    asking = [p for p in parts if not PATH_MENTION.search(p)]
    return list(dict.fromkeys(asking))[:limit] if len(asking) > 1 else [text]


def beyond(asks: Sequence[str], naming: str) -> list[str]:
    """The asks with words beyond ``naming`` (a document's name and title, an "index this folder"
    request): what is asked of the document, not which document."""
    named = {_root(w) for w in asked_words(naming)}
    return [a for a in asks if asked_words(a) and not {_root(w) for w in asked_words(a)} <= named]


def _root(word: str) -> str:
    return word[:_CONTENT_ROOT] if len(word) > _CONTENT_ROOT else word


def _unit_words(unit: Unit) -> tuple[set[str], set[str]]:
    own = {_root(w) for w in asked_words(unit.text)}
    return own, {_root(w) for w in asked_words(unit.heading)} - own


def _cosines(embedder: Any, asks: Sequence[str], found: Sequence[Unit]) -> np.ndarray | None:
    """(asks x units) cosine similarities, or None without an embedder or when it fails."""
    if embedder is None or not found:
        return None
    try:
        q = np.asarray([embedder.embed_query(a) for a in asks], dtype=np.float32)
        d = np.asarray(embedder.embed_documents([f"{u.heading}: {u.text}" if u.heading and u.heading != u.text
                                                 else u.text for u in found]), dtype=np.float32)
    except Exception:  # noqa: BLE001 - meaning is a bonus; the words alone still rank
        return None
    q /= np.linalg.norm(q, axis=1, keepdims=True) + 1e-9
    d /= np.linalg.norm(d, axis=1, keepdims=True) + 1e-9
    return q @ d.T


def ranked(asks: Sequence[str], found: Sequence[Unit], *, embedder: Any = None, limit: int = 5,
           title: str = "") -> list[Unit]:
    """The units that answer ``asks`` (the question, and its parts), best first: for each ask, the share
    of its words a unit holds (rarer words weigh more; heading words half) and how many, plus half the cosine when an
    embedder is given. The best unit of each ask comes before any ask's second best. A unit holding none
    of any ask's words is left out unless meaning alone ranks it. An ask that only names the document
    (its words all in ``title``, e.g. "according to the employee handbook") asks nothing of it."""
    asks = beyond(asks, title) or [a for a in asks if asked_words(a)]
    if not asks or not found:
        return []
    bags = [_unit_words(u) for u in found]
    df: dict[str, int] = {}
    for own, near in bags:
        for w in own | near:
            df[w] = df.get(w, 0) + 1
    n = len(found)
    cos = _cosines(embedder, asks, found)
    per_ask: list[list[tuple[float, int]]] = []
    for a, ask in enumerate(asks):
        wanted = list(dict.fromkeys(_root(w) for w in asked_words(ask)))
        weight = {w: math.log(1 + n / (1 + df.get(w, 0))) for w in wanted}
        total = sum(weight.values()) or 1.0
        figure = _FIGURE_BONUS if _WANTS_FIGURE.search(ask) else 0.0
        scores = []
        for i, (own, near) in enumerate(bags):
            if _is_heading(found[i]):
                continue
            held = [w for w in wanted if w in own]
            share = sum(weight[w] * (1.0 if w in own else _HEADING_WEIGHT if w in near else 0.0)
                        for w in wanted) / total
            # more of the question's words in one sentence is better evidence than one word of a short ask
            lexical = 0.7 * share + 0.3 * min(len(held), 3) / 3 if share else 0.0
            meaning = float(cos[a, i]) if cos is not None else 0.0
            if lexical > 0 or meaning >= 0.5:
                bonus = figure if figure and re.search(r"\d", found[i].text) else 0.0
                scores.append((lexical + _MEANING_WEIGHT * meaning + bonus, i))
        scores.sort(key=lambda s: (-s[0], s[1]))
        # a sentence far below the ask's best is noise beside it ("Outside core hours you may arrange
        # your day" for "sick days")
        kept = [s for s in scores if s[0] >= _KEEP_SHARE * scores[0][0]] if scores else []
        per_ask.append(_distinct(kept, found, bags, wanted))
    chosen: list[int] = []
    for rank in range(max(len(s) for s in per_ask)):
        # within one round the stronger matches first: a weak part's best is no better than a strong part's
        for _, i in sorted((s[rank] for s in per_ask if rank < len(s)), key=lambda s: (-s[0], s[1])):
            if i not in chosen:
                chosen.append(i)
            if len(chosen) >= limit:
                return _affirming_first([found[i] for i in chosen], asks)
    return _affirming_first([found[i] for i in chosen], asks)


def _affirming_first(units: list[Unit], asks: Sequence[str]) -> list[Unit]:
    """``units`` with the ones that say an asked word is not so after the others: asked "which rehearsal did we
    note the altos were flat?", "altos no longer flat" led "altos flat in bars 20-24", and the answer gave the later
    date (0.5B, probe57)."""
    words = {w for a in asks for w in asked_words(a)}
    return sorted(units, key=lambda u: any(denies(u.text, w) for w in words if w in u.text.lower()))


def _distinct(kept: list[tuple[float, int]], found: Sequence[Unit], bags: Sequence[tuple[set[str], set[str]]],
              wanted: Sequence[str]) -> list[tuple[float, int]]:
    """``kept`` (best first) without the units that repeat a better one (the same text) or compete with
    it on less evidence: a unit whose asked-for words (its own and its heading's) are a strict part of a
    better unit's is another file's or section's same fact ("Note-taker: Elif Demir" under February for
    "who took notes at the March meeting", below "Note-taker: Jonas Berg" under March)."""
    out: list[tuple[float, int]] = []
    seen_text: set[str] = set()
    held_by: list[set[str]] = []
    for score, i in kept:
        own, near = bags[i]
        held = {w for w in wanted if w in own or w in near}
        text = " ".join(found[i].text.lower().split())
        if text in seen_text or any(held < better for better in held_by):
            continue
        seen_text.add(text)
        held_by.append(held)
        out.append((score, i))
    return out


def shown(unit: Unit, asks: Sequence[str]) -> str:
    """A unit as the answer shows it: with its heading in front when the heading holds asked-for words
    the sentence lacks ("Minutes, 12 March 2025: Note-taker: Jonas Berg" for "who took notes in March")."""
    if not unit.heading or unit.heading == unit.text:
        return unit.text
    own, near = _unit_words(unit)
    wanted = {_root(w) for a in asks for w in asked_words(a)}
    return f"{unit.heading}: {unit.text}" if wanted & near else unit.text


def _is_heading(unit: Unit) -> bool:
    """A heading alone answers nothing; it still lends its words to the sentences below it."""
    return unit.text == unit.heading
