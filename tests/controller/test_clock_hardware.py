"""The real clock on its USB port (opt in: ``pytest --run-hardware``; the port from
HAKEM_CLOCK_PORT, default /dev/ttyACM0). Press the buttons when asked."""

from __future__ import annotations

import os

import pytest

from controller.clock import HostClock, SerialTransport, wait_for

pytestmark = pytest.mark.hardware
PORT = os.environ.get("HAKEM_CLOCK_PORT", "/dev/ttyACM0")


def test_real_clock_answers_and_obeys() -> None:
    with HostClock(SerialTransport(PORT)) as clock:
        assert wait_for(clock, lambda: clock.connected and clock.status is not None, 5)
        assert clock.state().firmware is not None
        clock.configure_countdown(15 * 60000)  # MG-CLOCK-1
        clock.start("left")
        assert wait_for(clock, lambda: clock.backlog() == 0, 5)
        assert wait_for(clock, lambda: clock.state().running == "left", 5)
        clock.hold()
        assert wait_for(clock, lambda: clock.state().running is None, 5)
        clock.reset()
        assert wait_for(clock, lambda: clock.state().times_ms == (900000, 900000), 5)


def test_real_clock_reports_a_press() -> None:
    with HostClock(SerialTransport(PORT)) as clock:
        assert wait_for(clock, lambda: clock.connected, 5)
        clock.show("PRESS L", 10000)
        events: list = []
        assert wait_for(clock, lambda: bool(events), 15, events)
        assert events[0].button in ("left", "right", "hold")
