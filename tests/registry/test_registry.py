"""ToolRegistry: ordered, no silent overwrite; replace and remove are explicit and counted."""

from __future__ import annotations

import pytest

from gaia_lite.registry.registry import ToolRegistry
from gaia_lite.registry.spec import ToolSpec


def spec(name: str, summary: str = "Does a thing.") -> ToolSpec:
    return ToolSpec(name, summary, "", (), lambda: None)


def test_replace_keeps_the_place_remove_forgets_and_each_change_counts() -> None:
    registry = ToolRegistry([spec("a"), spec("b"), spec("c")])
    assert registry.revision == 3
    with pytest.raises(ValueError, match="already registered"):
        registry.add(spec("b"))
    registry.replace(spec("b", "Does it better."))
    assert registry.names() == ["a", "b", "c"] and registry["b"].summary == "Does it better."
    registry.remove("a")
    assert registry.names() == ["b", "c"]
    assert registry.revision == 5  # same size as before the replace, yet a new revision
    with pytest.raises(KeyError):
        registry.replace(spec("a"))
    with pytest.raises(KeyError):
        registry.remove("a")
