"""One ToolRegistry per agent: an ordered name -> ToolSpec map.

Registration order is the unfiltered render order, so it is part of the
prompt's byte identity. A duplicate name is an error, never an overwrite:
``replace`` (same name, same place) and ``remove`` are explicit, for tools
whose server changed its list (MCP). ``revision`` counts every change, so
what is derived from a registry can be keyed by (identity, revision).
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator

from .spec import ToolSpec, spec_of

__all__ = ["ToolRegistry"]


class ToolRegistry:
    def __init__(self, specs: Iterable[ToolSpec] = ()) -> None:
        self._specs: dict[str, ToolSpec] = {}
        self.revision = 0
        for s in specs:
            self.add(s)

    def add(self, item: ToolSpec | Callable[..., Any]) -> ToolSpec:
        spec = item if isinstance(item, ToolSpec) else spec_of(item)
        if spec.name in self._specs:
            raise ValueError(f"tool {spec.name!r} is already registered")
        self._specs[spec.name] = spec
        self.revision += 1
        return spec

    def replace(self, spec: ToolSpec) -> None:
        """A registered tool's new spec, kept in its place in the order."""
        if spec.name not in self._specs:
            raise KeyError(spec.name)
        self._specs[spec.name] = spec
        self.revision += 1

    def remove(self, name: str) -> None:
        """Forget a tool (an MCP server no longer lists it); an unknown name is a KeyError."""
        del self._specs[name]
        self.revision += 1

    def add_all(self, items: Iterable[ToolSpec | Callable[..., Any]]) -> None:
        for item in items:
            self.add(item)

    def get(self, name: str) -> ToolSpec | None:
        return self._specs.get(name)

    def __getitem__(self, name: str) -> ToolSpec:
        return self._specs[name]

    def __contains__(self, name: object) -> bool:
        return name in self._specs

    def __iter__(self) -> Iterator[ToolSpec]:
        return iter(self._specs.values())

    def __len__(self) -> int:
        return len(self._specs)

    def names(self) -> list[str]:
        return list(self._specs)

    def specs(self, filter_to: Iterable[str] | None = None) -> list[ToolSpec]:
        """All specs in registration order, or the named ones in the given order.

        Names missing from the registry are skipped (the loader may know tools
        this agent does not have).
        """
        if filter_to is None:
            return list(self._specs.values())
        return [self._specs[n] for n in filter_to if n in self._specs]
