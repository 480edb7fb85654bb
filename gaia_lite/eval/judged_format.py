"""The shape of a judged set (``shared/evaldata`` format), checked before anything is scored.

A judged set is data from outside: a wrong type deep inside one case must be a one-line error that
names the case and the field, never a traceback halfway through a long run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..jsonfile import read_json

__all__ = ["check_judged_set", "load_judged_set"]


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _case_problem(case: Any) -> str | None:
    if not isinstance(case, dict):
        return "is not an object"
    if not isinstance(case.get("id"), (str, int)) or isinstance(case.get("id"), bool):
        return '"id" must be a string or a number'
    if not isinstance(case.get("query"), str):
        return '"query" must be a string'
    if case.get("expected_tools") is not None and not _strings(case["expected_tools"]):
        return '"expected_tools" must be a list of tool names'
    if case.get("match") is not None and case["match"] not in ("all", "any"):
        return '"match" must be "all" or "any"'
    if case.get("history") is not None and not _strings(case["history"]):
        return '"history" must be a list of earlier user messages'
    return None


def _tool_problem(tool: Any) -> str | None:
    if not isinstance(tool, dict) or not isinstance(tool.get("name"), str) or not tool["name"]:
        return 'needs a non-empty string "name"'
    if tool.get("description") is not None and not isinstance(tool["description"], str):
        return '"description" must be a string'
    if tool.get("parameters") is not None and not isinstance(tool["parameters"], dict):
        return '"parameters" must be a JSON-schema object'
    return None


def check_judged_set(data: Any, *, allow_empty: bool = False) -> None:
    """Raise ValueError naming the first problem; return when the set can be scored.

    ``allow_empty``: a set with no cases is fine as past turns to learn from (a cold start).
    """
    if not isinstance(data, dict) or not isinstance(data.get("cases"), list) or not (data["cases"] or allow_empty):
        raise ValueError('expected an object with a non-empty "cases" list')
    for i, case in enumerate(data["cases"], 1):
        problem = _case_problem(case)
        if problem:
            label = case.get("id") if isinstance(case, dict) and isinstance(case.get("id"), (str, int)) else f"#{i}"
            raise ValueError(f"case {label} {problem}")
    tools = data.get("tools")
    if tools is None:
        return
    if not isinstance(tools, list):
        raise ValueError('"tools" must be a list of {"name", "description", "parameters"} objects')
    for i, tool in enumerate(tools, 1):
        problem = _tool_problem(tool)
        if problem:
            raise ValueError(f"tool #{i} {problem}")


def load_judged_set(path: Path, *, allow_empty: bool = False) -> dict[str, Any]:
    """Read and check a judged-set file; ValueError with a one-line reason when it is not one."""
    data = read_json(path)
    try:
        check_judged_set(data, allow_empty=allow_empty)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None
    return data
