"""No regular expression in the turn loop: reply checks live in the judge (agent/judge/). Function
length is checked in test_function_length.py."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_the_turn_loop_calls_no_regular_expression() -> None:
    tree = ast.parse((REPO / "gaia_lite/agent/loop.py").read_text(encoding="utf-8"))
    imports = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imports |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert "re" not in imports and "regex" not in imports
    assert not [n for n in ast.walk(tree) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
                and n.value.id == "re"]
