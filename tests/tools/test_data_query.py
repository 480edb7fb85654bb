"""analyze_data_file's ``query``: one read-only SQL SELECT over a table file, as table ``data``.

Real CSV and XLSX files in temp dirs, real SQLite, the tool called through a real ToolExecutor
(``as_called``), so a refusal comes back as the one-line error the model reads. The questions are the
ones small models got wrong from the fixed summaries: the total of one category (they gave the total of
every row) and the rows that meet a condition (they gave a summary of all rows).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gaia_lite.agent.results import compact_result
from gaia_lite.tools.data import ARG_LIMITS, analyze_data_file
from gaia_lite.tools.files import read_file
from gaia_lite.tools.table_read import _frame
from gaia_lite.tools.table_sql import MAX_ROWS, SHOWN_ROWS, run_query

from tests.tools.called import as_called

analyze = as_called(analyze_data_file)
read = as_called(read_file)

# groceries: 42.10 + 63.25 + 77.05 = 182.40 (as floats, 182.39999999999998); all rows: 1,517.39
EXPENSES = ("date,category,amount,note\n"
            "01/03/2025,groceries,42.10,Aldi\n"
            '01/05/2025,rent,"$1,200.00",January rent\n'
            "01/09/2025,groceries,63.25,Lidl\n"
            "01/12/2025,transport,15.00,Bus pass\n"
            "01/15/2025,groceries,77.05,Aldi\n"
            "02/02/2025,utilities,89.99,Power\n"
            "02/08/2025,transport,30.00,Taxi\n")


@pytest.fixture
def expenses(tool_ctx, tmp_path: Path) -> str:
    (tmp_path / "expenses.csv").write_text(EXPENSES)
    return "expenses.csv"


def test_the_total_of_one_category_is_not_the_total_of_every_row(tool_ctx, expenses: str) -> None:
    result = analyze(tool_ctx, expenses, query="SELECT SUM(amount) FROM data WHERE category = 'groceries'")
    assert result["status"] == "success", result
    assert result["message"] == "SUM(amount) over the rows where category = 'groceries': 182.40."
    assert result["rows"] == [[182.4]] and result["columns"] == ["SUM(amount)"]   # no 182.39999999999998
    assert result["row_count"] == 1 and result["truncated"] is False
    everything = analyze(tool_ctx, expenses, query="SELECT SUM(amount) FROM data")
    assert everything["message"] == "SUM(amount) over all 7 rows: 1517.39."   # "$1,200.00" is a number


def test_the_rows_that_meet_a_condition_come_back_as_a_small_table(tool_ctx, expenses: str) -> None:
    result = analyze(tool_ctx, expenses, query="SELECT date, category, amount FROM data WHERE amount > 50 ORDER BY amount")
    assert result["message"].splitlines() == [
        "4 rows where amount > 50:",
        "date | category | amount",
        "2025-01-09 | groceries | 63.25",      # dates are ISO text, so they sort and compare
        "2025-01-15 | groceries | 77.05",
        "2025-02-02 | utilities | 89.99",
        "2025-01-05 | rent | 1200"]
    assert result["rows"][0] == ["2025-01-09", "groceries", 63.25] and result["row_count"] == 4
    grouped = analyze(tool_ctx, expenses, query="SELECT category, SUM(amount) AS total FROM data GROUP BY category "
                                                "ORDER BY total DESC")
    assert grouped["rows"] == [["rent", 1200], ["groceries", 182.4], ["utilities", 89.99], ["transport", 45]]


def test_dates_are_iso_text_and_text_is_compared_without_case(tool_ctx, expenses: str) -> None:
    january = analyze(tool_ctx, expenses, query="SELECT COUNT(*) FROM data WHERE date BETWEEN '2025-01-01' AND '2025-01-31'")
    assert january["rows"] == [[5]]
    by_month = analyze(tool_ctx, expenses, query="SELECT strftime('%m', date) AS m, SUM(amount) FROM data GROUP BY m")
    assert by_month["rows"] == [["01", 1397.4], ["02", 119.99]]
    assert analyze(tool_ctx, expenses, query="SELECT SUM(amount) FROM data WHERE category = 'Groceries'")["rows"] == [[182.4]]


@pytest.mark.parametrize("query", [
    "SELECT SUM(total_amount) FROM data WHERE shop_name = 'Aldi'",      # underscores for spaces
    "SELECT SUM(total amount) FROM data WHERE shop name = 'Aldi'",      # bare words with a space
    'SELECT SUM("TOTAL AMOUNT") FROM data WHERE "Shop-Name" = \'Aldi\'',  # case and punctuation
    "SELECT SUM('total amount') FROM data WHERE ShopName = 'Aldi'",     # a column name in single quotes
    "SELECT SUM(totalamount) FROM data WHERE [shop name] = 'aldi'",
])
def test_a_column_named_another_way_is_found(tool_ctx, tmp_path: Path, query: str) -> None:
    (tmp_path / "shop.csv").write_text("Shop Name,Total Amount\nAldi,10.5\nLidl,4\nAldi,2\n")
    result = analyze(tool_ctx, "shop.csv", query=query)
    assert result["status"] == "success", result
    assert result["rows"] == [[12.5]]
    assert '"Total Amount"' in result["query"]   # the query as it ran names the real column


def test_a_value_in_quotes_is_not_taken_for_a_column(tool_ctx, tmp_path: Path) -> None:
    (tmp_path / "pets.csv").write_text("kind,count\ncat,3\ndog,2\ncount,7\n")   # a row whose kind is "count"
    result = analyze(tool_ctx, "pets.csv", query="SELECT kind FROM data WHERE kind = 'count'")
    assert result["rows"] == [["count"]]


def test_a_wrong_name_gets_one_line_naming_the_real_ones(tool_ctx, expenses: str) -> None:
    wrong = analyze(tool_ctx, expenses, query="SELECT SUM(amount) FROM data WHERE amt > 5")
    assert wrong["status"] == "error" and wrong["file"] == "expenses.csv", wrong
    assert wrong["error"] == "no column 'amt' in data; columns are: date, category, amount, note"
    # a name one column clearly fits is read as it, and the answer says so: told "did you mean start_date?"
    # for "started_at", the 1.5B read the whole file instead and summed every row (probe_data.json)
    near = analyze(tool_ctx, expenses, query="SELECT note FROM data WHERE amont > 5")
    assert near["message"].startswith("7 rows where amount > 5, note: Aldi, January rent,"), near
    assert near["message"].endswith("('amont' read as amount, the closest column)"), near["message"]
    # in double quotes SQLite would read it as the text 'amt' and sum it to 0: refused the same way
    assert analyze(tool_ctx, expenses, query='SELECT SUM("amt") FROM data')["error"] == \
        "no column 'amt' in data; columns are: date, category, amount, note"
    alias = analyze(tool_ctx, expenses, query='SELECT category, SUM(amount) AS "Total" FROM data GROUP BY category '
                                              'ORDER BY "Total" DESC LIMIT 1')
    assert alias["rows"] == [["rent", 1200]]
    # two tables other than data: which one is the file cannot be told
    table = analyze(tool_ctx, expenses, query="SELECT SUM(amount) FROM expenses JOIN other")["error"]
    assert table.startswith("no table 'expenses': the table is called data (FROM data)")
    for query in ("SELECT SUM(amount FROM data", "SELECT nosuchfn(amount) FROM data", "SELEC 1", "-- nothing"):
        error = analyze(tool_ctx, expenses, query=query + " ").get("error", "")
        assert error and "\n" not in error and len(error) < 300, (query, error)


def test_a_condition_no_row_meets_names_the_values_there_are(tool_ctx, expenses: str) -> None:
    none = analyze(tool_ctx, expenses, query="SELECT SUM(amount) FROM data WHERE category = 'food'")
    assert none["message"] == ("SUM(amount) over the rows where category = 'food': none (no row matches). "
                               "category holds: groceries, transport, rent, utilities.")
    empty = analyze(tool_ctx, expenses, query="SELECT * FROM data WHERE category = 'food'")
    assert empty["message"].startswith("No rows where category = 'food'. category holds: ")
    assert empty["row_count"] == 0 and empty["rows"] == []


def test_a_misspelt_value_is_read_as_the_value_it_misspells_and_the_answer_says_so(tool_ctx, expenses: str) -> None:
    # "how much did i spend on groceires?": the 0.5B wrote the user's spelling into its query, was told that no
    # row matches and which values there are, and answered "100" (probe42)
    typo = analyze(tool_ctx, expenses, query="SELECT SUM(amount) FROM data WHERE category = 'groceires'")
    assert typo["rows"] == [[182.4]]
    assert typo["message"] == ("SUM(amount) over the rows where category = 'groceries': 182.40. "
                               "('groceires' read as 'groceries', a value of category)")
    assert typo["query"] == "SELECT SUM(amount) FROM data WHERE category = 'groceries'"
    # the singular, in a list and after LIKE without a wildcard
    assert analyze(tool_ctx, expenses, query="SELECT COUNT(*) FROM data WHERE category = 'grocery'")["rows"] == [[3]]
    listed = analyze(tool_ctx, expenses, query="SELECT COUNT(*) FROM data WHERE category IN ('groceris', 'rent')")
    assert listed["rows"] == [[4]] and "'groceris' read as 'groceries'" in listed["message"]
    assert analyze(tool_ctx, expenses, query="SELECT COUNT(*) FROM data WHERE category LIKE 'trasnport'")["rows"] == [[2]]


def test_a_value_that_is_no_slip_of_one_value_is_left_as_written(tool_ctx, tmp_path: Path, expenses: str) -> None:
    # no value close enough, a word too short to tell, a pattern, and a value that is there in another case
    for query in ("SELECT COUNT(*) FROM data WHERE category = 'food'",
                  "SELECT COUNT(*) FROM data WHERE category = 'ren'",
                  "SELECT COUNT(*) FROM data WHERE category LIKE 'grocer%'",
                  "SELECT COUNT(*) FROM data WHERE category = 'RENT'"):
        result = analyze(tool_ctx, expenses, query=query)
        assert "read as" not in result["message"] and "query" not in result, (query, result)
    # two values as close: which one was meant cannot be told
    (tmp_path / "stock.csv").write_text("kind,n\npaper,1\npapers,2\npen,3\n")
    both = analyze(tool_ctx, "stock.csv", query="SELECT SUM(n) FROM data WHERE kind = 'papr'")
    assert both["message"].startswith("SUM(n) over the rows where kind = 'papr': none (no row matches)."), both


def test_a_long_result_is_cut_and_says_how_many_rows_there_are(tool_ctx, tmp_path: Path) -> None:
    (tmp_path / "many.csv").write_text("n,half\n" + "".join(f"{i},{i / 2}\n" for i in range(120)))
    result = analyze(tool_ctx, "many.csv", query="SELECT n, half FROM data")
    assert result["row_count"] == 120 and len(result["rows"]) == MAX_ROWS and result["truncated"] is True
    lines = result["message"].splitlines()
    assert lines[0] == f"120 rows; the first {SHOWN_ROWS}:" and len(lines) == SHOWN_ROWS + 2
    assert lines[3] == "1 | 0.50"
    assert len(compact_result(result)) <= 4100   # what the model reads stays within one result's cap


def test_date_range_narrows_the_rows_the_query_reads(tool_ctx, expenses: str) -> None:
    result = analyze(tool_ctx, expenses, query="SELECT COUNT(*), SUM(amount) FROM data", date_range="2025-02")
    assert result["rows"] == [[2, 119.99]] and "2 rows in 2025-02-01..2025-02-28" in result["note"]
    ignored = analyze(tool_ctx, expenses, query="SELECT COUNT(*) FROM data", group_by="category")
    assert ignored["rows"] == [[7]] and "group_by are left out" in ignored["note"]


def test_every_mode_shows_the_schema_and_three_rows_but_no_query_to_copy(tool_ctx, expenses: str) -> None:
    """No example query beside them: on the dev split the 0.5B model answered a total with the
    example query's text ("SELECT SUM(revenue) FROM data WHERE salesperson = 'Raj Mehta'}")."""
    for kind in ("summary", "spending", "trends", "full"):
        result = analyze(tool_ctx, expenses, analysis_type=kind)
        assert result["schema"] == "data(date date, category text, amount number, note text)", kind
        assert result["sample"].splitlines() == ["2025-01-03 | groceries | 42.10 | Aldi",
                                                 "2025-01-05 | rent | 1200 | January rent",
                                                 "2025-01-09 | groceries | 63.25 | Lidl"]
        assert "SELECT" not in compact_result(result), kind
    queried = analyze(tool_ctx, expenses, query="SELECT COUNT(*) FROM data")
    assert "schema" not in queried   # it has its query, so the schema would be noise


