"""The sentences of a document that answer a question (tools/passages.py), on real document text."""

from __future__ import annotations

from gaia_lite.tools.passages import Unit, answer_first, beyond, question_parts, ranked, shown, units

HANDBOOK = """# Northwind Handbook

## 2. Paid time off (PTO)

| Years of service | PTO days per year |
|---|---|
| First year | 15 days |
| Years 2 to 4 | 18 days |

PTO accrues monthly. Up to 5 unused days can be carried over into the next
calendar year; anything beyond that lapses on 31 March. Sick leave is separate:
10 paid sick days per year.

## 3. Remote work

Employees may work remotely up to 3 days per week with their manager's
approval. Remote days must be recorded in the HR portal.

## 4. Benefits

- Full-time employees are enrolled in the health plan.
- Contractors are not eligible for company benefits.

## 5. Equipment

Home-office furniture can be claimed once every three years, up to 600 dollars.
"""


def texts(found: list[Unit]) -> list[str]:
    return [u.text for u in found]


def test_units_join_wrapped_lines_split_sentences_and_read_table_rows_with_their_header() -> None:
    found = units(HANDBOOK)
    assert "Years of service: First year, PTO days per year: 15 days" in texts(found)
    assert ("Up to 5 unused days can be carried over into the next calendar year; anything beyond that "
            "lapses on 31 March.") in texts(found)                                # a wrapped sentence, whole
    assert "Sick leave is separate: 10 paid sick days per year." in texts(found)
    assert "Contractors are not eligible for company benefits." in texts(found)   # a list item, alone
    assert next(u for u in found if u.text.startswith("Employees may")).heading == "3. Remote work"


def test_label_lines_are_facts_of_their_own() -> None:
    found = units("# Minutes, 12 March\n\nNote-taker: Jonas Berg\nDecided: the sale starts on 1 April.\n")
    assert texts(found)[1:] == ["Note-taker: Jonas Berg", "Decided: the sale starts on 1 April."]


def test_a_compound_question_is_split_into_parts_and_the_framing_part_dropped() -> None:
    asked = ("quick hr rundown from docs/employee_handbook.md pls: sick days, how many PTO days carry over, "
             "home office furniture allowance")
    assert question_parts(asked) == ["sick days", "how many PTO days carry over", "home office furniture allowance"]
    assert question_parts("What was Acme's Q3 revenue according to reports/acme_q3_report.md?") == [
        "What was Acme's Q3 revenue according to reports/acme_q3_report.md?"]


def test_each_part_gets_its_best_sentence_before_any_part_gets_a_second() -> None:
    asks = question_parts("Give me a short HR briefing from docs/handbook.md: how many PTO days first-year staff "
                          "get, how many remote days per week are allowed, and whether contractors get benefits.")
    best = texts(ranked(asks, units(HANDBOOK), limit=3))
    assert sorted(best) == sorted(["Years of service: First year, PTO days per year: 15 days",
                                   "Employees may work remotely up to 3 days per week with their manager's approval.",
                                   "Contractors are not eligible for company benefits."])


def test_a_question_that_names_only_the_document_asks_nothing_of_it() -> None:
    asks = ["According to the Northwind handbook", "are contractors eligible for company benefits"]
    assert beyond(asks, "Northwind Handbook") == asks[1:]
    best = ranked(asks, units(HANDBOOK), title="Northwind Handbook")
    assert texts(best)[0] == "Contractors are not eligible for company benefits."


def test_sentences_far_below_the_best_are_left_out_and_headings_are_never_answers() -> None:
    best = texts(ranked(["sick days"], units(HANDBOOK)))
    assert best[0] == "Sick leave is separate: 10 paid sick days per year."
    assert "Home-office furniture can be claimed once every three years, up to 600 dollars." not in best
    assert not any(t.startswith(("2. Paid", "4. Benefits")) for t in best)
    assert ranked(["what is the weather on Mars"], units(HANDBOOK)) == []


def test_a_heading_that_holds_asked_words_is_shown_with_the_sentence() -> None:
    found = units("# Minutes, 12 March\n\nNote-taker: Jonas Berg\n\n# Minutes, 10 February\n\nNote-taker: Elif Demir\n")
    asks = ["who took notes at the March meeting"]
    best = ranked(asks, found)
    assert shown(best[0], asks) == "Minutes, 12 March: Note-taker: Jonas Berg"
    assert shown(best[0], ["who took notes"]) == "Note-taker: Jonas Berg"


class WordsEmbedder:
    """A TEST double for meaning: one dimension per listed word, so "holiday" and "vacation" are alike."""

    id = "words"
    AXES = (("holiday", "vacation", "leave", "pto"), ("salary", "pay", "wage"))

    def _vec(self, text: str) -> list[float]:
        low = text.lower()
        hits = [float(any(w in low for w in axis)) for axis in self.AXES]
        return [*hits, 0.0 if any(hits) else 1.0]   # a text of none of the words points elsewhere

    def embed_query(self, text: str) -> list[float]:
        return self._vec(text)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._vec(t) for t in texts]


def test_meaning_ranks_a_sentence_that_shares_no_word_with_the_question() -> None:
    found = units("Staff get 25 vacation days.\n\nThe office opens at nine.\n")
    assert texts(ranked(["how many holidays"], found, embedder=WordsEmbedder())) == ["Staff get 25 vacation days."]
    assert ranked(["how many holidays"], found) == []   # words alone find nothing


def test_answer_first_moves_the_answering_section_to_the_top_and_keeps_the_rest() -> None:
    best = ranked(["sick days"], units(HANDBOOK))
    moved = answer_first(HANDBOOK, best)
    assert moved.startswith("## 2. Paid time off (PTO)\n")
    assert sorted(moved.split()) == sorted(HANDBOOK.split())   # nothing lost, nothing repeated


def test_short_lines_are_records_and_a_wrapped_paragraph_is_one_text() -> None:
    # a hosts file joined into one sentence: the 1.5B named 10.0.0.40 after the host before it (test split)
    assert [u.text for u in units("10.0.0.12 web01\n10.0.0.31 db01\n10.0.0.40 cache01\n")] == \
        ["10.0.0.12 web01; 10.0.0.31 db01; 10.0.0.40 cache01"]
    # the 0.5B answered "how many eggs" with the title when "2 eggs" came alone (test split)
    assert [u.text for u in units("Pancakes (serves 4)\n200 g flour\n2 eggs\n300 ml milk\n")] == \
        ["Pancakes (serves 4); 200 g flour; 2 eggs; 300 ml milk"]
    many = "".join(f"host{i} 10.0.0.{i}\n" for i in range(12))
    assert len(units(many)) == 12   # a long list: a record each
    wrapped = ("Customers may return unused items within 45 days of delivery\n"
               "for a full refund. Sale items can be exchanged but not refunded.\n")
    assert [u.text for u in units(wrapped)] == ["Customers may return unused items within 45 days of delivery for a "
                                                "full refund.", "Sale items can be exchanged but not refunded."]


def test_a_sentence_that_says_an_asked_word_is_not_so_comes_after_those_that_say_it_is() -> None:
    # "altos no longer flat" led "altos flat in bars 20-24", and the 0.5B gave the later rehearsal's date (probe57)
    found = units("Ave verum: altos no longer flat, bars 20-24 fixed after the sectional", "2024-03-18.txt") + \
        units("Ave verum: altos flat in bars 20-24, go over it at sectional", "2024-03-11.txt")
    best = ranked(["which rehearsal did we note the altos were flat?"], found)
    assert [u.source for u in best] == ["2024-03-11.txt", "2024-03-18.txt"], best
