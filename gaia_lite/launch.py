"""The `gaia-lite` command: an `ask` goes to the warm worker when one is up (warm/), else runs here.

Only the standard library is imported before that choice: the point of the worker is to skip
gaia-lite's imports.
"""

from __future__ import annotations

import os
import sys

__all__ = ["main", "worker_main"]


def main() -> None:
    argv = sys.argv[1:]
    # only an `ask` is ever handed over (warm.client.wanted); the client's imports (hashlib, tempfile,
    # sysconfig: ~20-30 ms) are not worth paying for `--help` or `config show`
    if argv[:1] == ["ask"]:
        from gaia_lite.warm.client import handed_over, wanted

        if wanted(argv, os.environ):
            code = handed_over(argv)
            if code is not None:
                sys.exit(code)
    from gaia_lite.cli.app import main as run

    run()


def worker_main() -> None:
    """The warm worker's process (warm/worker.py ``start`` runs it): each child runs the command's main."""
    from gaia_lite.cli.app import main as run
    from gaia_lite.warm.worker import main as serve

    serve(sys.argv[1:], run)
