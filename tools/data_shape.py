"""analyze_data_file's result, shaped for answering, and its forgiving reading of column names.

A small model copies figures from what it reads first and invents what it does not find: given
``totals: revenue=375000, units=1393`` and per-column statistics as JSON, the 0.5B answered "who sold
the most?" with "John Doe" and "which region had the highest q2?" with a total. So the result leads
with a few plain sentences (what the table is, its totals, the top and bottom of each group, the row
with the highest and lowest value, each with its name), then the per-group totals and per-column
figures as short lines, every figure next to the name it belongs to. Columns the user's message names
come first (``named_in``): "the highest q2" puts q2 before q1.

Column names are matched the way people say them (``match``): case and separators do not matter, a
prefix ("temp" for ``temp_c``) or the column's words ("total sales" for ``sales``) find it, and a
name that fits no column is left out with a short note instead of failing the call.
"""

from __future__ import annotations

import difflib
import re
from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Protocol, Sequence

from .find import PATH_MENTION, words
from .table_compare import Comparison, without_comparisons
from .table_periods import per_period

class _Frame(Protocol):
    """The typed rows data.py reads (its ``_Frame``): named columns, their types, and per column the
    numbers (Decimal or None), dates and text of every row."""

    names: list[str]
    types: dict[str, str]
    rows: int
    numbers: dict[str, list[Decimal | None]]
    dates: dict[str, list[Any]]
    text: dict[str, list[str]]

    def select(self, keep: list[bool]) -> "_Frame": ...

__all__ = ["fmt", "match", "split_names", "named_in", "named_lines", "all_met", "Plan", "shaped", "period_asked_line",
           "Periods", "asked_periods"]

# Words that say how to combine a column, not which column ("total sales", "sum of revenue")
_AGGREGATE_WORDS = frozenset("total sum avg average mean count number num of per by the".split())
TOP_GROUPS = 5          # groups shown for the first grouping column of a summary ("top few")
OTHER_GROUPS = 3        # groups shown for the other grouping columns
GROUP_LIMIT = 25        # groups shown for the column asked for with group_by
SUMMARY_CATEGORIES = 3  # grouping columns shown in a summary
MAX_MONTHS = 12         # a month-by-month line for at most this many months
SMALL_TABLE_ROWS = 12   # a table this small goes back whole: a follow-up ("and its q1?") needs the rows


def fmt(number: Decimal) -> str:
    """A figure as a person writes it: ``70,000``, ``16,304.35``."""
    if number == number.to_integral_value():
        return f"{int(number):,}"
    return f"{number:,.2f}".rstrip("0").rstrip(".") if abs(number) < 1 else f"{number:,.2f}"


def _key(text: str) -> str:
    return re.sub(r"[^0-9a-z]+", "", text.lower())


def split_names(raw: str | None) -> list[str]:
    """The column names in a ``columns`` argument however a model writes them: ``"a, b"``, ``"[a, b]"``,
    ``'["a","b"]'``, ``"{1,2}"``, ``"a;b"``."""
    cleaned = re.sub(r"[\[\]{}()\"'`]", " ", raw or "")
    return [p.strip() for p in re.split(r"[,;|\n]+", cleaned) if p.strip()]


def match(names: Sequence[str], wanted: str) -> str | None:
    """The column ``wanted`` means: the same name up to case and separators; else the one column it is a
    prefix of, or that is a prefix of it ("temp" -> ``temp_c``, "revenue_usd" -> ``revenue``); else the
    one column whose words it holds, or that holds its words ("total sales" -> ``sales``); else the one
    spelled nearly alike ("reveune"). None when nothing fits, or when two columns fit equally."""
    key = _key(wanted)
    if not key or key.isdigit():
        return None
    # each tier: (fits, how far off) - the closest fit of the first tier with any decides; a tie is no match
    tiers = (
        (lambda n: _key(n) == key, lambda n: 0),
        (lambda n: min(len(_key(n)), len(key)) >= 2 and (_key(n).startswith(key) or key.startswith(_key(n))),
         lambda n: abs(len(_key(n)) - len(key))),
        (lambda n: _word_gap(n, wanted) is not None, lambda n: _word_gap(n, wanted)),
        (lambda n: len(key) >= 4 and difflib.SequenceMatcher(None, _key(n), key).ratio() >= 0.8,
         lambda n: -difflib.SequenceMatcher(None, _key(n), key).ratio()),
    )
    for fits, gap in tiers:
        found = sorted((n for n in names if _key(n) and fits(n)), key=gap)
        if found:
            return found[0] if len(found) == 1 or gap(found[0]) < gap(found[1]) else None
    return None


def _word_gap(name: str, wanted: str) -> int | None:
    """How many words one name has beyond the other when one holds all the other's words ("total
    sales" and ``sales``: 0 after the aggregate words; "units" and ``unit_price``: 1), else None."""
    have = {w for w in words(name) if w not in _AGGREGATE_WORDS}
    asked = {w for w in words(wanted) if w not in _AGGREGATE_WORDS}
    if not (have and asked) or not (have <= asked or asked <= have):
        return None
    return len(have ^ asked)


