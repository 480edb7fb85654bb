"""Backups taken before a tool overwrites a file, so an overwrite is never a loss."""

from __future__ import annotations

import shutil
from datetime import datetime
from pathlib import Path

from gaia_lite.registry.context import ToolContext

__all__ = ["backup_file"]


def backup_file(ctx: ToolContext, path: Path) -> Path:
    """Copy ``path`` into the app's backups folder and return the copy's path."""
    folder = Path(ctx.data_dir) / "backups"
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{datetime.now().strftime('%Y%m%d-%H%M%S-%f')}-{path.name}"
    shutil.copy2(path, target)
    return target
