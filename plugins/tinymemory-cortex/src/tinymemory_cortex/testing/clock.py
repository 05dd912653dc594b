"""A clock a test drives: sleeping moves it forward at once, nothing waits on the wall."""

from __future__ import annotations

import threading

#: Where a manual clock's wall time starts: 2026-03-04T05:06:07Z.
START_WALL = 1_772_600_767.0


class ManualClock:
    """Monotonic and wall time that move only when something sleeps (or :meth:`advance`).

    ``sleeps`` records every sleep asked, in order: what a retry test reads.
    Share one between an engine and a :class:`~.double.CortexDouble` and the
    pacer, the retries and the double's rate limiter all see the same time.
    """

    def __init__(self, wall: float = START_WALL) -> None:
        self._now = 0.0
        self._wall = wall
        self._lock = threading.Lock()
        self.sleeps: list[float] = []

    def now(self) -> float:
        with self._lock:
            return self._now

    def wall(self) -> float:
        with self._lock:
            return self._wall + self._now

    def sleep(self, seconds: float) -> None:
        with self._lock:
            self.sleeps.append(seconds)
            if seconds > 0:
                self._now += seconds

    def advance(self, seconds: float) -> None:
        """Move time forward without recording a sleep."""
        with self._lock:
            self._now += seconds