def test_read_file_of_a_table_shows_its_schema(tool_ctx, tmp_path: Path, expenses: str) -> None:
    figures = read(tool_ctx, expenses)["figures"].splitlines()
    assert figures[-4:] == ["schema: data(date date, category text, amount number, note text)",
                            "sample: 2025-01-03 | groceries | 42.10 | Aldi",
                            "sample: 2025-01-05 | rent | 1200 | January rent",
                            "sample: 2025-01-09 | groceries | 63.25 | Lidl"]
    import openpyxl
    wb = openpyxl.Workbook()
    for row in [["item", "price", "in stock"], ["bolt", 0.25, 540], ["nut", 0.1, 75], ["bolt", 0.3, 20]]:
        wb.active.append(row)
    wb.save(tmp_path / "stock.xlsx")
    sheet = read(tool_ctx, "stock.xlsx")["figures"].splitlines()
    assert 'schema: data(item text, price number, "in stock" number)' in sheet
    assert sheet[-1] == "sample: bolt | 0.30 | 20"
    answer = analyze(tool_ctx, "stock.xlsx", query="SELECT SUM(in_stock) FROM data WHERE item = 'bolt'")
    assert answer["rows"] == [[560]]


def test_a_header_that_is_an_sql_word_is_quoted(tool_ctx, tmp_path: Path) -> None:
    (tmp_path / "orders.csv").write_text("order,group,amount\n1,a,5\n2,b,7\n")
    result = analyze(tool_ctx, "orders.csv")
    assert result["schema"] == 'data("order" number, "group" text, amount number)'
    assert analyze(tool_ctx, "orders.csv", query='SELECT SUM(amount) FROM data WHERE "group" = \'b\'')["rows"] == [[7]]


