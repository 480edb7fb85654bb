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
           "status.submoduleSummary=false", "core.untrackedCache=false",
           # a partial clone fetches missing objects on demand: no transport may be used at all
           "protocol.allow=never", "fetch.recurseSubmodules=false")
# The environment git runs with: no network (lazy fetch of a partial clone, or any transport)
# and none of the agent's own variables (API keys); the shell adds PATH, HOME and the locale.
_NO_NETWORK = {"GIT_NO_LAZY_FETCH": "1", "GIT_ALLOW_PROTOCOL": "", "GIT_PROTOCOL_FROM_USER": "0",
               "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "false", "SSH_ASKPASS": "false"}
_KEEP_ENV = ("PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ")
# Options that make git print more than the paths it was told to show.
_WIDENING = frozenset({"--full-diff"})
# Subcommands that print the content of the objects they are given.
_OBJECT_READERS = frozenset({"show", "diff", "log", "blame", "grep"})
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


def _git_env(env: dict[str, str]) -> dict[str, str]:
    """What git runs with when gaia-lite asks it something itself: no agent secrets, no network."""
    return {**{k: os.environ[k] for k in _KEEP_ENV if k in os.environ}, **_NO_NETWORK, **env}


def _config_overrides(env: dict[str, str]) -> list[str]:
    """``-c key=`` for every command-valued key the repository's config sets."""
    try:
        run = subprocess.run(["git", "config", "--includes", "--name-only", "--list"], env=_git_env(env),
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


def _revisions(args: list[str]) -> list[str]:
    """The revision arguments (before ``--``) that name objects without a path: ``abc123``,
    ``v1..v2``, ``^HEAD~2``. ``REV:path`` is left to ``_blob_secret``."""
    revs: list[str] = []
    for a in args:
        if a == "--":
            break
        if a.startswith("-") or ":" in a:
            continue
        for part in a.replace("...", "..").split(".."):
            part = part.lstrip("^")
            for suffix in ("^!", "^@"):
                part = part.removesuffix(suffix)
            if part:
                revs.append(part)
    return revs


def _blob_by_id(args: list[str], env: dict[str, str], cwd: Path) -> str | None:
    """A revision that is a blob (or a tag of one): its content would print with no path
    for the name rules to judge, e.g. a SHA found under .git/objects. Returns the argument."""
    revs = _revisions(args)
    if not revs:
        return None
    try:
        run = subprocess.run(["git", "cat-file", "--batch-check=%(objecttype)"], env=_git_env(env), cwd=cwd,
                             input="".join(f"{r}^{{}}\n" for r in revs).encode(), capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return revs[0]  # cannot tell: refuse rather than guess
    kinds = run.stdout.decode("utf-8", "replace").splitlines()
    return next((rev for rev, kind in zip(revs, kinds) if kind.strip() == "blob"), None)


def _no_index_paths(args: list[str], cwd: Path, sandbox: PathGuard) -> str | None:
    """``git diff --no-index A B`` reads A and B like ``cat`` does, and walks them if they are
    folders, where the policy's name checks never look: only files are compared."""
    paths = [a for a in args if not a.startswith("-")]
    for raw in paths:
        target = Path(os.path.expanduser(raw))
        target = target if target.is_absolute() else cwd / target
        try:
            resolved = sandbox.check(target)
        except SandboxError as exc:
            return str(exc)
        if resolved.is_dir():
            return (f"git diff --no-index compares two files; {raw} is a folder "
                    "(use diff -r, which leaves credential files out)")
    return None


def prepare_git(argv: list[str], cwd: Path, sandbox: PathGuard) -> tuple[list[str], dict[str, str]] | str:
    """(argv, extra environment) for a policy-checked git command, or why it is refused."""
    head, sub, args = _split(argv)
    secret = _blob_secret(args)
    if secret:
        return f"{secret} names a credential file; gaia-lite never reads those"
    widening = next((a for a in args if a in _WIDENING), None)
    if widening:
        return f"git {sub} {widening} shows files beyond the paths given, credential files included"
    root = _owning_root(cwd, sandbox)
    env = {"GIT_CEILING_DIRECTORIES": str(root.parent), "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_CONFIG_GLOBAL": os.devnull, "GIT_NO_REPLACE_OBJECTS": "1", **_NO_NETWORK}
    if sub == "diff" and "--no-index" in args:
        refusal = _no_index_paths(args, cwd, sandbox)
        if refusal:
            return refusal
        env["GIT_DIR"] = os.devnull  # compare two files; no repository is read
        return [*head, sub, *_TEXTCONV_FLAGS["diff"], *args], env
    repo = _find_repo(cwd, sandbox)
    if isinstance(repo, str):
        return repo
    gitdir, worktree = repo
    env.update(GIT_DIR=str(gitdir), GIT_WORK_TREE=str(worktree))
    if sub in _OBJECT_READERS:
        blob = _blob_by_id(args, env, cwd)
        if blob:
            return (f"{blob} is a file's content named by its object id, so its path cannot be checked; "
                    "name it as REV:path (e.g. HEAD:src/app.py)")
    overrides = _config_overrides(env)
    for setting in _ALWAYS:
        overrides += ["-c", setting]
    if sub in _PATHSPEC_SUBS:
        args = _with_exclusions(sub, args, cwd)
    return [*head, *overrides, sub, *_TEXTCONV_FLAGS.get(sub, []), *args], env
