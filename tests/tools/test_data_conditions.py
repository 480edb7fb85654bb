"""Questions with a condition over a table, answered by analyze_data_file itself (issue 42).

Each case is one the 1.5B got wrong on a probe suite: the summary gave only totals for a named value
("average salary in engineering" was answered with the whole file's mean, "the cheapest in garden" with
the whole file's cheapest), one line per named value and no count of the rows meeting both, a misspelt
category found nothing, a query's ``FROM tickets`` for tickets.tsv was an error, and query_specific_file
could not read a .tsv at all. Real files in temp dirs, the tools called as the agent calls them.
"""

from __future__ import annotations

import json
from pathlib import Path

from gaia_lite.registry.context import ToolContext
from gaia_lite.tools.data import analyze_data_file
from gaia_lite.tools.files import read_file
from gaia_lite.tools.rag import query_specific_file

from tests.tools.called import as_called

analyze = as_called(analyze_data_file)
ask_file = as_called(query_specific_file)

TICKETS = ("id\topened\tpriority\tstatus\n" "T-1\t2025-05-02\thigh\topen\n" "T-2\t2025-05-02\tlow\tclosed\n"
           "T-3\t2025-05-03\thigh\tclosed\n" "T-4\t2025-05-04\tmedium\topen\n" "T-5\t2025-05-06\thigh\topen\n"
           "T-6\t2025-05-07\tlow\topen\n")
PRODUCTS = ("sku,name,category,price,stock\n" "G-01,Hose reel,garden,34.99,12\n" "K-01,Chef knife,kitchen,59.00,8\n"
            "G-03,Lawn mower,garden,449.00,3\n" "G-04,Watering can,garden,12.75,25\n" "T-02,Hammer,tools,9.80,30\n")
STAFF = ("name,department,salary\n" "Ines,engineering,72000\n" "Kofi,sales,51000\n" "Mara,engineering,81000\n"
         "Tobias,support,43000\n" "Yuki,engineering,69000\n")


def _ask(ctx: ToolContext, message: str, name: str, text: str, **args: str) -> dict:
    (Path(ctx.workdir) / name).write_text(text)
    ctx.request.message = message
    return analyze(ctx, name, **args)


def test_values_named_in_two_columns_give_the_rows_that_meet_both(tool_ctx: ToolContext) -> None:
    result = _ask(tool_ctx, "how many tickets are high priority and still open?", "tickets.tsv", TICKETS)
    first = result["message"].splitlines()[0]
    assert first == "Rows where priority is high and status is open: 2 of 6: T-1, T-5.", first


def test_the_mean_of_a_named_group_is_said_beside_its_total(tool_ctx: ToolContext) -> None:
    lines = _ask(tool_ctx, "whats the average salary in engineering?", "staff.csv", STAFF)["message"].splitlines()
    # the mean asked for first; the whole file's 63,200 is not the group's
    assert lines[0] == "Average for engineering: salary 74,000.", lines
    assert "Total for engineering: salary 222,000 (3 of 5 rows, department engineering)." in lines


def test_the_lowest_within_a_named_category_leads_and_names_the_row_in_words(tool_ctx: ToolContext) -> None:
    result = _ask(tool_ctx, "cheapest thing in the garden category?", "products.csv", PRODUCTS, columns="price")
    first = result["message"].splitlines()[0]
    # Hammer (9.80) is the whole file's cheapest; the row is named by ``name``, not by the ``sku`` code
    assert first == "Lowest price for garden: Watering can (12.75); highest price for garden: Lawn mower (449).", first


def test_a_misspelt_category_is_still_the_condition(tool_ctx: ToolContext) -> None:
    expenses = "date,category,amount\n2025-04-02,groceries,42.80\n2025-04-03,transport,55\n2025-04-05,groceries,18.25\n"
    first = _ask(tool_ctx, "how much did i spend on groceires?", "expenses.csv", expenses)["message"].splitlines()[0]
    assert first == "Total for groceries: amount 61.05 (2 of 3 rows, category groceries).", first
    # a word merely like no value ("transfer" is 0.71 of "transport") is no condition
    other = _ask(tool_ctx, "what about the transfer?", "expenses.csv", expenses)["message"]
    assert "Total for" not in other, other


