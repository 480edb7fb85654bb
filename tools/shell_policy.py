"""The read-only policy for run_shell_command: what may run, and with which arguments.

Checks run in this order: text-level refusals (control characters, unicode
look-alikes of shell punctuation, ``; & > < ` $``), splitting on unquoted
``|``, then per-segment argv rules (allow-listed program, per-program
option rules, every path-like argument through the caller's check). It is
pure parsing with no side effects, so the same verdict can be given before
the user is asked to approve and again when the command runs.
"""

from __future__ import annotations

import fnmatch
import functools
import re
import shlex
import unicodedata
from typing import Callable

from gaia_lite.errors import GaiaError

from .sandbox import BROAD_SECRET_GLOBS, CODE_SUFFIXES, SECRET_DIR_NAMES, SECRET_FILE_GLOBS, STRICT_SECRET_GLOBS

__all__ = ["CommandRefused", "parse_command", "ALLOWED_PROGRAMS", "MAX_SEGMENTS"]

MAX_SEGMENTS = 5

ALLOWED_PROGRAMS = frozenset({
    "ls", "cat", "head", "tail", "grep", "egrep", "fgrep", "rg", "find", "wc", "sort", "uniq",
    "diff", "file", "stat", "du", "df", "whoami", "uname", "date", "ps", "lscpu", "free", "pwd",
    "echo", "which", "tree", "cut", "tr", "nl", "basename", "dirname", "realpath", "hostname",
    "uptime", "id", "git",
})
# Programs whose arguments are never file paths (so "/" in `tr / _` is not a path).
# Every other program's arguments and option values are path-checked (deny by default).
_NO_PATH_ARGS = frozenset({"echo", "tr", "which", "whoami", "uname", "id", "hostname",
                           "uptime", "pwd", "free", "ps", "basename", "dirname"})
_GIT_READ_ONLY = frozenset({"status", "log", "diff", "show", "branch", "ls-files", "rev-parse",
                            "blame", "grep"})
_GIT_BRANCH_FLAGS = frozenset({"-a", "-r", "-v", "-vv", "-l", "--list", "--all", "--remotes",
                               "--verbose", "--show-current", "--no-color", "--color"})
_HOSTNAME_FLAGS = frozenset({"-s", "-f", "-d", "-i", "-I", "-A", "-a", "--short", "--fqdn", "--long",
                             "--domain", "--ip-address", "--all-ip-addresses", "--all-fqdns", "--alias"})
# Per program: short letters and long names that make a walk follow symlinks.
_FOLLOW_OPTIONS = {
    "grep": ("R", ("dereference-recursive",)), "egrep": ("R", ("dereference-recursive",)),
    "fgrep": ("R", ("dereference-recursive",)), "rg": ("L", ("follow",)), "tree": ("l", ("follow",)),
    "find": ("LH", ()), "du": ("L", ("dereference",)), "ls": ("L", ("dereference",)),
}
_GLOB_PROGRAMS = frozenset({"grep", "egrep", "fgrep", "rg", "git", "diff", "find", "tree", "ls", "du"})
_FIND_ACTIONS = ("-exec", "-execdir", "-ok", "-okdir", "-delete", "-fls", "-fprint")
# ASCII sequences refused anywhere in the text, longest first for a precise message.
_FORBIDDEN_TEXT = (("&&", "'&&' (command chaining)"), ("||", "'||' (command chaining)"),
                   ("$(", "'$(' (command substitution)"), ("${", "'${' (variable expansion)"),
                   (";", "';' (command chaining)"), ("&", "'&' (background jobs)"),
                   (">", "'>' (output redirection)"), ("<", "'<' (input redirection)"),
                   ("`", "backticks (command substitution)"), ("$", "'$' (variable expansion)"))
# Visual look-alikes of | ; & > < $ ` that NFKC does not fold to ASCII.
_LOOKALIKES = frozenset("\u2223\u01c0\u2502\u2016\u23d0\u037e\u204f\u2039\u203a\u2035\u2032\u02cb\u02bc")


class CommandRefused(GaiaError, ValueError):
    """The command breaks the read-only policy; the message says why."""


# ---------------------------------------------------------------- text checks

