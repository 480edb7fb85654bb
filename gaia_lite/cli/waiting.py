"""A "waiting for the model" line for `gaia-lite ask` while the server is silent.

The agent yields no event while a request waits for the model's first byte,
so a slow or hung server would leave the terminal silent. This watcher prints
one status line on stderr after ``after`` seconds of silence while the model
(not a tool) is working, and again only after the next event.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable

from gaia_lite.events import ToolCallFinished, ToolCallStarted

__all__ = ["WaitingNotice"]


class WaitingNotice:
    def __init__(self, say: Callable[[str], None], limit_s: float, *, after: float = 5.0) -> None:
        self.say, self.limit_s, self.after = say, limit_s, after
        self._last = time.monotonic()
        self._model_busy = True   # a turn starts with a model call
        self._announced = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="waiting-notice", daemon=True)

    def __enter__(self) -> "WaitingNotice":
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join(1)

    def seen(self, event: object) -> None:
        """Every agent event resets the silence; a running tool is not the model's silence."""
        self._last = time.monotonic()
        self._announced = False
        if isinstance(event, ToolCallStarted):
            self._model_busy = False
        elif isinstance(event, ToolCallFinished):
            self._model_busy = True

    def _watch(self) -> None:
        while not self._stop.wait(0.25):
            if self._model_busy and not self._announced and time.monotonic() - self._last >= self.after:
                self._announced = True
                self.say(f"waiting for the model... (gives up after {self.limit_s:g} s without a reply; "
                         "GAIA_FIRST_BYTE_TIMEOUT)")
