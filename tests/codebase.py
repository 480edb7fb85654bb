"""The source files of gaia_lite/ and tools/ as dotted modules, for tests that read the code itself.

The repo folder ``tools/`` ships as ``gaia_lite.tools`` (pyproject.toml), so it
is named that way here.
"""

from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ROOTS = {"gaia_lite": REPO / "gaia_lite", "gaia_lite.tools": REPO / "tools"}


@lru_cache(maxsize=1)
def modules() -> dict[str, Path]:
    """Dotted module name -> file; a package is named by its ``__init__.py``."""
    mods: dict[str, Path] = {}
    for prefix, root in ROOTS.items():
        for path in sorted(root.rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            mods[".".join([prefix, *parts])] = path
    return mods


@lru_cache(maxsize=None)
def parse(module: str) -> ast.Module:
    path = modules()[module]
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


def where(path: Path, line: int) -> str:
    return f"{path.relative_to(REPO)}:{line}"