def named_in(names: Sequence[str], text: str) -> list[str]:
    """The columns a message names, in the order it names them ("which region had the highest q2" ->
    region, q2). File names in the message do not count ("sales.csv" names no ``sales`` column)."""
    said = words(PATH_MENTION.sub(" ", text))
    found: list[tuple[int, str]] = []
    for name in names:
        own = [w for w in words(name) if w not in _AGGREGATE_WORDS] or words(name)
        own = [w for w in own if w not in _UNITS] or own   # "temp" names temp_c, "rain" rain_mm (probe52)
        if not own:
            continue
        at = [i for i in range(len(said) - len(own) + 1) if said[i:i + len(own)] == own]
        if at:
            found.append((at[0], name))
    return [n for _, n in sorted(found)]


# a column name's unit, which a question leaves out ("the highest temp" for temp_c)
_UNITS = frozenset("c f k mm cm km m mi kg g lb lbs oz usd eur gbp pct ms sec min h hr hrs l ml kwh".split())


# the measures a question can ask of a table, by the words people use for them; a result's line that
# carries a measure asked for comes before the lines that do not
_MEASURES = {
    "total": "total sum altogether overall combined",
    "mean": "average mean avg typical",
    # "whats my longest ride in june?" asked the highest km, and got the month's total first (probe56)
    "high": "highest most max maximum top biggest largest best greatest priciest costliest longest tallest farthest "
            "furthest heaviest hottest",
    "low": "lowest least min minimum smallest fewest worst bottom cheapest shortest lightest coldest",
    "columns": "column field header heading",
    "rows": "row record entry line",
}
_MEASURE_OF = {w: m for m, said in _MEASURES.items() for w in words(said)}


_LONG_MEASURE_WORDS = [w for w in _MEASURE_OF if len(w) >= 5]


def _measures(text: str) -> set[str]:
    """The measures ``text`` asks for, a word of five letters or more misspelt as well: "avrage salary" was
    answered with the group's total, the mean asked for coming second (0.5B)."""
    found = set()
    for w in words(without_comparisons(text)):  # "at least 9" sets a bound; it does not ask for the lowest
        near = [w] if w in _MEASURE_OF else difflib.get_close_matches(w, _LONG_MEASURE_WORDS, 1, 0.85) \
            if len(w) >= 5 else []
        found.update(_MEASURE_OF[n] for n in near)
    return found


def columns_said(names: Sequence[str], chars: int = 600) -> str:
    """The column names as one line, cut at ``chars`` with how many there are in all."""
    said = ", ".join(names)
    return said if len(said) <= chars else said[:chars].rsplit(", ", 1)[0] + f" (… {len(names)} columns in all)"


def asks_lowest(text: str) -> bool:
    """Whether the user's message asks for the lowest and not the highest ("what's running lowest?")."""
    asked = _measures(PATH_MENTION.sub(" ", text))
    return "low" in asked and "high" not in asked


def asks_mean(text: str) -> bool:
    """Whether the user's message asks for the average and not the total ("avg temp in weather_log.csv?")."""
    asked = _measures(PATH_MENTION.sub(" ", text))
    return "mean" in asked and "total" not in asked


_PRICE_WORDS = frozenset("cheapest cheaper cheap priciest pricier expensive costliest dearest".split())
_PRICE_COLUMN = re.compile(r"price|cost|fee|rate", re.IGNORECASE)


def asks_price(text: str) -> bool:
    """Whether the user's message asks how much something costs in words that name no column ("cheapest")."""
    return bool(_PRICE_WORDS & set(words(PATH_MENTION.sub(" ", text))))


def asks_extreme(text: str) -> bool:
    """Whether the user's message asks for a highest or lowest ("the top row", "cheapest")."""
    return bool({"high", "low"} & _measures(PATH_MENTION.sub(" ", text)))


def asks_columns(text: str) -> bool:
    """Whether the user's message asks about the table's columns ("what columns does it have?")."""
    return "columns" in _measures(PATH_MENTION.sub(" ", text))


def asked_first(lines: list[str], names: Sequence[str], message: str) -> list[str]:
    """``lines`` with the ones about what ``message`` asks first, the rest in their order: each column
    the message names in a line counts twice, each measure it asks for ("total", "highest", "columns")
    once. "Which region had the highest q2?" puts ``Highest q2: east ...`` before the totals; "what
    columns does it have?" the ``Columns:`` line (whose names count for no column) before the figures."""
    text = PATH_MENTION.sub(" ", message)
    said = set(named_in(names, text))
    wanted = _measures(text)
    if not (said or wanted):
        return list(lines)

    def score(line: str) -> int:
        line = "Columns" if line.startswith("Columns: ") else line
        return 2 * len(said.intersection(named_in(names, line))) + len(wanted & _measures(line))
    return sorted(lines, key=score, reverse=True)   # sorted is stable: ties keep their order


