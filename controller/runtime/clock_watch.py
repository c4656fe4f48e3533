"""Whether the table's match clock can be heard, said in the live log and on the "system OK"
LED: a table whose clock port is missing, or whose clock does not answer, would else referee on
without a single press (the host clock retries quietly, as it must after a pulled cable).
"""

from __future__ import annotations

from typing import Literal

from controller.clock.host import REOPEN_MS, HostClock
from controller.clock.sim import LoopbackClock
from controller.clock.timebase import TimeSource
from controller.runtime.effects import LiveLog
from controller.signals import Signals

# a clock whose port opened but that has not answered after this long does not answer (its
# hello is sent every 250 ms: HELLO_MS)
ANSWER_MS = 3000

State = Literal["waiting", "heard", "missing", "silent", "lost"]


class ClockWatch:
    """Follows a clock's link from loop to loop (:meth:`check`) and says each change once: the
    port cannot be opened, the clock does not answer, it is heard, it was lost. "System OK"
    is off while the clock is not heard (after it was missing, silent or lost)."""

    def __init__(self, clock: HostClock | LoopbackClock, live: LiveLog, signals: Signals,
                 time: TimeSource, answer_ms: int = ANSWER_MS) -> None:
        self.clock = clock
        self.live = live
        self.signals = signals
        self.time = time
        self.answer_ms = answer_ms
        self.state: State = "waiting"
        self._since = time.now_ms()

    def check(self) -> None:
        """Look at the link once (after the clock's poll) and say what changed."""
        clock = self.clock
        if not isinstance(clock, HostClock):
            return  # the simulated clock in-process: always there
        name = clock.transport.name
        if clock.connected:
            if self.state != "heard":
                again = self.state in ("missing", "silent", "lost")
                self.live.say(f"The clock on {name} answers" + (" again" if again else ""))
                if again:
                    self.signals.system_ok(True)
            self.state = "heard"
            return
        why = clock.last_error
        if self.state == "heard":
            self._say_down("lost", f"The clock on {name} was lost ({why or 'no answer'})")
        elif self.state == "waiting" and not clock.transport.is_open and why:
            self._say_down("missing", f"The clock on {name} cannot be used ({why})")
        elif self.state == "waiting" and self.time.now_ms() - self._since >= self.answer_ms:
            self._say_down("silent", f"The clock on {name} does not answer "
                                     f"({self.answer_ms / 1000:g} s since its port opened)")

    def _say_down(self, state: State, text: str) -> None:
        self.state = state
        self.live.say(f"{text}: no press is seen until it answers; trying again every "
                      f"{REOPEN_MS / 1000:g} s")
        self.signals.system_ok(False)


__all__ = ["ANSWER_MS", "ClockWatch"]
