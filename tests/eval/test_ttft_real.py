"""The stable prompt layout against a REAL llama-server (0.5B, text path): later turns reuse the
server's prefix cache, while GAIA's rewrite layout loses it whenever the loaded tools change.

One `gaia-lite eval ttft --rewrite` run with one trial of the first three script turns (turns 2 and
3 admit tools) and no cold first-turn phase, so it stays within the 120 s bound of a real-model test;
the arms alternate turn by turn on one server, so it also checks that each conversation gets its cache
back after the other arms' requests. The assertions use the server's own token counts, which do not
depend on machine load (timings are not asserted)."""

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
def test_stable_layout_keeps_the_prefix_and_rewrite_loses_it(tmp_path: Path) -> None:
    env = {**os.environ, "LEMONADE_BASE_URL": "http://127.0.0.1:9/api/v1"}  # start the embedded server
    proc = subprocess.run([sys.executable, "-m", "gaia_lite", "eval", "ttft", "--text-tools", "--trials", "1",
                           "--turns", "3", "--no-first-turns", "--rewrite", "--json"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout)
    turns = report["paths"]["text"]["later_turns"]["per_turn"]
    assert [t["turn"] for t in turns] == [1, 2, 3]
    assert report["paths"]["text"]["later_turns"]["cache_lost"] == {"off": 0, "on": 0, "rewrite": 0}
    changed = [t for t in turns[1:] if t["on_tools_changed"]]
    assert changed, "the script is meant to change the loaded tools at least once"
    for prev, cur in zip(turns, turns[1:]):
        # stable: everything the previous request sent is restored from the cache, tools changed or not
        assert cur["on_cached_tokens"] >= prev["on_prompt_tokens"] - 2, (prev, cur)
    # rewrite (the previous default): a turn that changes the tool block re-prefills the conversation
    lost = [t for t, prev in zip(turns[1:], turns) if t["rewrite_cached_tokens"] < prev["rewrite_prompt_tokens"] - 50]
    assert lost, f"the rewrite arm kept its prefix on every turn: {turns}"