# ---------------------------------------------------------------- hostile input (issues 42 and 44)

HOSTILE = [
    ("ATTACH DATABASE '{tmp}/x.db' AS x", "ATTACH is not allowed"),
    ("PRAGMA table_info(data)", "PRAGMA is not allowed"),
    ("SELECT load_extension('{tmp}/x')", "load_extension() is not allowed"),
    ("DROP TABLE data", "DROP is not allowed"),
    ("SELECT 1; DROP TABLE data", "only one statement"),
    ("INSERT INTO data VALUES ('2025-01-01', 'x', 1, 'y')", "INSERT is not allowed"),
    ("WITH x AS (SELECT 1) DELETE FROM data", "DELETE is not allowed"),
    ("UPDATE data SET amount = 0", "UPDATE is not allowed"),
    ("CREATE TABLE t AS SELECT * FROM data", "CREATE is not allowed"),
    ("VACUUM INTO '{tmp}/x.db'", "VACUUM is not allowed"),
    ("SELECT readfile('/etc/passwd')", "readfile"),
    ("SELECT writefile('{tmp}/x.db', 'owned')", "writefile"),
    ("SELECT edit('x')", "edit"),
    ("SELECT * FROM pragma_table_info('data')", "table-valued function is not allowed"),
    ("SELECT sql FROM sqlite_master", "reading sqlite_master is not allowed"),
    ("SELECT * FROM data; SELECT 1", "only one statement"),
]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("query, said", HOSTILE)
def test_a_query_that_is_not_one_read_is_refused_in_one_line(tool_ctx, tmp_path: Path, expenses: str,
                                                            query: str, said: str) -> None:
    before = (tmp_path / expenses).read_bytes()
    result = analyze(tool_ctx, expenses, query=query.format(tmp=tmp_path))
    assert result["status"] == "error" and said in result["error"], result
    assert "\n" not in result["error"] and len(result["error"]) < 300
    assert (tmp_path / expenses).read_bytes() == before and not (tmp_path / "x.db").exists()
    assert analyze(tool_ctx, expenses, query="SELECT COUNT(*) FROM data")["rows"] == [[7]]   # still whole


