"""The path sandbox every path-taking tool goes through.

``Sandbox.check(path, write=...)`` expands ``~``, resolves ``..`` and
symlinks on the *full* path first, and only then decides. The order of the
rules is the point:

1. credential files and folders are refused, for reading and writing, even
   inside an allowed root or an approved folder;
2. ``/proc`` and ``/dev`` are refused for reading, and system folders
   (``/etc``, ``/usr``, ``C:\\Windows`` ...) for writing, wherever the roots are;
3. a path inside a root (the working directory plus ``--allowed-paths``) or
   inside a folder the user approved this session is allowed;
4. anything else is refused, unless a ``confirm`` callback (an interactive
   terminal) says yes; the approval then covers that folder for the session.

Refusals raise ``SandboxError`` (a ``PermissionError``) whose message is one
line naming the path and how to allow it.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence

from gaia_lite.errors import GaiaError

if TYPE_CHECKING:
    from gaia_lite.registry.context import ToolContext

__all__ = ["Sandbox", "SandboxError", "SecretPathError", "resolve_user_path", "resolved_or_none", "is_secret_path",
           "secret_name_rule", "SECRET_FILE_GLOBS", "STRICT_SECRET_GLOBS", "BROAD_SECRET_GLOBS", "CODE_SUFFIXES",
           "SECRET_DIR_NAMES"]


class SandboxError(GaiaError, PermissionError):
    """A path was refused; ``str(err)`` is a one-line reason and a fix."""

    exit_code = 2  # the path the user (or the model) gave is outside what may be read


class SecretPathError(SandboxError):
    """Refused because the path's name is a credential's (not because of where it is)."""


# File names (lower-cased) that hold secrets, matched with fnmatch.
STRICT_SECRET_GLOBS = (
    "id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*", "*.pem", "*.key", "*.p12", "*.pfx",
    "*.jks", "*.keystore", "*.kdbx", "*.keychain", "*.keychain-db", "*.gpg",
    ".netrc", "_netrc", ".pgpass", ".git-credentials", ".npmrc", ".pypirc", ".htpasswd",
    ".env", ".env.*", "*.env", ".envrc", "*.envrc", "credentials", "credentials*.json", "client_secret*.json",
    "service-account*.json", "*service[-_]account*.json", "*serviceaccount*.json", ".vault-token",
    ".boto", ".s3cfg", ".dockercfg", ".my.cnf", ".git-credential*",
    "shadow", "shadow-", "gshadow", "gshadow-", "master.passwd", "sudoers", "known_hosts", "authorized_keys",
)
# Names that usually hold a secret (``secrets.yaml``, ``token.txt``, ``aws-credentials``), except
# in source code and docs (``secrets.py`` is Python's module, ``token_utils.js`` code): those are
# read, and the content check (gaia_lite/registry/redact.py) still stands behind them.
BROAD_SECRET_GLOBS = (
    "*secret", "*secret.*", "*secrets", "*secrets.*",
    "*token", "*token.*", "*token[-_]*", "*tokens", "*tokens.*", "*tokens[-_]*",
    "*credentials", "*credentials.*", "*credentials[-_]*", "*password", "*passwords", "*password.*",
    "*passwords.*",
)
SECRET_FILE_GLOBS = STRICT_SECRET_GLOBS + BROAD_SECRET_GLOBS
CODE_SUFFIXES = frozenset({
    ".py", ".pyi", ".ipynb", ".js", ".mjs", ".cjs", ".ts", ".tsx", ".jsx", ".vue", ".svelte", ".go", ".rs",
    ".java", ".kt", ".scala", ".c", ".h", ".cc", ".cpp", ".hpp", ".cs", ".m", ".swift", ".rb", ".php", ".pl",
    ".lua", ".r", ".jl", ".hs", ".ml", ".ex", ".exs", ".erl", ".clj", ".dart", ".zig", ".css", ".scss",
    ".html", ".md", ".rst", ".adoc", ".tex", ".pdf", ".docx", ".odt",
})
# .env-style templates are documentation, not secrets; a tokenizer's map of special tokens is model data.
_SECRET_NAME_EXCEPTIONS = (".env.example", ".env.sample", ".env.template", ".env.dist", "special_tokens_map.json")
# Folder names (lower-cased) anywhere in a path whose contents are credentials.
SECRET_DIR_NAMES = frozenset({
    ".ssh", ".aws", ".gnupg", ".azure", ".kube", ".docker", ".password-store",
    "keychains", "keyrings", ".vault-token", "secrets", ".secrets",
})
# Two-part folder suffixes (lower-cased) whose contents are credentials.
_SECRET_DIR_PAIRS = frozenset({(".config", "gcloud"), (".config", "gh")})

_POSIX_SYSTEM = ("/etc", "/bin", "/sbin", "/usr", "/boot", "/dev", "/proc", "/sys", "/var/lib",
                 "/lib", "/lib32", "/lib64", "/libx32", "/System", "/Library", "/private/etc",
                 "/private/var/db")
_READ_BLOCKED = ("/proc", "/dev")
# Linux's limits (PATH_MAX, NAME_MAX); longer paths cannot name a file anywhere.
_PATH_MAX, _NAME_MAX = 4096, 255


def _windows_system_dirs() -> tuple[str, ...]:
    root = os.environ.get("SystemRoot", r"C:\Windows")
    names = [root, os.environ.get("ProgramFiles", r"C:\Program Files"),
             os.environ.get("ProgramFiles(x86)", r"C:\Program Files (x86)"),
             os.environ.get("ProgramData", r"C:\ProgramData")]
    return tuple(names)


def _resolve(path: str | Path, base: Path) -> Path:
    raw = os.fspath(path)
    _refuse_nul(raw)
    if not raw.strip():
        raise SandboxError("empty path: give a file or folder path")
    p = Path(os.path.expanduser(raw.strip()))
    if not p.is_absolute():
        p = base / p
    if len(str(p)) > _PATH_MAX or any(len(part) > _NAME_MAX for part in p.parts):
        raise SandboxError(f"path {_short(raw)} is too long ({len(raw)} characters); give a real path")
    # strict=False resolves every existing prefix (symlinks included) and
    # folds ``..`` in the rest, so non-existent files are judged by their parents.
    try:
        return p.resolve(strict=False)
    except RuntimeError:  # Python < 3.13 reports a symlink loop this way
        raise SandboxError(f"{_short(raw)} is part of a symlink loop; give a real path") from None
    except OSError as exc:
        raise SandboxError(f"invalid path {_short(raw)}: {exc.strerror or exc}") from None


def _refuse_nul(raw: str) -> None:
    # Checked before any os call: the OS cannot take such a path and Python says
    # "ValueError: embedded null byte", which reads like a crash to the model.
    if "\x00" in raw:
        raise SandboxError(f"invalid path {_short(raw)}: it contains a NUL byte; give the path without it")


def _short(raw: str) -> str:
    return repr(raw if len(raw) <= 120 else raw[:100] + "...")


def is_secret_path(path: Path) -> bool:
    """True for a credential file or folder (by name), or anything inside one."""
    parts = [part.lower() for part in path.parts]
    if _secret_name(parts[-1] if parts else ""):
        return True
    if any(part in SECRET_DIR_NAMES for part in parts):
        return True
    joined = "/".join(parts)
    return any(f"{a}/{b}/" in joined + "/" for a, b in _SECRET_DIR_PAIRS)


def _secret_name(name: str) -> bool:
    return secret_name_rule(name) is not None


@functools.lru_cache(maxsize=8192)
def secret_name_rule(name: str) -> str | None:
    """'strict' for a credential file's name (``.env``, ``id_rsa``), 'broad' for a name that
    usually holds one (``token.txt``, ``secrets.yaml``), None otherwise. Cached: the kernel
    sandbox's walk asks about every name in the roots on each command, and names repeat."""
    name = name.lower()
    if name in _SECRET_NAME_EXCEPTIONS:
        return None
    if _STRICT_RE.match(name):
        return "strict"
    if _BROAD_RE.match(name) and os.path.splitext(name)[1] not in CODE_SUFFIXES:
        return "broad"
    return None