def test_a_query_that_names_the_file_as_its_table_reads_the_file(tool_ctx: ToolContext) -> None:
    query = "SELECT COUNT(*) FROM tickets WHERE priority = 'High' AND status = 'Open'"
    result = _ask(tool_ctx, "how many high priority open tickets?", "tickets.tsv", TICKETS, query=query)
    assert result["status"] == "success", result
    assert result["rows"] == [[2]]
    assert result["message"] == ("COUNT(*) over the rows where priority = 'High' AND status = 'Open': 2. "
                                 "(table 'tickets' read as data, the file's rows)")


def test_query_specific_file_answers_a_sql_question_about_a_table_file(rag_ctx: ToolContext) -> None:
    (Path(rag_ctx.workdir) / "tickets.tsv").write_text(TICKETS)
    rag_ctx.request.message = "How many tickets in tickets.tsv are high priority and still open?"
    result = ask_file(rag_ctx, "tickets.tsv", "SELECT COUNT(*) FROM tickets WHERE priority = 'high' AND status = 'open'")
    assert result["status"] == "success" and result["rows"] == [[2]], json.dumps(result)
    # asked in words, a .tsv (which the index cannot read) gets the table's figures, not an error
    worded = ask_file(rag_ctx, "tickets.tsv", "high priority tickets still open")
    assert worded["message"].startswith("Rows where priority is high and status is open: 2 of 6"), json.dumps(worded)


def test_a_misspelt_measure_still_puts_it_first(tool_ctx: ToolContext) -> None:
    first = _ask(tool_ctx, "hr/staff.csv whats the avrage salary in engineering?", "staff.csv", STAFF)["message"]
    assert first.splitlines()[0] == "Average for engineering: salary 74,000.", first


def test_the_figures_of_a_named_value_lead_what_the_document_tools_show(tool_ctx: ToolContext) -> None:
    """read_file (and the document tools) rank a table's lines by the words they share with the message: "the
    cheapest in the garden category" put "Lowest category by total stock" first. The named value's lines
    lead, the price's before the stock's though the call named no column."""
    from gaia_lite.tools.files import read_file

    (Path(tool_ctx.workdir) / "products.csv").write_text(PRODUCTS)
    tool_ctx.request.message = "whats the cheapest thing in the garden category in products.csv?"
    figures = as_called(read_file)(tool_ctx, "products.csv")["figures"].splitlines()
    assert figures[0] == "Lowest price for garden: Watering can (12.75); highest price for garden: Lawn mower (449).", \
        figures


def test_a_query_that_picks_one_row_by_a_column_gets_the_whole_row(tool_ctx: ToolContext) -> None:
    query = "SELECT price FROM data WHERE category = 'garden' ORDER BY price ASC LIMIT 1"
    result = _ask(tool_ctx, "cheapest garden thing?", "products.csv", PRODUCTS, query=query)
    assert result["message"] == ("price where category = 'garden': 12.75. The row: sku G-04, name Watering can, "
                                 "category garden, price 12.75, stock 25."), result["message"]
    # a total has no one row to show
    total = _ask(tool_ctx, "garden total?", "products.csv", PRODUCTS,
                 query="SELECT SUM(price) FROM data WHERE category = 'garden' ORDER BY 1 LIMIT 1")
    assert "The row" not in total["message"], total["message"]


def test_the_whole_files_figure_beside_a_named_value_does_not_read_as_its_total(tool_ctx: ToolContext) -> None:
    expenses = "date,category,amount\n2025-04-02,groceries,42.80\n2025-04-03,transport,55\n"
    lines = _ask(tool_ctx, "how much did i spend on groceries altogether?", "e.csv", expenses)["message"].splitlines()
    # "All rows together" was the line the 1.5B took for "... altogether?"
    assert "Every row, not only groceries: amount 97.80." in lines, lines


