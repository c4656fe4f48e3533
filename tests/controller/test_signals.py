"""LEDs and buzzer through gpiozero's MockFactory: the pins' states, not the calls."""

from __future__ import annotations

import pytest
from gpiozero.pins.mock import MockFactory

from controller.clock import FakeTime
from controller.signals import PATTERNS, SignalPins, Signals
from engine.errors import ConfigError, DeviceError

PINS = SignalPins()


def pin(factory: MockFactory, number: int) -> bool:
    return bool(factory.pin(number).state)


def test_turn_leds_follow_the_player_to_move(factory: MockFactory) -> None:
    with Signals(PINS, time=FakeTime(), pin_factory=factory) as s:
        s.turn("left")
        assert pin(factory, PINS.turn_left) and not pin(factory, PINS.turn_right)
        s.turn("right")
        assert not pin(factory, PINS.turn_left) and pin(factory, PINS.turn_right)
        s.turn(None)  # on hold
        assert not pin(factory, PINS.turn_left) and not pin(factory, PINS.turn_right)


def test_shared_leds(factory: MockFactory) -> None:
    with Signals(PINS, time=FakeTime(), pin_factory=factory) as s:
        s.throw_again()  # BG-ROLL-2
        s.illegal_move()  # TTB-4.8
        s.cannot_read()
        s.system_ok()
        for number in (PINS.throw_again, PINS.illegal_move, PINS.cannot_read, PINS.system_ok):
            assert pin(factory, number)
        s.clear_flags()
        assert not pin(factory, PINS.throw_again)
        assert not pin(factory, PINS.illegal_move)
        assert not pin(factory, PINS.cannot_read)
        assert pin(factory, PINS.system_ok)
        assert s.lit()["system_ok"] and not s.lit()["buzzer"]


def test_buzzer_pattern_follows_the_time_source(factory: MockFactory) -> None:
    time = FakeTime(1000)
    with Signals(PINS, time=time, pin_factory=factory) as s:
        s.buzz("invalid_throw")  # 120 on, 80 off, 120 on
        seen = []
        for _ in range(40):
            seen.append(pin(factory, PINS.buzzer))
            time.advance(10)
            s.tick()
        assert seen == [True] * 12 + [False] * 8 + [True] * 12 + [False] * 8
        assert not s.buzzing
        assert sum(PATTERNS["invalid_throw"][::2]) == 240


def test_active_low_wiring_inverts_the_pins(factory: MockFactory) -> None:
    pins = SignalPins(active_high=False)
    with Signals(pins, time=FakeTime(), pin_factory=factory) as s:
        assert pin(factory, pins.system_ok)  # off means high on an active-low LED
        s.system_ok()
        assert not pin(factory, pins.system_ok)


def test_close_twice_turns_everything_off(factory: MockFactory) -> None:
    s = Signals(PINS, time=FakeTime(), pin_factory=factory)
    s.turn("left")
    s.buzz("time_out")
    s.close()
    s.close()
    assert not pin(factory, PINS.turn_left) and not pin(factory, PINS.buzzer)
    with pytest.raises(DeviceError):
        s.turn("right")
    s.tick()  # harmless after close


def test_bad_configuration_names_the_key() -> None:
    with pytest.raises(ConfigError, match=r"buzzer uses GPIO5, already signals\.turn_left"):
        SignalPins(buzzer=5)
    with pytest.raises(ConfigError, match=r"signals\.system_ok"):
        SignalPins(system_ok=40)
    with (
        pytest.raises(ConfigError, match="no such buzzer pattern"),
        Signals(PINS, time=FakeTime(), pin_factory=MockFactory()) as s,
    ):
        s.buzz("fanfare")


def test_pin_in_use_is_a_device_error(factory: MockFactory) -> None:
    with (
        Signals(PINS, time=FakeTime(), pin_factory=factory),
        pytest.raises(DeviceError, match="cannot set up"),
    ):
        Signals(PINS, time=FakeTime(), pin_factory=factory)


def test_no_pin_library_is_one_error_naming_what_was_tried(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Off a Raspberry Pi gpiozero warns once per pin library it falls back from, then fails:
    one error names them all (``hakem run`` printed the warnings over ten lines first)."""
    import warnings

    from gpiozero import BadPinFactory, Device, PinFactoryFallback

    def no_library() -> None:
        warnings.warn(PinFactoryFallback("Falling back from lgpio: No module named 'lgpio'"),
                      stacklevel=2)
        warnings.warn(PinFactoryFallback("Falling back from native: not a Pi"), stacklevel=2)
        raise BadPinFactory("Unable to load any default pin factory!")

    monkeypatch.setattr(Device, "pin_factory", None)
    monkeypatch.setattr(Device, "_default_pin_factory", staticmethod(no_library))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning let through would raise here
        with pytest.raises(DeviceError) as info:
            Signals(PINS, time=FakeTime())
    assert str(info.value) == (
        "cannot set up the LEDs and buzzer: Unable to load any default pin factory! (pin "
        "libraries tried: lgpio: No module named 'lgpio'; native: not a Pi; off a Raspberry "
        "Pi, GPIOZERO_PIN_FACTORY=mock runs without them)")