def _check_text(command: str) -> None:
    for ch in command:
        if ch.isascii():
            if ord(ch) < 32 or ord(ch) == 127:
                raise CommandRefused(f"control character {ch!r} (newlines chain commands)")
            continue
        category = unicodedata.category(ch)
        label = f"U+{ord(ch):04X} {unicodedata.name(ch, '')}".strip()
        if category[0] in "CZ":
            raise CommandRefused(f"invisible or non-ASCII space character {label}")
        folded = unicodedata.normalize("NFKC", ch)
        if ch in _LOOKALIKES or any(c.isascii() and not c.isalnum() for c in folded):
            raise CommandRefused(f"look-alike punctuation {label}; type plain ASCII")
    for seq, why in _FORBIDDEN_TEXT:
        if seq in command:
            raise CommandRefused(f"{why} is not allowed")


def _split_pipes(command: str) -> list[str]:
    """Split on ``|`` outside quotes (a quoted ``'a|b'`` regex stays whole)."""
    segments: list[str] = []
    current: list[str] = []
    quote: str | None = None
    i = 0
    while i < len(command):
        ch = command[i]
        if ch == "\\" and quote != "'" and i + 1 < len(command):
            current.append(command[i:i + 2])
            i += 2
            continue
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "|":
            segments.append("".join(current))
            current = []
            i += 1
            continue
        current.append(ch)
        i += 1
    if quote:
        raise CommandRefused("unbalanced quotes")
    segments.append("".join(current))
    return segments


# ---------------------------------------------------------------- argv rules

def _long_name(arg: str) -> str:
    return arg[2:].split("=", 1)[0]


def _is_long_prefix(arg: str, *dangerous: str) -> bool:
    """GNU tools accept unambiguous prefixes: --out means --output."""
    name = _long_name(arg)
    return arg.startswith("--") and bool(name) and any(d.startswith(name) for d in dangerous)


def _short_cluster(arg: str) -> str:
    return arg[1:] if arg.startswith("-") and not arg.startswith("--") else ""


def _check_find(args: list[str]) -> None:
    for a in args:
        if a.startswith(_FIND_ACTIONS):
            raise CommandRefused(f"find {a} runs or writes something; only searching is allowed")
        if a == "-files0-from":
            raise CommandRefused("find -files0-from reads start points from a file; name the folders directly")


def _check_sort(args: list[str]) -> None:
    for a in args:
        if _is_long_prefix(a, "output", "compress-program", "temporary-directory", "files0-from"):
            raise CommandRefused(f"sort {a} writes files or runs programs")
        for ch in _short_cluster(a):
            if ch in "oT":
                raise CommandRefused(f"sort -{ch} writes files")
            if ch in "ktS":
                break  # the rest of the cluster is this option's value


def _check_uniq(args: list[str]) -> None:
    positional, skip_next, options_done = 0, False, False
    for a in args:
        if skip_next:
            skip_next = False
        elif options_done or a == "-" or not a.startswith("-"):
            positional += 1
        elif a == "--":
            options_done = True
        elif a.startswith("--"):
            skip_next = "=" not in a and _is_long_prefix(a, "skip-fields", "skip-chars", "check-chars")
        else:
            skip_next = a[-1] in "fsw" and a[1:].isalpha()
    if positional > 1:
        raise CommandRefused("uniq with an OUTPUT file argument writes a file")


def _check_date(args: list[str]) -> None:
    takes_value = {"-d", "--date", "-f", "--file", "-r", "--reference"}
    skip_next = False
    for a in args:
        if skip_next:
            skip_next = False
        elif _is_long_prefix(a, "set") or ("s" in _short_cluster(a) and a[1] not in "dfrI"):
            raise CommandRefused("date --set changes the system clock")
        elif a in takes_value:
            skip_next = True
        elif not a.startswith(("-", "+")):
            raise CommandRefused("date with a bare argument sets the clock; use +FORMAT or -d")


def _check_git(args: list[str]) -> list[str]:
    rest = list(args)
    while rest and rest[0] == "--no-pager":
        rest.pop(0)
    if not rest or rest[0].startswith("-"):
        raise CommandRefused("git needs a read-only subcommand first (global options are not allowed)")
    sub = rest[0]
    if sub not in _GIT_READ_ONLY:
        raise CommandRefused(f"git {sub} is not read-only; allowed: {', '.join(sorted(_GIT_READ_ONLY))}")
    for a in rest[1:]:
        if _is_long_prefix(a, "output", "ext-diff", "textconv", "open-files-in-pager", "exec") or a.startswith("-O"):
            raise CommandRefused(f"git {sub} {a} writes files or runs programs")
    if sub == "branch":
        listing = any(a in ("-l", "--list") for a in rest[1:])
        for a in rest[1:]:
            if a not in _GIT_BRANCH_FLAGS and (a.startswith("-") or not listing):
                raise CommandRefused(f"git branch {a} would change branches; only listing is allowed")
    safe = ["--no-pager", "-c", "core.fsmonitor=false", "-c", "core.pager=cat", sub]
    if sub in ("diff", "show", "log"):
        safe.append("--no-ext-diff")
    return safe + rest[1:]