def test_the_document_tools_leave_out_the_whole_files_column_lines_beside_a_named_value(tool_ctx: ToolContext) -> None:
    from gaia_lite.tools.files import read_file

    (Path(tool_ctx.workdir) / "e.csv").write_text("date,category,amount\n2025-04-02,groceries,42.80\n"
                                                  "2025-04-03,transport,55\n2025-04-05,groceries,18.25\n")
    tool_ctx.request.message = "how much did i spend on groceries altogether?"
    figures = as_called(read_file)(tool_ctx, "e.csv")["figures"]
    assert figures.splitlines()[0] == "Total for groceries: amount 61.05 (2 of 3 rows, category groceries)."
    assert "amount: total 116.05" not in figures, figures   # the whole file's line that named groceries' rows
    assert "Every row, not only groceries: amount 116.05." in figures


def test_query_documents_reads_a_named_table_the_index_cannot(rag_ctx: ToolContext) -> None:
    from gaia_lite.tools.rag import query_documents

    (Path(rag_ctx.workdir) / "support").mkdir()
    (Path(rag_ctx.workdir) / "support" / "tickets.tsv").write_text(TICKETS)
    rag_ctx.request.message = "How many tickets in support/tickets.tsv are high priority and still open?"
    # the 0.5B's call; nothing is indexed and a .tsv cannot be: it was a grep's "1 matching line in 1 file"
    result = as_called(query_documents)(rag_ctx, "high_priority AND open")
    assert result["message"].startswith("Rows where priority is high and status is open: 2 of 6: T-1, T-5."), result


def test_a_range_of_days_the_message_names_is_answered_when_the_date_range_is_not_understood(
        tool_ctx: ToolContext) -> None:
    orders = ("order_date,customer,total\n2025-02-27,Vega,120\n2025-03-01,Okafor,80\n2025-03-15,Moreau,99.99\n"
              "2025-03-16,Okafor,150\n")
    message = "What was the total of all orders placed from 1 March to 15 March 2025 in orders.csv?"
    # the 0.5B's date_range, which no period reading can take
    result = _ask(tool_ctx, message, "orders.csv", orders, date_range=">= 2025-03-01 AND < 2025-04-15")
    first = result["message"].splitlines()[0]
    assert first.startswith("Total in 1 March to 15 March 2025 (2025-03-01..2025-03-15): total 179.99 (2 rows)."), first
    assert "date_range is left out" in result["note"]
    # the whole file's line does not echo "the total of all orders" (the 1.5B answered from "Total over all 4 rows")
    assert "449.99" not in result["message"]   # the whole file's total, no answer to a total asked of the days


def test_the_lowest_or_highest_of_a_column_gets_the_row_that_holds_it(tool_ctx: ToolContext) -> None:
    # the 1.5B wrote SELECT MIN(price) ... for "the cheapest garden thing" and answered "12.75", with no name
    lowest = _ask(tool_ctx, "cheapest garden thing?", "products.csv", PRODUCTS,
                  query="SELECT MIN(price) FROM data WHERE category = 'garden'")
    assert lowest["message"].endswith("The row: sku G-04, name Watering can, category garden, price 12.75, stock 25."), \
        lowest["message"]
    highest = _ask(tool_ctx, "priciest garden thing?", "products.csv", PRODUCTS,
                   query="SELECT MAX(price) FROM data WHERE category = 'garden'")
    assert "name Lawn mower" in highest["message"], highest["message"]
    # a highest per group, or beside another column, is no one row
    grouped = _ask(tool_ctx, "priciest per category?", "products.csv", PRODUCTS,
                   query="SELECT MAX(price) FROM data GROUP BY category")
    assert "The row" not in grouped["message"], grouped["message"]