def test_the_authorizer_stops_what_the_text_check_lets_through(tool_ctx, expenses: str) -> None:
    """Both lines start with SELECT: the guard SQLite consults at prepare time refuses them."""
    frame = _frame([r.split(",") for r in ["a,b", "1,x", "2,y"]])
    for query, said in [("SELECT load_extension('x')", "load_extension"), ("SELECT * FROM sqlite_schema", "sqlite_master"),
                        ("SELECT randomblob(10)", "randomblob")]:
        with pytest.raises(Exception) as refused:
            run_query(frame, query)
        assert said in str(refused.value) and "not allowed" in str(refused.value)


@pytest.fixture
def big(tool_ctx, tmp_path: Path) -> str:
    (tmp_path / "big.csv").write_text("id,category,amount\n" + "".join(f"{i},c{i % 5},{i * 1.5}\n" for i in range(216)))
    return "big.csv"


@pytest.mark.timeout(60)
@pytest.mark.parametrize("query", [
    "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r) SELECT count(*) FROM r",   # never ends
    "SELECT count(*) FROM data a, data b, data c, data d",                                    # 2 billion rows
    "SELECT a.amount * b.amount FROM data a, data b, data c",                                 # 10 million rows back
])
def test_a_runaway_query_is_stopped_by_the_time_limit(tool_ctx, tmp_path: Path, big: str, query: str) -> None:
    import time

    before = (tmp_path / big).read_bytes()
    started = time.monotonic()
    result = analyze(tool_ctx, big, query=query)
    took = time.monotonic() - started
    assert result["status"] == "error" and result["error"].startswith("the query ran over 2 s and was stopped"), result
    assert took < 5, f"stopped after {took:.1f} s"
    assert (tmp_path / big).read_bytes() == before


