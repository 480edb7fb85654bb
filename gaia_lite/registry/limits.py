"""Per-agent limits on how often something may happen: the shell tool's rate limit, and notices
said once per session."""

from __future__ import annotations

import threading
import time
from collections import deque
from typing import Callable

__all__ = ["RateLimiter", "Once"]


class RateLimiter:
    """Sliding-window limits, e.g. 3 calls per 10 s and 10 per 60 s."""

    def __init__(self, limits: tuple[tuple[int, float], ...] = ((3, 10.0), (10, 60.0)),
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self.clock = clock
        self._calls: deque[float] = deque()

    def acquire(self) -> float:
        """Record a call and return 0, or return the seconds to wait (nothing recorded)."""
        now = self.clock()
        longest = max(window for _, window in self.limits)
        while self._calls and now - self._calls[0] >= longest:
            self._calls.popleft()
        wait = 0.0
        for count, window in self.limits:
            recent = [t for t in self._calls if now - t < window]
            if len(recent) >= count:
                wait = max(wait, recent[-count] + window - now)
        if wait <= 0:
            self._calls.append(now)
        return max(wait, 0.0)


class Once:
    """Lets a thing happen once per agent, e.g. the shell tool's "no kernel sandbox" notice."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._claimed = False

    def claim(self) -> bool:
        """True for the first caller only (tool calls run on worker threads)."""
        with self._lock:
            first, self._claimed = not self._claimed, True
        return first
