"""Class 1, first line of defence: the read-only argv policy, through run_shell_command.

Each attack is refused (or runs harmlessly) and the secret never appears in
what the model would see. The OS sandbox is switched OFF here, so each test
shows the policy holding on its own (test_shell_kernel shows the converse).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gaia_lite.tools.shell import run_shell_command

from .conftest import ENV_SECRET, KEY_SECRET, SECRET, git, make_repo, output_of


@pytest.fixture(autouse=True)
def policy_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GAIA_SHELL_SANDBOX", "off")


def refused(result: dict) -> bool:
    return result["status"] == "error" and result["error"].startswith("command refused")


# ---------------------------------------------------------------- options that take a file

@pytest.mark.parametrize("command", [
    "date -f {o}/secret.txt",
    "date -f{o}/secret.txt",
    "date --file={o}/secret.txt",
    "date --fi={o}/secret.txt",            # GNU long-option prefix
    "date -r {o}/secret.txt",
    "date -f ~/.ssh/id_rsa",
    "grep -f{o}/secret.txt a.txt",
    "grep --exclude-from={o}/secret.txt -r x .",
    "wc --files0-from=names.txt",          # names inside the file would skip the check
    "du --files0-from=names.txt",
    "file -f names.txt",
    "find -files0-from names.txt -name secret.txt",
    "cut -f1 --output-delimiter=, {o}/secret.txt",
    "diff --from-file={o}/secret.txt a.txt",
    "git blame --contents={o}/secret.txt tracked.txt",
], ids=lambda c: c.split(" {")[0].split(" ~")[0][:40])
def test_option_values_are_path_checked(ctx, root, outside, command) -> None:
    (root / "names.txt").write_text(f"{outside}/secret.txt\0")
    result = run_shell_command(ctx, command.format(o=outside))
    assert refused(result), result
    assert SECRET not in output_of(result)


def test_separators_attached_to_options_still_work(ctx) -> None:
    result = run_shell_command(ctx, "cut -d/ -f1 a.txt")
    assert result["status"] == "success" and result["stdout"] == "alpha\nbeta\ngamma\n"


# ---------------------------------------------------------------- programs that write or follow links

@pytest.mark.parametrize("command", [
    "tree -o canary .", "tree -H . -o canary", "tree -R -H x .", "sort -o canary a.txt",
    "sort -T . a.txt", "find . -fprint canary", "find . -fls canary", "uniq a.txt canary",
    "git log --output=canary", "file -C -m canary",
])
def test_read_only_programs_that_write_are_refused(ctx, root, command) -> None:
    assert refused(run_shell_command(ctx, command))
    assert not (root / "canary").exists()


@pytest.mark.parametrize("command", [
    "grep -R SECRET .", "grep --dereference-recursive SECRET .", "find -L . -name secret.txt",
    "find . -follow -name secret.txt", "du -L .", "ls -LR", "tree -l .", "rg -L SECRET", "rg --follow SECRET",
])
def test_recursive_walks_may_not_follow_symlinks(ctx, root, outside, command) -> None:
    (root / "link").symlink_to(outside)
    result = run_shell_command(ctx, command)
    assert refused(result) and SECRET not in output_of(result)


def test_plain_recursive_grep_does_not_follow_a_symlink_out(ctx, root, outside) -> None:
    (root / "link").symlink_to(outside)
    result = run_shell_command(ctx, "grep -r SECRET .")
    assert SECRET not in output_of(result)


# ---------------------------------------------------------------- globs and credential files

@pytest.mark.parametrize("command", [
    "grep -r --include=.en? API .", "grep -r --include=*.env API .", "grep -r --include=.e* API .",
    "grep -r --include=id_* KEY .", "grep -r --include=[.]env API .", "git ls-files .en?",
    "git grep API -- .en?", "find . -name .en?", "rg -g .en? API", "rg --hidden --glob=.en? API",
    "rg --iglob=*.PEM KEY",
])
def test_globs_aimed_at_credentials_are_refused(ctx, command) -> None:
    result = run_shell_command(ctx, command)
    assert refused(result) and ENV_SECRET not in output_of(result)


@pytest.mark.parametrize("command", [
    "grep -r API .", "grep -r --include=* API .", "grep -rn --include=* -e API .",
    "grep -r KEY .", "diff -r -N . docs", "rg --hidden API", "rg -uuu -g * API .", "rg --hidden KEY -- .",
])
def test_recursive_reads_skip_credentials_even_with_broad_globs(ctx, command) -> None:
    result = run_shell_command(ctx, command)
    assert ENV_SECRET not in output_of(result) and KEY_SECRET not in output_of(result)


@pytest.mark.parametrize("command", ["cat .env", "head .ssh/id_rsa", "cat ./docs/../.env", "wc -c .env"])
def test_credential_files_are_refused_by_name(ctx, command) -> None:
    result = run_shell_command(ctx, command)
    assert refused(result) and ENV_SECRET not in output_of(result)


# ---------------------------------------------------------------- git

def _repo_with_tracked_env(root: Path) -> Path:
    repo = make_repo(root / "repo")
    (repo / ".env").write_text(f"API_KEY={ENV_SECRET}\n")
    git(repo, "add", "-f", ".env")
    git(repo, "commit", "-qm", "add env")
    return repo


@pytest.mark.parametrize("command", ["git show HEAD:.env", "git show HEAD:./.env", "git show :0:.env"])
def test_git_blobs_of_credential_files_are_refused(ctx, root, command) -> None:
    repo = _repo_with_tracked_env(root)
    result = run_shell_command(ctx, command, working_directory=str(repo))
    assert refused(result) and ENV_SECRET not in output_of(result)


@pytest.mark.parametrize("command", ["git log -p", "git show", "git grep API_KEY", "git grep -e API_KEY HEAD",
                                     "git diff HEAD~1", "git log -p -- ."])
def test_git_output_leaves_tracked_credentials_out(ctx, root, command) -> None:
    repo = _repo_with_tracked_env(root)
    result = run_shell_command(ctx, command, working_directory=str(repo))
    assert ENV_SECRET not in output_of(result)


def test_git_stops_at_the_root(ctx, tmp_path) -> None:
    parent = make_repo(tmp_path / "parent", message=SECRET)
    inner = parent / "project"
    inner.mkdir()
    inner_ctx = type(ctx)(workdir=inner, sandbox=type(ctx.sandbox)([inner]), data_dir=inner / ".d",
                          shell_limiter=ctx.shell_limiter)
    for command in ("git log", "git log :/", "git show HEAD", "git status"):
        result = run_shell_command(inner_ctx, command)
        assert refused(result) and "not inside a git repository" in result["error"]
        assert SECRET not in output_of(result)


def test_git_file_pointing_outside_is_refused(ctx, root, outside) -> None:
    make_repo(outside / "real", message=SECRET)
    (root / "checkout").mkdir()
    (root / "checkout" / ".git").write_text(f"gitdir: {outside}/real/.git\n")
    result = run_shell_command(ctx, "git log", working_directory=str(root / "checkout"))
    assert refused(result) and SECRET not in output_of(result)


def test_git_alternates_pointing_outside_are_refused(ctx, root, outside) -> None:
    make_repo(outside / "real", message=SECRET)
    repo = make_repo(root / "repo")
    (repo / ".git" / "objects" / "info" / "alternates").write_text(f"{outside}/real/.git/objects\n")
    result = run_shell_command(ctx, "git log", working_directory=str(repo))
    assert refused(result) and SECRET not in output_of(result)


@pytest.mark.parametrize("command", ["git status", "git diff", "git log -p", "git show", "git blame tracked.txt"])
def test_repository_config_cannot_run_programs(ctx, root, outside, command) -> None:
    repo = make_repo(root / "clone")
    (repo / ".gitattributes").write_text("*.txt filter=evil diff=evil\n")
    hook = f"sh -c 'touch {outside}/canary; cat'"
    for key in ("filter.evil.clean", "filter.evil.smudge", "filter.evil.process", "diff.evil.textconv",
                "diff.evil.command", "core.fsmonitor", "core.pager", "gpg.program"):
        git(repo, "config", key, hook)
    git(repo, "config", "log.showSignature", "true")
    (repo / "tracked.txt").write_text("two\n")
    os.utime(repo / "tracked.txt", (0, 0))
    result = run_shell_command(ctx, command, working_directory=str(repo))
    assert not (outside / "canary").exists()
    assert result["status"] == "success", result


# ---------------------------------------------------------------- harmless commands still work

def test_harmless_commands_still_work(ctx, root) -> None:
    repo = make_repo(root / "clean")
    (repo / "tracked.txt").write_text("one\ntwo\n")
    expect = {"ls": "a.txt", "cat a.txt": "beta", "grep -n gamma a.txt": "3:gamma", "wc -l a.txt": "3 a.txt",
              "grep -rn nothing docs": "notes.md", "head -n 1 a.txt | tr a-z A-Z": "ALPHA"}
    for command, needle in expect.items():
        result = run_shell_command(ctx, command)
        assert result["status"] == "success" and needle in result["stdout"], (command, result)
    for command, needle in {"git status": "modified:   tracked.txt", "git log --oneline": "first",
                            "git diff": "+two", "git show --stat": "tracked.txt",
                            "git ls-files": "tracked.txt", "git blame tracked.txt": "one"}.items():
        result = run_shell_command(ctx, command, working_directory=str(repo))
        assert result["status"] == "success" and needle in result["stdout"], (command, result)
