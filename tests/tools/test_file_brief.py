"""The one file a message names, and a small text file shown whole for an edit (tools/file_brief.py), on real files."""

from __future__ import annotations

from pathlib import Path

import pytest

from gaia_lite.registry.context import ToolContext
from gaia_lite.tools.file_brief import MAX_EDIT_BYTES, MAX_EDIT_LINES, edit_brief, edit_lines, named_file
from gaia_lite.tools.find import named_in_words
from gaia_lite.tools.sandbox import Sandbox


def _in_words(ctx: ToolContext):
    return lambda: named_in_words(ctx, "in my invoices sheet, which are unpaid?")


def _tables(path: Path) -> bool:
    return path.suffix.lower() in (".csv", ".tsv")


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    (tmp_path / "billing").mkdir()
    (tmp_path / "billing" / "invoices.csv").write_text("invoice,amount\nINV-1,480\nINV-2,1250\n")
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "app.yaml").write_text("name: shop\ndebug: true\nport: 8080\n")
    (tmp_path / ".env").write_text("API_KEY=abc\n")
    return ToolContext(workdir=tmp_path, sandbox=Sandbox([tmp_path]), data_dir=tmp_path / ".data")


def test_a_file_named_by_its_path_or_by_a_name_only_one_file_has_is_found(ctx: ToolContext) -> None:
    table = ctx.workdir / "billing" / "invoices.csv"
    assert named_file(ctx, "billing/invoices.csv - which invoices haven't been paid yet?", _tables) == table
    assert named_file(ctx, "which invoices in invoices.csv are overdue?", _tables) == table  # it is in billing/


def test_a_table_named_in_words_only_when_asked_for_and_only_one_fits(ctx: ToolContext) -> None:
    table = ctx.workdir / "billing" / "invoices.csv"
    assert named_file(ctx, "in my invoices sheet, which are unpaid?", _tables) is None  # by path or name only
    assert named_file(ctx, "in my invoices sheet, which are unpaid?", _tables, by_words=_in_words(ctx)) == table
    (ctx.workdir / "old").mkdir()
    (ctx.workdir / "old" / "invoices.tsv").write_text("invoice\tamount\nINV-0\t5\n")
    assert named_file(ctx, "in my invoices sheet, which are unpaid?", _tables, by_words=_in_words(ctx)) is None  # two


def test_none_for_another_kind_a_missing_file_two_files_or_a_secret(ctx: ToolContext) -> None:
    assert named_file(ctx, "what is in config/app.yaml?", _tables) is None
    assert named_file(ctx, "what is in sales.csv?", _tables) is None
    (ctx.workdir / "other.csv").write_text("a,b\n1,2\n")
    assert named_file(ctx, "compare billing/invoices.csv with other.csv", _tables) is None  # which one?
    assert named_file(ctx, "set API_KEY in .env to xyz", lambda p: True) is None


def test_a_small_text_file_is_shown_whole_with_its_path(ctx: ToolContext) -> None:
    assert edit_brief(ctx.workdir / "config" / "app.yaml", ctx.workdir) == \
        "config/app.yaml holds:\nname: shop\ndebug: true\nport: 8080"


def test_no_brief_for_a_large_empty_or_binary_file(ctx: ToolContext) -> None:
    big = ctx.workdir / "big.txt"
    big.write_text("x" * (MAX_EDIT_BYTES + 1))
    empty = ctx.workdir / "empty.txt"
    empty.write_text("\n\n")
    blob = ctx.workdir / "blob.txt"
    blob.write_bytes(b"ab\0cd")
    assert [edit_brief(p, ctx.workdir) for p in (big, empty, blob)] == [None, None, None]


def test_a_secret_in_the_file_is_redacted(ctx: ToolContext) -> None:
    (ctx.workdir / "deploy.yaml").write_text("token: ghp_abcdefghijklmnopqrstuvwxyz0123456789\nregion: eu\n")
    brief = edit_brief(ctx.workdir / "deploy.yaml", ctx.workdir) or ""
    assert "ghp_abcdefghij" not in brief and "[REDACTED:" in brief and "region: eu" in brief, brief


def test_an_edit_starts_from_one_of_the_files_lines_each_once_without_its_indentation(ctx: ToolContext) -> None:
    (ctx.workdir / "deploy.yml").write_text("app:\n  replicas: 2\n  region: eu\n\nworker:\n  replicas: 2\n")
    assert edit_lines(ctx.workdir / "deploy.yml") == ("app:", "replicas: 2", "region: eu", "worker:")
    # a bracket alone is no line a change starts from (given "{" first, the 0.5B chose it)
    (ctx.workdir / "settings.json").write_text('{\n  "theme": "light",\n  "size": 14\n}\n')
    assert edit_lines(ctx.workdir / "settings.json") == ('"theme": "light",', '"size": 14')


def test_a_line_with_a_secret_is_no_line_to_start_an_edit_from(ctx: ToolContext) -> None:
    (ctx.workdir / "deploy.yaml").write_text("token: ghp_abcdefghijklmnopqrstuvwxyz0123456789\nregion: eu\n")
    assert edit_lines(ctx.workdir / "deploy.yaml") == ("region: eu",)


def test_no_lines_for_a_file_too_long_to_choose_from_or_not_shown(ctx: ToolContext) -> None:
    many = ctx.workdir / "many.txt"
    many.write_text("".join(f"{i}\n" for i in range(MAX_EDIT_LINES + 1)))
    big = ctx.workdir / "big.txt"
    big.write_text("x" * (MAX_EDIT_BYTES + 1))
    assert edit_lines(many) == () and edit_lines(big) == () and edit_lines(ctx.workdir / "missing.txt") == ()


@pytest.mark.parametrize("message,lines", [
    ("theres a typo in the draft, 'anual' should be 'annual'. can you fix it", ("The anual meeting is on 21 April.",)),
    ('change \u201cTuesday\u201d to Wednesday', ("Track on Tuesday and Thursday.",)),
    # quoted text no line holds, and an apostrophe that quotes nothing: every line, as before
    ("we've moved it, 'somewhere' else", ("Larkfield Harriers - April", "The anual meeting is on 21 April.",
                                          "Track on Tuesday and Thursday.")),
])
def test_an_edit_starts_from_the_lines_that_hold_what_the_message_quotes(tmp_path: Path, message, lines) -> None:
    (tmp_path / "draft.txt").write_text("Larkfield Harriers - April\nThe anual meeting is on 21 April.\n"
                                        "Track on Tuesday and Thursday.\n")
    assert edit_lines(tmp_path / "draft.txt", message) == lines
