"""run_shell_command: the read-only policy, real pipelines, limits."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from gaia_lite.registry.spec import spec_of
from gaia_lite.tools.shell import OUTPUT_CAP, RateLimiter, policy_error, run_shell_command


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def shell_ctx(tool_ctx, tmp_path: Path):
    (tmp_path / "a.txt").write_text("alpha\nbeta\ngamma\n")
    (tmp_path / "sentinel.txt").write_text("must survive\n")
    tool_ctx.shell_limiter = RateLimiter(limits=((1000, 10.0),))    # tests are not rate-limited
    return tool_ctx


INJECTIONS = [
    ("ls; rm sentinel.txt", "semicolon"),
    ("ls && rm sentinel.txt", "and-and"),
    ("ls || rm sentinel.txt", "or-or"),
    ("ls & rm sentinel.txt", "background"),
    ("echo pwned > sentinel.txt", "redirect-out"),
    ("echo pwned >> sentinel.txt", "redirect-append"),
    ("cat < a.txt", "redirect-in"),
    ("echo `rm sentinel.txt`", "backticks"),
    ("echo $(rm sentinel.txt)", "dollar-paren"),
    ("echo ${HOME}", "dollar-brace"),
    ("cat $HOME/.bashrc", "dollar-var"),
    ("ls\nrm sentinel.txt", "newline"),
    ("ls\rrm sentinel.txt", "carriage-return"),
    ("FOO=1 ls", "env-assignment"),
    ("env", "env-binary"),
    ("env rm sentinel.txt", "env-wrapper"),
    ("ls\uff1b rm sentinel.txt", "fullwidth-semicolon"),
    ("ls \uff06\uff06 rm sentinel.txt", "fullwidth-ampersand"),
    ("ls \uff5c rm sentinel.txt", "fullwidth-pipe"),
    ("echo hi \uff1e sentinel.txt", "fullwidth-greater"),
    ("ls \u2223 wc", "divides-lookalike-pipe"),
    ("l\u200bs", "zero-width-space"),
    ("ls\u00a0-la", "no-break-space"),
    ("ls \u037e rm x", "greek-question-mark"),
    ("find . -exec rm {} +", "find-exec"),
    ("find . -execdir rm {} ;", "find-execdir"),
    ("find . -ok rm {} +", "find-ok"),
    ("find . -name sentinel.txt -delete", "find-delete"),
    ("find . -fprint out.txt", "find-fprint"),
    ("find . -fls out.txt", "find-fls"),
    ("sort -o sentinel.txt a.txt", "sort-o"),
    ("sort -ro sentinel.txt a.txt", "sort-cluster-o"),
    ("sort --output=sentinel.txt a.txt", "sort-output"),
    ("sort --out=sentinel.txt a.txt", "sort-output-prefix"),
    ("sort --compress-program=sh a.txt", "sort-compress-program"),
    ("uniq a.txt sentinel.txt", "uniq-output-file"),
    ("git push", "git-push"),
    ("git commit -m x", "git-commit"),
    ("git checkout -- a.txt", "git-checkout"),
    ("git config core.pager sh", "git-config"),
    ("git -c core.pager=sh log", "git-global-c"),
    ("git branch evil", "git-branch-create"),
    ("git branch -D main", "git-branch-delete"),
    ("git diff --output=sentinel.txt", "git-diff-output"),
    ("git grep --open-files-in-pager=sh x", "git-grep-pager"),
    ("sed -i s/a/b/ a.txt", "sed-in-place"),
    ("awk 'BEGIN{system(\"rm sentinel.txt\")}'", "awk-system"),
    ("ls | xargs rm", "xargs"),
    ("rm sentinel.txt", "rm"),
    ("python3 -c 'print(1)'", "python"),
    ("bash -c ls", "bash"),
    ("/bin/rm sentinel.txt", "absolute-program"),
    ("./ls", "relative-program"),
    ("cat ../../etc/passwd", "dotdot-escape"),
    ("cat /etc/passwd", "absolute-outside"),
    ("cat ~/.ssh/id_rsa", "tilde-credential"),
    ("cat .env", "dotenv"),
    ("grep -f /etc/shadow a.txt", "option-value-outside"),
    ("grep --file=/etc/shadow a.txt", "long-option-value-outside"),
    ("date -s 2020-01-01", "date-set"),
    ("date 0101000025", "date-bare-set"),
    ("hostname evil", "hostname-rename"),
    ("ps axe", "ps-environment"),
    ("rg --pre sh x", "rg-pre"),
    ("tree -o out.txt", "tree-output"),
    ("file -C -m x", "file-compile"),
    ("ls | | wc", "empty-pipe-segment"),
    ("ls |", "trailing-pipe"),
    ("echo 'unterminated", "unbalanced-quote"),
    ("", "empty"),
    ("ls " + "a" * 2100, "too-long"),
    ("cat a.txt | cat | cat | cat | cat | cat", "too-many-segments"),
]


@pytest.mark.parametrize("command", [c for c, _ in INJECTIONS], ids=[i for _, i in INJECTIONS])
def test_injection_attempts_are_refused(shell_ctx, tmp_path: Path, command: str) -> None:
    result = run_shell_command(shell_ctx, command)
    assert result["status"] == "error"
    assert "\n" not in result["error"]
    assert "stdout" not in result                      # refused before anything ran
    assert (tmp_path / "sentinel.txt").read_text() == "must survive\n"
    assert not (tmp_path / "out.txt").exists()


def test_there_are_at_least_25_injection_cases() -> None:
    assert len(INJECTIONS) >= 25 and len({i for _, i in INJECTIONS}) == len(INJECTIONS)


def test_tool_is_gated() -> None:
    assert spec_of(run_shell_command).gated is True


def test_policy_error_lets_the_approval_prompt_skip_refused_commands(shell_ctx) -> None:
    assert policy_error(shell_ctx, "cat a.txt | wc -l") is None
    assert "';'" in policy_error(shell_ctx, "ls; rm sentinel.txt")
    assert "--allowed-paths" in policy_error(shell_ctx, "ls", working_directory="/opt")


def test_plain_command_runs(shell_ctx, tmp_path: Path) -> None:
    result = run_shell_command(shell_ctx, "cat a.txt")
    assert result["status"] == "success"
    assert result["stdout"] == "alpha\nbeta\ngamma\n"
    assert result["return_code"] == 0 and result["has_errors"] is False
    assert result["cwd"] == str(tmp_path.resolve())
    assert set(result) >= {"status", "command", "stdout", "stderr", "return_code", "has_errors",
                           "duration_seconds", "timeout", "cwd", "output_truncated"}


def test_pipeline_runs_every_segment(shell_ctx) -> None:
    result = run_shell_command(shell_ctx, "cat a.txt | grep a | sort -r | head -2")
    assert result["status"] == "success"
    assert result["stdout"] == "gamma\nbeta\n" and result["stdout_lines"] == 2  # said, not left to be counted


def test_quoted_pipe_is_a_regex_not_a_pipe(shell_ctx) -> None:
    result = run_shell_command(shell_ctx, "grep -E 'alpha|gamma' a.txt")
    assert result["stdout"] == "alpha\ngamma\n"


def test_non_ascii_letters_are_fine(shell_ctx, tmp_path: Path) -> None:
    (tmp_path / "menu.txt").write_text("café au lait\ntea\n")
    assert run_shell_command(shell_ctx, "grep café menu.txt")["stdout"] == "café au lait\n"


def test_no_match_is_not_an_error(shell_ctx) -> None:
    result = run_shell_command(shell_ctx, "grep zzz a.txt")
    assert result["status"] == "success" and result["return_code"] == 1 and result["has_errors"] is False


def test_failing_command_reports_error_with_output(shell_ctx) -> None:
    result = run_shell_command(shell_ctx, "ls missing-folder")
    assert result["status"] == "error" and result["return_code"] != 0 and result["has_errors"]
    assert "missing-folder" in result["stderr"]


def test_bare_globs_are_expanded_and_quoted_ones_are_not(shell_ctx) -> None:
    # the 0.5B ran "ls -l *.log" and got "cannot access '*.log'": without a shell nothing expanded it
    assert run_shell_command(shell_ctx, "ls *.txt")["stdout"] == "a.txt\nsentinel.txt\n"
    assert run_shell_command(shell_ctx, "ls '*.txt'")["status"] == "error"      # quoted: meant literally
    assert run_shell_command(shell_ctx, "ls *.md")["status"] == "error"         # no match: passed as written


def test_working_directory_inside_and_outside(shell_ctx, tmp_path: Path, outside_dir: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.txt").write_text("b\n")
    assert run_shell_command(shell_ctx, "ls", working_directory="sub")["stdout"] == "b.txt\n"
    refused = run_shell_command(shell_ctx, "ls", working_directory=str(outside_dir))
    assert refused["status"] == "error" and "--allowed-paths" in refused["error"]
    assert run_shell_command(shell_ctx, "ls", working_directory="nope")["status"] == "error"


def test_recursive_grep_skips_credential_files(shell_ctx, tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("API_TOKEN=hunter2\n")
    (tmp_path / "config.py").write_text("API_TOKEN = read_from_env()\n")
    result = run_shell_command(shell_ctx, "grep -rn API_TOKEN .")
    assert "config.py" in result["stdout"]
    assert "hunter2" not in result["stdout"]


@pytest.mark.skipif(shutil.which("rg") is None, reason="ripgrep not installed")
def test_ripgrep_skips_credential_files(shell_ctx, tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("API_TOKEN=hunter2\n")
    (tmp_path / "config.py").write_text("API_TOKEN = 1\n")
    result = run_shell_command(shell_ctx, "rg --hidden -n API_TOKEN")
    assert "config.py" in result["stdout"] and "hunter2" not in result["stdout"]


def test_read_only_git(shell_ctx, tmp_path: Path) -> None:
    if shutil.which("git") is None:
        pytest.skip("git not installed")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "add", "a.txt"], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "-c", "user.email=t@e.st", "-c", "user.name=T",
                    "commit", "-qm", "first commit"], check=True)
    assert "first commit" in run_shell_command(shell_ctx, "git log --oneline")["stdout"]
    assert run_shell_command(shell_ctx, "git status --short")["status"] == "success"
    assert run_shell_command(shell_ctx, "git branch --list")["status"] == "success"
    assert "a.txt" in run_shell_command(shell_ctx, "git ls-files")["stdout"]


def test_output_is_capped(shell_ctx, tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text("x" * 99 + "\n" * 1 + ("y" * 99 + "\n") * 400)
    result = run_shell_command(shell_ctx, "cat big.txt")
    assert len(result["stdout"]) == OUTPUT_CAP and result["output_truncated"] is True


def test_stderr_is_capped(shell_ctx) -> None:
    names = " ".join(f"m{i}" for i in range(400))
    result = run_shell_command(shell_ctx, f"cat {names}")
    assert len(result["stderr"]) <= OUTPUT_CAP and result["output_truncated"] is True


def test_early_exit_in_a_pipe_does_not_hang(shell_ctx, tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text("line\n" * 500_000)
    result = run_shell_command(shell_ctx, "cat big.txt | head -1")
    assert result["stdout"] == "line\n" and result["duration_seconds"] < 10


def test_timeout_stops_the_command(shell_ctx) -> None:
    result = run_shell_command(shell_ctx, "tail -f a.txt", timeout=1)
    assert result["status"] == "error" and "timed out" in result["error"]
    assert result["timeout"] == 1 and result["duration_seconds"] < 5


def test_stdin_is_empty(shell_ctx) -> None:
    result = run_shell_command(shell_ctx, "cat", timeout=5)    # would block forever on a terminal
    assert result["status"] == "success" and result["stdout"] == ""


def test_invalid_timeout_is_an_error(shell_ctx) -> None:
    assert run_shell_command(shell_ctx, "ls", timeout="soon")["status"] == "error"


def test_output_is_decoded_with_replacement(shell_ctx, tmp_path: Path) -> None:
    (tmp_path / "bin.txt").write_bytes(b"ok \xff\xfe end\n")
    assert "\ufffd" in run_shell_command(shell_ctx, "cat bin.txt")["stdout"]


def test_rate_limit_with_injected_clock(tool_ctx) -> None:
    clock = FakeClock()
    tool_ctx.shell_limiter = RateLimiter(clock=clock)
    for _ in range(3):
        assert run_shell_command(tool_ctx, "pwd")["status"] == "success"
    limited = run_shell_command(tool_ctx, "pwd")
    assert limited["status"] == "error" and "rate limit" in limited["error"]
    assert limited["retry_after_seconds"] == pytest.approx(10.0)
    clock.now += 10
    assert run_shell_command(tool_ctx, "pwd")["status"] == "success"


def test_rate_limiter_per_minute_window() -> None:
    clock = FakeClock()
    limiter = RateLimiter(clock=clock)
    results = []
    for _ in range(11):                 # one call every 5 s passes the 3-per-10 s window...
        results.append(limiter.acquire())
        clock.now += 5.0
    assert results[:10] == [0.0] * 10
    assert results[10] == pytest.approx(10.0)   # ...but the 11th (t=50) waits until the first (t=0) is 60 s old


def test_refused_commands_do_not_use_up_the_rate_limit(tool_ctx) -> None:
    tool_ctx.shell_limiter = RateLimiter(clock=FakeClock())
    for _ in range(5):
        run_shell_command(tool_ctx, "rm -rf /")
    assert run_shell_command(tool_ctx, "pwd")["status"] == "success"