# ps options whose value is the next argument: -p 42, --sort pid, and BSD clusters that end in
# one (axo pid,comm). Anything else without a dash is a BSD option cluster.
_PS_SHORT_VALUE = frozenset("pqugUGCstoOk")
_PS_LONG_VALUE = frozenset({"--pid", "--ppid", "--quick-pid", "--user", "--User", "--group", "--Group", "--sid",
                            "--tty", "--format", "--sort", "--cols", "--columns", "--rows", "--lines", "--width",
                            "--context", "--deselect"})
_PS_BSD_VALUE = frozenset("pqUtoOk")


def _is_bsd_e_flag(args: list[str], i: int) -> bool:
    """``ps axe`` or ``ps -p42 e``: a dashless cluster with ``e`` prints environments, unless
    it is the value of the option before it (``-o user,pid`` or ``-C chrome``)."""
    a = args[i]
    if a.startswith("-") or "e" not in a:
        return False
    prev = args[i - 1] if i > 0 else ""
    is_value = ((len(prev) == 2 and prev[0] == "-" and prev[1] in _PS_SHORT_VALUE) or prev in _PS_LONG_VALUE
                or (prev and not prev.startswith("-") and prev[-1] in _PS_BSD_VALUE
                    and not _is_bsd_e_flag(args, i - 1)))
    return not is_value


def _check_generic(prog: str, args: list[str]) -> None:
    """Rules for every program: no lists of file names read from a file (those names
    escape the path check), no following symlinks out of a recursive walk."""
    for a in args:
        if _is_long_prefix(a, "files0-from", "files-from", "fromfile"):
            raise CommandRefused(f"{prog} {a} reads file names from a file; name the files directly")
    follow = _FOLLOW_OPTIONS.get(prog)
    if follow is None:
        return
    letters, words = follow
    for a in args:
        cluster = _short_cluster(a)
        if (cluster and set(cluster) & set(letters)) or (a.startswith("--") and _is_long_prefix(a, *words)) \
                or (prog == "find" and a in ("-follow",)):
            raise CommandRefused(f"{prog} {a} follows symlinks, which can lead out of the allowed folders")


def _check_argv(argv: list[str]) -> list[str]:
    """Refuse or return the argv to execute (git gets safety options added)."""
    prog, args = argv[0], argv[1:]
    if "=" in prog:
        raise CommandRefused("environment assignments (VAR=value cmd) are not allowed")
    if "/" in prog or "\\" in prog:
        raise CommandRefused(f"give the program name only, not a path: {prog!r}")
    if prog not in ALLOWED_PROGRAMS:
        raise CommandRefused(f"{prog!r} is not an allowed read-only program; allowed: "
                             f"{', '.join(sorted(ALLOWED_PROGRAMS))}")
    _check_generic(prog, args)
    if prog == "find":
        _check_find(args)
    elif prog == "sort":
        _check_sort(args)
    elif prog == "uniq":
        _check_uniq(args)
    elif prog == "date":
        _check_date(args)
    elif prog == "git":
        return ["git", *_check_git(args)]
    elif prog == "tree" and any(set(_short_cluster(a)) & set("oRH") for a in args):
        raise CommandRefused("tree -o, -R and -H write files")
    elif prog == "file" and any("C" in _short_cluster(a) or _is_long_prefix(a, "compile") for a in args):
        raise CommandRefused("file -C writes a compiled magic file")
    elif prog == "file" and any("f" in _short_cluster(a) for a in args):
        raise CommandRefused("file -f reads file names from a file; name the files directly")
    elif prog == "ps" and any("env" in a or _is_bsd_e_flag(args, i) for i, a in enumerate(args)):
        raise CommandRefused("ps options that show other processes' environment are not allowed")
    elif prog == "hostname" and any(a not in _HOSTNAME_FLAGS for a in args):
        raise CommandRefused("hostname with arguments can rename the machine; use it bare or with -f/-s/-I")
    elif prog == "rg" and any(_is_long_prefix(a, "pre", "pre-glob") for a in args):
        raise CommandRefused("rg --pre runs a program on every file")
    return argv