@dataclass
class Plan:
    """What to show: the value columns to total (asked-for first), the columns to group by, the one
    the call asked to group by, the period a filter kept, and a period the message names."""

    values: list[str]
    stats: list[str]
    categories: list[str]
    group_by: str | None = None
    scope: str | None = None              # resolved label of date_range, when the rows were filtered
    rows_before: int = 0                  # rows in the file, before the filter
    named_period: tuple[str, "_Frame"] | None = None   # (what the message said, its rows)
    named_values: list[tuple[str, str, "_Frame"]] = field(default_factory=list)  # (column, cell, its rows)
    notes: list[str] = field(default_factory=list)
    group_values: int = 1                 # value columns totalled per group
    dated: str = ""                       # "2025-01-09 to 2025-08-21": the whole file's dates
    columns_asked: bool = False           # the message asks what the columns are: their line comes first
    low_first: bool = False               # the message asks for the lowest: each top/lowest says it first
    mean_first: bool = False              # the message asks for the average: a column's mean comes before its total
    total_asked: bool = False             # the message asks a total: rows kept by a comparison say their column's
    extreme_first: bool = False           # the message asks for the highest or lowest: a named value's extremes lead
    price_asked: bool = False             # "cheapest", "priciest": a price column's figures lead a named value's
    comparison: Comparison | None = None  # "fewer than 5 in stock": the column, bound and rows that meet it
    grouping_named: bool = False          # the message names the first grouping column ("average ... per category")
    period_asked: str | None = None       # "which month was best": the period rows are grouped by (table_periods)


def _sum(frame: "_Frame", col: str) -> Decimal:
    return sum((v for v in frame.numbers[col] if v is not None), Decimal(0))


def _counted(frame: "_Frame", col: str) -> int:
    return sum(v is not None for v in frame.numbers[col])


def _mean(frame: "_Frame", col: str) -> Decimal:
    return _sum(frame, col) / _counted(frame, col)


_CODE = re.compile(r"\S*\d\S*")   # "G-03", "T-101", "INV0001": a code, not what a person calls the row


def _label_column(frame: "_Frame") -> str | None:
    """The text column that names each row (every value different), e.g. ``region`` in a table with one
    row per region; None when no column does. Of two, the one of words before the one of codes: "the
    cheapest item" was answered "G-04" from ``sku`` beside ``name`` (1.5B)."""
    if not 1 < frame.rows <= 50:
        return None
    unique = [n for n in frame.names if frame.types[n] == "text"
              and all(frame.text[n]) and len(set(frame.text[n])) == frame.rows]
    return min(unique, key=lambda n: sum(bool(_CODE.fullmatch(v)) for v in frame.text[n]), default=None)


def _row_name(frame: "_Frame", i: int, label: str | None, categories: Sequence[str]) -> str:
    """What a person calls row ``i``: its label, else its first group and its date."""
    if label:
        return frame.text[label][i]
    parts = [frame.text[categories[0]][i]] if categories and frame.text[categories[0]][i] else []
    if frame.dates:
        day = next(iter(frame.dates.values()))[i]
        parts += [day.isoformat()] if day else []
    return ", ".join(parts) or f"row {i + 2}"   # row 1 is the header


def _groups(frame: "_Frame", by: str, values: Sequence[str]) -> list[tuple[str, dict[str, Decimal], int]]:
    """(group, sums of ``values``, rows) per value of ``by``, largest first by the first value column
    (by row count when there is none)."""
    sums: dict[str, dict[str, Decimal]] = defaultdict(lambda: defaultdict(Decimal))
    counts: dict[str, int] = defaultdict(int)
    for i, key in enumerate(frame.text[by]):
        key = key or "(blank)"
        counts[key] += 1
        for col in values:
            if frame.numbers[col][i] is not None:
                sums[key][col] += frame.numbers[col][i]
    rank = values[0] if values else None
    order = sorted(counts, key=lambda k: (sums[k][rank] if rank else counts[k], counts[k]), reverse=True)
    return [(k, {c: sums[k][c] for c in values}, counts[k]) for k in order]


def _means_line(frame: "_Frame", by: str, value: str) -> str:
    """"Average amount by category: housing 1,200; utilities 90.10; food 72.85 (+1 more)." for "average spend per
    category?": the totals by category were there, and a mean per group is a division a small model gets wrong.
    A blank figure is no figure: it counts in no group's mean."""
    figures: dict[str, list[Decimal]] = defaultdict(list)
    for key, v in zip(frame.text[by], frame.numbers[value]):
        if v is not None:
            figures[key or "(blank)"].append(v)
    means = sorted(((k, sum(vs) / len(vs)) for k, vs in figures.items()), key=lambda kv: kv[1], reverse=True)
    shown = means if len(means) <= GROUP_LIMIT + 1 else means[:GROUP_LIMIT]
    more = f" (+{len(means) - len(shown)} more)" if len(means) > len(shown) else ""
    return f"Average {value} by {by}: " + "; ".join(f"{k} {fmt(round(m, 2))}" for k, m in shown) + more + "."


def _group_line(groups: list[tuple[str, dict[str, Decimal], int]], limit: int) -> str:
    """One line, largest first: ``Sarah Chen 70,000; Raj Mehta 69,000; (+2 more)``. A block of numbered
    lines per grouping made the result long enough that the 0.5B called the tool again instead of
    answering."""
    shown = groups if len(groups) <= limit + 1 else groups[:limit]   # "(+1 more)" costs what the one would
    parts = []
    for key, sums, count in shown:
        figures = " ".join(f"{fmt(v)}" if len(sums) == 1 else f"{c} {fmt(v)}" for c, v in sums.items())
        # no row counts beside figures: the 0.5B answered "how many are left?" with a row count
        parts.append(f"{key} {figures}" if figures else f"{key} {count} rows")
    more = [f"(+{len(groups) - len(shown)} more)"] if len(groups) > len(shown) else []
    return "; ".join(parts + more)


