"""Time sources in whole milliseconds: the real monotonic clock and a fake a test advances."""

from __future__ import annotations

import time
from typing import Protocol

from engine.errors import InvalidInputError


class TimeSource(Protocol):
    """Anything that tells the time in milliseconds, never going backwards."""

    def now_ms(self) -> int: ...


class MonotonicTime:
    """The host's monotonic clock."""

    def now_ms(self) -> int:
        return time.monotonic_ns() // 1_000_000


class FakeTime:
    """A clock that moves only when told to: simulated matches run in simulated time."""

    def __init__(self, start_ms: int = 0) -> None:
        self._now = start_ms

    def now_ms(self) -> int:
        return self._now

    def advance(self, ms: int) -> int:
        """Move forward ``ms`` milliseconds and return the new time."""
        if ms < 0:
            raise InvalidInputError(f"time cannot go backwards: {ms} ms")
        self._now += ms
        return self._now
