"""Tools as the agent calls them, for tests that check what a call gives back."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from gaia_lite.registry.context import ToolContext
from gaia_lite.registry.execute import Decision, ToolExecutor
from gaia_lite.registry.registry import ToolRegistry
from gaia_lite.registry.spec import spec_of

__all__ = ["as_called", "write_files"]


def as_called(fn: Callable[..., Any]) -> Callable[..., dict]:
    """``fn`` called through a real ToolExecutor, so a failure the tool raises (``ToolFailure``) comes
    back as its error payload, word for word. Gated tools are approved: these tests play the user who
    says yes."""
    spec = spec_of(fn)

    def call(ctx: ToolContext, *args: Any, **kwargs: Any) -> dict:
        kwargs.update(zip(spec.param_names, args))
        executor = ToolExecutor(ToolRegistry([spec]), ctx, approve=lambda s, a: Decision.ALLOW)
        return executor.execute(spec.name, kwargs).payload

    call.__name__ = spec.name
    return call


def write_files(root: Path, files: dict[str, str]) -> None:
    """Real files under ``root``: each relative path (its folders made) with its text."""
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
