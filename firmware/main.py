"""The clock's hardware layer on a Raspberry Pi Pico: the only file that imports ``machine``.

It reads the three buttons (debounced, time-stamped at the first edge), moves bytes between the
USB serial port and the device logic, drives the two TM1637 displays, the buzzer and the
on-board LED (lit while a host listens). Everything it decides is in ``firmware.device``.
Copied to the Pico as ``/main.py`` with the ``firmware`` package beside it
(hardware_docs/flashing.md); pins as in hardware_docs/wiring.md.
"""

import sys

from firmware.clock_core import Debouncer
from firmware.device import BOOT_ID_BYTES, ClockDevice, boot_id_from

PIN_BUTTON_LEFT = 14
PIN_BUTTON_RIGHT = 15
PIN_BUTTON_HOLD = 13
PIN_LEFT_CLK = 2
PIN_LEFT_DIO = 3
PIN_RIGHT_CLK = 4
PIN_RIGHT_DIO = 5
PIN_BUZZER = 16
BUZZER_HZ = 2700
DISPLAY_MS = 50
CLICK = (25, 0, 1)  # a short click for every press
# Held down at power-up, the hold button keeps the clock program from starting, so that the
# REPL stays free for mpremote (an update: hardware_docs/flashing.md); read this many times,
# this far apart, so that a bouncing contact or a noisy line does not count.
SERVICE_SAMPLES = 10
SERVICE_GAP_MS = 20

TYPE_CHECKING = False
if TYPE_CHECKING:  # for mypy only; MicroPython has no typing module
    from collections.abc import Callable
    from typing import Any, Protocol

    class Hardware(Protocol):
        def now_ms(self) -> int: ...
        def buttons(self) -> list[bool]: ...
        def read(self) -> bytes: ...
        def write(self, data: bytes) -> None: ...
        def show(self, left: str, right: str) -> None: ...
        def buzzer(self, on: bool) -> None: ...
        def host_led(self, on: bool) -> None: ...
        def idle(self) -> None: ...


class Beeper:
    """Plays buzzer requests ``(on ms, off ms, count)`` one after another."""

    def __init__(self) -> None:
        self.queue = []  # type: list[tuple[int, int, int]]
        self.steps = []  # type: list[tuple[bool, int]]
        self.step_end = 0

    def add(self, beeps: "list[tuple[int, int, int]]") -> None:
        self.queue.extend(beeps)

    def update(self, now_ms: int) -> bool:
        """True while the buzzer should sound at ``now_ms``."""
        while True:
            if self.steps and now_ms < self.step_end:
                return self.steps[0][0]
            if self.steps:
                self.steps.pop(0)
                if self.steps:
                    self.step_end += self.steps[0][1]
                    continue
            if not self.queue:
                return False
            on, off, count = self.queue.pop(0)
            for _ in range(count):
                self.steps.append((True, on))
                self.steps.append((False, off))
            self.step_end = now_ms + self.steps[0][1]


def run(hw: "Hardware", device: ClockDevice, loops: int = -1) -> None:
    """The main loop; ``hw`` is :class:`PicoHardware` or a test's stand-in."""
    debouncers = [Debouncer(), Debouncer(), Debouncer()]  # LEFT, RIGHT, HOLD_BUTTON
    beeper = Beeper()
    last_display = -DISPLAY_MS
    buzzing = False
    done = 0
    while loops < 0 or done < loops:
        done += 1
        now = hw.now_ms()
        levels = hw.buttons()
        for button in range(3):
            if debouncers[button].sample(levels[button], now):
                device.button(button, now)
                beeper.add([CLICK])
        data = hw.read()
        if data:
            device.receive(data, now)
        device.tick(now)
        out = device.output(now)
        if out:
            hw.write(out)
        beeper.add(device.take_beeps())
        sound = beeper.update(now)
        if sound != buzzing:
            hw.buzzer(sound)
            buzzing = sound
        if now - last_display >= DISPLAY_MS:
            left, right = device.display(now)
            hw.show(left, right)
            hw.host_led(device.host_present(now))
            last_display = now
        hw.idle()


