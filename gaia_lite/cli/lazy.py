"""Commands whose modules are imported only when the command runs.

``gaia-lite --help`` has to list every command, but importing every command module to do so cost
each run of gaia-lite ~0.1-0.4 s: ``models`` and ``serve`` import the runtime, ``memory`` and ``mcp``
their stores, ``eval`` its benchmarks. So the top-level group holds a light stand-in for each such
command, with the one line of help the listing shows, and swaps in the real command when the
command line names it (``resolve_command``: running it, its ``--help``, shell completion).
``tests/test_cli.py`` checks each stand-in's line against the real command's help.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import typer
from typer.core import TyperGroup
from typer.main import get_group

__all__ = ["LazyCommand", "lazy_group", "stand_ins", "real_command", "mounted"]


@dataclass(frozen=True)
class LazyCommand:
    """A command of the top-level group whose module is imported when it runs.

    ``mount`` imports the module and adds the real command (or sub-app) to the Typer it is given,
    under the name it is given; ``help`` is the line ``gaia-lite --help`` shows for it (the first
    paragraph of the real command's help); ``group``: it has subcommands (listed with the groups)."""

    help: str
    mount: Callable[[typer.Typer, str], None]
    group: bool = False


def mounted(target: str) -> Callable[[typer.Typer, str], None]:
    """The ``mount`` of ``"module:attribute"``: a ``typer.Typer`` there is added as a group of
    subcommands, a function as a command."""
    module, attribute = target.split(":")

    def mount(group: typer.Typer, name: str) -> None:
        real = getattr(importlib.import_module(module), attribute)
        if isinstance(real, typer.Typer):
            group.add_typer(real, name=name)
        else:
            group.command(name)(real)

    return mount


def stand_ins(app: typer.Typer, table: Mapping[str, LazyCommand]) -> None:
    """Register a stand-in for each command of ``table`` on ``app``: its name and help line, no options."""
    for name, lazy in table.items():
        if lazy.group:
            app.add_typer(typer.Typer(help=lazy.help), name=name)
        else:
            app.command(name, help=lazy.help)(_stand_in)


def _stand_in() -> None:
    """Never runs: the group swaps in the real command before it is invoked."""


def real_command(name: str, lazy: LazyCommand, *, rich_markup_mode: Any) -> Any:
    """The click command ``lazy`` mounts, built as typer builds the commands of the app itself."""
    holder = typer.Typer(rich_markup_mode=rich_markup_mode, pretty_exceptions_enable=False)
    lazy.mount(holder, name)
    return get_group(holder).commands[name]


def lazy_group(table: Mapping[str, LazyCommand]) -> type[TyperGroup]:
    """A TyperGroup class (``typer.Typer(cls=...)``) that loads the commands of ``table`` on use."""

    class LazyGroup(TyperGroup):
        def __init__(self, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.swapped: set[str] = set()  # the commands of table whose stand-in was replaced

        def resolve_command(self, ctx: Any, args: list[str]) -> Any:
            name = args[0] if args else None
            if name in table and name not in self.swapped:
                self.commands[name] = real_command(name, table[name], rich_markup_mode=self.rich_markup_mode)
                self.swapped.add(name)
            return super().resolve_command(ctx, args)

    return LazyGroup
