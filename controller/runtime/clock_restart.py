"""The match clock of a restarted table. The clock keeps time on its own microcontroller while
the Pi is down, so what it shows stands, unless it lost its state too (power: a new boot id,
or before any press settings that are not the match's): then it gets the match's settings, the
journal's times and whose time runs (the referee's ``clock_restore``). A clock that does not
answer at the restart gets nothing that would reset it (it may have run on); the same choice
is made once it answers with the presses it counted (:meth:`ClockRestart.check`)."""

from __future__ import annotations

import time as systime
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from controller.clock.host import HostClock
from controller.clock.messages import ClockEvent, Hello, PressEvent, Side
from controller.clock.timebase import FakeTime, TimeSource
from controller.referee.api import ClockCommand, Command
from controller.runtime.effects import LiveLog
from controller.runtime.presses import (
    RESEND_WAIT_MS,
    Recovery,
    awaited,
    journalled_press,
    recover,
)

SETTLE_MS = 1000  # how long a table that stops waits for the clock to take its last commands


class ClockKeeper(Protocol):
    """A game's referee as the restarted clock asks it (backgammon and Mangala alike)."""

    def clock_restore(self) -> list[Command]: ...

    @property
    def clock_on_hold(self) -> bool: ...

    @property
    def clock_hold_rule(self) -> str: ...

    @property
    def clock_runs(self) -> Side | None: ...

    @property
    def clock_settings(self) -> tuple[str, int, int] | None: ...

    @property
    def clock_reset(self) -> list[Command]: ...


