"""Sandbox: containment after full resolution, hard refusals, interactive approval."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gaia_lite.tools.sandbox import Sandbox, SandboxError, resolve_user_path


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "notes.txt").write_text("hello\n")
    return tmp_path


def test_inside_paths_resolve(root: Path) -> None:
    box = Sandbox([root])
    assert box.check(root / "docs" / "notes.txt") == (root / "docs" / "notes.txt").resolve()
    assert box.check("docs/notes.txt") == (root / "docs" / "notes.txt").resolve()   # relative to roots[0]
    assert box.check(root / "docs" / "not-yet-created.md", write=True).parent == (root / "docs").resolve()
    assert box.check(root) == root.resolve()


def test_sandbox_error_is_a_permission_error() -> None:
    assert issubclass(SandboxError, PermissionError)


@pytest.mark.parametrize("relative", ["../escape.txt", "docs/../../escape.txt", "docs/../../../../etc/hosts",
                                      "newdir/../../escape.txt"], ids=["dotdot", "nested-dotdot", "deep-dotdot",
                                                                       "dotdot-after-missing-dir"])
def test_dotdot_escapes_are_refused(root: Path, relative: str) -> None:
    with pytest.raises(SandboxError):
        Sandbox([root]).check(root / relative)


def test_absolute_path_outside_is_refused_with_a_one_line_fix(root: Path, outside_dir: Path) -> None:
    target = outside_dir / "secret_plans.txt"
    with pytest.raises(SandboxError) as err:
        Sandbox([root]).check(target)
    message = str(err.value)
    assert "\n" not in message
    assert str(target.resolve()) in message
    assert "--allowed-paths" in message


def test_symlinked_folder_pointing_out_is_refused(root: Path, outside_dir: Path) -> None:
    (root / "shortcut").symlink_to(outside_dir, target_is_directory=True)
    with pytest.raises(SandboxError):
        Sandbox([root]).check(root / "shortcut" / "secret_plans.txt")
    with pytest.raises(SandboxError):
        Sandbox([root]).check(root / "shortcut" / "new.txt", write=True)


def test_symlinked_file_pointing_out_is_refused(root: Path, outside_dir: Path) -> None:
    (root / "innocent.txt").symlink_to(outside_dir / "secret_plans.txt")
    with pytest.raises(SandboxError):
        Sandbox([root]).check(root / "innocent.txt")


def test_dangling_symlink_pointing_out_is_refused(root: Path, outside_dir: Path) -> None:
    (root / "later.txt").symlink_to(outside_dir / "does-not-exist-yet.txt")
    with pytest.raises(SandboxError):
        Sandbox([root]).check(root / "later.txt", write=True)


def test_symlink_within_the_root_is_fine(root: Path) -> None:
    (root / "alias.txt").symlink_to(root / "docs" / "notes.txt")
    assert Sandbox([root]).check(root / "alias.txt") == (root / "docs" / "notes.txt").resolve()


def test_symlinked_root_is_resolved_too(tmp_path: Path, root: Path, outside_dir: Path) -> None:
    link = outside_dir / "link-to-root"
    link.symlink_to(root, target_is_directory=True)
    box = Sandbox([link])
    assert box.check(root / "docs" / "notes.txt") == (root / "docs" / "notes.txt").resolve()


def test_tilde_expanding_outside_is_refused(root: Path, outside_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(outside_dir))
    with pytest.raises(SandboxError) as err:
        Sandbox([root]).check("~/secret_plans.txt")
    assert str(outside_dir.resolve()) in str(err.value)


def test_tilde_expanding_inside_is_allowed(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(root))
    assert Sandbox([root]).check("~/docs/notes.txt") == (root / "docs" / "notes.txt").resolve()


@pytest.mark.parametrize("target", ["/etc/hosts", "/etc/new.conf", "/usr/local/bin/tool", "/bin/sh", "/boot/x",
                                    "/var/lib/dpkg/status", "/lib/x.so", "/sys/kernel/x", "/proc/sys/x"],
                         ids=["etc-hosts", "etc-new", "usr-local", "bin", "boot", "var-lib", "lib", "sys", "proc"])
def test_system_folders_are_never_writable(target: str) -> None:
    box = Sandbox(["/"], confirm=lambda q: True)      # even with / as a root and a yes-man
    with pytest.raises(SandboxError) as err:
        box.check(target, write=True)
    assert "system folder" in str(err.value)


def test_system_folders_are_readable_when_inside_a_root() -> None:
    assert Sandbox(["/"]).check("/etc/hostname") == Path("/etc/hostname").resolve()


@pytest.mark.parametrize("target", ["/proc/self/environ", "/proc/1/cmdline", "/dev/sda", "/dev/mem"],
                         ids=["proc-environ", "proc-cmdline", "dev-disk", "dev-mem"])
def test_proc_and_dev_are_never_readable(target: str) -> None:
    with pytest.raises(SandboxError):
        Sandbox(["/"], confirm=lambda q: True).check(target)


CREDENTIALS = [".env", ".env.production", "prod.env", "id_rsa", "id_ed25519.pub", "server.pem", "tls.key",
               ".netrc", ".pgpass", "credentials.json", "credentials-prod.json", ".ssh/config",
               ".aws/credentials", ".gnupg/pubring.kbx", ".config/gcloud/application_default_credentials.json",
               ".git-credentials", "shadow", "login.keychain-db", ".kube/config"]


@pytest.mark.parametrize("name", CREDENTIALS)
@pytest.mark.parametrize("write", [False, True], ids=["read", "write"])
def test_credential_files_are_refused_even_inside_the_root(root: Path, name: str, write: bool) -> None:
    target = root / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("TOKEN=abc\n")
    with pytest.raises(SandboxError) as err:
        Sandbox([root], confirm=lambda q: True).check(target, write=write)
    assert "credential" in str(err.value)


def test_credential_behind_an_innocent_symlink_is_refused(root: Path) -> None:
    (root / ".ssh").mkdir()
    (root / ".ssh" / "id_rsa").write_text("-----BEGIN-----\n")
    (root / "notes.md").symlink_to(root / ".ssh" / "id_rsa")
    with pytest.raises(SandboxError):
        Sandbox([root]).check(root / "notes.md")


def test_env_templates_are_not_credentials(root: Path) -> None:
    (root / ".env.example").write_text("TOKEN=\n")
    assert Sandbox([root]).check(root / ".env.example").name == ".env.example"


def test_home_credentials_refused_via_tilde(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(root))     # home inside the root: still refused
    with pytest.raises(SandboxError):
        Sandbox([root]).check("~/.ssh/id_rsa")
    with pytest.raises(SandboxError):
        Sandbox([root]).check("~/.aws/config", write=True)


def test_confirm_approves_and_remembers_the_folder(root: Path, outside_dir: Path) -> None:
    asked: list[str] = []
    box = Sandbox([root], confirm=lambda q: asked.append(q) is None)
    first = box.check(outside_dir / "secret_plans.txt")
    assert first == (outside_dir / "secret_plans.txt").resolve()
    assert len(asked) == 1 and "Allow access to" in asked[0] and str(outside_dir.resolve()) in asked[0]
    box.check(outside_dir / "other.txt", write=True)        # same folder: no second question
    assert len(asked) == 1
    assert box.approved == (outside_dir.resolve(),)


def test_confirm_does_not_override_hard_refusals(root: Path, outside_dir: Path) -> None:
    asked: list[str] = []
    box = Sandbox([root], confirm=lambda q: asked.append(q) is None)
    (outside_dir / ".env").write_text("X=1\n")
    with pytest.raises(SandboxError):
        box.check(outside_dir / ".env")
    with pytest.raises(SandboxError):
        box.check("/etc/passwd", write=True)
    assert asked == []


def test_confirm_deny_refuses(root: Path, outside_dir: Path) -> None:
    box = Sandbox([root], confirm=lambda q: False)
    with pytest.raises(SandboxError) as err:
        box.check(outside_dir / "secret_plans.txt")
    assert "denied" in str(err.value)
    assert box.approved == ()


def test_confirm_eof_counts_as_deny(root: Path, outside_dir: Path) -> None:
    def hang_up(question: str) -> bool:
        raise EOFError

    with pytest.raises(SandboxError):
        Sandbox([root], confirm=hang_up).check(outside_dir / "secret_plans.txt")


def test_extra_roots_and_add_root(root: Path, outside_dir: Path) -> None:
    box = Sandbox([root, outside_dir])
    assert box.check(outside_dir / "secret_plans.txt").parent == outside_dir.resolve()
    other = Sandbox([root])
    other.add_root(outside_dir)
    assert other.check(outside_dir / "secret_plans.txt")


@pytest.mark.parametrize("bad", ["", "   ", "docs/\x00evil"], ids=["empty", "blank", "nul-byte"])
def test_invalid_paths_are_refused(root: Path, bad: str) -> None:
    with pytest.raises(SandboxError):
        Sandbox([root]).check(bad)


def test_sandbox_needs_a_root() -> None:
    with pytest.raises(ValueError):
        Sandbox([])


def test_resolve_user_path_joins_the_workdir(tool_ctx, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x")
    assert resolve_user_path(tool_ctx, "a.txt") == (tmp_path / "a.txt").resolve()
    with pytest.raises(SandboxError):
        resolve_user_path(tool_ctx, "../a.txt")
    with pytest.raises(SandboxError):
        resolve_user_path(tool_ctx, "")


def test_relative_paths_do_not_depend_on_the_process_cwd(root: Path, outside_dir: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(outside_dir)
    assert Sandbox([root]).check("docs/notes.txt") == (root / "docs" / "notes.txt").resolve()
    assert os.getcwd() == str(outside_dir)


def test_a_missing_read_path_is_repaired_to_the_one_file_of_that_name_in_the_workdir(tool_ctx, tmp_path: Path) -> None:
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / "q3.md").write_text("x")
    found = (tmp_path / "reports" / "q3.md").resolve()
    assert resolve_user_path(tool_ctx, "q3.md") == found  # a folder dropped
    assert resolve_user_path(tool_ctx, str(tmp_path / "q3.md")) == found  # the workdir copied, a folder dropped
    assert resolve_user_path(tool_ctx, str(tmp_path.parent / "q3.md")) == found  # the workdir's parent
    assert resolve_user_path(tool_ctx, "q3.md", write=True) == (tmp_path / "q3.md").resolve()  # never for a write
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "q3.md").write_text("y")
    assert resolve_user_path(tool_ctx, "q3.md") == (tmp_path / "q3.md").resolve()  # two candidates: left as given
    with pytest.raises(SandboxError):
        resolve_user_path(tool_ctx, "../elsewhere/q3.md")  # a relative path out of the workdir is not repaired


def test_a_missing_read_path_with_a_guessed_extension_finds_the_one_file_of_that_stem(tool_ctx, tmp_path: Path) -> None:
    (tmp_path / "hr").mkdir()
    (tmp_path / "hr" / "employee_handbook.md").write_text("x")
    found = (tmp_path / "hr" / "employee_handbook.md").resolve()
    assert resolve_user_path(tool_ctx, str(tmp_path / "employee_handbook.txt")) == found   # .txt guessed for .md
    (tmp_path / "employee_handbook.pdf").write_text("y")
    assert resolve_user_path(tool_ctx, "employee_handbook.txt") == (tmp_path / "employee_handbook.txt").resolve()
    (tmp_path / "hr" / "employee_handbook.txt").write_text("z")      # the exact name wins over its kin
    assert resolve_user_path(tool_ctx, "employee_handbook.txt") == (tmp_path / "hr" / "employee_handbook.txt").resolve()


def test_a_path_from_the_root_that_is_only_in_the_workdir_is_read_there(tool_ctx, tmp_path: Path,
                                                                        outside_dir: Path) -> None:
    # "how many files r in the invoices folder?": the 0.5B searched "/invoices/*" and was refused as outside
    (tmp_path / "invoices").mkdir()
    (tmp_path / "invoices" / "inv-1.txt").write_text("x")
    assert resolve_user_path(tool_ctx, "/invoices") == (tmp_path / "invoices").resolve()
    assert resolve_user_path(tool_ctx, "/invoices/inv-1.txt") == (tmp_path / "invoices" / "inv-1.txt").resolve()
    # a path that is there from the root is that path, and refused as before when it is outside
    (outside_dir / "real.txt").write_text("y")
    (tmp_path / outside_dir.relative_to(outside_dir.anchor)).mkdir(parents=True)
    with pytest.raises(SandboxError):
        resolve_user_path(tool_ctx, str(outside_dir))
    with pytest.raises(SandboxError):
        resolve_user_path(tool_ctx, "/no-such-folder-here")


@pytest.mark.parametrize("message", ["How many .log files are there under var/ in total?",
                                     "what's the biggest file anywhere under media?"])
def test_a_path_the_model_made_absolute_is_the_folder_the_user_named_here(tool_ctx, tmp_path: Path,
                                                                          message: str) -> None:
    # the 0.5B searched "/var/" and "/media/": the system has both, the user meant the working folder's
    name = "var" if "var/" in message else "media"
    (tmp_path / name).mkdir()
    tool_ctx.request.message = message
    assert resolve_user_path(tool_ctx, f"/{name}/") == (tmp_path / name).resolve()
    tool_ctx.request.message = f"how many .log files are in /{name}?"   # named from the root: that one, outside
    with pytest.raises(SandboxError):
        resolve_user_path(tool_ctx, f"/{name}/")
