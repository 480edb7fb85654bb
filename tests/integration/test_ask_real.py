"""End to end: `gaia-lite ask` against a REAL llama-server with the REAL 0.5B model.

gaia-lite starts the embedded server itself (no server answers at the default
URL), the model lifts a tool call, a real tool runs on real files, and the
answer comes back as JSON. Skipped, with the reason shown, only when the
embedded runtime is not installed (scripts/setup.sh installs it).

Every run is bounded (``--max-steps 4``, a subprocess timeout), so a model that
loops fails the test instead of hanging it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gaia_lite.runtime import runtime_status

pytestmark = pytest.mark.slow

_status = runtime_status()
needs_runtime = pytest.mark.skipif(not _status.ready, reason="embedded runtime not installed: "
                                   + "; ".join(_status.lines()) + " (run scripts/setup.sh)")


def _ask(cwd: Path, *args: str, env_extra: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **(env_extra or {})}
    env["LEMONADE_BASE_URL"] = "http://127.0.0.1:9/api/v1"  # nothing listens there: auto-start the local server
    return subprocess.run([sys.executable, "-m", "gaia_lite", "ask", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


@needs_runtime
def test_ask_lists_files_with_a_real_tool(tmp_path):
    (tmp_path / "quarterly_report.md").write_text("# Q3\nRevenue was $14.2 million.\n")
    (tmp_path / "budget.csv").write_text("item,amount\nrent,1200\n")
    proc = _ask(tmp_path, "list the files in this folder", "--json", "--dynamic-tools", "--max-steps", "4")
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout)
    assert "started the embedded llama-server" in proc.stderr
    assert out["tools_called"], f"no tool was called: {out}"
    assert set(out["tools_called"]) & {"browse_directory", "search_file", "list_recent_files",
                                       "run_shell_command", "get_file_info", "search_directory"}
    assert out["ttft_s"] > 0 and out["prompt_tokens"] > 0
    assert "load_tools" in out["loaded_tools"] and len(out["loaded_tools"]) < 37


@needs_runtime
def test_ask_exits_3_when_no_server_and_auto_start_is_off(tmp_path):
    proc = _ask(tmp_path, "hello", "--no-local-server")
    assert proc.returncode == 3
    assert "gaia-lite serve" in proc.stderr and "Traceback" not in proc.stderr


@needs_runtime
def test_the_readme_first_command_prints_a_clean_answer_with_constrained_calls(tmp_path):
    """The constrained path against the real llama-server: the probes find response_format and
    grammar, the reply is held to the schema (sent as a compact grammar, which the server takes), and
    stdout holds only the answer (no JSON, no tool names)."""
    (tmp_path / "quarterly_report.md").write_text("# Q3\nRevenue was $14.2 million.\n")
    (tmp_path / "budget.csv").write_text("item,amount\nrent,1200\n")
    home = tmp_path / "home"
    work = tmp_path / "work"
    work.mkdir()
    for f in ("quarterly_report.md", "budget.csv"):
        (work / f).write_text((tmp_path / f).read_text())
    proc = _ask(work, "list the files in this folder", "--dynamic-tools", "--max-steps", "4",
                env_extra={"GAIA_HOME": str(home), "GAIA_TOOL_CALLS": "auto"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    caps = json.loads((home / "state/capabilities.json").read_text())
    assert [(v["response_format"], v.get("grammar")) for k, v in caps.items() if k.startswith("embedded|")] \
        == [(True, True)]
    assert "refused the reply constraint" not in proc.stderr, proc.stderr
    answer = proc.stdout.strip()
    assert answer and "{" not in answer and '"name"' not in answer
    assert not re.search(r"\b(browse_directory|list_recent_files|search_file|read_file)\b", answer), answer
    # Whether the 0.5B model calls a tool here is its own choice (held to the schema it sometimes
    # answers at once), so the test does not wait on it. What the product controls: every call it
    # made is reported on stderr in the progress format, and none of that reaches stdout.
    calls = [line for line in proc.stderr.splitlines() if line.startswith("→ ")]
    assert all(re.match(r"^→ \w+\(.*\) [✓✗] \d+\.\d\ds", line) for line in calls), proc.stderr
    assert "→ " not in proc.stdout, proc.stdout