@dataclass
class ClockRestart:
    """What a restarted table still has to tell its clock once it answers: ``last`` is the
    journal's last press at the restart, whose boot tells a clock that restarted itself;
    ``held``, the clock's events kept back until then; ``heard_ms``, when it answered."""

    clock: HostClock
    referee: ClockKeeper
    live: LiveLog
    last: tuple[int, int] | None
    held: list[ClockEvent] = field(default_factory=list)
    heard_ms: int | None = None

    @property
    def answered(self) -> bool:
        """Whether the clock has said who it is and how it stands (hello and status)."""
        return self.clock.hello is not None and self.clock.status is not None

    def check(self, events: Sequence[ClockEvent] = ()) -> list[Command] | None:
        """The commands for the clock once it has answered and the presses its status counts
        beyond the journal have come, None until then; ``events`` (the clock's since the last
        call) are kept in :attr:`held` meanwhile. Its hello and status may come down the line
        before a press made before its hello: the press needs what is decided (a clock that
        lost its state is configured first). One a host acknowledged before the table went
        down never comes: the wait ends :data:`RESEND_WAIT_MS` after the clock answered.
        (Taken without them, a press ran the side the journal had running: TTB-CLOCK-2.)"""
        self.held += events
        if not self.answered:
            return None
        hello, status = self.clock.hello, self.clock.status
        assert hello is not None and status is not None
        now = self.clock.time.now_ms()
        if self.heard_ms is None:
            self.heard_ms = now
        if (now - self.heard_ms < RESEND_WAIT_MS
                and awaited(self.last, hello.boot, status.presses, self.held)):
            return None
        return self.decide()

    def lost_state(self, hello: Hello) -> bool:
        """Whether the clock lost its state: restarted since the journal's last press (a new
        boot id), or, with no press journalled to compare, set up otherwise than the match
        (``HI``'s mode, delay and start time: a power cut leaves the firmware's own)."""
        if self.last is not None:
            return hello.boot != self.last[0]
        wanted = self.referee.clock_settings
        return wanted is not None and (hello.mode, hello.delay_ms, hello.start_ms) != wanted

    def decide(self) -> list[Command]:
        """A clock that lost its state gets the referee's clock state; one that kept its state
        keeps it, except where the table went down before its last commands reached it (no
        press since the journal's last): one at a set the journal started but the clock was
        never reset for is reset (``clock_reset``, MG-CLOCK-1), one the journal leaves on hold
        (its ``clock_hold_rule``) that runs is held at the journal's times, and one that runs
        the other side than the journal says (a flagged move's correction, TTB-4.5) runs the
        journal's side."""
        clock, hello, status = self.clock, self.clock.hello, self.clock.status
        assert hello is not None and status is not None
        if self.lost_state(hello):
            commands = self.referee.clock_restore()
            runs = _started(commands)
            why = ("restarted since the journal's last press" if self.last is not None
                   else "lost the match's settings")
            self.live.say(f"The clock {why}: "
                          + ("its times are set from the journal" if _timed(commands)
                             else "it gets the match's settings")
                          + (f", and the {runs} side's time runs again, as the journal left it"
                             if runs else ""))
            return commands
        times = clock.times_ms()
        assert times is not None
        self.live.say(f"The clock kept time: left {times[0] / 1000:.1f} s, "
                      f"right {times[1] / 1000:.1f} s")
        pressed = status.presses > (self.last[1] if self.last is not None else 0)
        if pressed:
            return []
        running, wanted = clock.state().running, self.referee.clock_runs
        reset = self.referee.clock_reset
        if reset:
            settings = self.referee.clock_settings
            if status.state == "hold" and settings is not None \
                    and times == (settings[2], settings[2]):
                return []  # already reset: on hold at the set's full time
            # a set journalled, its countdown never sent (MG-CLOCK-1): also a flagged clock
            self.live.say("The clock still shows the last set's times (the table went down "
                          "before the new set's countdown reached it): it is reset for the "
                          "set, on hold (MG-CLOCK-1)")
            return reset
        if status.state == "flag":
            return []
        if not self.referee.clock_on_hold:
            if wanted is None or running == wanted:
                return []
            self.live.say(f"The clock runs {f'the {running} side' if running else 'nobody'}'s "
                          f"time where the journal runs the {wanted} side's (the table went "
                          f"down before its start reached the clock): the {wanted} side's time "
                          "is started")
            return [ClockCommand("start", wanted)]
        if running is None:
            return []
        # on hold, the journal's times start nobody's time
        kept = [c for c in self.referee.clock_restore()
                if isinstance(c, ClockCommand) and c.action == "set_times"]
        self.live.say(f"The clock ran on ({running} side) where the journal holds "
                      f"it ({self.referee.clock_hold_rule}): it is held"
                      + (", its times set from the journal" if kept else ""))
        return [ClockCommand("hold"), *kept]

    def retimed(self, events: Sequence[ClockEvent], sent: Sequence[Command]
                ) -> list[ClockEvent]:
        """The events that came with the clock's late answer, to hand to the referee after
        ``sent`` (:meth:`check`'s commands): a press made on a clock that lost its state
        carries the firmware's own times, so it is given the journal's, which ``sent`` set."""
        times = next((c.args for c in sent if isinstance(c, ClockCommand)
                      and c.action == "set_times"), None)
        if times is None:
            return list(events)
        both = (int(times["left_ms"]), int(times["right_ms"]))
        return [replace(e, times_ms=both) if isinstance(e, PressEvent) else e for e in events]

    def follow(self, sent: Sequence[Command], pressed: bool) -> list[Command]:
        """After presses handed to the referee once ``sent`` had restored a clock that lost
        its state (whose reset undid what those presses did on it): the side whose time the
        journal now runs, started where it is not the one ``sent`` started."""
        if not (pressed and _timed(sent)):
            return []
        wanted = self.referee.clock_runs
        return [] if wanted in (None, _started(sent)) else [ClockCommand("start", wanted)]


def _timed(commands: Sequence[Command]) -> bool:
    """Whether ``commands`` set the clock's times (a clock that lost its state restored)."""
    return any(isinstance(c, ClockCommand) and c.action == "set_times" for c in commands)


def _started(commands: Sequence[Command]) -> Side | None:
    """The side whose time ``commands`` start (``set_times`` with a side, or ``start``)."""
    return next((c.side for c in commands if isinstance(c, ClockCommand)
                 and c.action in ("set_times", "start") and c.side), None)


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