def _one_pattern(globs: Sequence[str]) -> "re.Pattern[str]":
    return re.compile("|".join(f"(?:{fnmatch.translate(g)})" for g in globs))


_STRICT_RE, _BROAD_RE = _one_pattern(STRICT_SECRET_GLOBS), _one_pattern(BROAD_SECRET_GLOBS)


class Sandbox:
    """PathGuard over a set of root folders.

    ``roots[0]`` is the working directory: relative paths resolve against it.
    ``confirm(question) -> bool`` is the interactive fallback for paths
    outside the roots; without it such paths are refused.
    """

    def __init__(self, roots: Sequence[str | Path], *,
                 confirm: Callable[[str], bool] | None = None) -> None:
        if not roots:
            raise ValueError("Sandbox needs at least one root (the working directory)")
        self.roots: list[Path] = []
        for r in roots:
            self.add_root(r)
        self._confirm = confirm
        self._approved: list[Path] = []
        self._system = _windows_system_dirs() if sys.platform == "win32" else _POSIX_SYSTEM

    def add_root(self, path: str | Path) -> Path:
        """Allow a folder (and everything below it) for the rest of the session."""
        resolved = Path(os.path.expanduser(os.fspath(path))).resolve(strict=False)
        if resolved not in self.roots:
            self.roots.append(resolved)
        return resolved

    @property
    def approved(self) -> tuple[Path, ...]:
        """Folders the user approved interactively this session."""
        return tuple(self._approved)

    def check(self, path: str | Path, *, write: bool = False) -> Path:
        """Return the resolved path if access is allowed, else raise SandboxError."""
        base = self.roots[0]
        resolved = _resolve(path, base)
        shown = os.fspath(path)
        if is_secret_path(resolved) or is_secret_path(Path(os.path.expanduser(shown))):
            raise SecretPathError(f"{resolved} looks like a credential file or folder; "
                               "gaia-lite never reads or writes those")
        if not write and any(resolved.is_relative_to(self._canon(d)) for d in _READ_BLOCKED):
            raise SandboxError(f"{resolved} is a device or kernel file; reading it is not allowed")
        if write and any(resolved.is_relative_to(self._canon(d)) for d in self._system):
            raise SandboxError(f"{resolved} is in a system folder; writing there is never allowed")
        if any(resolved.is_relative_to(r) for r in (*self.roots, *self._approved)):
            return resolved
        folder = resolved if resolved.is_dir() else resolved.parent
        allowed = ", ".join(str(r) for r in self.roots)
        if self._confirm is not None:
            try:
                yes = bool(self._confirm(f"Allow access to {resolved} (outside {allowed})?"))
            except (EOFError, OSError):
                yes = False
            if yes:
                self._approved.append(folder)
                return resolved
            raise SandboxError(f"access to {resolved} was denied by the user")
        raise SandboxError(f"access denied: {resolved} is outside the allowed folders ({allowed}); "
                           f"restart with --allowed-paths {folder} to allow it")

    @staticmethod
    def _canon(folder: str) -> Path:
        # /etc may itself be a symlink (macOS: /private/etc); compare resolved forms.
        return Path(folder).resolve(strict=False)

    def __repr__(self) -> str:
        return f"Sandbox(roots={[str(r) for r in self.roots]!r}, approved={len(self._approved)})"


