"""The match clock of a restarted table. The clock keeps time on its own microcontroller while
the Pi is down, so what it shows stands, unless it lost its state too (power): then it gets the
match's settings, the journal's times and whose time runs (the referee's ``clock_restore``).
A clock that does not answer at the restart gets nothing that would reset it (it may have run
on); the same choice is made once it answers (:meth:`ClockRestart.check`)."""

from __future__ import annotations

import time as systime
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from controller.clock.host import HostClock
from controller.clock.messages import ClockEvent
from controller.clock.timebase import FakeTime, TimeSource
from controller.referee.api import ClockCommand, Command
from controller.runtime.effects import LiveLog
from controller.runtime.presses import Recovery, journalled_press, recover

SETTLE_MS = 1000  # how long a table that stops waits for the clock to take its last commands


class ClockKeeper(Protocol):
    """A game's referee as the restarted clock asks it (backgammon and Mangala alike)."""

    def clock_restore(self) -> list[Command]: ...

    @property
    def clock_on_hold(self) -> bool: ...


@dataclass
class ClockRestart:
    """What a restarted table still has to tell its clock once it answers: ``last`` is the
    journal's last press at the restart, whose boot tells a clock that restarted itself."""

    clock: HostClock
    referee: ClockKeeper
    live: LiveLog
    last: tuple[int, int] | None

    @property
    def answered(self) -> bool:
        """Whether the clock has said who it is and how it stands (hello and status)."""
        return self.clock.hello is not None and self.clock.status is not None

    def check(self) -> list[Command] | None:
        """The commands for the clock once it has answered, None until then."""
        return self.decide() if self.answered else None

    def decide(self) -> list[Command]:
        """A clock that restarted itself since the journal's last press gets the referee's
        clock state; one that kept its state keeps it, except that one the journal leaves on
        hold (TTB-CLOCK-4) that runs without a press since is held at the journal's times: the
        table went down before its hold reached it."""
        clock, hello, status = self.clock, self.clock.hello, self.clock.status
        assert hello is not None and status is not None
        if self.last is not None and hello.boot != self.last[0]:
            commands = self.referee.clock_restore()
            runs = next((c.side for c in commands if isinstance(c, ClockCommand)
                         and c.action in ("set_times", "start") and c.side), None)
            self.live.say("The clock restarted since the journal's last press: its times are "
                          "set from the journal" + (f", and the {runs} side's time runs again, "
                                                    "as the journal left it" if runs else ""))
            return commands
        times = clock.times_ms()
        assert times is not None
        self.live.say(f"The clock kept time: left {times[0] / 1000:.1f} s, "
                      f"right {times[1] / 1000:.1f} s")
        pressed = status.presses > (self.last[1] if self.last is not None else 0)
        if pressed or not self.referee.clock_on_hold or clock.state().running is None:
            return []
        # on hold, the journal's times start nobody's time
        kept = [c for c in self.referee.clock_restore()
                if isinstance(c, ClockCommand) and c.action == "set_times"]
        self.live.say(f"The clock ran on ({clock.state().running} side) where the journal holds "
                      "it (TTB-CLOCK-4): it is held" + (", its times set from the journal"
                                                        if kept else ""))
        return [ClockCommand("hold"), *kept]


def restart_clock(clock: HostClock, referee: ClockKeeper, entries: Sequence[dict[str, Any]],
                  startup: list[Command], timer: TimeSource, live: LiveLog
                  ) -> tuple[list[Command], Recovery, ClockRestart | None]:
    """On a resume with the real clock: the presses it counted beyond the journal
    (:func:`recover`, which waits up to 3 s for it to answer), and the referee's start-up
    commands (of a restore without the clock's state) with what :class:`ClockRestart` decides
    for the clock; when the clock has not answered, that decision is returned, to be taken
    once it does."""
    recovery = recover(clock, entries, timer, sleep=not isinstance(timer, FakeTime))
    restart = ClockRestart(clock, referee, live, journalled_press(entries))
    if restart.answered:
        return [*startup, *restart.decide()], recovery, None
    live.say("The clock does not answer yet: nothing that would reset it is sent (it may have "
             "run on); once it answers, a clock that lost its state gets the match's settings "
             "and the journal's times")
    return startup, recovery, restart


def settle(clock: HostClock, time: TimeSource, take: Callable[[ClockEvent], None],
           wait_ms: int = SETTLE_MS) -> None:
    """Poll a heard clock until it has taken every queued command (the hold at a match's end),
    up to ``wait_ms``; the events it reports meanwhile go to ``take``."""
    deadline = time.now_ms() + wait_ms
    for _ in range(wait_ms):  # bounded also where time stands still (a test's)
        if not clock.connected or clock.backlog() == 0 or time.now_ms() >= deadline:
            return
        for event in clock.poll():
            take(event)
        if not isinstance(time, FakeTime):
            systime.sleep(0.001)


__all__ = ["ClockKeeper", "ClockRestart", "restart_clock", "settle"]