def _top_sentence(by: str, groups: list[tuple[str, dict[str, Decimal], int]], value: str | None,
                  where: str = "", low_first: bool = False) -> str:
    (top, sums, count), (low, low_sums, low_count) = groups[0], groups[-1]
    if low_first and value is not None and len(groups) > 1:   # the half asked for first: the 0.5B reads no further
        return f"Lowest {by} by total {value}{where}: {low} {fmt(low_sums[value])}; top: {top} {fmt(sums[value])}."
    if value is None:
        return f"Most rows by {by}: {top} ({count})" + (f"; fewest: {low} ({low_count})." if len(groups) > 1 else ".")
    lowest = f"; lowest: {low} {fmt(low_sums[value])}." if len(groups) > 1 else "."
    return f"Top {by} by total {value}{where}: {top} {fmt(sums[value])}{lowest}"


def _extremes(frame: "_Frame", col: str, label: str, others: Sequence[str], low_first: bool = False) -> str:
    """ "Highest q2: east (q2 130, q1 95); lowest q2: west (q2 70, q1 60)": the row named, with its other
    figures, so "and what was its q1?" is answered from the same line."""
    present = [(v, i) for i, v in enumerate(frame.numbers[col]) if v is not None]
    (high, hi), (low, lo) = max(present, key=lambda p: p[0]), min(present, key=lambda p: p[0])

    def row(i: int, v: Decimal) -> str:
        rest = [f"{c} {fmt(frame.numbers[c][i])}" for c in others if c != col and frame.numbers[c][i] is not None]
        return f"{frame.text[label][i]} ({', '.join([f'{col} {fmt(v)}', *rest])})" if rest else \
            f"{frame.text[label][i]} ({fmt(v)})"
    if low_first:
        return f"Lowest {col}: {row(lo, low)}; highest {col}: {row(hi, high)}."
    return f"Highest {col}: {row(hi, high)}; lowest {col}: {row(lo, low)}."


def _column_line(frame: "_Frame", col: str, additive: bool, label: str | None, categories: Sequence[str],
                 mean_first: bool = False) -> str:
    present = [(v, i) for i, v in enumerate(frame.numbers[col]) if v is not None]
    if not present:
        return f"{col}: no values"
    total = sum((v for v, _ in present), Decimal(0))
    (high, hi), (low, lo) = max(present, key=lambda p: p[0]), min(present, key=lambda p: p[0])
    mean = [f"mean {fmt(round(total / len(present), 2))}"]
    summed = [f"total {fmt(total)}"] if additive else []
    # the measure asked for first: "avg temp?" was answered "temp_c 60." from "temp_c: total 60, mean 12" (0.5B)
    parts = mean + summed if mean_first else summed + mean
    parts += [f"min {fmt(low)} ({_row_name(frame, lo, label, categories)})",
              f"max {fmt(high)} ({_row_name(frame, hi, label, categories)})"]
    return f"{col}: " + ", ".join(parts)


def _dated(frame: "_Frame") -> tuple[str, list[Any]] | None:
    if not frame.dates:
        return None
    col = next(iter(frame.dates))
    return col, frame.dates[col]


def _span(frame: "_Frame") -> str:
    dated = _dated(frame)
    days = [d for d in dated[1] if d is not None] if dated else []
    return f", dated {min(days)} to {max(days)}" if days else ""


def _span_of(plan: Plan) -> str:
    return f"; the file's rows are dated {plan.dated}" if plan.dated else ""


def _by_period(frame: "_Frame", value: str, key: Any) -> dict[str, Decimal]:
    out: dict[str, Decimal] = defaultdict(Decimal)
    dated = _dated(frame)
    for i, d in enumerate(dated[1] if dated else []):
        if d is not None:
            out[key(d)] += frame.numbers[value][i] or Decimal(0)
    return dict(sorted(out.items()))


def _quarter(d: Any) -> str:
    return f"{d.year}-Q{(d.month - 1) // 3 + 1}"


def _month(d: Any) -> str:
    return f"{d.year}-{d.month:02d}"