def test_rows_meeting_a_bound_are_named_even_where_names_repeat(tool_ctx: ToolContext) -> None:
    # an expense log names "Groceries" twice, so no column labels the rows: they were only counted ("3 of 7")
    expenses = ("date,item,category,amount\n" "2026-03-01,Rent,housing,1200\n" "2026-03-03,Groceries,food,84.50\n"
                "2026-03-07,Bus pass,transport,45\n" "2026-03-15,Electricity,utilities,90.10\n"
                "2026-03-21,Groceries,food,71.80\n")
    result = _ask(tool_ctx, "which expenses were over 80 dollars?", "expenses.csv", expenses)
    assert result["message"].splitlines()[0] == ("Rows where amount is over 80: 3 of 5: Rent (2026-03-01, amount 1,200), "
                                                 "Groceries (2026-03-03, amount 84.50), Electricity (2026-03-15, "
                                                 "amount 90.10).")


def test_an_average_asked_leads_with_the_mean_and_per_group_when_the_group_is_named(tool_ctx: ToolContext) -> None:
    # "average spend per category?" got the totals by category; "whats the average expense" the total first
    expenses = ("date,item,category,amount\n" "2026-03-01,Rent,housing,1200\n" "2026-03-03,Groceries,food,84.50\n"
                "2026-03-07,Bus pass,transport,45\n" "2026-03-12,Dinner out,food,62.25\n"
                "2026-03-28,Train,transport,23\n")
    per_group = _ask(tool_ctx, "average spend per category?", "expenses.csv", expenses)["message"].splitlines()
    assert per_group[:3] == ["Average amount by category: housing 1,200; food 73.38; transport 34.",
                             "Average over all 5 rows: amount 282.95.", "Total over all 5 rows: amount 1,414.75."]
    whole = _ask(tool_ctx, "whats the average expense", "expenses.csv", expenses)["message"].splitlines()
    assert whole[:2] == ["Average over all 5 rows: amount 282.95.", "Total over all 5 rows: amount 1,414.75."]
    # no average asked: no average line
    assert _ask(tool_ctx, "total spend?", "expenses.csv", expenses)["message"].startswith("Total over all 5 rows")


SPENDING = ("date,category,amount\n" "2024-02-03,groceries,50.00\n" "2024-03-02,groceries,102.80\n"
            "2024-03-10,dining,27.35\n" "2024-03-18,groceries,15.95\n" "2024-04-01,groceries,40.00\n")


def test_a_cell_and_a_month_together_are_answered_by_their_rows_alone(tool_ctx: ToolContext) -> None:
    # after the rows of groceries in March came "Total for groceries: amount 620.25", and the 1.5B answered 620.25
    # (probe52)
    result = _ask(tool_ctx, "how much did we spend on groceries in march 2024", "spend.csv", SPENDING)
    lines = result["message"].splitlines()
    assert lines[0].startswith("Rows where category is groceries in march 2024: 2 of 5") and \
        lines[0].endswith("Total: amount 118.75."), result["message"]
    assert "208.75" not in result["message"] and "by category" not in str(result)   # groceries over every month
    assert lines[1:] == ["Columns: date, category, amount.", "(spend.csv: 5 rows, dated 2024-02-03 to 2024-04-01.)"]


def test_of_two_tables_the_document_tools_keep_the_current_one_whose_rows_answer(rag_ctx: ToolContext) -> None:
    from gaia_lite.tools.rag import query_documents

    root = Path(rag_ctx.workdir)
    (root / "backup").mkdir()
    (root / "spend_2024.csv").write_text(SPENDING)
    (root / "backup" / "spend_2024_feb.csv").write_text("date,category,amount\n2024-02-03,groceries,50.00\n"
                                                       "2024-02-09,groceries,20.00\n")
    rag_ctx.request.message = "how much did we spend on groceries in march 2024"
    result = as_called(query_documents)(rag_ctx, "groceries march 2024 spend")
    assert "118.75" in result["message"] and "spend_2024_feb" not in result["message"], result["message"]


