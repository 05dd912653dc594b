"""Client-side pacing under a service's rate limit: at most N requests in any sliding window.

The hosted memory API allows 300 requests a minute per user and answers a
burst over it with 429. :class:`Pacer` spaces the engine's requests so it
never sends that burst: before a request it waits until fewer than ``limit``
requests were sent in the last ``window`` seconds, the window taken 10%
longer than the service's (:data:`MARGIN`) so that network jitter never
lets the service see a window hold more than its limit.
"""

from __future__ import annotations

import threading
from collections import deque

from .clock import SYSTEM_CLOCK, Clock

#: How much longer than the service's window the pacer waits, as a fraction of it.
MARGIN = 0.1


class Pacer:
    """At most ``limit`` requests in any ``window`` seconds of ``clock``; thread-safe."""

    def __init__(self, limit: int, window: float = 60.0, clock: Clock = SYSTEM_CLOCK) -> None:
        if limit < 1 or window <= 0:
            raise ValueError("a pacer needs a limit of at least 1 and a positive window")
        self.limit = limit
        self.window = window * (1 + MARGIN)
        self.clock = clock
        self._sent: deque[float] = deque()
        self._lock = threading.Lock()
        #: Seconds spent waiting for a slot, in all (what a test or a progress line reads).
        self.waited = 0.0

    def take(self) -> None:
        """Block until a request may go out, then count it as sent."""
        while True:
            with self._lock:
                now = self.clock.now()
                while self._sent and self._sent[0] <= now - self.window:
                    self._sent.popleft()
                if len(self._sent) < self.limit:
                    self._sent.append(now)
                    return
                wait = self._sent[0] + self.window - now
                self.waited += wait
            self.clock.sleep(wait)
