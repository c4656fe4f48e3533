"""The Pico's main loop (firmware/main.py) with stand-in hardware: bounce-free presses reach
the host as frames, commands from the host act, displays and buzzer follow, no ``machine``."""

from __future__ import annotations

from firmware.device import ClockDevice
from firmware.main import Beeper, run
from firmware.protocol import Decoder, Frame, encode


class FakeHardware:
    def __init__(self) -> None:
        self.now = 0
        self.levels = [False, False, False]
        self.script: dict[int, list[bool]] = {}
        self.incoming = b""
        self.written = b""
        self.shown: list[tuple[str, str]] = []
        self.buzz: list[tuple[int, bool]] = []
        self.led: list[bool] = []

    def now_ms(self) -> int:
        return self.now

    def buttons(self) -> list[bool]:
        self.levels = self.script.get(self.now, self.levels)
        return self.levels

    def read(self) -> bytes:
        data, self.incoming = self.incoming, b""
        return data

    def write(self, data: bytes) -> None:
        self.written += data

    def show(self, left: str, right: str) -> None:
        self.shown.append((left, right))

    def buzzer(self, on: bool) -> None:
        self.buzz.append((self.now, on))

    def host_led(self, on: bool) -> None:
        self.led.append(on)

    def idle(self) -> None:
        self.now += 1


def test_loop_reports_debounced_presses_and_obeys_commands() -> None:
    hw = FakeHardware()
    device = ClockDevice(0, boot_id=9)
    hw.incoming = encode(Frame(0, 0, "HELO", ["5"])) + encode(
        Frame(1, 0, "CFG", ["countdown", "60000"])
    )
    # the right button bounces at 100 ms, is released at 300 ms
    hw.script = {
        100: [False, True, False],
        101: [False, False, False],
        102: [False, True, False],
        300: [False, False, False],
    }
    run(hw, device, loops=1500)
    frames = Decoder().feed(hw.written)
    presses = [f for f in frames if f.kind == "PR"]
    assert {tuple(f.args[:3]) for f in presses} == {("1", "R", "100")}
    assert device.core.running == 0 and device.core.mode == "countdown"
    assert hw.shown[-1] == (" 0:59", " 1:00")  # left has run since 100 ms; shown rounded up
    assert hw.buzz[:2] == [(100, True), (125, False)]  # the click
    assert hw.led[0] and not hw.led[-1]  # the host was heard, then fell silent for > 1 s
    statuses = [f for f in frames if f.kind == "ST"]
    assert all(int(f.args[0]) < 1000 for f in statuses)  # not written once nobody listens


def test_beeper_plays_requests_in_turn() -> None:
    beeper = Beeper()
    beeper.add([(100, 50, 2), (10, 0, 1)])
    sound = [beeper.update(t) for t in range(0, 320, 10)]
    assert sound == [True] * 10 + [False] * 5 + [True] * 10 + [False] * 5 + [True] + [False]