def test_a_huge_value_is_refused(tool_ctx, expenses: str) -> None:
    result = analyze(tool_ctx, expenses, query="SELECT group_concat(a.note || b.note || c.note || d.note) "
                                               "FROM data a, data b, data c, data d, data e, data f")
    assert result == {"status": "error", "error": "a value of the result is over 1,000,000 bytes; ask for less"}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("argument", ["file_path", "columns", "group_by", "query", "date_range"])
def test_an_oversized_argument_is_refused_naming_it_and_its_limit(tool_ctx, tmp_path: Path, expenses: str,
                                                                  argument: str) -> None:
    """Issue 44: a 1 MB ``columns`` was answered as if nothing were wrong. A megabyte stops at the executor's limit
    for any name or query (execute.MAX_NAME_CHARS); one character over the tool's own limit, at the tool's."""
    before = (tmp_path / expenses).read_bytes()
    args = {"file_path": expenses, argument: ("x" if argument != "query" else "SELECT ") * 1_000_000}
    if argument == "file_path":
        args["file_path"] = "a/" * 500_000 + "expenses.csv"
    result = analyze(tool_ctx, **args)
    assert result == {"status": "error", "error": f"analyze_data_file: argument {argument!r} is {len(args[argument]):,} "
                      "characters; the limit is 4,096 for a name, path, pattern or query: send a shorter one"}
    if ARG_LIMITS[argument] < 4096:
        args[argument] = ("SELECT " + "x" * ARG_LIMITS[argument]) if argument == "query" else "x" * (ARG_LIMITS[argument] + 1)
        result = analyze(tool_ctx, **args)
        assert result == {"status": "error",
                          "error": f"{argument} is {len(args[argument]):,} characters; the limit is {ARG_LIMITS[argument]:,}"
                          + ("; a period is e.g. 2025-Q1 or 2025-01-01..2025-03-31" if argument == "date_range" else "")}
    assert (tmp_path / expenses).read_bytes() == before
    assert analyze(tool_ctx, expenses, columns="amount, " * 10)["status"] == "success"   # a long but fair list


