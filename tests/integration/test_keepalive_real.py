"""Issue 29 against the REAL llama-server and the REAL 0.5B model: a kept-alive server found again
by the next ``ask``, its API key, no orphan after ``kill -9``, one server per model, the shared
prefix restored after a restart (and rebuilt when its file is corrupt), and a follow-up
(``ask -c``) that prefills only what is new. Token counts are llama-server's own (``timings``
through ``ask --json``, and its log). Every run is bounded (``--max-steps``, subprocess timeouts).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from gaia_lite.runtime import DEFAULT_MODEL, kept_servers, model_path, runtime_status

pytestmark = pytest.mark.slow

_status = runtime_status()
needs_runtime = pytest.mark.skipif(not _status.ready, reason="embedded runtime not installed: "
                                   + "; ".join(_status.lines()) + " (run scripts/setup.sh)")


def _env(**extra: str) -> dict[str, str]:
    env = {**os.environ, **extra}
    env["LEMONADE_BASE_URL"] = "http://127.0.0.1:9/api/v1"  # nothing listens there: use the embedded server
    return env


def _ask(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gaia_lite", "ask", *args], cwd=cwd, env=_env(**env),
                          capture_output=True, text=True, timeout=300)


def _post(url: str, body: dict, key: str | None) -> int:
    headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {key}"} if key else {})}
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=120) as resp:
            return resp.status
    except urllib.error.HTTPError as exc:
        return exc.code


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _own_models_dir(tmp_path: Path) -> Path:
    """A models dir of this test's own (so its prefix cache is too), holding the real model by link."""
    real = model_path(DEFAULT_MODEL)
    folder = tmp_path / "models"
    folder.mkdir()
    (folder / real.name).symlink_to(real)
    stamp = real.with_name(real.name + ".sha256")
    (folder / stamp.name).write_text(stamp.read_text())
    return folder


@needs_runtime
def test_second_ask_reuses_the_kept_server_and_the_key_is_required(tmp_path: Path) -> None:
    first = _ask(tmp_path, "what is 2 + 2?", "--max-steps", "2", GAIA_KEEP_ALIVE="120")
    assert first.returncode == 0, first.stderr[-2000:]
    assert "started the embedded llama-server" in first.stderr and "stays up 120 s" in first.stderr
    second = _ask(tmp_path, "what is 3 + 3?", "--max-steps", "2", GAIA_KEEP_ALIVE="120")
    assert second.returncode == 0, second.stderr[-2000:]
    assert "reusing the embedded llama-server" in second.stderr
    [kept] = kept_servers()
    state = kept.state
    assert state.base_url.startswith("http://127.0.0.1:")
    body = {"messages": [{"role": "user", "content": "Say hi."}], "max_tokens": 2}
    assert _post(f"{state.base_url}/chat/completions", body, None) == 401
    assert _post(f"{state.base_url}/chat/completions", body, "not-the-key") == 401
    assert _post(f"{state.base_url}/chat/completions", body, state.api_key) == 200
    stop = subprocess.run([sys.executable, "-m", "gaia_lite", "serve", "--stop"], env=_env(), capture_output=True,
                          text=True, timeout=60)
    assert stop.returncode == 0 and "Stopped the kept llama-server" in stop.stdout
    assert kept_servers() == [] and not _alive(state.keeper_pid)