def _period_sentence(said: str, rows: "_Frame", plan: Plan) -> str:
    if rows.rows == 0:
        return f"{said}: no rows fall in it."
    totals = "; ".join(f"{c} {fmt(_sum(rows, c))}" for c in plan.values[:2])
    # "Total in Q1 2025": the words of "total revenue in Q1 2025" on the line with its figure; the 0.5B
    # and the 1.5B both answered that question from a whole-file line that began "Total:"
    line = f"Total in {said}: {totals} ({rows.rows} rows)." if totals else f"{said}: {rows.rows} rows."
    if plan.mean_first and plan.values:
        # "the average greenhouse temperature from June 1 to June 7": told the week's total alone, a small model
        # divides, or gives the whole file's mean (probe54)
        means = "; ".join(f"{c} {fmt(_mean(rows, c))}" for c in plan.values[:2])
        line = f"Average in {said}: {means} ({rows.rows} rows). " + line
    cats = [c for c in plan.categories if c in rows.text][:1]
    if cats and plan.values:
        line += " " + _top_sentence(cats[0], _groups(rows, cats[0], plan.values[:1]), plan.values[0],
                                    f" in {said.split(' (')[0]}")
    if plan.extreme_first and (ends := _within(said.split(" (")[0], rows, plan)):
        # "whats my longest ride in june?": June's total led, and the 1.5B gave the file's longest, a May ride (probe56)
        line = " ".join(ends) + " " + line
    return line


def _value_sentence(col: str, value: str, rows: "_Frame", plan: Plan) -> str:
    # the rows a condition keeps, with their own totals, in the words of the question ("Total for groceries"):
    # both models gave the whole file's total for "how much did I spend on groceries?", and the 1.5B still
    # did with "Where category is groceries (3 of 5 rows): total amount 9.20." above "Total over all 5 rows"
    totals = "; ".join(f"{c} {fmt(_sum(rows, c))}" for c in plan.values[:2])
    what = f"{rows.rows} of {plan.rows_before or rows.rows} rows, {col} {value}"
    return f"Total for {value}: {totals} ({what})." if totals else f"{value}: {what}."


def _within(said: str, rows: "_Frame", plan: Plan) -> list[str]:
    """The mean and the lowest and highest named row of the first number columns over the rows a condition
    keeps, each line in the words of the condition ("Average for engineering: salary 74,000."), the measure
    the message asks for first. Only totals were given for the rows of a named value: "average salary in
    engineering" was answered with the whole file's mean, "the cheapest in garden" with the whole file's
    cheapest (1.5B)."""
    # "cheapest", "priciest" ask about a price: its column first, whatever the table's order
    stats = sorted(plan.stats, key=lambda c: not (plan.price_asked and _PRICE_COLUMN.search(c)))
    cols = [c for c in stats[:2] if sum(v is not None for v in rows.numbers[c]) > 0]
    if not cols or rows.rows < 2:
        return []
    means = "; ".join(f"{c} {fmt(round(_sum(rows, c) / sum(v is not None for v in rows.numbers[c]), 2))}"
                      for c in cols)
    mean = [f"Average for {said}: {means}."]
    # rows without a name are told apart by their dates: the hilltop station's highest reading went unsaid, its
    # mean given, and the 1.5B answered the mean (probe52)
    label = _label_column(rows) or next((n for n in rows.names if rows.types[n] == "date" and all(rows.text[n])
                                         and len(set(rows.text[n])) == rows.rows), None)
    if not plan.extreme_first:
        return mean
    ends = [_extremes(rows, c, label, [], plan.low_first).replace(f" {c}:", f" {c} for {said}:", 2)
            for c in cols if label and sum(v is not None for v in rows.numbers[c]) > 1]
    return mean + ends if plan.mean_first else ends + mean


def _rows_line(frame: "_Frame", keep: list[bool], said: str, values: Sequence[str],
              shown: Sequence[str] = ()) -> tuple[str, "_Frame"]:
    """"Rows where <said>: <n> of <rows>: <their names>. Total: <values>." and the rows it counts; up to 10 rows
    are named (``_row_names``, with a figure of ``shown``, else of ``values``)."""
    met = frame.select(keep)
    names = _row_names(frame, keep, [*shown, *values]) if 0 < met.rows <= 10 else []
    listed = f": {', '.join(names)}" if names else ""
    totals = "; ".join(f"{c} {fmt(_sum(met, c))}" for c in values) if met.rows else ""
    return f"Rows where {said}: {met.rows} of {frame.rows}{listed}." + (f" Total: {totals}." if totals else ""), met


def _row_names(frame: "_Frame", keep: list[bool], figures: Sequence[str]) -> list[str]:
    """The kept rows as a person names them: by the label column, or in a table whose names repeat (an expense log:
    "Groceries" twice) by its most varied text column's value, its date and its first figure of ``figures``,
    "Groceries (2026-03-03, amount 84.50)". Asked "which expenses were over 80?", the rows were only counted
    ("3 of 7") where no column was all distinct. [] when no text column varies."""
    rows = [i for i in range(frame.rows) if keep[i]]
    if (label := _label_column(frame)) is not None:
        return [frame.text[label][i] for i in rows]
    words = max((n for n in frame.names if frame.types[n] == "text" and len(set(frame.text[n])) > 1),
                key=lambda n: len(set(frame.text[n])), default=None)
    if words is None:
        return []
    days = next(iter(frame.dates.values())) if frame.dates else None
    named = []
    for i in rows:
        figure = next((f"{c} {fmt(v)}" for c in figures
                       if c in frame.numbers and (v := frame.numbers[c][i]) is not None), "")
        said = ", ".join(x for x in (days[i].isoformat() if days and days[i] else "", figure) if x)
        named.append(frame.text[words][i] + (f" ({said})" if said else ""))
    return named