TIMELOG = ("date,client,hours,billable\n" "2024-03-28,Harbor & Finch,4.0,yes\n" "2024-04-02,Harbor & Finch,3.5,yes\n"
           "2024-04-05,Harbor & Finch,2.0,no\n" "2024-04-09,Nordlicht,5.0,yes\n" "2024-04-23,Harbor & Finch,2.75,yes\n"
           "2024-05-02,Harbor & Finch,3.0,yes\n")


def test_a_yes_no_column_the_question_names_is_its_condition(tool_ctx: ToolContext) -> None:
    # "and how many of those were billable?" got every hour from both models (probe52)
    tool_ctx.request.asked_before = "How many hours did I log for Harbor & Finch in April 2024?"
    result = _ask(tool_ctx, "and how many of those were billable?", "timelog.csv", TIMELOG)
    assert "billable is yes" in result["message"] and "Total: hours 6.25." in result["message"], result["message"]
    result = _ask(tool_ctx, "and how many of those were not billable?", "timelog.csv", TIMELOG)
    assert "billable is no" in result["message"] and "Total: hours 2." in result["message"], result["message"]


def test_a_figure_asked_with_nothing_indexed_is_read_from_the_one_table_it_points_to(rag_ctx: ToolContext) -> None:
    # "How many hours did I log for Harbor & Finch in April 2024?" got the lines of four files that held its words
    # (probe52); the rows that meet both conditions come whole, their total after the rows they name
    from gaia_lite.tools.rag import query_documents

    root = Path(rag_ctx.workdir)
    (root / "old").mkdir()
    (root / "timelog_2024.csv").write_text(TIMELOG)
    (root / "old" / "timelog_2024_q1.csv").write_text("date,client,hours,billable\n2024-03-12,Harbor & Finch,6,yes\n")
    (root / "proposal_harbor_finch.md").write_text("Estimate: 40 hours\n")
    rag_ctx.request.message = "How many hours did I log for Harbor & Finch in April 2024?"
    message = as_called(query_documents)(rag_ctx, "Harbor & Finch April 2024 hours logged")["message"]
    assert message.startswith("Rows where client is harbor & finch in April 2024: 3 of 6") and \
        "Total: hours 8.25." in message, message


READINGS = json.dumps([{"station": s, "date": d, "temp_c": t} for s, d, t in (
    ("hilltop", "2024-05-03", 14.2), ("valley", "2024-05-03", 18.9), ("hilltop", "2024-05-19", 21.3),
    ("valley", "2024-05-19", 24.7), ("hilltop", "2024-05-31", 12.9))])


def test_a_json_array_of_records_is_a_table_and_its_highest_row_is_told_by_its_date(tool_ctx: ToolContext) -> None:
    # readings_may_2024.json came back as text, and read whole the 1.5B gave the hilltop station's mean (16.98) for
    # its highest; "temp" names temp_c (probe52)
    result = _ask(tool_ctx, "whats the highest temp the hilltop station recorded in may", "readings.json", READINGS)
    assert result["message"].startswith("Highest temp_c for hilltop: 2024-05-19 (21.30)"), result["message"]
    query = analyze(tool_ctx, "readings.json", query="SELECT MAX(temp_c) FROM data WHERE station = 'hilltop'")
    assert "21.3" in query["message"], query


BOOKMARKS = json.dumps({"exported": "2024-10-02", "bookmarks": [
    {"title": t, "folder": f} for t, f in (("Dovetail jig", "Woodworking"), ("Local news", "News"),
                                            ("Workbench plans", "Woodworking"), ("Woodworking forum", "Forums"),
                                            ("Wood species", "Woodworking"))]}, indent=1)


def test_an_export_holding_one_array_of_records_is_that_table(tool_ctx: ToolContext) -> None:
    # read as text, the Woodworking bookmarks were counted by the lines saying "woodworking": the forum in another
    # folder among them (probe54)
    result = _ask(tool_ctx, "How many bookmarks are in the Woodworking folder?", "bookmarks.json", BOOKMARKS)
    assert result["message"].startswith("Woodworking: 3 of 5 rows"), result["message"]
    read = as_called(read_file)(tool_ctx, file_path="bookmarks.json")
    assert read["figures"].startswith("Woodworking: 3 of 5 rows") and "counted" not in read, read
    query = analyze(tool_ctx, "bookmarks.json", query="SELECT COUNT(*) AS n FROM data WHERE folder = 'Woodworking'")
    assert query["message"] == "n over the rows where folder = 'Woodworking': 3.", query


