"""The clock link's messages as typed values, and the host's commands as frames.

The wire format is ``firmware.protocol`` (shared with the Pico); this module turns the clock's
frames into dataclasses the referee can use and builds the command frames
(hardware_docs/serial-protocol.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from engine.errors import ProtocolError
from firmware.protocol import Frame, is_digits

Side = Literal["left", "right"]
Button = Literal["left", "right", "hold"]
SIDE_CODES: dict[str, Side | None] = {"L": "left", "R": "right", "-": None}
BUTTON_CODES: dict[str, Button] = {"L": "left", "R": "right", "H": "hold"}
MODES = ("delay", "countdown")
STATES = ("hold", "run", "flag")


@dataclass(frozen=True)
class Hello:
    """The clock's answer to a host's hello: firmware version, boot and configuration."""

    firmware: str
    boot: int
    session: int
    mode: str
    delay_ms: int
    start_ms: int


@dataclass(frozen=True)
class Status:
    """The clock's periodic status: both times at ``clock_ms`` (the clock's own time base)."""

    clock_ms: int
    mode: str
    state: str
    running: Side | None
    times_ms: tuple[int, int]
    delay_left_ms: int
    presses: int
    flagged: Side | None
    session: int


@dataclass(frozen=True)
class PressEvent:
    """A button press, time-stamped by the clock, with the state it left (TTB-CLOCK-2)."""

    number: int
    button: Button
    clock_ms: int
    running: Side | None
    times_ms: tuple[int, int]
    delay_left_ms: int
    state: str
    boot: int = 0


@dataclass(frozen=True)
class FlagEvent:
    """A player's time ran out at ``clock_ms`` (TTB-CLOCK-3, MG-CLOCK-3)."""

    side: Side
    clock_ms: int
    boot: int = 0


@dataclass(frozen=True)
class ErrorReport:
    """The clock refused the command with sequence number ``seq``."""

    seq: int
    reason: str


Message = Hello | Status | PressEvent | FlagEvent | ErrorReport
ClockEvent = PressEvent | FlagEvent


def _int(text: str, what: str) -> int:
    if not is_digits(text):
        raise ProtocolError(f"clock sent a bad {what}: {text!r}")
    return int(text)


def _side(text: str) -> Side | None:
    if text not in SIDE_CODES:
        raise ProtocolError(f"clock sent a bad side: {text!r}")
    return SIDE_CODES[text]


def _choice(text: str, allowed: tuple[str, ...], what: str) -> str:
    if text not in allowed:
        raise ProtocolError(f"clock sent a bad {what}: {text!r}")
    return text


def _need(frame: Frame, count: int) -> list[str]:
    if len(frame.args) < count:
        raise ProtocolError(f"clock sent {frame.kind} with {len(frame.args)} fields, need {count}")
    return frame.args


def parse_message(frame: Frame) -> Message | None:
    """The message a clock frame carries; None for frame types the host does not act on."""
    kind = frame.kind
    if kind == "HI":
        a = _need(frame, 6)
        return Hello(
            a[0],
            _int(a[1], "boot id"),
            _int(a[2], "session"),
            _choice(a[3], MODES, "mode"),
            _int(a[4], "delay"),
            _int(a[5], "start time"),
        )
    if kind == "ST":
        a = _need(frame, 10)
        return Status(
            _int(a[0], "clock time"),
            _choice(a[1], MODES, "mode"),
            _choice(a[2], STATES, "state"),
            _side(a[3]),
            (_int(a[4], "time"), _int(a[5], "time")),
            _int(a[6], "delay"),
            _int(a[7], "press count"),
            _side(a[8]),
            _int(a[9], "session"),
        )
    if kind == "PR":
        a = _need(frame, 8)
        if a[1] not in BUTTON_CODES:
            raise ProtocolError(f"clock sent a bad button: {a[1]!r}")
        return PressEvent(
            _int(a[0], "press number"),
            BUTTON_CODES[a[1]],
            _int(a[2], "press time"),
            _side(a[3]),
            (_int(a[4], "time"), _int(a[5], "time")),
            _int(a[6], "delay"),
            _choice(a[7], STATES, "state"),
        )
    if kind == "FL":
        a = _need(frame, 2)
        side = _side(a[0])
        if side is None:
            raise ProtocolError("clock sent a flag without a side")
        return FlagEvent(side, _int(a[1], "flag time"))
    if kind == "ER":
        a = _need(frame, 2)
        return ErrorReport(_int(a[0], "sequence number"), a[1])
    return None


# Commands: (frame type, arguments) for Link.send ---------------------------------------------
Command = tuple[str, list[str]]


def _ms(value: int, what: str) -> str:
    if not isinstance(value, int) or value < 0:
        raise ProtocolError(f"{what} must be a whole number of milliseconds >= 0: {value!r}")
    return str(value)


def side_code(side: Side) -> str:
    """``L`` or ``R``."""
    if side == "left":
        return "L"
    if side == "right":
        return "R"
    raise ProtocolError(f"no such side: {side!r} (left or right)")


def configure_delay(delay_ms: int, reserve_ms: int) -> Command:
    """Backgammon: delay per move, then reserve (TTB-CLOCK-4); the clock goes on hold."""
    return ("CFG", ["delay", _ms(delay_ms, "delay"), _ms(reserve_ms, "reserve")])


def configure_countdown(total_ms: int) -> Command:
    """Mangala: a countdown per player per set (MG-CLOCK-1); the clock goes on hold."""
    return ("CFG", ["countdown", _ms(total_ms, "time")])


def set_times(left_ms: int, right_ms: int) -> Command:
    return ("SET", [_ms(left_ms, "left time"), _ms(right_ms, "right time")])


def start(side: Side) -> Command:
    return ("GO", [side_code(side)])


def beep(on_ms: int, off_ms: int = 0, count: int = 1) -> Command:
    if not 1 <= count <= 10:
        raise ProtocolError(f"beep count must be 1..10: {count}")
    return ("BEEP", [_ms(on_ms, "beep"), _ms(off_ms, "pause"), str(count)])


def show(text: str, duration_ms: int) -> Command:
    clean = "".join(ch for ch in text.upper() if (ch.isascii() and ch.isalnum()) or ch in " -._")
    if clean != text.upper() or len(text) > 8:
        raise ProtocolError(f"display text must be up to 8 letters, digits, ' -._': {text!r}")
    return ("SHOW", [clean, _ms(duration_ms, "display time")])


HOLD: Command = ("HOLD", [])
RESUME: Command = ("RES", [])
RESET: Command = ("RST", [])
