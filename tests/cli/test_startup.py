"""Start-up: a command that needs no model imports no model code, and ``--help`` still lists every
command with its own help line (the command modules are imported when they run, cli/lazy.py).

The import checks run the real ``gaia-lite`` entry point (launch.main) in a fresh interpreter and
read its ``sys.modules`` at exit; they time nothing (scripts/bench_startup.py does).
"""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gaia_lite.cli.app import LAZY_COMMANDS, app
from gaia_lite.cli.lazy import real_command

# What only a model, an embedder, a chat request or the embedded runtime needs.
HEAVY = ("gaia_lite.runtime", "gaia_lite.embed", "gaia_lite.llm", "gaia_lite.loader", "onnxruntime", "tokenizers",
         "numpy", "openai")

# Run the command as `gaia-lite ARGS` does, then print the modules it imported, whatever its exit.
_PROBE = """
import atexit, json, sys
atexit.register(lambda: print(json.dumps(sorted(sys.modules)), file=sys.__stderr__))
sys.argv = ["gaia-lite", *sys.argv[1:]]
from gaia_lite.launch import main
main()
"""


def _imported(gaia_home: Path, *args: str) -> tuple[int, list[str], str]:
    done = subprocess.run([sys.executable, "-c", _PROBE, *args], capture_output=True, text=True, timeout=60,
                          env={"GAIA_HOME": str(gaia_home), "PATH": "/usr/bin:/bin", "COLUMNS": "120"})
    modules = json.loads(done.stderr.strip().splitlines()[-1])
    return done.returncode, modules, done.stdout


@pytest.mark.parametrize("args", [("--help",), ("config", "show"), ("tools", "--help"), ("config", "path"),
                                  ("memory", "--help")])
def test_a_command_without_a_model_imports_no_model_code(gaia_home: Path, args: tuple[str, ...]) -> None:
    code, modules, out = _imported(gaia_home, *args)
    assert code == 0, out
    heavy = [m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY)]
    assert not heavy, f"`gaia-lite {' '.join(args)}` imported {heavy}"


def test_help_imports_none_of_the_command_modules(gaia_home: Path) -> None:
    code, modules, out = _imported(gaia_home, "--help")
    assert code == 0
    own = [m for m in modules if m.endswith("_cmd") or m in ("gaia_lite.cli.serve", "gaia_lite.warm.client")]
    assert not own, f"`gaia-lite --help` imported {own}"
    for name in ("ask", "chat", "tools", *LAZY_COMMANDS):
        assert f"│ {name} " in out, f"`gaia-lite --help` does not list {name}:\n{out}"


@pytest.mark.parametrize("name", list(LAZY_COMMANDS))
def test_the_listed_help_line_is_the_commands_own(name: str) -> None:
    real = real_command(name, LAZY_COMMANDS[name], rich_markup_mode="markdown")
    first = inspect.cleandoc(real.help or "").split("\n\n")[0]
    assert LAZY_COMMANDS[name].help == first, f"LAZY_COMMANDS[{name!r}].help differs from its command's help"
    assert bool(getattr(real, "commands", None)) == LAZY_COMMANDS[name].group, f"{name}: group= is wrong"


@pytest.mark.parametrize("name", list(LAZY_COMMANDS))
def test_a_lazy_command_runs_as_itself(name: str) -> None:
    """Its own --help (its options, its subcommands), not the stand-in's, on every invocation of the app."""
    real = real_command(name, LAZY_COMMANDS[name], rich_markup_mode="markdown")
    own = list(getattr(real, "commands", {})) + [p.opts[0] for p in real.params if p.opts[0].startswith("--")]
    assert own, f"{name} has neither options nor subcommands to check"
    for _ in range(2):  # each invoke builds a new group: the second must swap the stand-in out again
        result = CliRunner().invoke(app, [name, "--help"], env={"COLUMNS": "200"})
        assert result.exit_code == 0, result.output
        missing = [o for o in own if o not in result.output]
        assert not missing, f"`gaia-lite {name} --help` lacks {missing}:\n{result.output}"


def test_a_lazy_command_does_its_work(gaia_home: Path) -> None:
    result = CliRunner().invoke(app, ["config", "path", "--json"])
    assert result.exit_code == 0, result.output
    assert str(gaia_home) in result.output


def test_a_typo_still_suggests_a_lazy_command() -> None:
    result = CliRunner().invoke(app, ["confg", "show"])
    assert result.exit_code == 2
    assert "config" in result.output
