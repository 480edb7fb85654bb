"""Golden files: compared byte for byte; UPDATE_GOLDEN=1 rewrites them after an intended change."""

from __future__ import annotations

import os
from pathlib import Path


def check_golden(path: Path, text: str) -> None:
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"{path.name} changed; rerun with UPDATE_GOLDEN=1 to accept"
