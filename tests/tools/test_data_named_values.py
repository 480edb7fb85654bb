"""A value the user names in a table ("groceries", "Sarah Chen") is a condition: its rows' figures come first."""

from __future__ import annotations

from pathlib import Path

from gaia_lite.agent.results import compact_result
from gaia_lite.registry.context import ToolContext
from tools.data import analyze_data_file

SPENDING = ("date,category,amount\n2026-11-01,groceries,4.50\n2026-11-02,rent,900\n2026-11-03,Groceries,3.20\n"
            "2026-11-05,transport,2.40\n2026-11-07,groceries,1.50\n")


def _ask(ctx: ToolContext, message: str, name: str = "spending.csv", text: str = SPENDING) -> dict:
    (Path(ctx.workdir) / name).write_text(text)
    ctx.request.message = message
    return analyze_data_file(ctx, name)


def test_the_total_of_the_category_asked_for_leads_the_result(tool_ctx: ToolContext) -> None:
    result = _ask(tool_ctx, "how much did I spend on groceries in spending.csv?")
    first = result["message"].splitlines()[0]
    # 4.50 + 3.20 + 1.50, whatever the case of the cell; the whole file's 911.60 comes after it
    assert first == "Total for groceries: amount 9.20 (3 of 5 rows, category groceries).", first
    assert "911.60" in result["message"] and result["message"].index("9.20") < result["message"].index("911.60")


def test_a_name_in_a_label_column_is_its_row(tool_ctx: ToolContext) -> None:
    sales = "salesperson,region,revenue\nSarah Chen,north,70000\nCarlos Rivera,south,69000\nAmy Li,north,12000\n"
    result = _ask(tool_ctx, "What did Carlos Rivera sell?", "sales.csv", sales)
    assert result["message"].startswith("Total for Carlos Rivera: revenue 69,000 (1 of 3 rows, salesperson Carlos "
                                        "Rivera)."), result["message"]


def test_words_that_are_no_cell_and_values_in_every_row_add_nothing(tool_ctx: ToolContext) -> None:
    plain = _ask(tool_ctx, "What is the total in spending.csv?")
    assert plain["message"].startswith("Total over all 5 rows")
    same = "item,kind,amount\na,fee,1\nb,fee,2\n"
    assert not _ask(tool_ctx, "total fee in fees.csv?", "fees.csv", same)["message"].startswith("Total for")


def test_a_message_in_another_language_still_finds_the_cell(tool_ctx: ToolContext) -> None:
    result = _ask(tool_ctx, "¿Cuánto gasté en transport según spending.csv?")
    assert result["message"].splitlines()[0] == "Total for transport: amount 2.40 (1 of 5 rows, category transport)."
    assert "Every row, not only transport: amount 911.60." in compact_result(result)


CONTACTS = ("name,role,email\nPriya Ramanathan,Volunteer,pramanathan@mailbox.net\n"
            "Priya Raman,Treasurer,priya.raman@brookfieldpta.org\nCoffee Beans 1kg,Supplies,orders@beans.example\n")


def _query(ctx: ToolContext, message: str, query: str) -> dict:
    (Path(ctx.workdir) / "contacts.csv").write_text(CONTACTS)
    ctx.request.message = message
    return analyze_data_file(ctx, "contacts.csv", query=query)


def test_a_value_the_question_does_not_say_is_read_as_the_one_it_says_in_full(tool_ctx: ToolContext) -> None:
    # "whats priya ramans email?": the 1.5B queried name = 'Priya Ramanathan', the 0.5B role = 'Priya Ramanathan'
    for query in ("SELECT email FROM data WHERE name = 'Priya Ramanathan'",
                  "SELECT email FROM data WHERE role = 'Priya Ramanathan'"):
        result = _query(tool_ctx, "whats priya ramans email? its in the pta contacts", query)
        assert result["rows"] == [["priya.raman@brookfieldpta.org"]], result
        assert "read as name = 'Priya Raman', the value the question names, not 'Priya Ramanathan'" in result["message"]


def test_a_value_said_in_full_or_said_short_is_left_as_the_query_has_it(tool_ctx: ToolContext) -> None:
    said = _query(tool_ctx, "what is Priya Ramanathan's email?", "SELECT email FROM data WHERE name = 'Priya Ramanathan'")
    assert said["rows"] == [["pramanathan@mailbox.net"]], said
    short = _query(tool_ctx, "email for coffee?", "SELECT email FROM data WHERE name = 'Coffee Beans 1kg'")
    assert short["rows"] == [["orders@beans.example"]], short


