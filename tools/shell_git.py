"""git inside the shell tool: a cloned repository is untrusted input.

``prepare_git`` runs after the argv policy has accepted a read-only git
subcommand. It

* finds the repository itself, looking from the working folder up to the
  sandbox root that holds it and never above (``GIT_DIR``/``GIT_WORK_TREE``
  are then set, so git does no discovery of its own); a ``.git`` file, a
  ``commondir`` or an object ``alternates`` list pointing outside the roots
  is refused;
* turns off every command the repository's own config could make git run
  (clean/smudge/process filters, diff textconv and external diff drivers,
  fsmonitor, pager, gpg), by overriding each such key on the command line;
* keeps credential files out of output: ``REV:path`` naming one is refused,
  and subcommands that take pathspecs get exclusions for them.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from gaia_lite.registry.context import PathGuard

from .sandbox import SECRET_DIR_NAMES, SECRET_FILE_GLOBS, SandboxError, is_secret_path

__all__ = ["prepare_git"]

# Set on every run: keys that make git start a program, or recurse into submodules
# (whose own config would not be vetted).
_ALWAYS = ("core.fsmonitor=false", "core.pager=cat", "core.hooksPath=/dev/null", "diff.external=",
           "log.showSignature=false", "gpg.program=false", "gpg.ssh.program=false", "gpg.x509.program=false",
           "core.sshCommand=false", "submodule.recurse=false", "diff.ignoreSubmodules=all",
           "status.submoduleSummary=false", "core.untrackedCache=false")
# name suffixes (per driver) whose value is a command
_COMMAND_KEYS = {"filter": ("clean", "smudge", "process"), "merge": ("driver",)}
_TEXTCONV_FLAGS = {"diff": ["--no-ext-diff", "--no-textconv"], "show": ["--no-ext-diff", "--no-textconv"],
                   "log": ["--no-ext-diff", "--no-textconv"], "blame": ["--no-textconv"]}
_PATHSPEC_SUBS = frozenset({"status", "log", "diff", "show", "ls-files", "grep"})
_PREFIX_OPTS = frozenset({"--no-pager", "-c"})


def _split(argv: list[str]) -> tuple[list[str], str, list[str]]:
    """(git + global options, subcommand, its arguments)."""
    i = 1
    while i < len(argv) and argv[i] in _PREFIX_OPTS:
        i += 2 if argv[i] == "-c" else 1
    return argv[:i], argv[i], argv[i + 1:]


def _owning_root(cwd: Path, sandbox: PathGuard) -> Path:
    folders = [*sandbox.roots, *sandbox.approved]
    owners = [Path(f) for f in folders if cwd == Path(f) or Path(f) in cwd.parents]
    return min(owners, key=lambda p: len(p.parts)) if owners else cwd


def _linked(path: Path, base: Path, sandbox: PathGuard) -> Path:
    """A path a repository file names (gitdir:, commondir, alternates), sandbox-checked."""
    target = Path(os.path.expanduser(path)) if Path(path).is_absolute() else base / path
    return sandbox.check(target)


def _find_repo(cwd: Path, sandbox: PathGuard) -> tuple[Path, Path] | str:
    """(git dir, work tree) of the repository holding cwd, found at or below the root."""
    root = _owning_root(cwd, sandbox)
    folder = cwd
    while True:
        dotgit = folder / ".git"
        if dotgit.exists() or dotgit.is_symlink():
            break
        if folder == root or folder.parent == folder:
            return (f"{cwd} is not inside a git repository within the allowed folders "
                    f"(git does not look above {root})")
        folder = folder.parent
    try:
        if dotgit.is_symlink() or dotgit.is_file():
            text = dotgit.read_text(encoding="utf-8", errors="replace").strip() if dotgit.is_file() else ""
            if not text.startswith("gitdir:"):
                return f"{dotgit} is not a usable repository link"
            gitdir = _linked(Path(text[len("gitdir:"):].strip()), folder, sandbox)
        else:
            gitdir = dotgit
        common = gitdir / "commondir"
        if common.is_file():
            common_dir = _linked(Path(common.read_text(encoding="utf-8", errors="replace").strip()), gitdir, sandbox)
        else:
            common_dir = gitdir
        alternates = common_dir / "objects" / "info" / "alternates"
        if alternates.is_file():
            for line in alternates.read_text(encoding="utf-8", errors="replace").splitlines():
                if line.strip() and not line.startswith("#"):
                    _linked(Path(line.strip()), common_dir / "objects", sandbox)
    except SandboxError as exc:
        return f"the repository links outside the allowed folders: {exc}"
    except OSError as exc:
        return f"cannot read the repository at {folder}: {exc.strerror or exc}"
    return gitdir, folder


def _config_overrides(env: dict[str, str]) -> list[str]:
    """``-c key=`` for every command-valued key the repository's config sets."""
    try:
        run = subprocess.run(["git", "config", "--includes", "--name-only", "--list"], env=env,
                             capture_output=True, timeout=10, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return []
    out: list[str] = []
    for name in run.stdout.decode("utf-8", "replace").splitlines():
        section, _, rest = name.partition(".")
        driver, _, key = rest.rpartition(".")
        if driver and key in _COMMAND_KEYS.get(section.lower(), ()):
            out += ["-c", f"{section}.{driver}.{key}="]
    return out


def _secret_pathspecs() -> list[str]:
    specs = [f":(exclude,icase,glob)**/{g}" for g in SECRET_FILE_GLOBS]
    return specs + [f":(exclude,icase,glob)**/{d}/**" for d in sorted(SECRET_DIR_NAMES)]


def _with_exclusions(sub: str, args: list[str], cwd: Path) -> list[str]:
    """Append pathspecs that keep credential files out, after a ``--``."""
    if "--" in args:
        return [*args, *_secret_pathspecs()]
    pattern_pending = sub == "grep" and not any(a in ("-e", "-f") or a.startswith(("-e", "-f")) for a in args)
    for i, a in enumerate(args):
        if a.startswith("-"):
            continue
        if pattern_pending:
            pattern_pending = False
            continue
        if (cwd / a).exists():  # the first path: everything from here on is a pathspec
            return [*args[:i], "--", *args[i:], *_secret_pathspecs()]
    return [*args, "--", *_secret_pathspecs()]


def _blob_secret(args: list[str]) -> str | None:
    """``HEAD:.env`` or ``:0:id_rsa`` names a credential file's content."""
    for a in args:
        if ":" in a and not a.startswith("-"):
            path = a.rsplit(":", 1)[1]
            if path and is_secret_path(Path("/") / path.lstrip("/")):
                return a
    return None


def prepare_git(argv: list[str], cwd: Path, sandbox: PathGuard) -> tuple[list[str], dict[str, str]] | str:
    """(argv, extra environment) for a policy-checked git command, or why it is refused."""
    head, sub, args = _split(argv)
    secret = _blob_secret(args)
    if secret:
        return f"{secret} names a credential file; gaia-lite never reads those"
    root = _owning_root(cwd, sandbox)
    env = {"GIT_CEILING_DIRECTORIES": str(root.parent), "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_CONFIG_GLOBAL": os.devnull, "GIT_NO_REPLACE_OBJECTS": "1"}
    if sub == "diff" and "--no-index" in args:
        env["GIT_DIR"] = os.devnull  # compare two files; no repository is read
        return [*head, sub, *_TEXTCONV_FLAGS["diff"], *args], env
    repo = _find_repo(cwd, sandbox)
    if isinstance(repo, str):
        return repo
    gitdir, worktree = repo
    env.update(GIT_DIR=str(gitdir), GIT_WORK_TREE=str(worktree))
    overrides = _config_overrides({**os.environ, **env})
    for setting in _ALWAYS:
        overrides += ["-c", setting]
    if sub in _PATHSPEC_SUBS:
        args = _with_exclusions(sub, args, cwd)
    return [*head, *overrides, sub, *_TEXTCONV_FLAGS.get(sub, []), *args], env