def test_a_copied_number_column_is_read_as_the_tables_only_one(tool_ctx, tmp_path: Path) -> None:
    """The 0.5B copied a worked example's column ("amount") for a table whose number column is "cost"; with
    one number column there is one thing it can mean, and the answer says how the query was read."""
    (tmp_path / "spending.csv").write_text("date,item,category,cost\n2025-03-01,apples,groceries,4.20\n"
                                          "2025-03-02,bus,transport,2.50\n2025-03-03,bread,groceries,3.10\n")
    result = analyze(tool_ctx, "spending.csv", query="SELECT SUM(amount) FROM data WHERE category = 'groceries'")
    assert result["message"] == ("SUM(cost) over the rows where category = 'groceries': 7.30. "
                                 "('amount' read as cost, the only number column)")
    # a name in a condition could mean anything: refused with the real columns
    two = analyze(tool_ctx, "spending.csv", query="SELECT SUM(cost) FROM data WHERE kind = 'fun'")
    assert two["status"] == "error" and "columns are: date, item, category, cost" in two["error"]


@pytest.mark.parametrize("table", ["expenses.csv", "expenses", "finance/expenses.csv", "finance/expenses"])
def test_a_query_that_names_the_file_reads_its_rows(tool_ctx, expenses: str, table: str) -> None:
    # FROM inventory.csv (0.5B) and FROM team/expenses (1.5B): SQLite would read "data.csv" as table csv of a
    # database "data" and "data/expenses" as a division
    result = analyze(tool_ctx, expenses, query=f"SELECT SUM(amount) FROM {table} WHERE category = 'groceries'")
    assert result["status"] == "success", result
    assert result["rows"] == [[182.4]] and f"table '{table}' read as data" in result["message"]


def test_the_query_comes_back_only_when_it_ran_otherwise_than_written(tool_ctx, expenses: str) -> None:
    # given its own query back, the 0.5B answered with it ("SELECT item FROM data WHERE qty < 5")
    as_written = analyze(tool_ctx, expenses, query="SELECT SUM(amount) FROM data WHERE category = 'rent';")
    assert as_written["rows"] == [[1200]] and "query" not in as_written
    renamed = analyze(tool_ctx, expenses, query="SELECT SUM(amount) FROM expenses WHERE category = 'rent'")
    assert renamed["query"] == "SELECT SUM(amount) FROM data WHERE category = 'rent'"


def test_a_query_that_cannot_run_comes_with_the_tables_figures_for_the_question(tool_ctx, tmp_path: Path) -> None:
    # "sales_by_region.csv - q2 total?" got WHERE q2 = ? from the 0.5B (test split), and after an error neither model
    # wrote a second query in 6 dev turns of 6: the figures that answer the question come beside the error
    (tmp_path / "sales_by_region.csv").write_text("region,q1,q2\nnorth,200,180\nsouth,150,210\neast,90,60\n")
    tool_ctx.request.message = "sales_by_region.csv - q2 total?"
    failed = analyze(tool_ctx, "sales_by_region.csv", query="SELECT q2 FROM data WHERE q2 = ?")
    assert failed["status"] == "error", failed
    assert failed["error"].startswith("the query has a ? (or :name) where a value belongs; write the value itself")
    assert "q2 450" in failed["figures"], failed["figures"]
    for mistake in ("SELECT SUM(q2 FROM data", "SELECT nosuchfn(q2) FROM data", "SELECT SUM(q3) FROM data"):
        assert "q2 450" in analyze(tool_ctx, "sales_by_region.csv", query=mistake).get("figures", ""), mistake
    # a query refused is refused alone: no figures to answer from beside a write
    refused = analyze(tool_ctx, "sales_by_region.csv", query="DELETE FROM data")
    assert refused["status"] == "error" and "figures" not in refused, refused