def _is_delimiter(value: str) -> bool:
    """``cut -d/`` or ``sort -t:``: one punctuation character is a separator, not a path."""
    return len(value) == 1 and not value.isalnum() and value not in ".~"


def _path_candidates(args: list[str]) -> list[str]:
    """Arguments that may name files: positionals and every option value.

    Deny by default: any value attached to an option (``-fFILE``,
    ``--file=FILE``) is checked, since options that read a file (``date -f``,
    ``grep -f``, ``--exclude-from``) are too many to list. A value given as
    the next argument is checked as a positional. Relative values resolve
    inside the working folder, so flags and numbers pass.
    """
    found = []
    for a in args:
        if a in ("-", "--"):
            continue
        if a.startswith("--"):
            value = a.split("=", 1)[1] if "=" in a else ""
        elif a.startswith("-"):
            value = a[2:]
        else:
            value = a
        if value and not (a.startswith("-") and _is_delimiter(value)):
            found.append(value)
    return found


_GLOB_CHARS = frozenset("*?[")
# Names no credential rule matches: a pattern that matches one of them is a broad
# glob (``*``, ``*.txt``), not one aimed at credentials.
_PLAIN_NAMES = ("readme.txt", "main.py", "notes.md", "data.csv", "index.html", "a")


@functools.lru_cache(maxsize=1)
def _secret_samples() -> tuple[str, ...]:
    """One name per credential glob (``*token.*`` gives ``xtoken.x`` and ``token.``)."""
    names = set(SECRET_DIR_NAMES)
    for glob in SECRET_FILE_GLOBS:
        plain = re.sub(r"\[(.)[^]]*\]", r"\1", glob)  # a class stands for its first character
        names |= {plain.replace("*", "x"), plain.replace("*", "")}
    return tuple(sorted(names))


def _targets_secrets(pattern: str) -> bool:
    """A glob (``.en?``, ``*.pem``, ``id_*``) that singles out credential file names."""
    if not set(pattern) & _GLOB_CHARS:
        return False
    name = pattern.rstrip("/").rsplit("/", 1)[-1].lower().lstrip("!")
    if not name or any(fnmatch.fnmatchcase(plain, name) for plain in _PLAIN_NAMES):
        return False
    return any(fnmatch.fnmatchcase(sample, name) for sample in _secret_samples())


def _check_globs(prog: str, args: list[str]) -> None:
    """Programs that expand patterns themselves must not be aimed at credential files."""
    if prog not in _GLOB_PROGRAMS:
        return
    for value in _path_candidates(args):
        if _targets_secrets(value):
            raise CommandRefused(f"the pattern {value!r} matches credential file names; "
                                 "gaia-lite never reads those")


def _insert_before_dashdash(args: list[str], extra: list[str]) -> list[str]:
    """Options appended last (so they win over the user's), but before a ``--``."""
    if "--" in args:
        i = args.index("--")
        return [*args[:i], *extra, *args[i:]]
    return [*args, *extra]


def _hide_secrets(argv: list[str]) -> list[str]:
    """Recursive readers skip credential files. The exclusions come after the
    user's own patterns: grep and rg let the last matching pattern win, so an
    ``--include=.en?`` cannot undo them."""
    prog, args = argv[0], argv[1:]
    if prog == "rg":
        globs = [f"--glob=!{g}" for g in (*SECRET_FILE_GLOBS, *SECRET_DIR_NAMES)]
        return [prog, *_insert_before_dashdash(args, globs)]
    recursive = any(a in ("--recursive", "--dereference-recursive") or
                    ("r" in _short_cluster(a) or "R" in _short_cluster(a)) for a in args)
    if prog in ("grep", "egrep", "fgrep") and recursive and not any(_is_long_prefix(a, "include", "exclude")
                                                                   for a in args):
        # grep lets the last matching --include/--exclude win: source files named like secrets
        # (token.py, secrets.py) are searched again, then the strict names are excluded for good.
        excludes = [f"--exclude={g}" for g in BROAD_SECRET_GLOBS]
        excludes += [f"--include=*{suffix}" for suffix in sorted(CODE_SUFFIXES)]
        excludes += [f"--exclude={g}" for g in STRICT_SECRET_GLOBS]
        excludes += [f"--exclude-dir={d}" for d in SECRET_DIR_NAMES]
        return [prog, *_insert_before_dashdash(args, excludes)]
    if prog in ("grep", "egrep", "fgrep", "diff") and recursive:
        excludes = [f"--exclude={g}" for g in SECRET_FILE_GLOBS]
        if prog == "diff":  # diff -r follows symlinks unless told not to
            excludes += [f"--exclude={d}" for d in SECRET_DIR_NAMES] + ["--no-dereference"]
        else:
            excludes += [f"--exclude-dir={d}" for d in SECRET_DIR_NAMES]
        return [prog, *_insert_before_dashdash(args, excludes)]
    return argv


