"""Rules for the code itself, checked over the whole package with ``ast``: no function over 60 lines, and
no regular expression in the turn loop (reply checks live in the judge, agent/judge.py)."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MAX_LINES = 60

# Known offenders in files other engineers own (issue 27, item 4). Each is split by its owner and then
# removed from this list; the list only shrinks, and a function on it that got short fails the test
# until its line goes.
ALLOWED = {
    "gaia_lite/cli/eval_cmd.py::recall_cmd",
    "gaia_lite/cli/eval_live.py::ttft_cmd",
    "gaia_lite/eval/cost.py::run_cost",
    "gaia_lite/eval/recall.py::run_recall_on",
    "gaia_lite/eval/skills_eval.py::run_skills_recall",
    "gaia_lite/eval/ttft.py::summarize",
    "gaia_lite/llm/client.py::stream_chat",
    "gaia_lite/loader/loader.py::select",
}


def _long_functions() -> dict[str, int]:
    found = {}
    for root in ("gaia_lite", "tools"):
        for path in sorted((REPO / root).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    lines = node.end_lineno - node.lineno + 1  # type: ignore[operator]
                    if lines > MAX_LINES:
                        found[f"{path.relative_to(REPO).as_posix()}::{node.name}"] = lines
    return found


def test_no_function_is_over_60_lines() -> None:
    long = _long_functions()
    new = {k: v for k, v in long.items() if k not in ALLOWED}
    assert not new, f"functions over {MAX_LINES} lines (split them by job): {new}"
    assert not ALLOWED - set(long), f"now short, take them off ALLOWED: {sorted(ALLOWED - set(long))}"


def test_the_turn_loop_calls_no_regular_expression() -> None:
    tree = ast.parse((REPO / "gaia_lite/agent/loop.py").read_text(encoding="utf-8"))
    imports = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imports |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert "re" not in imports and "regex" not in imports
    assert not [n for n in ast.walk(tree) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
                and n.value.id == "re"]
