"""Why a file is not indexed: the checks ``gaia-lite index`` and the document tools make, in one place.

In order, so nothing is read that should not be: what is not a regular file
(a FIFO, a device, a socket, a symlink loop or broken link, a symlink to a
folder, a name that is not valid UTF-8) is never opened; then credential files,
files outside the allowed folders, unsupported types, files over the
extractor's size limit, and text-type files with NUL bytes at the start.
The CLI's indexing run and the agent's document tools share these, so a file
the one refuses the other refuses too.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from gaia_lite.memory.extract import (BAD_NAME, BINARY_SNIFF_BYTES, MAX_FILE_BYTES, has_utf8_name, is_supported,
                                     looks_binary, shown)

from .sandbox import Sandbox, SandboxError, is_secret_path

__all__ = ["skip_reason", "entry_reason", "kind_reason", "shown", "SECRET", "OUTSIDE", "UNSUPPORTED", "TOO_BIG",
           "BINARY", "LOOP", "BROKEN_LINK", "LINKED_FOLDER", "BAD_NAME"]

SECRET, OUTSIDE, UNSUPPORTED, TOO_BIG, BINARY = ("secret", "outside the allowed folders", "unsupported type",
                                                 "too big", "binary")
LOOP, BROKEN_LINK, LINKED_FOLDER = ("symlink loop", "broken symlink", "symlink to a folder (not followed)")
_NOT_REGULAR = ((stat.S_ISFIFO, "FIFO (not a regular file)"), (stat.S_ISCHR, "device (not a regular file)"),
                (stat.S_ISBLK, "device (not a regular file)"), (stat.S_ISSOCK, "socket (not a regular file)"))


def kind_reason(mode: int) -> str | None:
    """Why a file of this mode is not indexed, or None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    return next((why for test, why in _NOT_REGULAR if test(mode)), "not a regular file")


def entry_reason(path: Path) -> str | None:
    """Why the walk does not take ``path`` any further (None: a regular file to check, or a folder)."""
    if not has_utf8_name(path):
        return BAD_NAME
    try:
        st = path.stat()  # follows a link: a loop or a dangling link fails here, without opening anything
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return LOOP
        return BROKEN_LINK if path.is_symlink() else f"unreadable ({exc.strerror or exc})"
    if stat.S_ISDIR(st.st_mode):
        return LINKED_FOLDER if path.is_symlink() else None
    return kind_reason(st.st_mode)


def skip_reason(path: Path, sandbox: Sandbox) -> str | None:
    """Why ``path`` is skipped, or None to index it (see the module doc for the order)."""
    early = entry_reason(path)
    if early is not None:
        return early
    if path.is_dir():
        return "a folder"
    if is_secret_path(path):
        return SECRET
    try:
        sandbox.check(path)
    except SandboxError:
        return OUTSIDE
    if not is_supported(path):
        return UNSUPPORTED
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            return TOO_BIG
        if path.suffix.lower() != ".pdf":
            # O_NONBLOCK: a regular file swapped for a FIFO since the check above must not hang the open
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
            with os.fdopen(fd, "rb") as fh:
                why = kind_reason(os.fstat(fd).st_mode)
                if why is not None:
                    return why
                if looks_binary(fh.read(BINARY_SNIFF_BYTES)):
                    return BINARY
    except OSError as exc:
        return f"unreadable ({exc.strerror or exc})"
    return None
