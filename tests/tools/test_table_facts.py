"""Every tool that reads a table leads with figures computed from every row (tools/table_facts.py).

Real files in temp dirs, the real tools called through a real ToolExecutor (``as_called``), a real
document index for the document tools. The figures are checked against sums worked out by hand.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

import pytest

from gaia_lite.agent.results import compact_result
from gaia_lite.embed.hashing import HashEmbedder
from gaia_lite.memory.rag import RagIndex
from gaia_lite.registry.context import ToolContext
from gaia_lite.tools import rag as rag_tools
from gaia_lite.tools.data import analyze_data_file
from gaia_lite.tools.files import read_file
from gaia_lite.tools.sandbox import Sandbox
from gaia_lite.tools.table_facts import MAX_CHARS, MAX_LINES, SCHEMA_LINES

from tests.tools.called import as_called

read = as_called(read_file)
analyze = as_called(analyze_data_file)
query_documents = as_called(rag_tools.query_documents)
index_document = as_called(rag_tools.index_document)
summarize_document = as_called(rag_tools.summarize_document)

SALES = "region,q1,q2\nnorth,120,90\nsouth,150,110\neast,95,130\nwest,60,70\n"
ORDERS = ("order_id,customer,amount\n1001,Mila Novak,120.00\n1002,Arjun Rao,75.50\n1003,Mila Novak,310.00\n"
          "1004,Chloe Martin,300.00\n1005,Arjun Rao,95.00\n1006,Mila Novak,40.00\n")


def asked(ctx: ToolContext, message: str) -> ToolContext:
    ctx.request.message = message
    return ctx


def figures(result: dict) -> list[str]:
    assert result["status"] == "success", result
    return str(result["figures"]).splitlines()


def test_read_file_leads_with_the_totals_means_and_named_extremes(tool_ctx, tmp_path: Path) -> None:
    (tmp_path / "sales.csv").write_text(SALES)
    result = read(asked(tool_ctx, "What is the total of q1 in sales.csv?"), "sales.csv")
    shown = figures(result)
    assert shown[0] == "Total over all 4 rows: q1 425; q2 400."          # 120+150+95+60, 90+110+130+70
    assert "q1: total 425, mean 106.25, min 60 (west), max 150 (south)" in shown
    assert "Highest q2: east (q2 130, q1 95); lowest q2: west (q2 70, q1 60)." in shown
    assert "Columns: region, q1, q2" in shown and "(sales.csv: 4 rows.)" in shown
    # the raw text stays, after the figures: the model reads what was computed before the rows
    keys = list(result)
    assert keys.index("figures") < keys.index("content") and result["content"] == SALES
    assert compact_result(result).index("Total over all 4 rows") < compact_result(result).index("north,120,90")


def test_the_lines_about_what_was_asked_come_first(tool_ctx, tmp_path: Path) -> None:
    (tmp_path / "sales.csv").write_text(SALES)
    (tmp_path / "orders.csv").write_text(ORDERS)
    assert figures(read(asked(tool_ctx, "Which region had the highest q2 in sales.csv?"), "sales.csv"))[0] == \
        "Highest q2: east (q2 130, q1 95); lowest q2: west (q2 70, q1 60)."
    # group totals, with the top and lowest names: Mila 120+310+40, Arjun 75.50+95
    top = figures(read(asked(tool_ctx, "orders.csv - who spent the most?"), "orders.csv"))
    assert top[0] == "Top customer by total amount: Mila Novak 470; lowest: Arjun Rao 170.50."
    assert "amount by customer: Mila Novak 470; Chloe Martin 300; Arjun Rao 170.50" in top
    columns = figures(read(asked(tool_ctx, "orders.csv: what columns does it have?"), "orders.csv"))
    assert columns[0] == "Columns: order_id, customer, amount"
    # a message that asks nothing of the table keeps the figures' own order
    plain = figures(read(asked(tool_ctx, "show me orders.csv"), "orders.csv"))
    assert plain[0] == "Total over all 6 rows: amount 940.50." and plain[-2 - SCHEMA_LINES:-SCHEMA_LINES] == \
        ["Columns: order_id, customer, amount", "(orders.csv: 6 rows.)"]
    # then the table as a query sees it, for a question the figures do not answer
    assert plain[-SCHEMA_LINES:] == [
        "schema: data(order_id number, customer text, amount number)",
        "sample: 1001 | Mila Novak | 120", "sample: 1002 | Arjun Rao | 75.50", "sample: 1003 | Mila Novak | 310"]


def test_a_messy_csv_is_read_with_currency_and_blank_cells(tool_ctx, tmp_path: Path) -> None:
    (tmp_path / "spend.csv").write_text(
        'vendor,cost\nAcme,"$1,000.00"\nBolt,$250.50\nAcme,\nCirco,"$2,100.25"\n,$49.25\n')
    shown = figures(read(asked(tool_ctx, "what did we spend in spend.csv?"), "spend.csv"))
    assert "Total over all 5 rows: cost 3,400." in shown          # 1000 + 250.50 + 2100.25 + 49.25
    # the mean is over the 4 cells that hold a number; a row without a name is called by its line
    assert "cost: total 3,400, mean 850, min 49.25 (row 6), max 2,100.25 (Circo)" in shown
    assert any(line.startswith("Top vendor by total cost: Circo 2,100.25") for line in shown)


def test_a_big_csv_gives_a_bounded_block_and_the_text_is_cut_as_before(tool_ctx, tmp_path: Path) -> None:
    header = ",".join(["name", "team"] + [f"m{i}" for i in range(30)])
    rows = [",".join([f"p{r}", f"t{r % 7}"] + [str((r * i) % 97) for i in range(30)]) for r in range(3000)]
    (tmp_path / "big.csv").write_text(header + "\n" + "\n".join(rows) + "\n")
    result = read(asked(tool_ctx, "what is in big.csv?"), "big.csv")
    shown = figures(result)
    schema = "\n".join(shown[-SCHEMA_LINES:])
    assert len(shown) <= MAX_LINES + SCHEMA_LINES and len(result["figures"]) - len(schema) <= MAX_CHARS + 700
    assert len(schema) <= 1200 and shown[-SCHEMA_LINES].startswith("schema: data(name text, team text, m0 number")
    assert shown[-1 - SCHEMA_LINES] == "(big.csv: 3000 rows.)"
    assert shown[-2 - SCHEMA_LINES].startswith("Columns: name, team, m0, m1")
    m1 = sum(r % 97 for r in range(3000))
    assert f"Total over all 3000 rows: m0 0; m1 {m1:,}; " in result["figures"]
    assert result["truncated"] is True and len(result["content"]) == 50_000


def test_a_json_array_of_records_is_a_table(tool_ctx, tmp_path: Path) -> None:
    records = [{"name": "Ada", "score": 91}, {"name": "Bo", "score": 78}, {"name": "Cy", "score": 85}]
    (tmp_path / "scores.json").write_text(json.dumps(records))
    shown = figures(read(asked(tool_ctx, "What is the average score in scores.json?"), "scores.json"))
    assert shown[0] == "score: mean 84.67, min 78 (Bo), max 91 (Ada)"      # a score is averaged, not summed
    (tmp_path / "config.json").write_text(json.dumps({"port": 8080, "debug": True}))
    assert "figures" not in read(tool_ctx, "config.json")


def test_an_xlsx_is_read_as_its_figures(tool_ctx, tmp_path: Path) -> None:
    import openpyxl
    wb = openpyxl.Workbook()
    for row in [["region", "q1", "q2"], ["north", 120, 90], ["south", 150, 110], ["east", 95, 130], ["west", 60, 70]]:
        wb.active.append(row)
    wb.save(tmp_path / "sales.xlsx")
    result = read(asked(tool_ctx, "total of q1 in sales.xlsx?"), "sales.xlsx")
    assert figures(result)[0] == "Total over all 4 rows: q1 425; q2 400." and "content" not in result


def test_text_files_are_read_as_before(tool_ctx, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("region,q1\nnorth,120\nsouth,150\n")   # commas, but a .txt note
    (tmp_path / "prose.csv").write_text("# Report\nRevenue was up this year, mostly in the north.\nThe end\n")
    for name in ("notes.txt", "prose.csv"):
        result = read(asked(tool_ctx, f"what does {name} say?"), name)
        assert result["status"] == "success" and "figures" not in result
        assert result["content"] == (tmp_path / name).read_text()


def test_a_question_for_the_lowest_gets_the_lowest_first(tool_ctx, tmp_path: Path) -> None:
    (tmp_path / "orders.csv").write_text(ORDERS)
    least = figures(read(asked(tool_ctx, "orders.csv: who spent the least?"), "orders.csv"))
    assert least[0] == "Lowest customer by total amount: Arjun Rao 170.50; top: Mila Novak 470."
    result = analyze(asked(tool_ctx, "which customer spent the least in orders.csv?"), "orders.csv")
    assert "Lowest customer by total amount: Arjun Rao 170.50; top: Mila Novak 470." in str(result["message"])
    # asked for both, or for neither: the top first, as before
    both = figures(read(asked(tool_ctx, "orders.csv: who spent the most and who the least?"), "orders.csv"))
    assert "Top customer by total amount: Mila Novak 470; lowest: Arjun Rao 170.50." in both


def test_analyze_data_file_names_the_columns(tool_ctx, tmp_path: Path) -> None:
    (tmp_path / "orders.csv").write_text(ORDERS)
    said = str(analyze(asked(tool_ctx, "orders.csv: what columns does it have?"), "orders.csv")["message"])
    assert said.splitlines()[0] == "Columns: order_id, customer, amount."
    told = str(analyze(asked(tool_ctx, "orders.csv - who spent the most?"), "orders.csv")["message"]).splitlines()
    assert told[-2] == "Columns: order_id, customer, amount." and told[-1] == "(orders.csv: 6 rows.)"


class NoCallsLLM:
    """A TEST double for the model summarize_document requires: a table's summary must not use it."""

    def complete(self, prompt: str, **kwargs: object) -> str:
        raise AssertionError("a table was summarised by the model, not from its computed figures")

    def describe_image(self, data_url: str, question: str, **kwargs: object) -> str:
        raise NotImplementedError


