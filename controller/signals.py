"""The table's LEDs and buzzer on the Pi's GPIO (gpiozero): a turn LED per player, shared LEDs
for "throw again" (BG-ROLL-2), "illegal move" (TTB-4.8), "cannot read the board" and "system
OK", and buzzer patterns. Pins come from configuration; tests use gpiozero's ``MockFactory``.

The buzzer is stepped by :meth:`Signals.tick` from an injectable time source rather than by
gpiozero's background threads, so a pattern is exact and testable without sleeping.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, fields
from typing import Any

from gpiozero import LED, DigitalOutputDevice, PinFactoryFallback

from controller.clock.messages import Side
from controller.clock.timebase import MonotonicTime, TimeSource
from controller.closing import ClosedOnExit
from engine.errors import ConfigError, DeviceError

LAMPS = ("turn_left", "turn_right", "throw_again", "illegal_move", "cannot_read", "system_ok")

# Buzzer patterns: alternating on and off durations in ms, starting with "on".
PATTERNS: dict[str, tuple[int, ...]] = {
    "press": (60,),
    "ok": (40, 60, 40),
    "invalid_throw": (120, 80, 120),  # BG-ROLL-2: throw again
    "illegal_move": (400, 150, 400, 150, 400),  # TTB-4.8: correct it before the next roll
    "cannot_read": (800,),
    "time_out": (1000, 200, 1000, 200, 1000),  # TTB-CLOCK-3, MG-CLOCK-3
}


@dataclass(frozen=True)
class SignalPins:
    """BCM GPIO numbers of the LEDs and the buzzer (hardware_docs/wiring.md has the table)."""

    turn_left: int = 5
    turn_right: int = 6
    throw_again: int = 13
    illegal_move: int = 19
    cannot_read: int = 26
    system_ok: int = 21
    buzzer: int = 12
    active_high: bool = True

    def __post_init__(self) -> None:
        seen: dict[int, str] = {}
        for f in fields(self):
            if f.name == "active_high":
                continue
            pin = getattr(self, f.name)
            if isinstance(pin, bool) or not isinstance(pin, int) or not 2 <= pin <= 27:
                raise ConfigError(f"signals.{f.name} must be a BCM GPIO number 2..27: {pin!r}")
            if pin in seen:
                raise ConfigError(f"signals.{f.name} uses GPIO{pin}, already signals.{seen[pin]}")
            seen[pin] = f.name


class Signals(ClosedOnExit):
    """The LEDs and the buzzer; a context manager, and ``close()`` may be called twice."""

    def __init__(
        self,
        pins: SignalPins | None = None,
        *,
        time: TimeSource | None = None,
        pin_factory: Any = None,
    ) -> None:
        """``pin_factory`` is gpiozero's (``MockFactory()`` in tests, None for the Pi's)."""
        self.pins = pins if pins is not None else SignalPins()
        self.time: TimeSource = time if time is not None else MonotonicTime()
        self._lamps: dict[str, Any] = {}
        self._pattern: tuple[int, ...] = ()
        self._pattern_start = 0
        self._closed = False
        # gpiozero warns once per pin library it falls back from; on a Pi one of them works
        # and the warnings are noise, off a Pi they end in an error that names them
        with warnings.catch_warnings(record=True) as fallbacks:
            warnings.simplefilter("always", PinFactoryFallback)
            try:
                for name in LAMPS:
                    self._lamps[name] = LED(
                        getattr(self.pins, name),
                        active_high=self.pins.active_high,
                        pin_factory=pin_factory,
                    )
                self._buzzer: Any = DigitalOutputDevice(
                    self.pins.buzzer, active_high=self.pins.active_high, pin_factory=pin_factory
                )
            except Exception as exc:  # gpiozero raises its own tree (no pin library, pin in use)
                self.close()
                tried = "; ".join(str(w.message).removeprefix("Falling back from ")
                                  for w in fallbacks
                                  if issubclass(w.category, PinFactoryFallback))
                hint = (f" (pin libraries tried: {tried}; off a Raspberry Pi, "
                        "GPIOZERO_PIN_FACTORY=mock runs without them)") if tried else ""
                raise DeviceError(f"cannot set up the LEDs and buzzer: {exc}{hint}") from exc

    # lamps ---------------------------------------------------------------------------------
    def _set(self, name: str, on: bool) -> None:
        if self._closed:
            raise DeviceError("the LEDs and buzzer are closed")
        lamp = self._lamps[name]
        if on:
            lamp.on()
        else:
            lamp.off()

    def turn(self, side: Side | None) -> None:
        """Light the turn LED of the player to move (None: nobody, e.g. on hold)."""
        if side not in ("left", "right", None):
            raise ConfigError(f"no such side: {side!r} (left, right or none)")
        self._set("turn_left", side == "left")
        self._set("turn_right", side == "right")

    def throw_again(self, on: bool = True) -> None:
        """The throw was invalid and both dice are thrown again (BG-ROLL-2)."""
        self._set("throw_again", on)

    def illegal_move(self, on: bool = True) -> None:
        """The move is illegal and must be corrected (TTB-4.8, TTB-4.9)."""
        self._set("illegal_move", on)

    def cannot_read(self, on: bool = True) -> None:
        """The camera cannot read the board; the referee waits rather than guess."""
        self._set("cannot_read", on)

    def system_ok(self, on: bool = True) -> None:
        """Everything (camera, clock, journal) works."""
        self._set("system_ok", on)

    def clear_flags(self) -> None:
        """Turn off the three warning LEDs."""
        for name in ("throw_again", "illegal_move", "cannot_read"):
            self._set(name, False)

    def lit(self) -> dict[str, bool]:
        """Which LEDs are on, by name, and whether the buzzer sounds."""
        state = {name: bool(lamp.is_lit) for name, lamp in self._lamps.items()}
        state["buzzer"] = bool(self._buzzer.value)
        return state

    # buzzer --------------------------------------------------------------------------------
    def buzz(self, pattern: str) -> None:
        """Start a buzzer pattern by name (it replaces one still sounding)."""
        if pattern not in PATTERNS:
            known = ", ".join(sorted(PATTERNS))
            raise ConfigError(f"no such buzzer pattern: {pattern!r} (known: {known})")
        if self._closed:
            raise DeviceError("the LEDs and buzzer are closed")
        self._pattern = PATTERNS[pattern]
        self._pattern_start = self.time.now_ms()
        self.tick()

    def tick(self) -> None:
        """Switch the buzzer as the pattern says for now; call it every few ms."""
        if self._closed:
            return
        elapsed = self.time.now_ms() - self._pattern_start
        on = False
        for i, length in enumerate(self._pattern):
            if elapsed < length:
                on = i % 2 == 0
                break
            elapsed -= length
        else:
            self._pattern = ()
        if on:
            self._buzzer.on()
        else:
            self._buzzer.off()

    @property
    def buzzing(self) -> bool:
        """True while a pattern has not finished."""
        return bool(self._pattern)

    # lifetime --------------------------------------------------------------------------------
    def close(self) -> None:
        """Turn everything off and release the pins; safe to call twice."""
        self._closed = True
        devices = [*self._lamps.values(), getattr(self, "_buzzer", None)]
        for device in devices:
            if device is not None and not device.closed:
                device.off()
                device.close()
