"""Reading a user-supplied JSON file, with a one-line reason when it cannot be read.

Suites, judged sets and MCP server files all come from the user's disk; each caller wraps the
``ValueError`` in its own error type, so the messages read the same everywhere.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["read_json"]


def read_json(path: Path) -> Any:
    """The parsed contents of ``path``. ValueError says what is wrong: missing, unreadable, not JSON."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{path} does not exist or is not a file")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{path} is not UTF-8 text; save it as UTF-8 JSON") from None
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
