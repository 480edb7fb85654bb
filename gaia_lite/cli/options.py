"""Command-line options shared by several command groups (one definition each)."""

from __future__ import annotations

from typing import Optional

import typer
from typing_extensions import Annotated

__all__ = ["BaseUrlOpt", "TauOpt", "MaxToolsOpt", "PresetOpt"]

BaseUrlOpt = Annotated[Optional[str], typer.Option("--base-url", help="OpenAI-compatible server URL (env LEMONADE_BASE_URL). `/api/v1` is appended when the path is missing.", show_default=False)]
TauOpt = Annotated[Optional[float], typer.Option("--tau", help="Similarity threshold for semantic tool matches (env GAIA_DYNAMIC_TOOLS_TAU). Default: the preset's.", show_default=False)]
MaxToolsOpt = Annotated[Optional[int], typer.Option("--max-tools", help="Cap on loaded tools, CORE included, >= 11 (env GAIA_DYNAMIC_TOOLS_MAX). Default: the preset's.", show_default=False)]
PresetOpt = Annotated[Optional[str], typer.Option("--preset", help="Loader preset: `default` (tuned for the built-in embedder), `lean` (fewer tools when one clearly wins) or `gaia` (GAIA's tau 0.20, cap 14).", show_default=False)]
