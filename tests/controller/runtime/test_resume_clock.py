"""A restarted table and the real clock: the clock kept time while the Pi was down, so its
times stand and the journal's older times are not sent to it; a clock that restarted itself
gets the journal's; a clock that does not answer gets nothing until it does."""

from __future__ import annotations

from dataclasses import dataclass, field

from controller.clock.host import HostClock
from controller.clock.messages import ClockEvent, PressEvent, Side
from controller.clock.sim import SimulatedClock
from controller.clock.timebase import FakeTime
from controller.clock.wire import Wire
from controller.referee.api import ClockCommand, Command, SetSignal
from controller.runtime.clock_restart import ClockRestart, restart_clock
from controller.runtime.effects import LiveLog
from controller.runtime.presses import RESEND_WAIT_MS


class SteppedHost(HostClock):
    """The host's real link to the real firmware core on an in-memory cable; each poll lets
    the clock run its loop and 5 ms pass (the test's stand-in for real time)."""

    def __init__(self, wire: Wire, time: FakeTime, sim: SimulatedClock | None) -> None:
        super().__init__(wire.host_end, time)
        self.sim = sim
        self.fake = time

    def poll(self) -> list[ClockEvent]:
        if self.sim is not None:
            self.sim.step()
        events = super().poll()
        if self.sim is not None:
            self.sim.step()
        self.fake.advance(5)
        return events


JOURNAL = [{"type": "clock", "event": "press", "press": [7, 4], "means": "move"}]
RESTORE: list[Command] = [ClockCommand("configure_delay",
                                       args={"delay_ms": 12000, "reserve_ms": 840000}),
                          ClockCommand("set_times", "left",
                                       args={"left_ms": 1000, "right_ms": 2000})]
STARTUP: list[Command] = [SetSignal("system_ok", True), SetSignal("turn_left", True)]


@dataclass
class Keeper:
    """The referee's side of a restart: the clock state it restores, whether its journal
    leaves the clock on hold, whose side it runs, the clock's settings for the match and what
    a set's start still owes a clock that kept its state (none in backgammon)."""

    restore: list[Command]
    clock_on_hold: bool = False
    clock_hold_rule: str = "TTB-CLOCK-4"
    clock_runs: Side | None = None
    clock_settings: tuple[str, int, int] | None = None
    clock_reset: list[Command] = field(default_factory=list)

    def clock_restore(self) -> list[Command]:
        return list(self.restore)


def _restart(host: HostClock, time: FakeTime, log: LiveLog, keeper: Keeper | None = None
             ) -> tuple[list[Command], ClockRestart | None]:
    """The start-up of a referee restored without the clock's state, on ``host``."""
    keeper = keeper if keeper is not None else Keeper(RESTORE)
    kept, _, late = restart_clock(host, keeper, JOURNAL, list(STARTUP), time, log)
    return kept, late


def test_the_clocks_own_times_stand() -> None:
    time = FakeTime(0)
    wire = Wire()
    sim = SimulatedClock(wire.clock_end, time, boot_id=7)
    sim.device.core.configure_delay(12_000, 300_000, time.now_ms())
    host = SteppedHost(wire, time, sim)
    log = LiveLog(keep=5)
    kept, late = _restart(host, time, log)
    assert kept == STARTUP and late is None
    assert "kept time" in log.lines[-1]


def test_a_silent_clock_gets_nothing_until_it_answers() -> None:
    """It may have run on (a cable pulled) while presses changed whose time runs, and the
    match's settings would reset it (on hold, nobody's time running): nothing of the clock's
    state is sent; what to send is decided once it answers."""
    time = FakeTime(0)
    host = SteppedHost(Wire(), time, None)
    log = LiveLog(keep=5)
    kept, late = _restart(host, time, log)
    assert kept == STARTUP
    assert late is not None and late.check() is None
    assert "does not answer yet" in log.lines[-1]


def test_a_clock_that_restarted_itself_gets_the_journals_times() -> None:
    """Its boot id is not the one of the journal's last press: it lost its times (power), so
    the journal's are sent (troubleshooting.md)."""
    time = FakeTime(0)
    wire = Wire()
    host = SteppedHost(wire, time, SimulatedClock(wire.clock_end, time, boot_id=8))
    log = LiveLog(keep=5)
    kept, late = _restart(host, time, log)
    assert kept == [*STARTUP, *RESTORE] and late is None
    assert "restarted since the journal's last press" in log.lines[-1]


def test_a_late_clock_is_decided_on_once_a_press_it_counted_no_longer_may_come() -> None:
    """A clock that restarted itself counted a press the table acknowledged but never
    journalled before it went down: the clock will not send it again. Answering late, it gets
    nothing while the press might still come down the line, and what it gets is decided
    ``RESEND_WAIT_MS`` after its answer (was: at once, so a press coming in the next read
    was taken after the clock was set up without it)."""
    time = FakeTime(0)
    wire = Wire()
    sim = SimulatedClock(wire.clock_end, time, boot_id=8)
    sim.press("left")
    dying = SteppedHost(wire, time, sim)
    got: list[ClockEvent] = []
    for _ in range(100):
        got += dying.poll()
        if got:
            break
    assert [e.number for e in got if isinstance(e, PressEvent)] == [1]
    assert sim.device.link.backlog() == 0  # acknowledged: never sent again
    dying.close()
    host = SteppedHost(wire, time, None)
    log = LiveLog(keep=5)
    _, late = _restart(host, time, log)
    assert late is not None
    host.sim = sim  # the clock answers
    answered_ms = decided_ms = None
    for _ in range(1000):
        host.poll()
        if answered_ms is None and late.answered:
            answered_ms = time.now_ms()
        decided = late.check()
        if decided is not None:
            decided_ms = time.now_ms()
            break
    assert answered_ms is not None and decided_ms is not None
    assert decided == RESTORE
    assert decided_ms - answered_ms >= RESEND_WAIT_MS
    assert host.status is not None and host.status.presses == 1
    assert "restarted since the journal's last press" in log.lines[-1]
