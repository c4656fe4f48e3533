"""The host's clock object and the simulated clock (the real firmware) over an in-memory wire,
in simulated time: handshake, commands exactly once, presses exactly once, time estimates."""

from __future__ import annotations

import pytest

from controller.clock import FakeTime, HostClock, LoopbackClock, SimulatedClock, Wire
from controller.clock.api import MatchClock
from engine.errors import DeviceError


def run(clock: LoopbackClock, time: FakeTime, ms: int, step: int = 10) -> list:
    events = []
    for _ in range(ms // step):
        time.advance(step)
        events += clock.poll()
    return events


def test_handshake_reports_firmware_mode_and_times() -> None:
    time = FakeTime()
    clock = LoopbackClock(time, boot_id=77)
    assert not clock.host.connected
    run(clock, time, 100)
    state = clock.state()
    assert state.connected and state.firmware == "1.2.0" and state.mode == "delay"
    assert state.times_ms == clock.sim.times_ms() and state.running is None
    assert clock.host.hello is not None and clock.host.hello.boot == 77
    assert state.as_json() == {
        "connected": True,
        "mode": "delay",
        "times_ms": list(state.times_ms),
        "running": None,
        "firmware": "1.2.0",
    }


def test_commands_drive_the_clock() -> None:
    """BG-OPEN-3 via the host, TTB-CLOCK-4 hold, MG-CLOCK-1 countdown reset."""
    time = FakeTime()
    clock: MatchClock = LoopbackClock(time)
    assert isinstance(clock, LoopbackClock)
    clock.configure_delay(12000, 120000)
    clock.start("right")
    run(clock, time, 20000)
    assert clock.sim.times_ms() == pytest.approx((120000, 112000), abs=30)
    assert clock.state().running == "right"
    clock.hold()
    run(clock, time, 5000)
    assert clock.state().running is None and clock.state().state == "hold"
    clock.configure_countdown(15 * 60000)
    clock.start("left")
    run(clock, time, 1000)
    clock.reset()
    run(clock, time, 1000)
    assert clock.state().times_ms == (900000, 900000)
    assert clock.state().mode == "countdown"


def test_presses_reach_the_host_with_clock_timestamps() -> None:
    time = FakeTime()
    clock = LoopbackClock(time)
    run(clock, time, 100)
    t_press = time.now_ms()
    clock.press("right")  # BG-OPEN-3: the smaller die starts the opponent
    events = run(clock, time, 100)
    assert len(events) == 1
    press = events[0]
    assert press.button == "right" and press.running == "left" and press.number == 1
    assert press.clock_ms == t_press


def test_commands_are_executed_exactly_once_under_heavy_faults() -> None:
    time = FakeTime()
    wire = Wire(seed=11, corrupt=0.01, drop=0.01, duplicate=0.01)
    clock = LoopbackClock(time, wire=wire)
    for i in range(30):
        clock.beep(10 + i)
    run(clock, time, 60000)
    assert [b[0] for b in clock.sim.beeps] == [10 + i for i in range(30)]
    assert clock.host.backlog() == 0
    assert sum(wire.faults().values()) > 100


def test_refused_command_is_reported_not_repeated() -> None:
    time = FakeTime()
    clock = LoopbackClock(time)
    clock.host._link.send("XX", [])  # a command this firmware does not know
    clock.beep(5)
    run(clock, time, 500)
    assert [e.reason for e in clock.host.errors] == ["unknown command: XX"]
    assert clock.sim.beeps == [(5, 0, 1)]


def test_host_estimate_runs_between_status_messages() -> None:
    time = FakeTime()
    wire = Wire(time=time, latency_ms=3, jitter_ms=10, seed=2)
    clock = LoopbackClock(time, wire=wire)
    clock.configure_countdown(60000)
    clock.start("left")
    for _ in range(500):
        time.advance(7)
        clock.poll()
        est = clock.host.times_ms()
        truth = clock.sim.times_ms()
        if clock.host.connected and clock.state().running == "left":
            assert est is not None
            assert abs(est[0] - truth[0]) <= 20 and est[1] == truth[1]


def test_unplug_is_noticed_and_the_port_reopened() -> None:
    time = FakeTime()
    wire = Wire()
    clock = LoopbackClock(time, wire=wire)
    run(clock, time, 200)
    assert clock.host.connected
    wire.unplug()
    run(clock, time, 50)
    assert not clock.host.connected and not wire.host_end.is_open
    run(clock, time, 3000)
    assert not clock.host.connected
    wire.plug()
    run(clock, time, 1000)
    assert clock.host.connected and clock.host.reconnects >= 2


def test_silent_line_is_noticed_within_a_second() -> None:
    """DESIGN: a loose cable is noticed within a second (heartbeat)."""
    time = FakeTime()
    wire = Wire()
    wire.usb_side = None  # the data line breaks, the port stays
    clock = LoopbackClock(time, wire=wire)
    run(clock, time, 300)
    assert clock.host.connected
    wire.unplug()
    run(clock, time, 1000)
    assert not clock.host.connected
    wire.plug()
    run(clock, time, 600)
    assert clock.host.connected


def test_closed_clock_refuses_work_and_closes_twice() -> None:
    time = FakeTime()
    wire = Wire()
    with HostClock(wire.host_end, time) as host:
        host.poll()
    host.close()
    with pytest.raises(DeviceError):
        host.poll()


def test_simulated_clock_display_and_beeps() -> None:
    time = FakeTime()
    wire = Wire()
    sim = SimulatedClock(wire.clock_end, time, boot_id=3)
    host = HostClock(wire.host_end, time)
    host.configure_countdown(19000)
    host.show("SET 2", 1000)
    for _ in range(20):
        time.advance(10)
        sim.step()
        host.poll()
    assert sim.display() == ("SET ", "2   ")
    time.advance(1000)
    assert sim.display() == ("19.0", "19.0")