# Programs whose arguments are patterns they match themselves (find -name *.log, git ls-files *.py,
# rg -g *.md, tree -P *.py) or never paths (_NO_PATH_ARGS): a shell would expand them too, and break them.
_NO_EXPANSION = _NO_PATH_ARGS | {"find", "git", "rg", "tree"}


def _unquoted_globs(segment: str) -> list[bool]:
    """For each word of ``segment`` (as shlex.split gives them): whether it is a glob a shell would expand,
    i.e. it holds ``*``, ``?`` or ``[`` and no quote or backslash at all (a quoted pattern is meant
    literally, and a word mixing quoted and bare parts is left alone rather than half expanded)."""
    flags: list[bool] = []
    quote: str | None = None
    in_word = glob = quoted = False
    i = 0
    while i < len(segment):
        ch = segment[i]
        if quote:
            if ch == "\\" and quote == '"':
                i += 1
            elif ch == quote:
                quote = None
        elif ch == "\\":
            in_word = quoted = True
            i += 1
        elif ch in "'\"":
            quote, in_word, quoted = ch, True, True
        elif ch.isspace():
            if in_word:
                flags.append(glob and not quoted)
            in_word = glob = quoted = False
        else:
            in_word = True
            glob = glob or ch in _GLOB_CHARS
        i += 1
    if in_word:
        flags.append(glob and not quoted)
    return flags


def _expanded(segment: str, argv: list[str], expand: Callable[[str], list[str]] | None) -> list[str]:
    """``argv`` with each bare glob replaced by the names ``expand`` gives for it (none: the glob stays as
    written, as in a shell without nullglob)."""
    if expand is None or argv[0] in _NO_EXPANSION:
        return argv
    flags = _unquoted_globs(segment)
    if len(flags) != len(argv) or not any(flags[1:]):
        return argv
    out = [argv[0]]
    for arg, is_glob in zip(argv[1:], flags[1:]):
        out += (expand(arg) or [arg]) if is_glob and not arg.startswith("-") else [arg]
    return out


def parse_command(command: str, check_path: Callable[[str], None] | None = None,
                  expand: Callable[[str], list[str]] | None = None) -> list[list[str]]:
    """Validate a command line and return the argv of each pipeline segment.

    ``check_path(arg)`` is called for every path-like argument and should
    raise SandboxError to refuse it. ``expand(pattern)`` gives the file names a
    bare glob (``*.log``) stands for, as a shell would; every rule below then
    judges the expanded argv. Raises CommandRefused otherwise.
    """
    if not isinstance(command, str) or not command.strip():
        raise CommandRefused("empty command")
    if len(command) > 2000:
        raise CommandRefused("command is longer than 2000 characters")
    _check_text(command)
    segments = _split_pipes(command)
    if len(segments) > MAX_SEGMENTS:
        raise CommandRefused(f"at most {MAX_SEGMENTS} pipeline segments are allowed")
    pipeline = []
    for segment in segments:
        try:
            argv = shlex.split(segment, comments=False, posix=True)
        except ValueError as exc:
            raise CommandRefused(f"cannot parse {segment.strip()!r}: {exc}") from None
        if not argv:
            raise CommandRefused("empty pipeline segment (a stray '|')")
        _check_globs(argv[0], argv[1:])  # the patterns as written, before they name files
        argv = _expanded(segment, argv, expand)
        safe = _check_argv(argv)
        if check_path is not None and argv[0] not in _NO_PATH_ARGS:
            for cand in _path_candidates(argv[1:]):
                check_path(cand)
        pipeline.append(_hide_secrets(safe))
    return pipeline