def resolve_user_path(ctx: "ToolContext", raw: str, *, write: bool = False, repair: bool | None = None) -> Path:
    """Join a model-given path with ``ctx.workdir`` and check it with ``ctx.sandbox``.

    A path to read that does not exist but names a file found exactly once in the working
    directory is read from there (see ``_repair``); ``repair=True`` does the same for a write that
    changes an existing file (an edit). Works with any PathGuard; raises SandboxError with a one-line
    reason.
    """
    if not isinstance(raw, str) or not raw.strip():
        raise SandboxError("empty path: give a file or folder path")
    _refuse_nul(raw)
    given = Path(os.path.expanduser(raw.strip()))
    p = given if given.is_absolute() else Path(ctx.workdir) / given
    inside = Path(ctx.workdir) / given.relative_to(given.anchor) if given.is_absolute() else None
    if inside is not None and _exists(inside) and (not _exists(given) or _relative_in_message(ctx, raw)):
        # "/invoices/*" for the working folder's invoices (0.5B): no such folder at the root, one here. And
        # "/var/" for "how many .log files under var/?": the system's /var exists, but the user named the one here
        p = inside
    if (not write) if repair is None else repair:  # an edit of an existing file may be repaired too
        # an extension the user wrote is no guess: "i think its .properties" is not config.yml (probe53)
        said = bool(p.suffix) and re.search(rf"(?<![\w/]){re.escape(p.suffix)}\b", ctx.request.message, re.IGNORECASE)
        p = _repair(p, Path(ctx.workdir), absolute=given.is_absolute(), other_ext=not said)
    return ctx.sandbox.check(p, write=write)