def _cells_said(by_col: dict[str, set[str]]) -> list[str]:
    return [f"{c} is {' or '.join(sorted(v))}" for c, v in by_col.items()]


def _meets_cells(frame: "_Frame", by_col: dict[str, set[str]]) -> list[bool]:
    return [all(frame.text[c][i].casefold() in vals for c, vals in by_col.items()) for i in range(frame.rows)]


def _in_named_period(frame: "_Frame", plan: Plan) -> tuple[list[bool], str] | None:
    """(whether each row falls in the period the message names, the period in its words: "in June 2024"), or None
    when it names none (Plan.named_period)."""
    if not plan.named_period or plan.scope:
        return None
    kept = plan.named_period[1].kept   # the period's rows, selected from this frame
    return (kept, f" in {plan.named_period[0].split(' (')[0]}") if kept is not None and len(kept) == frame.rows \
        else None


def _compared(frame: "_Frame", plan: Plan, by_col: dict[str, set[str]]) -> list[str]:
    """The rows meeting the message's comparison (and the cells it names), listed by their label; their mean and
    extremes after them when asked: "which of those had the most elevation gain?" after "how many hikes in 2024
    were longer than 10 km" got the whole log's highest, a hike of 2023 (probe54)."""
    assert plan.comparison is not None
    keep = [k and cells for k, cells in zip(plan.comparison.keep, _meets_cells(frame, by_col))]
    said = " and ".join([plan.comparison.said, *_cells_said(by_col)])
    if (period := _in_named_period(frame, plan)) is not None:
        # "runs longer than 10km in june": the period too, not May's and July's runs beside June's (probe51)
        keep = [k and w for k, w in zip(keep, period[0])]
        said += period[1]
    column = plan.comparison.column
    # the compared column's own total only when a total is asked: "whats the total km for those" after "how many runs
    # longer than 10km" (probe51); "which items have fewer than 5 in stock" gets no total of the stock
    totals = plan.values[:2] if plan.total_asked else [c for c in plan.values[:2] if c != column]
    line, met = _rows_line(frame, keep, said, totals, [column])
    return [line, *(_within(said, met, plan) if plan.extreme_first or plan.mean_first else [])]


def named_lines(frame: "_Frame", plan: Plan) -> list[str]:
    """The lines for the cells the message names: rows meeting them all first when they are in two or more
    columns ("high priority and still open": the 1.5B had one line per value, 5 and 5 rows, and no count of
    the rows with both), then each value's totals, with its mean and extremes when it is the only one."""
    by_col: dict[str, set[str]] = defaultdict(set)
    for col, value, _ in plan.named_values:
        by_col[col].add(value.casefold())
    lines: list[str] = _compared(frame, plan, by_col) if plan.comparison else []
    if by_col and not plan.comparison and (period := _in_named_period(frame, plan)) is not None:
        # the cells and the period together: "how much did i spend on groceries in march" got groceries over every
        # month and March over every category, and the 0.5B answered neither (probe51)
        keep = [k and w for k, w in zip(_meets_cells(frame, by_col), period[0])]
        lines.append(_rows_line(frame, keep, " and ".join(_cells_said(by_col)) + period[1], plan.values[:2])[0])
    if len(by_col) > 1:
        said = " and ".join(_cells_said(by_col))
        line, both = _rows_line(frame, _meets_cells(frame, by_col), said, plan.values[:2])
        lines += [line, *_within(said, both, plan)]
    totals = [_value_sentence(*named, plan) for named in plan.named_values]
    if len(plan.named_values) != 1:
        return lines + totals
    within = _within(plan.named_values[0][1], plan.named_values[0][2], plan)
    # "the cheapest in garden" led by "Total for garden: price 515.24" was answered with a total
    return lines + (within + totals if plan.mean_first or plan.extreme_first else totals + within)


def _met_alone(frame: "_Frame", name: str, line: str) -> dict[str, Any]:
    return {"status": "success", "message": "\n".join([line, f"Columns: {columns_said(frame.names)}.",
                                                      f"({name}: {frame.rows} rows{_span(frame)}.)"]),
            "columns": ", ".join(frame.names)}


def all_met(plan: Plan, lines: list[str]) -> bool:
    """Whether ``lines`` (``named_lines``) begin with the rows that meet both the cells and the period the message
    names, some row meets them, and nothing else is asked of those rows (a comparison, a mean, an extreme). After
    "Rows where groceries in march 2024: 4 of 20 ... Total: amount 234.20." came "Total for groceries: amount
    620.25", and the 1.5B answered 620.25 (probe52)."""
    return bool(lines and plan.named_values and plan.named_period) and plan.comparison is None \
        and not plan.mean_first and not plan.extreme_first and lines[0].startswith("Rows where") \
        and not re.search(r": 0 of \d", lines[0])


def _conditions_said(plan: Plan) -> list[str]:
    """The conditions the message names, in words: its cells, its period, its comparison."""
    return [v for _, v, _ in plan.named_values] + ([plan.named_period[0].split(" (")[0]] if plan.named_period else []) \
        + ([plan.comparison.said] if plan.comparison else [])


MAX_PERIODS_SHOWN = 24  # periods listed one by one after the best and the lowest


