"""Path arguments the model garbled on the way, put back before a call is approved and run.

Models copy the working directory into an absolute path and drop its last folders on the way:
with the working directory ``/home/ann/work`` the 1.5B writes ``/home/ann/config.ini`` for
``config.ini``, or lists ``/home/ann/projects`` for ``projects``. The sandbox refuses such a path (or
the user is asked about a folder they never named) and the turn dead-ends. Such a path is taken as
the same path under the working directory, but only where that is the sure reading: the path the
model gave does not exist and is outside the allowed folders, and the path under the working
directory exists (or is a new file in a folder that exists there).

This runs before approval, so the user (and an approver) sees the path that will be used.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Sequence

from .spec import ToolSpec

__all__ = ["beside_workdir", "repair_path_arguments"]

# Parameter names that hold a path ("file_path", "directory", "working_directory", "search_root").
_PATH_PARAM = re.compile(r"path|file|dir|folder|root|location", re.IGNORECASE)


# How many of the working directory's last folders a path may have dropped: the 1.5B wrote
# <out>/contracts for <out>/<task>-on/work/contracts.
DROPPED_FOLDERS = 3


def beside_workdir(raw: str, workdir: Path, allowed: Sequence[Path] = ()) -> str | None:
    """The path under ``workdir`` that ``raw`` meant, when ``raw`` dropped the working directory's
    last folders (up to DROPPED_FOLDERS); None when ``raw`` is to be used as given.

    ``allowed``: the folders the sandbox allows; a path inside one of them is never changed, since
    the model may mean just that place."""
    given = Path(os.path.expanduser(raw.strip()))
    if not given.is_absolute():
        return None  # relative paths already resolve against the working directory
    try:
        root = workdir.resolve()
        target = given.resolve(strict=False)
        if target.is_relative_to(root) or target.exists() or any(target.is_relative_to(Path(a)) for a in allowed):
            return None  # inside already, a real place, or an allowed one: the model may mean it
        for above in root.parents[:DROPPED_FOLDERS]:  # the nearest first
            if target.is_relative_to(above) and target != above:
                candidate = root / target.relative_to(above)
                return str(candidate) if candidate.exists() or candidate.parent.is_dir() else None
    except (OSError, RuntimeError, ValueError):  # a symlink loop, a name the OS refuses
        return None
    return None


def repair_path_arguments(spec: ToolSpec, kwargs: dict[str, Any], workdir: Path,
                          allowed: Sequence[Path]) -> dict[str, Any]:
    """``kwargs`` with each path argument that dropped the working directory's last folder put
    under it (see ``beside_workdir``); the same dict when nothing changed."""
    fixed: dict[str, Any] = {}
    for param in spec.params:
        value = kwargs.get(param.name)
        if isinstance(value, str) and value.strip() and _PATH_PARAM.search(param.name):
            meant = beside_workdir(value, workdir, allowed)
            if meant is not None:
                fixed[param.name] = meant
    return {**kwargs, **fixed} if fixed else kwargs
