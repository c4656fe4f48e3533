"""Driver for a TM1637 4-digit LED display, bit-banged on two pins (MicroPython and CPython).

The pins are any objects with ``value(v)`` (``machine.Pin`` in open-drain mode on the Pico, a
recorder in tests). A frame is: start (DIO falls while CLK is high), bytes LSB first with DIO
set while CLK is low, a ninth clock for the chip's ACK, stop (DIO rises while CLK is high).
"""

TYPE_CHECKING = False
if TYPE_CHECKING:  # for mypy only; MicroPython has no typing module
    from collections.abc import Callable
    from typing import Protocol

    class PinLike(Protocol):
        def value(self, v: int) -> object: ...


CMD_DATA_AUTO = 0x40  # write display data, address auto-increment
CMD_ADDRESS = 0xC0  # first digit
CMD_DISPLAY_ON = 0x88  # display on, OR brightness 0..7
DOT = 0x80  # the decimal point or colon segment of a digit

_DIGITS = (0x3F, 0x06, 0x5B, 0x4F, 0x66, 0x6D, 0x7D, 0x07, 0x7F, 0x6F)
_LETTERS = {
    "A": 0x77,
    "B": 0x7C,
    "C": 0x39,
    "D": 0x5E,
    "E": 0x79,
    "F": 0x71,
    "G": 0x3D,
    "H": 0x76,
    "I": 0x30,
    "J": 0x1E,
    "L": 0x38,
    "N": 0x54,
    "O": 0x5C,
    "P": 0x73,
    "R": 0x50,
    "S": 0x6D,
    "T": 0x78,
    "U": 0x3E,
    "Y": 0x6E,
    "-": 0x40,
    "_": 0x08,
    " ": 0x00,
}


def segments(text: str) -> "list[int]":
    """Four segment bytes for ``text``: digits, a few letters, ``-``, ``_``, space; a ``.`` or
    ``:`` lights the dot/colon of the digit before it. Unknown characters show blank."""
    out = []  # type: list[int]
    for ch in text.upper():
        if ch in ".:":
            if out:
                out[-1] |= DOT
            continue
        if "0" <= ch <= "9":
            out.append(_DIGITS[ord(ch) - 48])
        else:
            out.append(_LETTERS.get(ch, 0))
    out = out[:4]
    while len(out) < 4:
        out.append(0)
    return out


def _no_wait(us: int) -> None:
    pass


class TM1637:
    """One display on a clock pin and a data pin."""

    def __init__(
        self,
        clk: "PinLike",
        dio: "PinLike",
        brightness: int = 7,
        sleep_us: "Callable[[int], None] | None" = None,
    ) -> None:
        self.clk = clk
        self.dio = dio
        self.wait = sleep_us if sleep_us is not None else _no_wait
        self.brightness = brightness & 7
        self._shown = None  # type: list[int] | None
        self.clk.value(1)
        self.dio.value(1)

    def _clk(self, v: int) -> None:
        self.clk.value(v)
        self.wait(5)

    def _dio(self, v: int) -> None:
        self.dio.value(v)
        self.wait(5)

    def _start(self) -> None:
        self._dio(0)
        self._clk(0)

    def _stop(self) -> None:
        self._dio(0)
        self._clk(1)
        self._dio(1)

    def _byte(self, b: int) -> None:
        for i in range(8):
            self._dio((b >> i) & 1)
            self._clk(1)
            self._clk(0)
        self._dio(1)  # release DIO: the chip pulls it low to acknowledge
        self._clk(1)
        self._clk(0)

    def _frame(self, data: "list[int]") -> None:
        self._start()
        for b in data:
            self._byte(b)
        self._stop()

    def show(self, text: str) -> None:
        """Show ``text`` (see :func:`segments`); nothing is sent when it has not changed."""
        segs = segments(text)
        if segs == self._shown:
            return
        self._frame([CMD_DATA_AUTO])
        data = [CMD_ADDRESS]
        data.extend(segs)
        self._frame(data)
        self._frame([CMD_DISPLAY_ON | self.brightness])
        self._shown = segs
