"""The skills-off vs skills-on recall run, on a two-case set with the real seeds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gaia_lite.eval.skills_eval import main, run_skills_recall

from .conftest import DATA, SEEDS


def test_off_vs_on_report(tmp_path: Path, embedder: Any) -> None:
    data = {"meta": {"name": "mini"}, "tools": [], "cases": [
        {"id": "fires", "query": "Summarize sales_2025.csv by region and save the totals as report.md",
         "expected_tools": ["analyze_data_file", "write_file"], "skill": "sales-report-from-spreadsheet"},
        {"id": "quiet", "query": "Which windows are open on my desktop right now?",
         "expected_tools": ["list_windows"], "skill": None},
    ]}
    path = tmp_path / "mini.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    report = run_skills_recall(path, SEEDS, embedder=embedder, include_cases=True)
    assert report["scored_cases"] == 2 and report["procedures"] == len(list(SEEDS.glob("*.md")))
    assert report["skill_fires"] == {"correct": 1, "missed": 0, "false": 0, "expected": 1}
    fires, quiet = report["case_results"]
    assert fires["fired"] == ["sales-report-from-spreadsheet"] and fires["on"]["pass"]
    assert quiet["fired"] == [] and quiet["on"] == quiet["off"]
    assert report["on"]["recall"] >= report["off"]["recall"]
    assert set(report["off"]) == set(report["on"]) == {"recall", "mean_loaded", "mean_native_tokens"}


def test_the_goal_set_is_well_formed() -> None:
    from tools.catalog import DOC_ORDER

    data = json.loads((DATA / "skills_goals.json").read_text(encoding="utf-8"))
    seeds = {p.stem for p in SEEDS.glob("*.md")}
    assert set(data) == {"meta", "tools", "cases"} and len(data["cases"]) >= 50
    assert len({c["id"] for c in data["cases"]}) == len(data["cases"])
    for case in data["cases"]:
        assert set(case["expected_tools"]) <= set(DOC_ORDER), case["id"]
        assert case["skill"] is None or case["skill"] in seeds, case["id"]


def test_cli_entry_prints_both_arms(tmp_path: Path, embedder: Any, capsys: Any, monkeypatch: Any) -> None:
    import gaia_lite.embed

    monkeypatch.setattr(gaia_lite.embed, "make_embedder", lambda kind: embedder)  # reuse the warm one
    data = {"meta": {}, "tools": [], "cases": [
        {"id": "a", "query": "Open notes.txt and show me what it says", "expected_tools": ["read_file"]}]}
    path = tmp_path / "one.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert main([str(path), str(SEEDS)]) == 0
    out = capsys.readouterr().out
    assert "skills off" in out and "skills on" in out


def test_gaia_lite_eval_recall_with_skills_compares_both_arms(tmp_path: Path) -> None:
    """The product command the issue names: `gaia-lite eval recall SET --skills DIR`."""
    import subprocess
    import sys

    run = lambda *a: subprocess.run([sys.executable, "-m", "gaia_lite", "eval", "recall", *a],  # noqa: E731
                                    capture_output=True, text=True, timeout=300, cwd=tmp_path)
    proc = run(str(DATA / "skills_goals.json"), "--skills", str(SEEDS), "--skill-tau", "0.70",
               "--tokenizer", "chars", "--json")
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads(proc.stdout)
    assert report["tau"] == 0.70 and report["scored_cases"] >= 50
    assert report["on"]["recall"] > report["off"]["recall"]
    assert report["skill_fires"]["false"] == 0 and report["no_skill_cases"]["on"]["recall"] == 1.0
    bad = run(str(DATA / "skills_goals.json"), "--skills", str(tmp_path))
    assert bad.returncode == 2 and "no *.md skill files" in bad.stderr and "Traceback" not in bad.stderr