@pytest.mark.parametrize("query", [
    "SELECT category FROM data ORDER BY SUM(amount) DESC LIMIT 1",             # SQLite: misuse of aggregate
    "SELECT category, SUM(amount) AS total FROM data ORDER BY total DESC LIMIT 1",  # SQLite: one total, any category
])
def test_a_ranking_of_totals_without_group_by_is_grouped_by_its_plain_columns(tool_ctx, expenses: str,
                                                                              query: str) -> None:
    ranked = analyze(tool_ctx, expenses, query=query)
    assert ranked["rows"][0][0] == "rent", ranked
    assert "GROUP BY category added" in ranked["message"], ranked["message"]


def test_a_total_beside_a_column_is_not_grouped_without_a_ranking(tool_ctx, expenses: str) -> None:
    # no ORDER BY: the query may want the one total ("how many in January": SELECT date, COUNT(*) ...)
    one = analyze(tool_ctx, expenses, query="SELECT date, COUNT(*) FROM data WHERE category = 'groceries'")
    assert one["row_count"] == 1 and one["rows"][0][1] == 3, one
    # SQLite's MIN/MAX beside a plain column is the row of the extreme, kept as it is
    top = analyze(tool_ctx, expenses, query="SELECT note, MAX(amount) FROM data ORDER BY 2 DESC")
    assert top["rows"] == [["January rent", 1200]], top


def test_a_condition_no_row_meets_on_an_unnamed_column_is_read_on_the_number_column_the_question_names(
        tool_ctx, tmp_path: Path) -> None:
    # "total kwh on the days that used between 9 and 14 kwh?": the 0.5B wrote WHERE day BETWEEN 9 AND 14 (probe_data3)
    (tmp_path / "meter.csv").write_text("day,kwh\n1,12.5\n2,9.0\n3,14.0\n4,7.5\n5,11.0\n6,20.0\n")
    tool_ctx.request.message = "meter.csv - total kwh on the days that used between 9 and 14 kwh?"
    moved = analyze(tool_ctx, "meter.csv", query="SELECT SUM(kwh) FROM data WHERE day BETWEEN 9 AND 14")
    assert moved["rows"] == [[46.5]], moved
    assert moved["message"].endswith("(no row has that on day, so the condition was read on kwh, the column the "
                                     "question names)"), moved["message"]
    # a condition some row meets, or one on the column the question names, runs as written
    assert analyze(tool_ctx, "meter.csv", query="SELECT SUM(kwh) FROM data WHERE day BETWEEN 1 AND 2")["rows"] == [[21.5]]
    tool_ctx.request.message = "meter.csv - total kwh from day 9 to day 14?"
    kept = analyze(tool_ctx, "meter.csv", query="SELECT SUM(kwh) FROM data WHERE day BETWEEN 9 AND 14")
    assert kept["message"].startswith("SUM(kwh) over the rows where day BETWEEN 9 AND 14: none"), kept["message"]


@pytest.mark.parametrize("query", [
    "SELECT CAST(COUNT(T1.id) AS REAL) * 100 / COUNT(*) FROM data AS T1 WHERE T1.status = 'closed'",   # the 0.5B's
    "SELECT COUNT(*) * 100.0 / COUNT(*) FROM data WHERE status = 'closed'",
])
def test_a_share_of_the_rows_a_condition_keeps_among_themselves_is_asked_of_every_row(tool_ctx, tmp_path: Path,
                                                                                       query: str) -> None:
    # "what percentage of the tickets are closed?" got 100 from a share whose WHERE filtered its denominator too
    (tmp_path / "tickets.csv").write_text("id,status\n" + "".join(f"{i},{'closed' if i <= 5 else 'open'}\n"
                                                                  for i in range(1, 9)))
    share = analyze(tool_ctx, "tickets.csv", query=query)
    assert share["rows"] == [[62.5]], share
    assert "this is their share of every row" in share["message"], share["message"]
    # a share below 100 %, or a count, runs as written
    kept = analyze(tool_ctx, "tickets.csv", query="SELECT SUM(id) * 100.0 / COUNT(*) FROM data WHERE id > 6")
    assert kept["rows"] == [[750]] and "every row" not in kept["message"], kept
    assert analyze(tool_ctx, "tickets.csv", query="SELECT COUNT(*) FROM data WHERE status = 'closed'")["rows"] == [[5]]


