"""The command line: every command group is mounted, and ask/chat share one definition of their options."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer
from typer.testing import CliRunner

from gaia_lite.cli.app import app
from gaia_lite.cli.options import AGENT_OPTIONS, agent_command


def test_every_command_group_is_mounted() -> None:
    top = CliRunner().invoke(app, ["--help"])
    assert top.exit_code == 0
    for command in ("ask", "chat", "tools", "eval", "serve", "skills"):
        assert command in top.output
    evals = CliRunner().invoke(app, ["eval", "--help"])
    assert all(name in evals.output for name in ("recall", "cost", "ttft", "log", "tasks"))


def test_ask_and_chat_offer_the_same_agent_options() -> None:
    flags = [f"--{name.replace('_', '-')}" for name in AGENT_OPTIONS] + ["--log"]
    for command in ("ask", "chat"):
        out = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "300"}).output
        missing = [f for f in flags if f not in out]
        assert not missing, f"{command} lacks {missing}"


def test_agent_options_arrive_as_one_settings_value(gaia_home: Path) -> None:
    seen: dict[str, Any] = {}
    demo = typer.Typer()

    @demo.command()
    @agent_command
    def run(settings: Any, log: Optional[Path], extra: int = 0) -> None:
        seen.update(settings=settings, log=log, extra=extra)

    result = CliRunner().invoke(demo, ["--preset", "lean", "--max-tools", "20", "--no-local-server", "-y",
                                       "--vision-model", "eyes", "--allowed-paths", "/data", "--log", "x.log",
                                       "--extra", "3"],
                                env={"GAIA_HOME": str(gaia_home), "GAIA_ALLOWED_PATHS": "/srv"})
    assert result.exit_code == 0, result.output
    s = seen["settings"]
    assert (s.preset, s.max_tools, s.local_server, s.auto_approve, s.vision_model) == ("lean", 20, False, True, "eyes")
    assert s.allowed_paths == ("/srv", "/data")  # the flag adds to the configured folders
    assert seen["log"] == Path("x.log") and seen["extra"] == 3