def test_a_follow_up_reads_the_value_the_user_said_not_one_an_answer_echoed(tool_ctx: ToolContext) -> None:
    tool_ctx.request.asked_before = "whats priya ramans email? its in the pta contacts"
    tool_ctx.request.earlier = tool_ctx.request.asked_before + "\nPriya Ramanathan's email is priya.raman@x.org"
    result = _query(tool_ctx, "What is her phone number?", "SELECT email FROM data WHERE name = 'Priya Ramanathan'")
    assert result["rows"] == [["priya.raman@brookfieldpta.org"]], result


def test_a_short_cell_said_after_its_column_is_a_condition_ahead_of_the_groups_averages(tool_ctx: ToolContext) -> None:
    # "What's the average maths score for class B?": led by each class's average over every subject, the 1.5B
    # answered class B's 77.50 (probe51)
    grades = ("student,class,subject,score\nAna,A,Maths,78\nBen,B,Maths,85\nCara,B,Science,91\nDev,B,maths,72\n"
              "Eve,A,Science,70\nFay,B,Maths,90\n")
    (Path(tool_ctx.workdir) / "grades.csv").write_text(grades)
    tool_ctx.request.message = "What's the average maths score for class B?"
    result = analyze_data_file(tool_ctx, "grades.csv", columns="score", group_by="class")
    first = result["message"].splitlines()[:2]
    assert first[1] == "Average for class is b and subject is maths: score 82.33.", first


WORKOUTS = ("date,activity,distance_km\n2024-05-30,Run,12.4\n2024-06-04,Ride,32.5\n2024-06-09,run,14.2\n"
            "2024-06-12,Walk,11\n2024-06-14,Run,10.0\n2024-06-15,Run,10.6\n2024-07-01,Run,15\n")


def test_a_comparison_keeps_the_cells_said_in_the_plural_and_the_month_said_without_its_year(
        tool_ctx: ToolContext) -> None:
    # "how many runs longer than 10km did i do in june": every activity of May to July over 10 was listed (probe51)
    result = _ask(tool_ctx, "how many runs longer than 10km did i do in june", "workouts.csv", WORKOUTS)
    assert result["message"].splitlines()[0] == ("Rows where distance_km is over 10 and activity is run in June 2024: "
                                                 "2 of 7: run (2024-06-09, distance_km 14.20), Run (2024-06-15, "
                                                 "distance_km 10.60)."), result["message"]


def test_a_concentration_named_nitrate_is_averaged_by_group(tool_ctx: ToolContext) -> None:
    water = "site,nitrate_mg_l\nNorth,3.2\nSouth,4.1\nNorth,3.0\nSouth,4.5\nPond,5.8\nPond,1.0\n"
    result = _ask(tool_ctx, "Which sampling site has the highest average nitrate concentration?", "water.csv", water)
    assert result["message"].splitlines()[0] == "Average nitrate_mg_l by site: South 4.30; Pond 3.40; North 3.10.", \
        result["message"]


def test_a_cell_and_a_month_said_together_are_one_condition(tool_ctx: ToolContext) -> None:
    # "how much did i spend on groceries in march": groceries over every month and March over every category (probe51)
    expenses = ("date,category,amount\n2024-02-24,Groceries,54.20\n2024-03-02,Groceries,82.45\n"
                "2024-03-09,groceries,23.50\n2024-03-12,Transport,45.00\n2024-04-01,Groceries,59.60\n")
    result = _ask(tool_ctx, "how much did i spend on groceries in march", "expenses.csv", expenses)
    assert result["message"].splitlines()[0] == ("Rows where category is groceries in March 2024: 2 of 5: Groceries "
                                                 "(2024-03-02, amount 82.45), groceries (2024-03-09, amount 23.50). "
                                                 "Total: amount 105.95."), result["message"]