@dataclass(frozen=True)
class Periods:
    """The rows grouped by the period a message asks for: the period ("month"), the date column, the measure in
    words ("total qty"), the cells kept, and each period's figure in calendar order."""

    period: str
    column: str
    measure: str
    cells: str
    figures: list[tuple[str, Decimal]]


def asked_periods(frame: "_Frame", plan: Plan) -> Periods | None:
    """The rows grouped by the period the message asks for, within the cells it names; None when it asks none,
    the table has no dates or no row has one."""
    dated, period = _dated(frame), plan.period_asked
    if dated is None or period is None:
        return None
    by_col: dict[str, set[str]] = defaultdict(set)
    for col, cell, _ in plan.named_values:
        by_col[col].add(cell.casefold())
    keep = _meets_cells(frame, by_col) if by_col else [True] * frame.rows
    value = plan.values[0] if plan.values else None
    numbers = frame.numbers[value] if value else [Decimal(1)] * frame.rows
    days = [d if k else None for d, k in zip(dated[1], keep)]
    figures = per_period(days, numbers, period, mean=bool(value) and plan.mean_first)
    measure = f"{'average' if plan.mean_first else 'total'} {value}" if value else "rows"
    return Periods(period, dated[0], measure, " and ".join(_cells_said(by_col)), figures) if figures else None


def period_asked_line(frame: "_Frame", plan: Plan) -> str | None:
    """The rows grouped by the period the message asks for, within the cells it names, best and lowest first:
    "Best month by total honey_kg: July 2025 7.90; lowest: August 2025 1.20. Each month: ...". Asked "which month
    was best for honey?", the result led with quarters and the top hive."""
    asked = asked_periods(frame, plan)
    if asked is None:
        return None
    period, measure, cells, figures = asked.period, asked.measure, asked.cells, asked.figures
    what = measure + (f" ({cells})" if cells else "")
    if len(figures) == 1:
        return f"Every row{' of ' + cells if cells else ''} falls in {figures[0][0]}: {measure} {fmt(figures[0][1])}."
    each = ", ".join(f"{k} {fmt(v)}" for k, v in figures[:MAX_PERIODS_SHOWN])
    more = ", ..." if len(figures) > MAX_PERIODS_SHOWN else ""
    if not (plan.extreme_first or plan.low_first):
        # asked each month's figure, not which was best: led by the best and lowest, the 0.5B gave those two months
        # and left out the third of "how many kg of tomatoes did we harvest in each month?" (probe57)
        return f"{what[0].upper() + what[1:]} each {period}: {each}{more}."
    ranked = sorted(figures, key=lambda kv: kv[1])
    best, low = ranked[-1][1], ranked[0][1]
    tops = " and ".join(k for k, v in figures if v == best) + f" {fmt(best)}"
    lows = " and ".join(k for k, v in figures if v == low) + f" {fmt(low)}"
    head = f"Lowest {period} by {what}: {lows}; best: {tops}." if plan.low_first else \
        f"Best {period} by {what}: {tops}; lowest: {lows}."
    return f"{head} Each {period}: {each}{more}."


def _asked_lines(frame: "_Frame", plan: Plan) -> list[str]:
    """The lines of what the message asks: the period it ranks by, then the cells it names."""
    period = period_asked_line(frame, plan)
    return ([period] if period else []) + named_lines(frame, plan)


def _whole_lines(frame: "_Frame", plan: Plan) -> list[str]:
    """The whole file's (or period's) total of each value column, after its mean when an average is asked."""
    values = plan.values[:4]
    where = f" in {plan.scope} ({frame.rows} of {plan.rows_before} rows)" if plan.scope else \
        f" over all {frame.rows} rows"
    # beside a condition's total, the whole file's reads as what it is, not as the total asked for
    # "All rows together" was the line the 1.5B took for "how much did i spend on groceires altogether?"
    # and "Total over all 9 rows" for "the total of all orders placed from 1 March to 15 March 2025" (1.5B)
    named = _conditions_said(plan)
    lead = f"Every row, not only {' and '.join(named)}" if named and not plan.scope else "Total" + where
    # "whats the average expense?" was led by the total alone
    means = [f"{c} {fmt(round(_mean(frame, c), 2))}" for c in values if _counted(frame, c)] \
        if plan.mean_first and not named else []
    mean = ["Average" + where + ": " + "; ".join(means) + "."] if means else []
    return mean + [lead + ": " + "; ".join(f"{c} {fmt(_sum(frame, c))}" for c in values) + "."]


def _period_alone(plan: Plan) -> bool:
    """A period the message names and a measure it asks of it ("whats my longest ride in june?"): the whole
    file's top rows, extremes and totals stay out of the message. Below June's longest ride, lines that began
    "Every row, not only June 2024:" gave the file's longest, a May ride, and the 0.5B answered with the
    file's total km as the ride's length (probe56)."""
    return bool(plan.named_period and not plan.scope and plan.named_period[1].rows
                and (plan.extreme_first or plan.mean_first or plan.total_asked))


def _every_row(plan: Plan) -> str:
    """What begins the whole file's lines beside a period the message names: "whats my longest ride in june?" was
    answered with the top route over every month, a May ride (1.5B, probe56)."""
    return f"Every row, not only {plan.named_period[0]}: " if plan.named_period and not plan.scope else ""


