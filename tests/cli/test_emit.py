"""One way to print a command's result: ``outcome.emit`` (JSON with ``--json``, else text), one
``JsonOpt``, and one definition of the ``--json`` flag. The code of gaia_lite/cli is read with ``ast``:
a command that echoes ``json.dumps`` itself, branches on ``json_out`` or defines its own ``--json``
option fails here with the file and line."""

from __future__ import annotations

import ast

import pytest

from gaia_lite.cli.outcome import emit
from tests.codebase import modules, parse, where

CLI = "gaia_lite.cli"
EMITTER = "gaia_lite.cli.outcome"  # the one module allowed to do what the scans below forbid


def _cli_modules() -> list[str]:
    return [m for m in modules() if m == CLI or m.startswith(CLI + ".")]


def _is_json_dumps(node: ast.AST) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "dumps"
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "json")


def _is_print(node: ast.AST) -> bool:
    """``typer.echo(...)``, ``typer.secho(...)``, ``console.print(...)``, ``print(...)``."""
    if not isinstance(node, ast.Call):
        return False
    name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
    return name in ("echo", "secho", "print")


def raw_json_echoes(tree: ast.AST) -> list[int]:
    """Lines that print a ``json.dumps(...)`` themselves instead of calling ``emit``."""
    return sorted(n.lineno for n in ast.walk(tree) if _is_print(n)
                  and any(_is_json_dumps(m) for arg in n.args for m in ast.walk(arg)))


def json_out_branches(tree: ast.AST) -> list[int]:
    """``if json_out:`` statements and ``x if json_out else y`` expressions."""
    return sorted(n.lineno for n in ast.walk(tree) if isinstance(n, (ast.If, ast.IfExp))
                  and isinstance(n.test, ast.Name) and n.test.id == "json_out")


def json_options(tree: ast.AST) -> list[int]:
    """``typer.Option("--json", ...)`` calls."""
    return [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            and n.func.attr == "Option" and any(isinstance(a, ast.Constant) and a.value == "--json" for a in n.args)]


def json_opt_definitions(tree: ast.AST) -> list[int]:
    """Assignments that define a name ``JsonOpt`` (plain or annotated)."""
    found = []
    for n in ast.walk(tree):
        targets = n.targets if isinstance(n, ast.Assign) else [n.target] if isinstance(n, ast.AnnAssign) else []
        found += [n.lineno for t in targets if isinstance(t, ast.Name) and t.id == "JsonOpt"]
    return found


def _found(scan, names: list[str]) -> list[str]:
    return [where(modules()[m], line) for m in names for line in scan(parse(m))]


def test_no_command_echoes_json_itself() -> None:
    others = [m for m in _cli_modules() if m != EMITTER]
    echoes, branches = _found(raw_json_echoes, others), _found(json_out_branches, others)
    assert not echoes, f"print results with outcome.emit(data, json_out, text), not json.dumps: {echoes}"
    assert not branches, f"no `if json_out:` branches, outcome.emit chooses: {branches}"


def test_there_is_one_json_opt_and_one_json_flag() -> None:
    everywhere = list(modules())
    assert _found(json_opt_definitions, everywhere) == _found(json_opt_definitions, [EMITTER])
    assert len(_found(json_opt_definitions, [EMITTER])) == 1
    flags = _found(json_options, everywhere)
    assert len(flags) == 1 and flags == _found(json_options, [EMITTER]), \
        f"--json is defined in outcome.json_option only; found {flags}"


def test_the_scans_catch_what_they_forbid() -> None:
    code = ast.parse(
        "import json, typer\n"
        "JsonOpt = Annotated[bool, typer.Option('--json', help='x')]\n"
        "def cmd(report, json_out):\n"
        "    if json_out:\n"
        "        typer.echo(json.dumps(report))\n"
        "    typer.echo(json.dumps(report) if json_out else str(report))\n"
        "    typer.echo(json.dumps(report, ensure_ascii=False), err=True)\n"
        "    log.info('X %s', json.dumps(report))\n")
    assert raw_json_echoes(code) == [5, 6, 7]  # a log line is not a result
    assert json_out_branches(code) == [4, 6]
    assert json_options(code) == [2] and json_opt_definitions(code) == [2]
    assert len(_cli_modules()) > 20


@pytest.mark.parametrize(("json_out", "ascii_only", "printed"), [
    (True, False, '{"answer": "café ☕", "n": [1, 2]}\n'),
    (True, True, '{"answer": "caf\\u00e9 \\u2615", "n": [1, 2]}\n'),
    (False, False, "the text view\n"),
])
def test_emit_prints_json_or_the_text_line(capsys, json_out: bool, ascii_only: bool, printed: str) -> None:
    emit({"answer": "café ☕", "n": [1, 2]}, json_out, "the text view", ascii_only=ascii_only)
    assert capsys.readouterr().out == printed


def test_emit_calls_the_text_view_only_without_json(capsys) -> None:
    calls: list[str] = []
    emit([], True, lambda: calls.append("text"))
    emit([], False, lambda: calls.append("text"))
    assert calls == ["text"] and capsys.readouterr().out == "[]\n"
