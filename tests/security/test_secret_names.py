"""Issue 30, item 1 (by name): files whose names say "secret" are refused like ``.env``.

On main 5aec35f ``secrets.yaml``, ``.envrc`` and ``token.txt`` inside the root were
read by every reader program. Each file here holds a canary that no content
pattern would catch (it is not token-shaped), so these tests show the *name*
rule alone: the file tools and the shell refuse them by name (with the kernel
sandbox on, and with it off, where the argv policy must hold on its own), a
recursive search skips them, and the kernel sandbox hides them. Source files
with such names (``secrets.py``, ``token.py``) and a tokenizer's files stay
readable.
"""

from __future__ import annotations

import threading
import zlib
from pathlib import Path

import pytest

from gaia_lite.registry.context import ToolContext
from gaia_lite.tools import os_sandbox, shell
from gaia_lite.tools import files
from gaia_lite.tools.sandbox import is_secret_path
from gaia_lite.tools.shell import run_shell_command

from tests.tools.called import as_called

from .conftest import git, make_repo, output_of

# as the agent calls it: a refusal the tool raises comes back as its error payload
read_file = as_called(files.read_file)

SECRET_NAMES = ["secrets.yaml", "secrets.json", ".envrc", "prod.envrc", "token.txt", "token", "github_token",
                ".vault-token", "api-token.json", "credentials", "credentials.toml", "aws-credentials",
                "service-account.json", "my-project-service_account-1234.json", "passwords.txt",
                "deploy.secret"]
HARMLESS_NAMES = ["secrets.py", "token.py", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json",
                  "credentials.md", "notes.md", "token_utils.js"]
BOX = os_sandbox.detect()


def canary(name: str) -> str:
    return f"NAMECANARY{zlib.crc32(name.encode())}"




@pytest.fixture
def planted(root: Path) -> Path:
    for name in SECRET_NAMES + HARMLESS_NAMES:
        (root / "conf").mkdir(exist_ok=True)
        (root / "conf" / name).write_text(f"value = {canary(name)}\n")
    return root


@pytest.mark.parametrize("name", SECRET_NAMES)
def test_the_name_rule_covers_them(name: str) -> None:
    assert is_secret_path(Path("/r/conf") / name)
    assert is_secret_path(Path("/r/conf") / name.upper())


@pytest.mark.parametrize("name", HARMLESS_NAMES)
def test_source_files_and_model_data_are_not_secrets(ctx, planted, name: str) -> None:
    assert not is_secret_path(Path("/r/conf") / name)
    assert canary(name) in read_file(ctx, f"conf/{name}")["content"]


@pytest.mark.parametrize("name", SECRET_NAMES)
def test_read_file_refuses_them(ctx, planted, name: str) -> None:
    result = read_file(ctx, f"conf/{name}")
    assert result["status"] == "error" and "credential" in result["error"]
    assert canary(name) not in str(result)


@pytest.mark.parametrize("command", ["cat conf/{n}", "head -n 3 conf/{n}", "tail conf/{n}", "sort conf/{n}",
                                     "nl conf/{n}", "cut -c1-80 conf/{n}", "grep value conf/{n}",
                                     "diff conf/{n} a.txt", "wc -l conf/{n}"])
def test_every_reader_program_refuses_them(ctx, planted, mode, command) -> None:
    for name in SECRET_NAMES:
        result = run_shell_command(ctx, command.format(n=name))
        assert result["status"] == "error" and result["error"].startswith("command refused"), (name, result)
        assert canary(name) not in output_of(result)


@pytest.mark.parametrize("command", ["grep -rn value .", "grep -r -e value conf", "diff -r conf docs",
                                     "find . -name *", "grep -rl NAMECANARY ."])
def test_recursive_reads_skip_them(ctx, planted, mode, command) -> None:
    result = run_shell_command(ctx, command)
    shown = output_of(result)
    for name in SECRET_NAMES:
        assert canary(name) not in shown, name
    if command.startswith("grep -rn"):
        assert canary("secrets.py") in shown and canary("token.py") in shown  # code is still searched


def test_a_pattern_that_is_only_a_word_is_not_a_path(ctx, planted, mode) -> None:
    """``grep -rn API_TOKEN .``: the word names no file, so it is a pattern, not a read."""
    (planted / "app.py").write_text("API_TOKEN = read_from_env()\n")
    result = run_shell_command(ctx, "grep -rn API_TOKEN .")
    assert result["status"] == "success" and "app.py" in result["stdout"]


def test_git_history_of_them_is_left_out(ctx, planted, mode) -> None:
    repo = make_repo(planted / "repo")
    for name in SECRET_NAMES:
        (repo / name).write_text(f"value = {canary(name)}\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "add config")
    for command in ("git log -p", "git show HEAD", "git grep value", "git diff HEAD~1 HEAD", "git log -p --all -- ."):
        result = run_shell_command(ctx, command, working_directory="repo")
        for name in SECRET_NAMES:
            assert canary(name) not in output_of(result), (command, name)
    for name in SECRET_NAMES:
        result = run_shell_command(ctx, f"git show HEAD:{name}", working_directory="repo")
        assert result["status"] == "error" and canary(name) not in output_of(result), name


@pytest.mark.skipif(not BOX.active, reason=f"no OS sandbox on this machine: {BOX.reason}")
def test_the_kernel_sandbox_hides_them_without_the_policy(ctx: ToolContext, planted) -> None:
    argv = ["sh", "-c", "cat conf/*"]
    run = shell._execute([BOX.wrap(argv, ctx.sandbox.roots, planted)], planted, 20, threading.Event(),
                         shell._child_env(True), ["sh"])
    for name in SECRET_NAMES:
        assert canary(name) not in run["stdout"], name
    assert canary("secrets.py") in run["stdout"]  # the mount is there; only the credentials are empty
