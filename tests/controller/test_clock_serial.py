"""The same host clock object over real pyserial ports: a pty pair standing in for the USB
cable (including the cable pulled and a new device node appearing) and ``loop://``. These
wait on I/O with short time-outs but never assert on durations."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from controller.clock import HostClock, MonotonicTime, PressEvent, SerialTransport, SimulatedClock
from controller.clock.transport import PtyPair
from engine.errors import DeviceError
from firmware.protocol import Frame, decode, encode

TIMEOUT_S = 10.0


def pump(host: HostClock, sim: SimulatedClock, done: Callable[[], bool]) -> list:
    """Run both ends until ``done()``; fail (not hang) after TIMEOUT_S."""
    timer = MonotonicTime()
    deadline = timer.now_ms() + int(TIMEOUT_S * 1000)
    events: list = []
    while not done():
        assert timer.now_ms() < deadline, "clock link did not get there"
        sim.step()
        events += host.poll()
        sim.transport.wait(0.002)
    return events


def test_host_and_simulated_clock_over_a_pty_pair() -> None:
    pair = PtyPair()
    time = MonotonicTime()
    sim = SimulatedClock(pair.clock_side, time, boot_id=42)
    try:
        with HostClock(SerialTransport(pair.port_name), time) as host:
            host.configure_countdown(15 * 60000)  # MG-CLOCK-1
            pump(host, sim, lambda: host.connected and host.backlog() == 0)
            assert host.state().mode == "countdown" and host.state().firmware == "1.2.0"
            sim.press("left")
            events = pump(host, sim, lambda: host.state().running == "right")
            presses = [e for e in events if isinstance(e, PressEvent)]
            assert [(p.number, p.button, p.boot) for p in presses] == [(1, "left", 42)]
            host.hold()
            pump(host, sim, lambda: host.backlog() == 0 and host.state().state == "hold")
            assert sim.device.core.state == "hold"
    finally:
        pair.close()


def test_unplugged_clock_is_found_again_on_a_new_device_node(tmp_path: Path) -> None:
    """A USB unplug: the port vanishes, the host keeps trying; the device comes back under a
    new node (udev's by-id link points at it); presses made meanwhile all arrive once."""
    link = tmp_path / "clock"
    time = MonotonicTime()
    pair = PtyPair()
    os.symlink(pair.port_name, link)
    sim = SimulatedClock(pair.clock_side, time, boot_id=7)
    host = HostClock(SerialTransport(str(link)), time)
    try:
        pump(host, sim, lambda: host.connected)
        sim.press("right")
        events = pump(host, sim, lambda: host.last_press == (7, 1))
        pair.close()  # pulled
        link.unlink()
        events += pump(host, sim, lambda: not host.transport.is_open)
        sim.press("left")  # the clock keeps going on its own power
        sim.press("right")
        for _ in range(5):
            events += host.poll()
        assert not host.connected
        pair = PtyPair()  # plugged back in
        os.symlink(pair.port_name, link)
        sim.transport = pair.clock_side
        events += pump(host, sim, lambda: host.last_press == (7, 3))
        numbers = [e.number for e in events if isinstance(e, PressEvent)]
        assert numbers == [1, 2, 3]
        assert host.connected
    finally:
        host.close()
        pair.close()


def test_frames_survive_pyserial_loop() -> None:
    port = SerialTransport("loop://")
    port.open()
    frames = [Frame(i, i, "PR", [str(i), "L", str(1000 * i)]) for i in range(1, 20)]
    port.write(b"".join(encode(f) for f in frames))
    data = b""
    for _ in range(100):
        data += port.read()
        if data.count(b"\n") == len(frames):
            break
    assert [decode(line + b"\n") for line in data.splitlines()] == frames
    port.close()
    port.close()


def test_host_on_loop_hears_only_itself_and_never_connects() -> None:
    time = MonotonicTime()
    with HostClock(SerialTransport("loop://"), time) as host:
        host.start("left")
        for _ in range(20):
            host.poll()
        assert not host.connected and host.hello is None and host.backlog() == 1


def test_missing_port_is_a_device_error() -> None:
    with pytest.raises(DeviceError, match="cannot open clock port /dev/no-such-clock"):
        SerialTransport("/dev/no-such-clock").open()


def test_benchmark_script_runs() -> None:
    """The link benchmark (tests/bench/clock_link.py) works end to end; figures not judged."""
    from tests.bench.clock_link import measure

    figures = measure(presses=5, commands=20)
    assert figures["presses"] == 5 and figures["commands"] == 20
    assert figures["latency_max_ms"] >= figures["latency_median_ms"] > 0
