"""The text of a model's SQL query over a table file, read before it runs (table_sql.py runs it).

Three things are read from the words alone: whether it is one SELECT (``checked``: anything else is
refused with a line saying so, before SQLite sees it), the column names a small model writes another
way (``repaired``: "total amount", ``Total_Amount`` or ``SUM('amount')`` for the column ``total
amount``), and what the query asks (``shape_of``: its WHERE condition, whether it totals), so a
single figure can be said with the condition it answers ("SUM(amount) over the rows where category =
'groceries': 182.40").

The tokenizer knows SQLite's quoting (``'text'``, ``"name"``, ```name```, ``[name]``, comments); it
never needs to parse the grammar, only to find words at the top level of the parentheses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Sequence

from gaia_lite.registry.failure import ToolFailure

__all__ = ["TABLE", "Token", "Shape", "tokens", "checked", "repaired", "one_table", "whole_row", "extreme_row", "unknown_quoted", "shape_of",
           "quoted", "without_unsaid", "respelled", "grouped", "share_of_all", "AGGREGATES"]

TABLE = "data"
_TOKEN = re.compile(r"""
 (?P<space>\s+)
|(?P<comment>--[^\n]*|/\*.*?(?:\*/|\Z))
|(?P<text>'(?:[^']|'')*(?:'|\Z))
|(?P<name>"(?:[^"]|"")*(?:"|\Z)|`(?:[^`]|``)*(?:`|\Z)|\[[^\]]*(?:\]|\Z))
|(?P<word>[^\W\d]\w*)
|(?P<number>\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)
|(?P<other>.)
""", re.DOTALL | re.VERBOSE)
AGGREGATES = frozenset("sum avg count min max total group_concat string_agg".split())
_WRITES = frozenset("insert update delete replace drop create alter attach detach pragma vacuum reindex "
                    "analyze begin commit rollback savepoint release".split())
_CLAUSE_ENDS = frozenset("group order limit having window union intersect except".split())
_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# SQL's own words that a column may be called ("order", "group", "from"): such a name is quoted
_RESERVED = frozenset("""add all alter and as asc between by case cast check collate column commit constraint create
    cross current_date current_time current_timestamp default delete desc distinct drop else end escape except
    exists foreign from full group having in index inner insert intersect into is join key left like limit natural
    not null offset on or order outer primary references right select set table then to union unique update using
    values when where window with""".split())
_MAX_RUN = 4   # words a column's name may be written in without quotes ("total sales amount")


@dataclass(frozen=True)
class Token:
    kind: str    # space, comment, text ('...'), name ("..." `...` [...]), word, number, other
    text: str
    depth: int   # parentheses open before it

    @property
    def lower(self) -> str:
        return self.text.lower()

    @property
    def inner(self) -> str:
        """A quoted name or text without its quotes."""
        if self.kind == "text":
            return self.text[1:-1].replace("''", "'")
        if self.kind == "name":
            return self.text[1:-1].replace('""', '"').replace("``", "`")
        return self.text


def tokens(query: str) -> list[Token]:
    out, depth = [], 0
    for m in _TOKEN.finditer(query):
        text = m.group(0)
        depth -= text == ")"
        out.append(Token(m.lastgroup or "other", text, max(depth, 0)))
        depth += text == "("
    return out


def quoted(name: str) -> str:
    """A column or table name as SQL writes it: bare when it is a plain word, else in double quotes."""
    plain = _PLAIN_NAME.fullmatch(name) and name.lower() not in _RESERVED
    return name if plain else '"' + name.replace('"', '""') + '"'


def _significant(toks: Sequence[Token]) -> list[Token]:
    return [t for t in toks if t.kind not in ("space", "comment")]


def checked(query: str) -> list[Token]:
    """The tokens of ``query`` when it is one SELECT (or WITH ... SELECT), without a closing ``;``; else
    a one-line ToolFailure saying what is not run (a second statement is not)."""
    toks = tokens(query)
    while _significant(toks) and _significant(toks)[-1].text == ";":   # a closing ';' is dropped
        toks = toks[:max(i for i, t in enumerate(toks) if t.text == ";")]
    words = _significant(toks)
    if not words:
        raise ToolFailure("query is empty: give one SELECT over table data, e.g. SELECT COUNT(*) FROM data")
    first = words[0].lower
    if first in _WRITES:
        raise ToolFailure(f"only a SELECT query is run (the file is read, never changed); {first.upper()} is not allowed")
    if first not in ("select", "with"):
        raise ToolFailure(f"a query starts with SELECT (or WITH); this one starts with {words[0].text[:40]!r}")
    if any(t.text == ";" for t in words):
        raise ToolFailure("only one statement is run: remove everything after the first ';'")
    write = next((t for t in words if t.kind == "word" and t.lower in _WRITES and t.depth == 0), None)
    if write is not None and first == "with":
        raise ToolFailure(f"only a SELECT query is run (the file is read, never changed); {write.text.upper()} "
                          "is not allowed")
    return toks


def _key(name: str) -> str:
    return re.sub(r"[^0-9a-z]+", "", name.lower())


def repaired(toks: Sequence[Token], names: Sequence[str], is_value: Callable[[str], bool]) -> str:
    """The query with each column name written another way replaced by the real one, quoted: a name
    that differs in case, spaces, underscores or punctuation ("total amount", ``Total_Amount``,
    ``"totalamount"``), and a column's name in single quotes where a column must stand (``SUM('amount')``,
    ``GROUP BY 'category'``) unless it is a value of the table (``is_value``). A name two columns fit
    is left as written."""
    by_key: dict[str, list[str]] = {}
    for n in names:
        by_key.setdefault(_key(n), []).append(n)

    def column(written: str) -> str | None:
        found = by_key.get(_key(written), [])
        return found[0] if len(found) == 1 and _key(written) else None
    around = _Around(toks)
    out: list[str] = []
    i = 0
    while i < len(toks):
        tok = toks[i]
        run, col = _named_run(toks, i, column)
        if col is not None and run > 1:
            out.append(quoted(col))
            i += run
            continue
        col = column(tok.inner) if tok.kind in ("word", "name", "text") else None
        if col is not None and tok.kind == "text" and not (_stands_for_column(around, i) and not is_value(tok.inner)):
            col = None
        if col is not None and tok.kind == "word" and (tok.lower == col.lower() or around.near(i, 1).text == "("):
            col = None
        out.append(quoted(col) if col is not None and (tok.kind == "text" or tok.inner != col) else tok.text)
        i += 1
    return "".join(out)


def _named_run(toks: Sequence[Token], start: int, column: Callable[[str], str | None]) -> tuple[int, str | None]:
    """The longest run of bare words from ``start`` (spaces between) that together name a column
    whose name has spaces or separators ("total amount" for ``total_amount``): (tokens used, column)."""
    if toks[start].kind != "word":
        return 1, None
    words, end, best = [toks[start].text], start, (1, None)
    while len(words) <= _MAX_RUN:
        col = column(" ".join(words))
        if len(words) > 1 and col is not None and _key(col) != col.lower():
            best = (end - start + 1, col)
        nxt = end + 2
        if nxt >= len(toks) or toks[end + 1].kind != "space" or toks[nxt].kind != "word":
            break
        words.append(toks[nxt].text)
        end = nxt
    return best


class _Around:
    """The significant tokens (no spaces, no comments) next to each token of a query, found in one pass."""

    def __init__(self, toks: Sequence[Token]) -> None:
        self.toks = toks
        self.significant = [i for i, t in enumerate(toks) if t.kind not in ("space", "comment")]
        self.rank = {i: k for k, i in enumerate(self.significant)}

    def near(self, i: int, step: int) -> Token:
        """The significant token ``step`` places from token ``i`` (-1: the one before); an empty token
        past either end."""
        k = self.rank.get(i, -10**9) + step
        return self.toks[self.significant[k]] if 0 <= k < len(self.significant) else _NONE


_NONE = Token("", "", 0)


def _stands_for_column(around: _Around, i: int) -> bool:
    """Whether a quoted name or text at ``i`` stands where only a column makes sense: the one argument
    of a total (``SUM('amount')``) or right after BY."""
    if around.near(i, -1).lower == "by":
        return True
    return (around.near(i, -1).text == "(" and around.near(i, 1).text == ")"
            and around.near(i, -2).lower in AGGREGATES)


def one_table(toks: Sequence[Token], with_tables: set[str]) -> tuple[str, str | None]:
    """The query with the one table it reads under another name (``FROM tickets``, the file's own name)
    read as ``data``, and that name; the query as written and None when it names no other table, or two
    (which of them would be the file's cannot be told). The 1.5B wrote ``FROM tickets`` for tickets.tsv."""
    around = _Around(toks)
    known = with_tables | {TABLE}
    # SQLite's own tables and table-valued functions (sqlite_master, pragma_table_info(...)) stay as written:
    # the authorizer refuses them by name
    at = [i for i in around.significant if toks[i].kind in ("word", "name")
          and around.near(i, -1).lower in ("from", "join") and toks[i].inner.lower() not in known
          and not toks[i].inner.lower().startswith(("sqlite_", "pragma_")) and around.near(i, 1).text != "("]
    names = {toks[i].inner.lower() for i in at}
    if len(names) != 1:
        return "".join(t.text for t in toks), None
    # the file's name or path (``FROM inventory.csv``, the 0.5B; ``FROM team/expenses``, the 1.5B) goes whole, or
    # SQLite reads ``data.csv`` as the table csv of a database data
    path = {k for i in at for k in _path_after(toks, i)}
    said = "".join(toks[k].text for k in (at[0], *_path_after(toks, at[0])))
    return "".join(TABLE if i in at else "" if i in path else t.text for i, t in enumerate(toks)), said


def _path_after(toks: Sequence[Token], i: int) -> list[int]:
    """The tokens right after the name at ``i`` that continue it as a file's path: ``/``, ``.`` or ``-`` and a word
    each, with no space between (``.csv``, ``/expenses.tsv``)."""
    out, j = [], i + 1
    while j + 1 < len(toks) and toks[j].text in ("/", ".", "-", "\\") and toks[j + 1].kind in ("word", "number"):
        out += [j, j + 1]
        j += 2
    return out


def whole_row(toks: Sequence[Token], ranked: bool = True) -> str | None:
    """``SELECT * FROM ...`` for a query that picks rows by ORDER BY ... LIMIT (any rows, without ``ranked``) and
    shows only some of their columns ("SELECT price FROM data WHERE category = 'garden' ORDER BY price LIMIT 1"),
    else None: a total, a grouping, DISTINCT or a compound query has no one row to show."""
    top = [t for t in toks if t.depth == 0 and t.kind not in ("space", "comment")]
    said = [t.lower if t.kind == "word" else "" for t in top]
    if said[:1] != ["select"] or "from" not in said or (ranked and not {"order", "limit"} <= set(said)):
        return None
    if {"group", "distinct", "union", "intersect", "except", "having"} & set(said):
        return None
    picked = said[1:said.index("from")]
    if "*" in [t.text for t in top[1:said.index("from")]] or any(w in AGGREGATES for w in picked):
        return None
    start = toks.index(top[said.index("from")])
    return "SELECT * " + "".join(t.text for t in toks[start:])


def extreme_row(toks: Sequence[Token]) -> str | None:
    """``SELECT * ... ORDER BY col DESC LIMIT 1`` for a query whose one result is the highest or lowest of a column
    ("SELECT MIN(price) FROM data WHERE category = 'garden'"), else None: asked for the cheapest garden item, the
    1.5B wrote that and answered "12.75", the item's name never in the result."""
    top = [t for t in toks if t.depth == 0 and t.kind not in ("space", "comment")]
    said = [t.lower if t.kind == "word" else t.text for t in top]
    if said[:1] != ["select"] or len(said) < 6 or said[1] not in ("min", "max") or said[2:5] != ["(", ")", "from"]:
        return None
    if {"group", "distinct", "union", "intersect", "except", "having", "order", "limit", ","} & set(said):
        return None
    inner = [t for t in toks if t.depth == 1 and t.kind not in ("space", "comment")]
    if len(inner) != 1 or inner[0].kind not in ("word", "name"):
        return None
    start = toks.index(top[4])
    order = "DESC" if said[1] == "max" else "ASC"
    return f"SELECT * {''.join(t.text for t in toks[start:]).rstrip().rstrip(';')} ORDER BY {inner[0].text} {order} LIMIT 1"


def unknown_quoted(toks: Sequence[Token], names: Sequence[str]) -> str | None:
    """A name in double quotes where a column must stand (``SUM("amt")``, ``GROUP BY "amt"``) that is no
    column, no WITH table and no alias of the query; SQLite would take it for the text 'amt' and sum 0."""
    around = _Around(toks)
    named = [i for i in around.significant if toks[i].kind in ("word", "name")]
    known = {n.lower() for n in names} | {TABLE}
    known |= {toks[i].inner.lower() for i in named if "as" in (around.near(i, -1).lower, around.near(i, 1).lower)}
    for i in named:
        tok = toks[i]
        if tok.text.startswith('"') and tok.inner.lower() not in known and _stands_for_column(around, i):
            return tok.inner
    return None


def without_unsaid(toks: Sequence[Token], said: Callable[[str], bool]) -> tuple[str, list[str]]:
    """The query without the conditions on a text value nobody said, when it keeps another condition: the 1.5B
    answered "and beans?" with ``WHERE crop = 'bean' AND month = 'july'``, "july" from the table's first rows, and
    "how much has Kim spent?" with ``customer = 'Kim' AND status = 'shipped'``. Read only where the WHERE is one
    AND of terms (no OR, no BETWEEN, no second SELECT); a term is ``name = 'text'``, ``name LIKE 'text'`` or
    ``name IN ('text', ...)``. Returns the query (as given when nothing is left out) and the terms left out."""
    top = [i for i, t in enumerate(toks) if t.depth == 0 and t.kind not in ("space", "comment")]
    words = [toks[i].lower if toks[i].kind == "word" else "" for i in top]
    if words.count("where") != 1 or sum(t.lower == "select" for t in toks) != 1:
        return "".join(t.text for t in toks), []
    start = words.index("where") + 1
    end = next((j for j in range(start, len(top)) if words[j] in _CLAUSE_ENDS), len(top))
    if {"or", "between", "not"} & set(words[start:end]) or end <= start:
        return "".join(t.text for t in toks), []
    terms, begin = [], start
    for j in range(start, end + 1):
        if j == end or words[j] == "and":
            terms.append((begin, j))
            begin = j + 1
    values = [_term_values(toks, top[a:b]) for a, b in terms]
    kept = [t for t, v in zip(terms, values) if v is None or any(said(x) for x in v)]
    # kept whole when nothing else is left: a value nobody said may be the user's words in the table's (and "how many
    # plants are out of stock" came as type = 'perennial' AND stock = 0, "perennial" from the first rows: probe52)
    if len(kept) == len(terms) or not kept:
        return "".join(t.text for t in toks), []
    left = [_spoken(toks[top[a]:top[b - 1] + 1]) for (a, b), v in zip(terms, values) if (a, b) not in kept]
    where = " AND ".join("".join(t.text for t in toks[top[a]:top[b - 1] + 1]) for a, b in kept)
    head = "".join(t.text for t in toks[:top[start]])
    tail = "".join(t.text for t in toks[top[end]:]) if end < len(top) else ""
    return f"{head}{where} {tail}".strip(), left


def _term_values(toks: Sequence[Token], at: Sequence[int]) -> list[str] | None:
    """The text values a condition compares a column with, or None when it is no such condition."""
    parts = [toks[i] for i in at]
    if len(parts) == 3 and parts[0].kind in ("word", "name") and parts[1].text == "=" and parts[2].kind == "text":
        return [parts[2].inner]
    if len(parts) == 3 and parts[0].kind in ("word", "name") and parts[1].lower == "like" and parts[2].kind == "text":
        return [parts[2].inner.replace("%", " ").replace("_", " ").strip()]
    inside = toks[at[-1]].depth if len(at) > 2 else 0
    if len(parts) >= 4 and parts[0].kind in ("word", "name") and parts[1].lower == "in" and parts[2].text == "(":
        items = [t for t in toks[at[2] + 1:] if t.depth == inside + 1 and t.kind not in ("space", "comment")]
        items = items[:next((k for k, t in enumerate(items) if t.text == ")"), len(items))]
        texts = [t.inner for t in items if t.kind == "text"]
        return texts if texts and all(t.kind == "text" or t.text == "," for t in items) else None
    return None


def respelled(toks: Sequence[Token], slip: Callable[[str, str], str | None]) -> tuple[str, list[str]]:
    """The query with each text value a condition compares a column with (``name = 'text'``, ``name LIKE 'text'``
    without wildcards, ``name IN ('text', ...)``) written as the column's value it is a slip of, and a note per
    value changed ("'groceires' read as 'groceries', a value of category"). Asked "how much did i spend on
    groceires?", the 0.5B wrote ``category = 'groceires'``, was told that no row matches and which values there
    are, and answered "100". ``slip(column, text)``: the value of that column ``text`` misspells, else None."""
    plain = [i for i, t in enumerate(toks) if t.kind not in ("space", "comment")]
    changed: dict[int, str] = {}
    notes: list[str] = []
    for k in range(len(plain) - 2):
        column, op, first = toks[plain[k]], toks[plain[k + 1]], toks[plain[k + 2]]
        if column.kind not in ("word", "name"):
            continue
        if op.text in ("=", "==") or (op.lower == "like" and not set(first.inner) & {"%", "_"}):
            at = [plain[k + 2]] if first.kind == "text" else []
        elif op.lower == "in" and first.text == "(":
            at = [j for j in plain[k + 3:] if toks[j].depth == first.depth + 1 and toks[j].kind == "text"]
        else:
            continue
        for j in at:
            if (value := slip(column.inner, toks[j].inner)) is not None:
                changed[j] = "'" + value.replace("'", "''") + "'"
                notes.append(f"{toks[j].text} read as {changed[j]}, a value of {column.inner}")
    return "".join(changed.get(i, t.text) for i, t in enumerate(toks)), notes


_TOTALLING = frozenset({"sum", "avg", "count", "total"})  # MIN/MAX with a bare column is SQLite's row of the extreme


def grouped(toks: Sequence[Token]) -> tuple[str, str | None]:
    """The query with ``GROUP BY`` the plain columns of its SELECT list, when it ranks (ORDER BY) and totals (SUM,
    AVG, COUNT or TOTAL in the SELECT list or ORDER BY) beside them without one, and a note; else as written and
    None. The 0.5B wrote ``SELECT category FROM data ORDER BY SUM(amount) DESC LIMIT 1`` for the category with the
    highest total: SQLite refuses it, and with SUM(amount) in the SELECT list gives one total beside any category.
    Without ORDER BY the query may want the one total ("how many in March": ``SELECT date, COUNT(*) ...``)."""
    top = [i for i, t in enumerate(toks) if t.depth == 0 and t.kind not in ("space", "comment")]
    said = [toks[i].lower if toks[i].kind == "word" else "" for i in top]
    if said[:1] != ["select"] or "from" not in said or "order" not in said \
            or {"group", "union", "intersect", "except"} & set(said):
        return "".join(t.text for t in toks), None
    start = 2 if len(said) > 1 and said[1] in ("distinct", "all") else 1
    items, item = [], []
    for j in range(start, said.index("from")):
        if toks[top[j]].text == ",":
            items.append(item)
            item = []
        else:
            item.append(toks[top[j]])
    items.append(item)
    plain = [it[0].text for it in items
             if it and it[0].kind in ("word", "name") and it[0].lower not in _RESERVED | AGGREGATES
             and (len(it) == 1 or (len(it) == 3 and it[1].lower == "as") or (len(it) == 2 and it[1].kind != "other"))]
    totals = any(said[j] in _TOTALLING and j + 1 < len(top) and toks[top[j + 1]].text == "("
                 for j in range(len(top)) if j < said.index("from") or "order" in said[:j])
    text = "".join(t.text for t in toks)
    end = next((top[j] for j in range(said.index("from"), len(top)) if said[j] in ("order", "having", "limit", "window")),
               None)
    if not plain or not totals or end is None:
        return text, None
    columns = ", ".join(plain)
    cut = sum(len(t.text) for t in toks[:end])   # before ORDER BY (or HAVING, LIMIT, WINDOW)
    return (f"{text[:cut].rstrip()} GROUP BY {columns} {text[cut:]}",
            f"GROUP BY {columns} added: the query totals beside {columns}")


def share_of_all(toks: Sequence[Token]) -> str | None:
    """The query with its WHERE condition moved into the first COUNT(...) of a share (``COUNT(...) ... / COUNT(*)``),
    so the share is of every row; None when it has no such share or no WHERE. For "what percentage of the tickets
    are closed?" the 0.5B wrote ``SELECT COUNT(id) * 100 / COUNT(*) FROM data WHERE status = 'closed'``: 100, the
    share of the closed tickets among the closed ones."""
    top = [i for i, t in enumerate(toks) if t.depth == 0 and t.kind not in ("space", "comment")]
    said = [toks[i].lower if toks[i].kind == "word" else "" for i in top]
    if said[:1] != ["select"] or said.count("where") != 1 or "from" not in said or sum(t.lower == "select" for t in toks) != 1:
        return None
    upto = said.index("from")
    listed = [i for i in range(top[upto]) if toks[i].kind not in ("space", "comment")]   # the SELECT list, any depth
    counts = [i for k, i in enumerate(listed) if toks[i].lower == "count" and k + 1 < len(listed)
              and toks[listed[k + 1]].text == "("]
    if len(counts) < 2 or not any(toks[i].text == "/" for i in listed):
        return None
    start = said.index("where") + 1
    end = next((j for j in range(start, len(top)) if said[j] in _CLAUSE_ENDS), len(top))
    if end <= start:
        return None
    condition = "".join(t.text for t in toks[top[start]:top[end - 1] + 1])
    opened = next(i for i in range(counts[0] + 1, len(toks)) if toks[i].text == "(")   # its ")": back at that depth
    close = next((i for i in range(opened + 1, len(toks)) if toks[i].text == ")" and toks[i].depth == toks[opened].depth),
                 None)
    if close is None:
        return None
    inner = "".join(t.text for t in toks[opened + 1:close]).strip()
    counted = f"CASE WHEN {condition} THEN {'1' if inner in ('*', '') else inner} END"
    head = "".join(t.text for t in toks[:opened + 1]) + counted + "".join(t.text for t in toks[close:top[start - 1]])
    tail = "".join(t.text for t in toks[top[end]:]) if end < len(top) else ""
    return f"{head.rstrip()} {tail}".strip()


@dataclass(frozen=True)
class Shape:
    """What a query asks, read from its top level: the WHERE condition as written, whether it totals
    (an aggregate in the outer SELECT and no GROUP BY), and whether it reads table data whole."""

    where: str | None
    totals: bool
    whole_table: bool


def shape_of(toks: Sequence[Token]) -> Shape:
    top = [i for i, t in enumerate(toks) if t.depth == 0 and t.kind not in ("space", "comment")]
    said = [toks[i].lower if toks[i].kind == "word" else "" for i in top]
    compound = any(w in ("union", "intersect", "except") for w in said)
    where = None
    if "where" in said and not compound:
        start = said.index("where") + 1
        end = next((j for j in range(start, len(top)) if said[j] in _CLAUSE_ENDS), len(top))
        where = _spoken(toks[top[start]:top[end - 1] + 1]) if end > start else None
    from_at = said.index("from") if "from" in said else len(top)
    calls = any(said[j] in AGGREGATES and j + 1 < len(top) and toks[top[j + 1]].text == "(" for j in range(from_at))
    totals = calls and "group" not in said and not compound
    rest = said[from_at:]
    whole = (said[:1] == ["select"] and from_at + 1 < len(top) and toks[top[from_at + 1]].inner.lower() == TABLE
             and where is None and not compound and not any(toks[i].text == "," for i in top[from_at:])
             and not {"join", "limit", "offset", "having"} & set(rest))
    return Shape(where, totals, whole)


def _spoken(toks: Sequence[Token]) -> str:
    """Tokens as one line of text, their spaces and comments folded."""
    return " ".join("".join(" " if t.kind in ("space", "comment") else t.text for t in toks).split())
