"""docs/architecture.md's guards table names exactly the judge's guards, in the judge's order."""

from __future__ import annotations

import re
from pathlib import Path

from gaia_lite.agent.judge import GUARDS

DOC = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"


def _table_guards() -> list[str]:
    section = DOC.read_text(encoding="utf-8").split("## The guards", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\| `(\w+)` \|", section, re.MULTILINE)


def test_the_guards_table_lists_the_guards_in_code() -> None:
    assert _table_guards() == [g.name for g in GUARDS]
