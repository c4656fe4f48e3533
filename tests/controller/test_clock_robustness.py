"""Robustness of the clock link end to end (host object and the real firmware over the
simulated wire, simulated time): stale acknowledgements after a clock reboot, refused
commands, unsequenced commands. Nothing may be lost, counted twice or half applied."""

from __future__ import annotations

from controller.clock import FakeTime, HostClock, PressEvent, SimulatedClock, Wire
from controller.clock import messages as m
from firmware.protocol import Decoder

STEP_MS = 10


def run(time: FakeTime, sim: SimulatedClock, host: HostClock, ms: int) -> list[m.ClockEvent]:
    events: list[m.ClockEvent] = []
    for _ in range(ms // STEP_MS):
        time.advance(STEP_MS)
        sim.step()
        events += host.poll()
    return events


def test_press_right_after_a_clock_reboot_is_not_taken_as_acknowledged() -> None:
    """The host acknowledged the old clock's press 1; the rebooted clock's own press 1 must
    not be dropped by that stale acknowledgement (in the host's hello or heartbeat)."""
    time = FakeTime()
    wire = Wire(time=time, latency_ms=2)
    sim = SimulatedClock(wire.clock_end, time, boot_id=11)
    host = HostClock(wire.host_end, time, session=4242)
    events = run(time, sim, host, 1000)
    sim.press("left")
    events += run(time, sim, host, 1000)
    assert [(e.boot, e.number) for e in events if isinstance(e, PressEvent)] == [(11, 1)]
    sim = SimulatedClock(wire.clock_end, time, boot_id=12)  # power blip
    sim.press("right")  # at once, before any host has said hello to this boot
    events += run(time, sim, host, 2000)
    got = [(e.boot, e.number) for e in events if isinstance(e, PressEvent)]
    assert got == [(11, 1), (12, 1)]
    assert sim.device.link.backlog() == 0


def test_hello_carries_no_acknowledgement() -> None:
    """A hello may reach a clock that rebooted and reuses the acked sequence number; the host's
    hello therefore acknowledges nothing (ACK 0), even after it has taken a press."""
    time = FakeTime()
    wire = Wire(time=time)
    sim = SimulatedClock(wire.clock_end, time, boot_id=21)
    host = HostClock(wire.host_end, time, session=777)
    run(time, sim, host, 1000)
    sim.press("left")
    assert len(run(time, sim, host, 1000)) == 1
    written = bytearray()
    write = wire.host_end.write

    def record(data: bytes) -> None:
        written.extend(data)
        write(data)

    wire.host_end.write = record  # type: ignore[method-assign]
    sim = SimulatedClock(wire.clock_end, time, boot_id=22)  # its status has session 0
    run(time, sim, host, 1000)
    hellos = [f for f in Decoder().feed(bytes(written)) if f.kind == "HELO"]
    assert hellos and all(f.ack == 0 for f in hellos)