RESULTS = "position\tname\ttime\tfinish_seconds\n" + "".join(
    f"{i}\t{n}\t{t}\t{int(t[:2]) * 60 + int(t[3:])}\n" for i, (n, t) in enumerate(
        [("Lukas", "19:02"), ("Nora", "24:15"), ("Mia", "24:59"), ("Paul", "25:00"), ("Ida", "35:45")], 1))


def test_a_bound_in_minutes_holds_for_a_column_of_seconds_and_one_of_times(tool_ctx: ToolContext) -> None:
    # "ran under 25 min" over finish_seconds and "24:59" times went unanswered, and "min" asked for a minimum
    # (probe54)
    result = _ask(tool_ctx, "how many ppl ran under 25 min?", "results.tsv", RESULTS)
    assert result["message"].startswith("Rows where finish_seconds is under 1,500: 3 of 5: Lukas, Nora, Mia."), \
        result["message"]
    assert "Lowest" not in result["message"].split("\n")[1]
    times = "\n".join(row.rsplit("\t", 1)[0] for row in RESULTS.splitlines()) + "\n"
    result = _ask(tool_ctx, "who finished in under 25 minutes", "times.tsv", times)
    assert result["message"].startswith("Rows where time is under 25 min: 3 of 5: Lukas, Nora, Mia."), result["message"]


HIKES = json.dumps({"hiker": "T", "units": {"distance": "km"}, "hikes": [
    {"date": d, "trail": t, "distance_km": k, "gain_m": g} for d, t, k, g in (
        ("2023-08-12", "Zugspitze", 14.2, 1450), ("2024-03-16", "Meadows", 9.4, 120),
        ("2024-04-13", "Kanzel", 12.6, 780), ("2024-06-01", "Three peaks", 17.3, 1120),
        ("2024-09-09", "Moor", 10.6, 310))]})


def test_a_year_said_alone_keeps_its_rows_and_those_rows_have_their_own_highest(tool_ctx: ToolContext) -> None:
    # the hikes of 2023 were counted too, and "which of those had the most gain" got 2023's Zugspitze (probe54)
    result = _ask(tool_ctx, "How many hikes in 2024 were longer than 10 km?", "hikes.json", HIKES)
    assert result["message"].startswith("Rows where distance_km is over 10 in 2024: 3 of 5: Kanzel, Three peaks, "
                                        "Moor."), result["message"]
    tool_ctx.request.asked_before = "How many hikes in 2024 were longer than 10 km?"
    result = _ask(tool_ctx, "Which of those had the most elevation gain?", "hikes.json", HIKES)
    assert "Highest gain_m for distance_km is over 10 in 2024: Three peaks (1,120)" in result["message"], \
        result["message"]


GREENHOUSE = "date,temp_c\n" + "".join(f"2024-06-{d:02d},{t}\n" for d, t in enumerate([20, 22, 24, 30, 31], 1))


def test_days_said_month_first_are_a_period_and_its_average_leads(tool_ctx: ToolContext) -> None:
    for said in ("June 1 to June 3, 2024", "june 1-3 2024", "June 1st to 3rd, 2024"):
        result = _ask(tool_ctx, f"What was the average temperature from {said}?", "gh.csv", GREENHOUSE)
        assert result["message"].startswith(f"Average in {said} (2024-06-01..2024-06-03): temp_c 22"), \
            result["message"]


SCORES = "student\tclass\tmaths\n" + "".join(f"{s}\t{c}\t{m}\n" for s, c, m in (
    ("Ben", "9B", 84), ("Cem", "9B", 76), ("Dana", "9C", 91), ("Eli", "9B", 92), ("Fia", "9A", 67)))


