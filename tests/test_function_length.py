"""No function in gaia_lite/ or tools/ is longer than 60 lines (``def`` line to last line).

A long function does several jobs; split it by job (a config dataclass, a
per-case outcome, a report built from the outcomes) rather than by line count.
"""

from __future__ import annotations

import ast

from tests.codebase import modules, parse, where

MAX_LINES = 60

def function_lengths() -> dict[str, tuple[int, str]]:
    """Qualified name (module.Class.function, nested functions included) -> (lines, file:line)."""
    found: dict[str, tuple[int, str]] = {}

    def visit(node: ast.AST, prefix: str, module: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{prefix}.{child.name}"
                lines = (child.end_lineno or child.lineno) - child.lineno + 1
                found[name] = (lines, where(modules()[module], child.lineno))
                visit(child, name, module)
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}.{child.name}", module)
            else:
                visit(child, prefix, module)

    for module in modules():
        visit(parse(module), module, module)
    return found


def test_no_function_is_over_60_lines() -> None:
    long = {name: size for name, size in function_lengths().items() if size[0] > MAX_LINES}
    assert not long, "functions over 60 lines; split them by job:\n" + "\n".join(
        f"{loc}: {name} ({lines} lines)" for name, (lines, loc) in sorted(long.items()))


def test_the_scan_measures_functions() -> None:
    lengths = function_lengths()
    assert len(lengths) > 500
    lines, loc = lengths["gaia_lite.errors.ServerUnreachable.__init__"]
    assert lines == 9 and loc.startswith("gaia_lite/errors.py:")
