"""The TM1637 driver's waveform, decoded by a bus model written from the chip's timing rules."""

from __future__ import annotations

from firmware.tm1637 import CMD_ADDRESS, CMD_DATA_AUTO, CMD_DISPLAY_ON, TM1637, segments


class Bus:
    """Two recorded lines; decodes start, LSB-first bytes with a ninth ACK clock, stop."""

    def __init__(self) -> None:
        self.clk = 1
        self.dio = 1
        self.frames: list[list[int]] = []
        self._bits: list[int] | None = None

    def set_clk(self, v: int) -> None:
        if v and not self.clk and self._bits is not None:
            self._bits.append(self.dio)  # data is sampled on the rising clock edge
        self.clk = v

    def set_dio(self, v: int) -> None:
        if self.clk and self.dio and not v:
            self._bits = []  # start condition
        elif self.clk and not self.dio and v and self._bits is not None:
            bits, self._bits = self._bits, None  # stop condition
            assert len(bits) % 9 == 1, bits  # the stop condition raises the clock once more
            frame = []
            for i in range(0, len(bits) - 1, 9):
                frame.append(sum(bit << n for n, bit in enumerate(bits[i : i + 8])))
            self.frames.append(frame)
        self.dio = v


class Line:
    def __init__(self, setter) -> None:  # type: ignore[no-untyped-def]
        self.setter = setter

    def value(self, v: int) -> None:
        self.setter(v)


def test_segments_for_times_and_text() -> None:
    assert segments("12:34") == [0x06, 0x5B | 0x80, 0x4F, 0x66]
    assert segments(" 9.5") == [0x00, 0x6F | 0x80, 0x6D, 0x00]
    assert segments("SET 2") == [0x6D, 0x79, 0x78, 0x00]
    assert segments("") == [0, 0, 0, 0]
    assert segments("?") == [0, 0, 0, 0]


def test_show_sends_three_frames_once() -> None:
    bus = Bus()
    display = TM1637(Line(bus.set_clk), Line(bus.set_dio), brightness=3)
    display.show("19.7")
    assert bus.frames == [
        [CMD_DATA_AUTO],
        [CMD_ADDRESS, 0x06, 0x6F | 0x80, 0x07, 0x00],
        [CMD_DISPLAY_ON | 3],
    ]
    display.show("19.7")
    assert len(bus.frames) == 3  # unchanged text: nothing sent
    display.show(" 0:00")
    assert bus.frames[-2] == [CMD_ADDRESS, 0x00, 0x3F | 0x80, 0x3F, 0x3F]
