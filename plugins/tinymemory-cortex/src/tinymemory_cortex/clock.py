"""The engine's sense of time: every wait, pause and deadline goes through one :class:`Clock`.

An engine reads time through its clock only (the pacer's window, a retry's
sleep, a ``Retry-After`` pause, the visibility waits), so a test drives it
with :class:`tinymemory_cortex.testing.ManualClock` and never waits on the
wall.
"""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    """Monotonic seconds, wall-clock seconds and a sleep; safe to share between threads."""

    def now(self) -> float:
        """Monotonic seconds (only differences mean anything)."""
        ...

    def wall(self) -> float:
        """Seconds since the Unix epoch (to read an HTTP date or a reset time)."""
        ...

    def sleep(self, seconds: float) -> None:
        """Wait ``seconds``."""
        ...


class SystemClock:
    """The machine's clocks: ``time.monotonic``, ``time.time`` and ``time.sleep``."""

    def now(self) -> float:
        return time.monotonic()

    def wall(self) -> float:
        return time.time()

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds)


SYSTEM_CLOCK = SystemClock()