@pytest.fixture
def rag_ctx(tmp_path: Path) -> Iterator[ToolContext]:
    work = tmp_path / "work"
    work.mkdir()
    index = RagIndex(tmp_path / "index", HashEmbedder(dim=1024))
    yield ToolContext(workdir=work, sandbox=Sandbox([work]), data_dir=tmp_path / "data", rag=index,
                      llm=NoCallsLLM())
    index.close()


def test_document_tools_answer_a_table_with_its_figures(rag_ctx: ToolContext) -> None:
    (rag_ctx.workdir / "inventory.csv").write_text("item,stock\nbolts,540\nnuts,75\nwashers,320\nscrews,1200\n")
    (rag_ctx.workdir / "sales.csv").write_text(SALES)
    # named in the question, not indexed yet: indexed on demand, answered with figures, not CSV chunks
    named = query_documents(asked(rag_ctx, "inventory.csv: what's running lowest?"), "running lowest")
    assert named["status"] == "success" and named["message"].splitlines()[0] == \
        "Lowest stock: nuts (75); highest stock: screws (1,200)."   # the lowest asked for: said first
    assert "bolts,540" not in json.dumps(named)
    indexed = index_document(asked(rag_ctx, "index sales.csv"), "sales.csv")
    assert indexed["status"] == "success" and "Total over all 4 rows: q1 425; q2 400." in indexed["message"]
    assert indexed["message"].splitlines()[-1].startswith("(sales.csv is indexed")
    # a question that names no file: the best passage is a table's, so its figures answer
    found = query_documents(asked(rag_ctx, "Which region had the highest q2?"), "highest q2 region")
    assert found["message"].splitlines()[0] == "Highest q2: east (q2 130, q1 95); lowest q2: west (q2 70, q1 60)."
    summary = summarize_document(asked(rag_ctx, "summarize sales.csv"), "sales.csv")
    assert summary["status"] == "success" and "Columns: region, q1, q2" in summary["summary"]
