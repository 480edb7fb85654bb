"""A table shown as analyze_data_file's query reads it (tools/table_brief.py), on real files."""

from __future__ import annotations

from pathlib import Path

import pytest

from gaia_lite.registry.context import ToolContext
from gaia_lite.tools.sandbox import Sandbox
from gaia_lite.tools.table_brief import MAX_BRIEF_BYTES, MAX_CREATE_CHARS, asked_of_table, table_brief, table_words

INVOICES = ("invoice,client,amount,status,paid_on\nINV-1,Harbor Cafe,480.00,paid,2025-01-05\n"
            "INV-2,Lumen Studio,1250.00,overdue,\nINV-3,Harbor Cafe,310.00,paid,2025-02-11\n"
            "INV-4,Oak & Iron,760.00,sent,\n")


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    (tmp_path / "billing").mkdir()
    (tmp_path / "billing" / "invoices.csv").write_text(INVOICES)
    (tmp_path / "notes.md").write_text("# notes\n")
    return ToolContext(workdir=tmp_path, sandbox=Sandbox([tmp_path]), data_dir=tmp_path / ".data")


def test_the_brief_declares_the_table_and_shows_its_first_rows_and_its_kinds(ctx: ToolContext) -> None:
    brief = table_brief(ctx.workdir / "billing" / "invoices.csv", ctx.workdir)
    assert brief is not None
    lines = brief.splitlines()
    assert lines[0].startswith("billing/invoices.csv is a table of 4 rows") and "SQL table data" in lines[0]
    assert lines[1] == 'CREATE TABLE data (invoice TEXT, client TEXT, amount REAL, status TEXT, paid_on DATE)'
    assert lines[2:5] == ["First rows:", "INV-1 | Harbor Cafe | 480 | paid | 2025-01-05",
                          "INV-2 | Lumen Studio | 1250 | overdue | "]
    assert "status is one of: paid, overdue, sent" in lines
    assert "client is one of: Harbor Cafe, Lumen Studio, Oak & Iron" in lines
    assert len(lines) == 8, "no more: the 0.5B put a date span it was shown into queries that asked for none"
    assert not any(ln.startswith("invoice is one of") for ln in lines), "a column of ids is no list of kinds"


def test_a_tables_words_are_its_column_names_and_short_text_values(ctx: ToolContext) -> None:
    words = table_words(ctx.workdir / "billing" / "invoices.csv")
    assert {"invoice", "client", "amount", "status", "paid", "on", "harbor", "cafe", "oak", "iron", "overdue",
            "inv"} <= words
    assert not {w for w in words if w.isdigit()}, "numbers are no words a follow-up names the table by"
    assert table_words(ctx.workdir / "notes.md") == frozenset()


def test_no_brief_for_a_text_file_or_a_table_too_large_to_read_before_a_reply(ctx: ToolContext) -> None:
    assert table_brief(ctx.workdir / "notes.md", ctx.workdir) is None
    big = ctx.workdir / "big.csv"
    row = "2025-01-01,groceries,12.50\n"
    big.write_text("date,category,amount\n" + row * (MAX_BRIEF_BYTES // len(row) + 1))
    assert table_brief(big, ctx.workdir) is None


def test_the_question_names_the_table_not_its_file() -> None:
    assert asked_of_table("who in hr/staff.csv started in 2023 or later?", "hr/staff.csv") == \
        "who in the table started in 2023 or later?"
    assert asked_of_table("reports/sales.csv: north total?", "reports/sales.csv") == "the table: north total?"
    assert asked_of_table("is notes.md newer than sales.csv?", "sales.csv") == "is notes.md newer than the table?"


def test_a_secret_in_a_cell_is_never_shown(ctx: ToolContext) -> None:
    (ctx.workdir / "keys.csv").write_text("service,key\ngithub,ghp_abcdefghijklmnopqrstuvwxyz0123456789\nnpm,none\n")
    brief = table_brief(ctx.workdir / "keys.csv", ctx.workdir) or ""
    assert "ghp_abcdefghij" not in brief and "[REDACTED:" in brief, brief


def test_a_table_of_hundreds_of_columns_is_declared_in_part(ctx: ToolContext) -> None:
    names = [f"measure_{i:03d}" for i in range(300)]
    (ctx.workdir / "wide.csv").write_text(",".join(names) + "\n" + ",".join("1" for _ in names) + "\n"
                                          + ",".join("2" for _ in names) + "\n")
    create = (table_brief(ctx.workdir / "wide.csv", ctx.workdir) or "").splitlines()[1]
    assert create.startswith("CREATE TABLE data (measure_000 REAL, ") and create.endswith("(300 columns in all))")
    assert len(create) < MAX_CREATE_CHARS + 80, len(create)