def test_a_guessed_name_for_a_figure_reads_the_one_table_the_request_points_to(tool_ctx: ToolContext) -> None:
    from gaia_lite.tools.files import read_file

    (Path(tool_ctx.workdir) / "money").mkdir()
    (Path(tool_ctx.workdir) / "money" / "expenses.csv").write_text("date,category,amount\n2024-03-02,Groceries,82\n"
                                                                   "2024-03-05,Rent,900\n")
    (Path(tool_ctx.workdir) / "money" / "notes.txt").write_text("Budget: groceries under 300 a month.\n")
    tool_ctx.request.message = "how much did i spend on groceries in march"
    assert read_file(tool_ctx, "groceries.txt")["file_path"].endswith("money/expenses.csv")


def test_a_follow_up_that_points_back_keeps_the_question_before_it_and_gets_its_total(tool_ctx: ToolContext) -> None:
    # "whats the total km for those" after "how many runs longer than 10km did i do in june" got every row's total
    tool_ctx.request.asked_before = "how many runs longer than 10km did i do in june"
    result = _ask(tool_ctx, "whats the total km for those", "workouts.csv", WORKOUTS)
    assert result["message"].splitlines()[0].endswith("Total: distance_km 24.80."), result["message"]
    tool_ctx.request.asked_before = ""   # no question before it: the whole file
    assert not _ask(tool_ctx, "whats the total km for those", "workouts.csv", WORKOUTS)["message"].startswith("Rows")


def test_a_made_up_path_outside_the_folders_reads_the_table_the_request_points_to(tool_ctx: ToolContext,
                                                                                   outside_dir: Path) -> None:
    # the 1.5B passed ".../data/nitrate_concentration.csv" beside the work folder and answered "access restrictions"
    from gaia_lite.tools.data import analyze_data_file   # the package's sandbox errors, as the agent raises them

    (Path(tool_ctx.workdir) / "lab").mkdir()
    (Path(tool_ctx.workdir) / "lab" / "nitrate_2024.csv").write_text("site,nitrate_mg_l\nNorth,3.2\nSouth,4.1\n")
    tool_ctx.request.message = "Which sampling site has the highest average nitrate concentration?"
    result = analyze_data_file(tool_ctx, str(outside_dir / "nitrate_concentration.csv"))
    assert result["file"] == "lab/nitrate_2024.csv" and "was not read" in result["note"], result


RIDES = ("date,route,distance_km,bike\n2024-03-02,canal loop,32.5,road\n2024-03-09,forest tracks,41.0,gravel\n"
         "2024-04-06,old railway path,52.3,gravel\n2024-04-13,commute,11.2,commuter\n")


def _rides(ctx: ToolContext, query: str) -> dict:
    (Path(ctx.workdir) / "rides.csv").write_text(RIDES)
    ctx.request.message = "how many km total did i do on the gravel bike? its in rides.csv"
    return analyze_data_file(ctx, "rides.csv", query=query)


def test_a_value_asked_of_a_column_that_never_holds_it_is_asked_of_the_one_that_does(tool_ctx: ToolContext) -> None:
    # the 0.5B queried route = 'gravel' AND bike = 'gravel', and no row met it (probe57)
    both = _rides(tool_ctx, "SELECT SUM(distance_km) FROM data WHERE route = 'gravel' AND bike = 'gravel'")
    assert both["rows"] == [[93.3]], both
    assert "route = 'gravel' left out: route never holds it, bike does" in both["message"], both["message"]
    alone = _rides(tool_ctx, "SELECT SUM(distance_km) FROM data WHERE route = 'gravel'")
    assert alone["rows"] == [[93.3]] and "read as bike = 'gravel': route never holds it" in alone["message"], alone
    after = _rides(tool_ctx, "SELECT SUM(distance_km) FROM data WHERE bike = 'gravel' AND route = 'gravel'")
    assert after["rows"] == [[93.3]], after


def test_a_value_no_column_holds_or_two_columns_hold_is_left_as_asked(tool_ctx: ToolContext) -> None:
    none = _rides(tool_ctx, "SELECT SUM(distance_km) FROM data WHERE bike = 'tandem'")
    assert none["rows"] == [[None]] and "left out" not in none["message"] and "read as" not in none["message"], none
    (Path(tool_ctx.workdir) / "kit.csv").write_text("a,b,c,n\nx,red,red,1\ny,blue,red,2\n")
    two = analyze_data_file(tool_ctx, "kit.csv", query="SELECT SUM(n) FROM data WHERE a = 'red'")
    assert two["rows"] == [[None]] and "read as" not in two["message"], two   # b or c: no guess
