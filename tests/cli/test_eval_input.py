"""Bad files given to the eval commands and `mcp import` fail in one line, before anything loads.

Each case runs the real `gaia-lite` in a subprocess (errors become one line in ``main()``, which
typer's CliRunner skips) with GAIA_HOME in a temp folder.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


def gaia(home: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GAIA_", "LEMONADE_"))}
    env.update(GAIA_HOME=str(home), GAIA_AUTO_START_SERVER="0")
    return subprocess.run([sys.executable, "-m", "gaia_lite", *args], capture_output=True, text=True,
                          env=env, timeout=60, stdin=subprocess.DEVNULL)


def one_line_error(run: subprocess.CompletedProcess) -> str:
    assert "Traceback" not in run.stderr + run.stdout, run.stderr
    lines = [ln for ln in run.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("gaia-lite: error: "), run.stderr
    return lines[0]


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "bad.json").write_text("{bad", encoding="utf-8")
    (tmp_path / "numbers.json").write_text(json.dumps({"cases": 5}), encoding="utf-8")
    (tmp_path / "stringy.json").write_text(
        json.dumps({"cases": [{"id": "c1", "query": "q", "expected_tools": "read_file"}]}), encoding="utf-8")
    (tmp_path / "good.json").write_text(
        json.dumps({"cases": [{"id": "c1", "query": "read notes.txt", "expected_tools": ["read_file"]}]}),
        encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("args, wanted", [
    (("recall", "{d}/missing.json"), "dataset {d}/missing.json does not exist"),
    (("recall", "{d}/bad.json"), "dataset {d}/bad.json is not valid JSON"),
    (("recall", "{d}/numbers.json"), 'non-empty "cases" list'),
    (("recall", "{d}/stringy.json"), 'case c1 "expected_tools" must be a list of tool names'),
    (("recall", "{d}/good.json", "--learn-from", "{d}/bad.json"), "--learn-from {d}/bad.json is not valid JSON"),
    (("tasks", "--suite", "{d}/bad.json"), "{d}/bad.json is not valid JSON"),
    (("tasks", "--suite", "{d}/missing.json"), "{d}/missing.json does not exist"),
])
def test_eval_bad_files_are_one_line_errors(tmp_path: Path, files: Path, args: tuple[str, ...],
                                           wanted: str) -> None:
    result = gaia(tmp_path / "home", "eval", *(a.format(d=files) for a in args))
    assert result.returncode == 2, result.stderr
    assert wanted.format(d=files) in one_line_error(result)


def test_mcp_import_of_a_broken_file_is_one_line(tmp_path: Path, files: Path) -> None:
    result = gaia(tmp_path / "home", "mcp", "import", str(files / "bad.json"))
    assert result.returncode == 2, result.stderr
    assert "bad.json is not valid JSON" in one_line_error(result)