@needs_runtime
def test_no_orphan_after_kill9_of_every_gaia_lite_process(tmp_path: Path) -> None:
    keep_alive = 4.0
    proc = subprocess.Popen([sys.executable, "-m", "gaia_lite", "ask", "write a long story about a lighthouse",
                             "--max-steps", "2"], cwd=tmp_path, env=_env(GAIA_KEEP_ALIVE=str(keep_alive)),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline() if proc.stderr else ""
        assert "started the embedded llama-server" in line, line
        [kept] = kept_servers()
        time.sleep(1.0)  # the model is answering now
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        killed = time.monotonic()
        keeper = kept.state.keeper_pid
        servers = [int(p) for p in Path(f"/proc/{keeper}/task/{keeper}/children").read_text().split()]
        assert servers and _alive(servers[0])
        while (_alive(keeper) or _alive(servers[0])) and time.monotonic() - killed < keep_alive + 5:
            time.sleep(0.1)
        assert not _alive(servers[0]) and not _alive(keeper), "the kept server outlived keep-alive + 5 s"
        assert kept_servers() == []
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@needs_runtime
def test_a_server_started_for_another_model_is_not_reused(tmp_path: Path) -> None:
    other = tmp_path / "other-model.gguf"
    os.link(model_path(DEFAULT_MODEL), other)  # the same weights under another file: another model to gaia-lite
    first = _ask(tmp_path, "what is 2 + 2?", "--max-steps", "2", GAIA_KEEP_ALIVE="120")
    assert first.returncode == 0, first.stderr[-2000:]
    second = _ask(tmp_path, "what is 2 + 2?", "--max-steps", "2", GAIA_KEEP_ALIVE="120", GAIA_MODEL=str(other))
    assert second.returncode == 0, second.stderr[-2000:]
    assert "started the embedded llama-server" in second.stderr and "model other-model" in second.stderr
    assert sorted(k.state.alias for k in kept_servers()) == ["other-model", DEFAULT_MODEL]


def _prefix_line(stderr: str) -> tuple[str, int]:
    m = re.search(r"shared prompt prefix: (\w+) \((\d+) tokens", stderr)
    assert m, stderr[-2000:]
    return m.group(1), int(m.group(2))


@needs_runtime
def test_the_shared_prefix_is_restored_after_a_restart_and_rebuilt_when_corrupt(tmp_path: Path) -> None:
    models = _own_models_dir(tmp_path)
    env = {"GAIA_KEEP_ALIVE": "0", "GAIA_MODELS_DIR": str(models)}  # every ask starts its own server
    args = ("--json", "--verbose", "--dynamic-tools", "--max-steps", "2")
    built = _ask(tmp_path, "what is 12 times 12?", *args, **env)
    assert built.returncode == 0, built.stderr[-2000:]
    assert _prefix_line(built.stderr)[0] == "built"
    restored = _ask(tmp_path, "what is the capital of Italy?", *args, **env)
    assert restored.returncode == 0, restored.stderr[-2000:]
    action, tokens = _prefix_line(restored.stderr)
    assert action == "restored"
    out = json.loads(restored.stdout)
    prefilled = out["prompt_tokens"] - out["cached_tokens"]
    assert out["cached_tokens"] >= tokens - 2  # the restored tokens served the first turn
    assert prefilled <= 0.35 * out["prompt_tokens"], out
    # a truncated file would crash llama-server if it were restored: it is ignored and rebuilt instead
    [data] = (models / "prefix").glob("prefix-*.bin")
    data.write_bytes(data.read_bytes()[: data.stat().st_size // 2])
    again = _ask(tmp_path, "what is 12 times 12?", *args, **env)
    assert again.returncode == 0, again.stderr[-2000:]
    assert _prefix_line(again.stderr)[0] == "built"
    assert "error" not in again.stderr.lower()
    log = (Path(os.environ["GAIA_HOME"]) / "state" / "gaia-lite.log").read_text()
    assert log.count("PREFIX_CACHE ignoring") == 1 and "rebuilding it" in log
    final = _ask(tmp_path, "what is 12 times 12?", *args, **env)
    assert _prefix_line(final.stderr)[0] == "restored"


def _last_request_prompt(log: Path) -> int:
    """The prompt tokens (prefilled + reused) of the server's latest request, from its log: the slot
    held prompt + generated - 1 tokens when it was released."""
    text = log.read_text(errors="replace")
    generated = [int(g) for g in re.findall(r"\beval time =\s+[\d.]+ ms /\s+(\d+) tokens", text)]
    held = [int(n) for n in re.findall(r"stop processing: n_tokens = (\d+)", text)]
    assert generated and held, text[-2000:]
    return held[-1] - generated[-1] + 1


@needs_runtime
def test_a_follow_up_in_a_kept_server_prefills_only_the_new_turn(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("# Notes\nBuy stamps.\n")  # 20 bytes
    env = {"GAIA_KEEP_ALIVE": "120"}
    first = _ask(tmp_path, "what is in notes.md?", "--json", "--max-steps", "4", **env)
    assert first.returncode == 0, first.stderr[-2000:]
    [kept] = kept_servers()
    before = _last_request_prompt(Path(kept.state.log))
    follow = _ask(tmp_path, "and how big is it?", "-c", "--json", "--max-steps", "4", **env)
    assert follow.returncode == 0, follow.stderr[-2000:]
    assert "reusing the embedded llama-server" in follow.stderr and "continuing conversation" in follow.stderr
    out = json.loads(follow.stdout)
    new_tokens = out["prompt_tokens"] - before  # what follows the previous request's prompt
    prefilled = out["prompt_tokens"] - out["cached_tokens"]
    assert 0 < new_tokens < out["prompt_tokens"] / 2, (before, out)
    assert prefilled <= 1.1 * new_tokens, (before, out)
    # the follow-up knows what "it" is from the first turn: it looks at notes.md or answers with its size
    assert "notes.md" in follow.stderr or "20" in out["answer"], (follow.stderr[-1500:], out["answer"])
