"""A restarted table and the real clock: the clock kept time while the Pi was down, so its
times stand and the journal's older times are not sent to it; a clock that does not answer
gets the journal's times."""

from __future__ import annotations

from controller.clock.host import HostClock
from controller.clock.messages import ClockEvent
from controller.clock.sim import SimulatedClock
from controller.clock.timebase import FakeTime
from controller.clock.wire import Wire
from controller.referee.api import ClockCommand, Command, SetSignal
from controller.runtime.effects import LiveLog
from controller.runtime.table import _keep_clock_times


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
RESTORE: list[Command] = [SetSignal("system_ok", True),
                          ClockCommand("set_times", args={"left_ms": 1000, "right_ms": 2000}),
                          SetSignal("turn_left", True)]


def test_the_clocks_own_times_stand() -> None:
    time = FakeTime(0)
    wire = Wire()
    sim = SimulatedClock(wire.clock_end, time, boot_id=7)
    sim.device.core.configure_delay(12_000, 300_000, time.now_ms())
    host = SteppedHost(wire, time, sim)
    log = LiveLog(keep=5)
    kept = _keep_clock_times(list(RESTORE), host, time, log, JOURNAL, ("set_times",))
    assert [c for c in kept if isinstance(c, ClockCommand)] == []
    assert len(kept) == 2
    assert "kept time" in log.lines[-1]


def test_a_silent_clock_gets_the_journals_times() -> None:
    time = FakeTime(0)
    host = SteppedHost(Wire(), time, None)
    log = LiveLog(keep=5)
    kept = _keep_clock_times(list(RESTORE), host, time, log, JOURNAL, ("set_times",),
                             wait_ms=300)
    assert kept == RESTORE
    assert "does not answer" in log.lines[-1]


def test_a_silent_clock_is_not_started_on_the_journals_word() -> None:
    """It may have run on (a cable pulled) while presses changed whose time runs: the times
    are queued for it, the journal's running side is not, and the live log says who presses
    to start that side's time if it answers on hold (TTB-4.5)."""
    time = FakeTime(0)
    host = SteppedHost(Wire(), time, None)
    log = LiveLog(keep=5)
    restore: list[Command] = [ClockCommand("configure_delay",
                                           args={"delay_ms": 12000, "reserve_ms": 840000}),
                              ClockCommand("set_times", "left",
                                           args={"left_ms": 1000, "right_ms": 2000})]
    kept = _keep_clock_times(restore, host, time, log, JOURNAL, ("set_times",), wait_ms=300)
    # nor are the match's settings sent: configure_delay would reset a clock that ran on
    # (on hold, nobody's time running), which its hold button could not undo
    assert kept == [ClockCommand("set_times", args={"left_ms": 1000, "right_ms": 2000})]
    assert ("the player on the other side presses their button to start the left side's "
            "time (TTB-4.5)") in log.lines[-1]


def test_a_clock_that_restarted_itself_gets_the_journals_times() -> None:
    """Its boot id is not the one of the journal's last press: it lost its times (power), so
    the journal's are sent (troubleshooting.md)."""
    time = FakeTime(0)
    wire = Wire()
    host = SteppedHost(wire, time, SimulatedClock(wire.clock_end, time, boot_id=8))
    log = LiveLog(keep=5)
    kept = _keep_clock_times(list(RESTORE), host, time, log, JOURNAL, ("set_times",))
    assert kept == RESTORE
    assert "restarted since the journal's last press" in log.lines[-1]


def test_a_mangala_table_leaves_the_running_side_to_the_clock() -> None:
    """Mangala's restore also starts the mover's side; presses made while the Pi was down
    changed it, and the clock knows."""
    time = FakeTime(0)
    wire = Wire()
    host = SteppedHost(wire, time, SimulatedClock(wire.clock_end, time, boot_id=7))
    restore = [*RESTORE, ClockCommand("start", "left")]
    kept = _keep_clock_times(restore, host, time, LiveLog(), JOURNAL, ("set_times", "start"))
    assert [c for c in kept if isinstance(c, ClockCommand)] == []