def _rows_shown(frame: "_Frame", kind: str, value: str | None) -> dict[str, Any]:
    """A small table's rows, or the largest rows when spending is asked."""
    if frame.rows <= SMALL_TABLE_ROWS:
        return {"rows": [{n: frame.text[n][i] for n in frame.names} for i in range(frame.rows)]}
    if kind == "spending" and value:
        top = sorted(range(frame.rows), key=lambda i: frame.numbers[value][i] or Decimal(0), reverse=True)[:5]
        return {"largest rows": [{n: frame.text[n][i] for n in frame.names} for i in top]}
    return {}


def shaped(frame: "_Frame", name: str, kind: str, plan: Plan) -> dict[str, Any]:
    """The result for ``frame`` (the rows analysed): ``message`` (plain sentences, what was asked first),
    then groups, rows and columns as short lines. ``kind`` adds trends (``trends``, ``full``), the
    largest rows (``spending``) or every grouping column (``full``)."""
    if frame.rows == 0 and plan.scope:  # nothing to total: zeros read as figures of the period
        return {"status": "success", "message": f"{name}: none of its {plan.rows_before} rows fall in "
                f"{plan.scope}{_span_of(plan)}.", "columns": ", ".join(frame.names)}
    values, label = plan.values, _label_column(frame)
    value = values[0] if values else None
    # what was asked comes first; what the file is comes last ("inventory.csv: 4 rows" first was
    # answered to "how many of those are left?" with 4)
    lines = _asked_lines(frame, plan)
    if kind == "summary" and all_met(plan, lines):   # the rows that meet every condition are the answer, alone
        return _met_alone(frame, name, lines[0])
    named = len(lines)
    lines += [_period_sentence(*plan.named_period, plan)] if plan.named_period and not plan.scope else []
    alone = _period_alone(plan)
    lines += _whole_lines(frame, plan) if values and not alone else []
    out: dict[str, Any] = {"status": "success", "message": ""}
    if value and _dated(frame) and not plan.scope and not alone:
        quarters = _by_period(frame, value, _quarter)
        if len(quarters) > 1:  # "Q1 revenue" asked without a date_range still has its figure
            lines.append(f"{value} by quarter: " + ", ".join(f"{q} {fmt(v)}" for q, v in quarters.items()) + ".")
    categories = plan.categories if kind == "full" else plan.categories[:SUMMARY_CATEGORIES]
    if kind == "spending" and not categories:
        categories = plan.categories[:1]
    groups = {c: _groups(frame, c, values[:plan.group_values]) for c in categories}
    lines += [] if alone else [_every_row(plan) + _top_sentence(c, groups[c], value, low_first=plan.low_first)
                               for c in categories if groups[c]]
    if plan.mean_first and plan.grouping_named and value and categories and groups[categories[0]]:
        # what was asked, first; after the rows of a cell of that grouping the message names: "average maths score
        # for class B" led by each class's average over every subject was answered with class B's (probe51)
        at = named if categories[0] in {c for c, _, _ in plan.named_values} else 0
        lines.insert(at, _means_line(frame, categories[0], value))
    if label and not alone:  # one row per name: "which region had the highest q2?" is answered by naming the row
        lines += [_every_row(plan) + _extremes(frame, c, label, plan.stats, plan.low_first) for c in plan.stats[:4]
                  if sum(v is not None for v in frame.numbers[c]) > 1]
    lines.append(f"({name}: {frame.rows} of {plan.rows_before} rows fall in {plan.scope}{_span(frame)}.)"
                 if plan.scope else f"({name}: {frame.rows} rows{_span(frame)}.)")
    # the columns by name, near the top: "what columns does it have?" is answered from the first line
    columns_line = f"Columns: {columns_said(frame.names)}."
    lines = [columns_line, *lines] if plan.columns_asked else [*lines[:-1], columns_line, lines[-1]]
    out["message"] = "\n".join(lines)
    shown_values = values[:plan.group_values]
    for n, c in enumerate(() if alone else categories):  # the first grouping (or the one asked for) in more depth
        key = f"{shown_values[0]} by {c}" if len(shown_values) == 1 else f"by {c}"
        out[key] = _group_line(groups[c], GROUP_LIMIT if c == plan.group_by else TOP_GROUPS if n == 0 else OTHER_GROUPS)
    months = _by_period(frame, value, _month) if value and _dated(frame) else {}
    if kind in ("trends", "full") and months:
        out[f"{value} by month"] = "\n".join(f"{m}: {fmt(v)}" for m, v in months.items())
    elif 1 < len(months) <= MAX_MONTHS and not plan.scope:  # "which month sold most?"
        out[f"{value} by month"] = ", ".join(f"{m} {fmt(v)}" for m, v in months.items())
    out.update(_rows_shown(frame, kind, value))
    if plan.stats and not alone:
        out["number columns"] = "\n".join(_every_row(plan) + _column_line(frame, c, c in values, label, plan.categories,
                                                                plan.mean_first) for c in plan.stats)
    out["columns"] = ", ".join(frame.names)
    return out
