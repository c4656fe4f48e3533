"""The simulated clock: the real firmware (``firmware.device``) running in-process on any
transport, with an injectable time source. ``hakem clock sim`` puts it on a serial port; the
demo and the tests put it on an in-memory wire (:class:`LoopbackClock`)."""

from __future__ import annotations

import contextlib
import random

from controller.clock import messages as m
from controller.clock.host import ClockState, HostClock
from controller.clock.timebase import TimeSource
from controller.clock.transport import Transport
from controller.clock.wire import Wire
from engine.errors import DeviceError
from firmware import clock_core
from firmware.device import BOOT_ID_BYTES, ClockDevice, boot_id_from

BUTTONS: dict[m.Button, int] = {
    "left": clock_core.LEFT,
    "right": clock_core.RIGHT,
    "hold": clock_core.HOLD_BUTTON,
}


class SimulatedClock:
    """The firmware's device logic on a transport; ``step()`` is one pass of its main loop."""

    def __init__(self, transport: Transport, time: TimeSource, boot_id: int | None = None) -> None:
        self.transport = transport
        self.time = time
        boot = boot_id if boot_id is not None else boot_id_from(
            random.SystemRandom().randbytes(BOOT_ID_BYTES))
        self.device = ClockDevice(time.now_ms(), boot)
        self.beeps: list[tuple[int, int, int]] = []

    def step(self) -> None:
        """Read what the host sent, let time pass, write what is due. A lost port is the
        host's problem: the clock keeps time and keeps its queue."""
        now = self.time.now_ms()
        if not self.transport.is_open:
            with contextlib.suppress(DeviceError):
                self.transport.open()
        if self.transport.is_open:
            try:
                data = self.transport.read()
            except DeviceError:
                data = b""
            if data:
                self.device.receive(data, now)
        self.device.tick(now)
        self._flush()

    def _flush(self) -> None:
        data = self.device.output(self.time.now_ms())
        self.beeps += self.device.take_beeps()
        if data and self.transport.is_open:
            # the port is gone: the link resends later
            with contextlib.suppress(DeviceError):
                self.transport.write(data)

    def press(self, button: m.Button) -> clock_core.Press:
        """A player presses a button now."""
        press = self.device.button(BUTTONS[button], self.time.now_ms())
        self._flush()
        return press

    def times_ms(self) -> tuple[int, int]:
        """The truth: both times on the clock now."""
        times = self.device.core.times(self.time.now_ms())
        return (times[0], times[1])

    def display(self) -> tuple[str, str]:
        """What the two displays show now."""
        return self.device.display(self.time.now_ms())


class LoopbackClock:
    """A :class:`HostClock` talking to a :class:`SimulatedClock` over an in-memory wire, in one
    object: the referee drives it exactly like the real clock, the demo's players press its
    buttons. ``poll()`` runs both ends."""

    def __init__(self, time: TimeSource, *, wire: Wire | None = None, boot_id: int = 1) -> None:
        self.wire = wire if wire is not None else Wire()
        self.sim = SimulatedClock(self.wire.clock_end, time, boot_id)
        self.host = HostClock(self.wire.host_end, time)

    def poll(self) -> list[m.ClockEvent]:
        self.sim.step()
        events = self.host.poll()
        self.sim.step()
        return events

    def press(self, button: m.Button) -> clock_core.Press:
        """A simulated player presses a button."""
        return self.sim.press(button)

    def state(self) -> ClockState:
        return self.host.state()

    def configure_delay(self, delay_ms: int, reserve_ms: int) -> None:
        self.host.configure_delay(delay_ms, reserve_ms)

    def configure_countdown(self, total_ms: int) -> None:
        self.host.configure_countdown(total_ms)

    def set_times(self, left_ms: int, right_ms: int) -> None:
        self.host.set_times(left_ms, right_ms)

    def start(self, side: m.Side) -> None:
        self.host.start(side)

    def hold(self) -> None:
        self.host.hold()

    def resume(self) -> None:
        self.host.resume()

    def reset(self) -> None:
        self.host.reset()

    def beep(self, on_ms: int, off_ms: int = 0, count: int = 1) -> None:
        self.host.beep(on_ms, off_ms, count)

    def show(self, text: str, duration_ms: int) -> None:
        self.host.show(text, duration_ms)

    def close(self) -> None:
        self.host.close()