class PicoHardware:
    """Pins, USB serial and time on the RP2040 (MicroPython only)."""

    def __init__(self) -> None:
        import os
        import select
        import time

        import machine  # MicroPython modules, imported only on the Pico
        import micropython

        from firmware.tm1637 import TM1637

        # a 0x03 byte on the link must not stop the program (its frames are binary); for an
        # update, the hold button held at power-up keeps this program from starting at all
        micropython.kbd_intr(-1)
        self._time = time
        self._last = time.ticks_ms()
        self._now = 0
        pin = machine.Pin
        self._buttons = [
            pin(n, pin.IN, pin.PULL_UP)
            for n in (PIN_BUTTON_LEFT, PIN_BUTTON_RIGHT, PIN_BUTTON_HOLD)
        ]
        self._left = TM1637(
            pin(PIN_LEFT_CLK, pin.OPEN_DRAIN, value=1),
            pin(PIN_LEFT_DIO, pin.OPEN_DRAIN, value=1),
            sleep_us=time.sleep_us,
        )
        self._right = TM1637(
            pin(PIN_RIGHT_CLK, pin.OPEN_DRAIN, value=1),
            pin(PIN_RIGHT_DIO, pin.OPEN_DRAIN, value=1),
            sleep_us=time.sleep_us,
        )
        self._buzzer = machine.PWM(pin(PIN_BUZZER))
        self._buzzer.freq(BUZZER_HZ)
        self._buzzer.duty_u16(0)
        self._led = pin("LED", pin.OUT)
        self._poll = select.poll()
        self._poll.register(sys.stdin, select.POLLIN)
        self._in = sys.stdin.buffer
        self._out = sys.stdout.buffer
        self.boot_id = boot_id_from(os.urandom(BOOT_ID_BYTES))

    def now_ms(self) -> int:
        """Milliseconds since power-on, without the 2**30 wrap of ``ticks_ms``."""
        t = self._time.ticks_ms()
        self._now += self._time.ticks_diff(t, self._last)
        self._last = t
        return self._now

    def buttons(self) -> "list[bool]":
        return [b.value() == 0 for b in self._buttons]  # pressed pulls the pin low

    def read(self) -> bytes:
        data = b""
        while len(data) < 256 and self._poll.poll(0):
            data += self._in.read(1)
        return data

    def write(self, data: bytes) -> None:
        self._out.write(data)

    def show(self, left: str, right: str) -> None:
        self._left.show(left)
        self._right.show(right)

    def buzzer(self, on: bool) -> None:
        self._buzzer.duty_u16(32768 if on else 0)

    def host_led(self, on: bool) -> None:
        self._led.value(1 if on else 0)

    def idle(self) -> None:
        self._time.sleep_ms(1)


def service_mode(machine: "Any", sleep_ms: "Callable[[int], None]") -> bool:
    """True when the hold button is held down at power-up: the clock program is then not
    started (the on-board LED lights instead), and Ctrl-C, which the clock program disables,
    still reaches the REPL, so mpremote can replace the files."""
    pin = machine.Pin
    hold = pin(PIN_BUTTON_HOLD, pin.IN, pin.PULL_UP)
    for _ in range(SERVICE_SAMPLES):
        if hold.value() != 0:  # released (pressed pulls the pin low)
            return False
        sleep_ms(SERVICE_GAP_MS)
    pin("LED", pin.OUT).value(1)
    print("hakem clock: the hold button was held at power-up, so the clock is not started; "
          "the REPL is free for mpremote (hardware_docs/flashing.md)")
    return True


def main() -> None:
    import time

    import machine

    if service_mode(machine, time.sleep_ms):
        return
    hw = PicoHardware()
    run(hw, ClockDevice(hw.now_ms(), hw.boot_id))


if __name__ == "__main__":
    main()