def _relative_in_message(ctx: "ToolContext", raw: str) -> bool:
    """Whether the user's message names the absolute path ``raw`` only without its leading slash ("var/" for
    "/var/"): the model made it absolute. A message that names it as written keeps it as written."""
    message = ctx.request.message
    path = raw.strip().rstrip("/\\")
    relative = path.lstrip("/\\")
    if not message or not relative or path in message:
        return False
    return re.search(rf"(?<![\w/.-]){re.escape(relative)}(?![\w-])", message) is not None


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except OSError:  # a name too long, or a folder it may not look in
        return False


_REPAIR_SCAN = 2000  # entries looked at, at most, when a missing file is looked for


def resolved_or_none(ctx: "ToolContext", raw: str) -> Path | None:
    """``raw`` resolved for a read as ``resolve_user_path`` does, or None where the sandbox refuses it: for the
    checks that only ask whether a path is a file or a folder here, and leave the refusal to the tool."""
    try:
        return resolve_user_path(ctx, raw)
    except SandboxError:
        return None


def _repair(path: Path, workdir: Path, *, absolute: bool, other_ext: bool = True) -> Path:
    """``path``, or the one file of the same name in ``workdir`` when ``path`` does not exist.

    Small models copy the working directory into a path and drop or add a folder on the way
    (``<workdir>/acme_q3_report.md`` for ``<workdir>/reports/acme_q3_report.md``, or the
    workdir's parent for the workdir). Only a path inside the working directory, or an absolute
    one next to it, is repaired, only when exactly one file there has its name, and never for a
    write; anything else is left for the sandbox and the tool to refuse as before. With no file of that
    name, the one file whose name differs only by its extension is taken (the model guessed ``.txt``), unless
    ``other_ext`` is False (the user wrote that extension)."""
    try:
        if path.exists():
            return path
        root = workdir.resolve()
        target = path.resolve(strict=False)
    except (OSError, RuntimeError):
        return path
    if not (target.is_relative_to(root) or (absolute and target.is_relative_to(root.parent))):
        return path
    found: list[Path] = []
    kin: list[Path] = []  # same name but another extension: "employee_handbook.txt" for the .md the folder has
    stem = path.stem.lower()
    seen = 0
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]  # .git, .venv: not where a user's file is
        seen += len(dirs) + len(files)
        if path.name in files:
            found.append(Path(folder) / path.name)
        kin += [Path(folder) / f for f in files if Path(f).stem.lower() == stem and f != path.name]
        if len(found) > 1 or seen > _REPAIR_SCAN:  # ambiguous, or a folder too big to search on each call
            return path
    if len(found) == 1:
        return found[0]
    return kin[0] if not found and len(kin) == 1 and stem and other_ext else path