def test_dates_between_that_are_not_the_days_the_question_names_are_read_as_them(tool_ctx, tmp_path: Path) -> None:
    # "from 1 March to 15 March 2025" got BETWEEN '2025-03-01' AND '2025-05-31' from the 0.5B (probe42)
    (tmp_path / "orders.csv").write_text("order_date,total\n2025-03-02,100\n2025-03-14,50.5\n2025-03-20,70\n"
                                         "2025-04-02,30\n")
    tool_ctx.request.message = "total of the orders from 1 March to 15 March 2025?"
    moved = analyze(tool_ctx, "orders.csv", query="SELECT SUM(total) FROM data "
                                                  "WHERE order_date BETWEEN '2025-03-01' AND '2025-05-31'")
    assert moved["rows"] == [[150.5]], moved
    assert moved["message"].endswith("(dates 2025-03-01 to 2025-05-31 read as 2025-03-01 to 2025-03-15, the days "
                                     "the question names)"), moved["message"]
    # the days the question names, or a question that names none, run as written
    same = "SELECT SUM(total) FROM data WHERE order_date BETWEEN '2025-03-01' AND '2025-03-15'"
    assert analyze(tool_ctx, "orders.csv", query=same)["rows"] == [[150.5]]
    tool_ctx.request.message = "total of the orders in spring?"
    wide = analyze(tool_ctx, "orders.csv", query=same.replace("03-15", "05-31"))
    assert wide["rows"] == [[250.5]] and "read as" not in wide["message"], wide


def test_columns_the_condition_fixes_come_back_as_whole_rows(tool_ctx, expenses: str) -> None:
    # "which flights leave from PDX?" as SELECT origin ... WHERE origin = 'PDX' gave "PDX, PDX, PDX", and the 1.5B
    # made up the flights (probe53)
    tool_ctx.request.message = "which of my expenses were groceries?"
    result = analyze(tool_ctx, expenses, query="SELECT category FROM data WHERE category = 'groceries'")
    assert result["message"].startswith("3 rows where category = 'groceries':\ndate | category | amount | note")
    assert "Lidl" in result["message"]
    # a column with values of its own stays as asked
    result = analyze(tool_ctx, expenses, query="SELECT note FROM data WHERE category = 'groceries'")
    assert result["columns"] == ["note"]


def test_a_value_nobody_said_is_left_out_beside_a_condition_on_a_number(tool_ctx, tmp_path: Path) -> None:
    # "how many plants r out of stock right now" came as type = 'perennial' AND stock = 0 from both models,
    # "perennial" from the first rows (probe52)
    (tmp_path / "stock.csv").write_text("plant,type,stock\nsalvia,perennial,0\naster,perennial,4\n"
                                        "petunia,annual,0\nlilac,shrub,0\n")
    tool_ctx.request.message = "how many plants r out of stock right now"
    result = analyze(tool_ctx, "stock.csv", query="SELECT COUNT(*) FROM data WHERE type = 'perennial' AND stock = 0")
    assert result["message"] == ("COUNT(*) over the rows where stock = 0: 3. (Left out type = 'perennial': the "
                                 "question does not name that value.)"), result["message"]
    # a condition on a number no row meets says the column's range
    result = analyze(tool_ctx, "stock.csv", query="SELECT COUNT(*) FROM data WHERE stock < 0")
    assert result["message"].endswith("stock runs from 0 to 4; 3 rows hold 0."), result["message"]
