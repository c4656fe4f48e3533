"""What the referee needs from a match clock, whichever clock it is (the Pico over USB, the
simulator over a pty, the in-process loopback): one small protocol."""

from __future__ import annotations

from typing import Protocol

from controller.clock.host import ClockState, HostClock
from controller.clock.messages import ClockEvent, Side
from controller.clock.sim import LoopbackClock


class MatchClock(Protocol):
    """The referee's view of the clock. Commands are queued and delivered exactly once."""

    def poll(self) -> list[ClockEvent]:
        """Do the link's work; the presses and flags since the last call, in order."""
        ...

    def state(self) -> ClockState: ...

    def configure_delay(self, delay_ms: int, reserve_ms: int) -> None: ...

    def configure_countdown(self, total_ms: int) -> None: ...

    def set_times(self, left_ms: int, right_ms: int) -> None: ...

    def start(self, side: Side) -> None: ...

    def hold(self) -> None: ...

    def resume(self) -> None: ...

    def reset(self) -> None: ...

    def beep(self, on_ms: int, off_ms: int = 0, count: int = 1) -> None: ...

    def show(self, text: str, duration_ms: int) -> None: ...

    def close(self) -> None: ...


def _conforms(real: HostClock, simulated: LoopbackClock) -> list[MatchClock]:
    """Type-checked proof that both clocks satisfy :class:`MatchClock` (mypy runs it)."""
    return [real, simulated]
