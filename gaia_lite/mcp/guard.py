"""Start an MCP server so that it dies with gaia-lite, even after ``kill -9``.

Run by path, never imported: ``python -I -S guard.py PARENT_PID COMMAND ARGS...``.
It asks the kernel to SIGKILL this process when its parent dies
(``PR_SET_PDEATHSIG``; the request survives ``execve``), checks that the parent
did not die before the request, then becomes the server with ``execvp``. The
MCP SDK starts it in a process group of its own, so a Ctrl-C at the terminal
does not reach it; stopping it is gaia-lite's job. Stdlib only, no site
packages: it costs a bare interpreter start.
"""

import ctypes
import os
import signal
import sys

PR_SET_PDEATHSIG = 1


def main() -> None:
    if len(sys.argv) < 3:
        sys.stderr.write("usage: guard.py PARENT_PID COMMAND [ARGS...]\n")
        sys.exit(2)
    parent, argv = int(sys.argv[1]), sys.argv[2:]
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
            sys.stderr.write(f"guard: prctl failed (errno {ctypes.get_errno()})\n")
    if os.getppid() != parent:  # gaia-lite died before the request took effect
        sys.exit(1)
    try:
        os.execvp(argv[0], argv)
    except OSError as exc:
        sys.stderr.write(f"cannot run {argv[0]!r}: {exc.strerror}\n")
        sys.exit(127)


if __name__ == "__main__":
    main()
