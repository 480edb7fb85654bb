"""One short real run: `gaia-lite eval tasks` on one task, both arms, with the embedded server and the 0.5B model.

It checks the plumbing end to end (server start and stop, both arms, the log
that `eval log` scores), not the weak model's answers, which are reported
as measured.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gaia_lite.runtime import runtime_status

pytestmark = pytest.mark.slow

_status = runtime_status()


@pytest.mark.skipif(not _status.ready, reason="embedded runtime not installed: " + "; ".join(_status.lines())
                    + " (run scripts/setup.sh)")
def test_eval_tasks_one_task_both_arms(tmp_path: Path) -> None:
    env = {**os.environ, "LEMONADE_BASE_URL": "http://127.0.0.1:9/api/v1"}  # nothing there: start the embedded one
    out = tmp_path / "run"
    # two arms, the off arm prefilling all 37 tools cold: 300 s ran out on a busy machine (the full suite beside
    # an eval); steps stay bounded by --max-steps
    proc = subprocess.run([sys.executable, "-m", "gaia_lite", "eval", "tasks", "--task", "no_tools_needed",
                           "--arms", "off,on", "--max-steps", "3", "--out", str(out), "--json"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout)
    assert report["embedded_server"] is True
    assert set(report["arms"]) == {"off", "on"}
    for arm in ("off", "on"):
        assert report["arms"][arm]["turns"] == 2
    score = report["log_score"]
    assert score["turns"] == 2 and score["scored_turns"] == 2 and score["unfiltered_turns"] == 2
    log = Path(report["log"]).read_text()
    assert "TOOL_LOADER {" in log and "TOOL_CALLS {" in log
    # the same log scores from the command line
    res = subprocess.run([sys.executable, "-m", "gaia_lite", "eval", "log", report["log"], "--json",
                          "--min-recall", "0"], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["scored_turns"] == 2