def test_a_short_class_code_is_a_condition(tool_ctx: ToolContext) -> None:
    result = _ask(tool_ctx, "how many kids in 9B got more than 80 in maths", "scores.tsv", SCORES)
    assert result["message"].startswith("Rows where maths is over 80 and class is 9b: 2 of 5: Ben, Eli."), \
        result["message"]


HOURS = "date,client,hours\n2024-04-02,Nordlicht,4\n2024-04-08,Nordlicht,6\n2024-04-29,Nordlicht Events,2\n" \
        "2024-04-10,Baumhaus,1.5\n2024-05-02,Nordlicht,5\n"


def test_a_value_the_message_rules_out_is_no_condition(tool_ctx: ToolContext) -> None:
    # "not nordlicht events" made Nordlicht Events the condition (probe54)
    result = _ask(tool_ctx, "how many hours did i log for nordlicht in april? not nordlicht events", "t.csv", HOURS)
    assert result["message"].startswith("Rows where client is nordlicht in April 2024: 2 of 5"), result["message"]
    assert "Total: hours 10." in result["message"].splitlines()[0]


def test_a_question_that_singles_out_one_of_several_tables_gets_its_figures_alone(rag_ctx: ToolContext) -> None:
    tool_ctx = rag_ctx
    # "the june 15 results" got June 8's runners beside June 15's, and a provisional copy is no current table (probe54)
    from gaia_lite.tools.rag import query_documents

    results = {"race/2024-06-08_results.tsv": RESULTS.replace("Lukas", "Anna"),
               "race/2024-06-15_results.tsv": RESULTS,
               "race/provisional/2024-06-15_results.tsv": RESULTS.replace("Nora", "Nils")}
    for name, text in results.items():
        (Path(tool_ctx.workdir) / name).parent.mkdir(parents=True, exist_ok=True)
        (Path(tool_ctx.workdir) / name).write_text(text)
    tool_ctx.request.message = "how many ppl ran under 25 min in the june 15 results?"
    message = as_called(query_documents)(tool_ctx, "runners under 25 minutes june 15")["message"]
    assert message.startswith("Rows where finish_seconds is under 1,500: 3 of 5: Lukas, Nora, Mia."), message
    assert "Anna" not in message and "Nils" not in message


def test_a_text_file_sent_for_a_figure_gives_way_to_the_table_beside_it_that_the_request_names(
        tool_ctx: ToolContext) -> None:
    # the 0.5B sent the teacher's comments.txt for "how many kids in 9B got more than 80 in maths" (probe54)
    (Path(tool_ctx.workdir) / "autumn").mkdir()
    (Path(tool_ctx.workdir) / "autumn" / "scores.tsv").write_text(SCORES)
    (Path(tool_ctx.workdir) / "autumn" / "comments.txt").write_text("9B maths: big improvement since spring.\n")
    result = _ask(tool_ctx, "how many kids in 9B got more than 80 in maths", "autumn/comments.txt",
                  "9B maths: big improvement since spring.\n")
    assert result["message"].startswith("Rows where maths is over 80 and class is 9b: 2 of 5: Ben, Eli."), result
    # a question the note answers in words stays with the note: no column of the table is named
    assert "Rows where" not in _ask(tool_ctx, "what did the teacher say about 9B?", "autumn/comments.txt",
                                    "9B maths: big improvement since spring.\n").get("message", "")


def test_an_iso_interval_with_times_is_a_period(tool_ctx: ToolContext) -> None:
    # "2024-06-01T00:00:00.000Z/2024-06-07T23:59:59.999Z" was read as no period, and the whole file's mean given
    # (probe54, 1.5B)
    result = _ask(tool_ctx, "What was the average temperature from June 1 to June 3, 2024?", "gh.csv", GREENHOUSE,
                  date_range="2024-06-01T00:00:00.000Z/2024-06-03T23:59:59.999Z")
    assert result["message"].startswith("Average in 2024-06-01..2024-06-03 (3 of 5 rows): temp_c 22"), result
