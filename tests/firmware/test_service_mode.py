"""The way into a running clock for an update (firmware/main.py): the hold button held down at
power-up keeps the clock program from starting, so Ctrl-C (which the program disables) and
the REPL stay free for mpremote. Stand-in ``machine`` pins, no Pico."""

from __future__ import annotations

import sys
import time
import types
from typing import Any

import pytest

import firmware.main as pico


class FakeMachine:
    """``machine`` with the hold button's levels scripted (0: held down) and the on-board LED
    recorded."""

    def __init__(self, levels: list[int]) -> None:
        self.levels = levels
        self.read = 0
        self.led: list[int] = []
        machine = self

        class Pin:
            IN, OUT, PULL_UP = "in", "out", "pull_up"

            def __init__(self, name: object, mode: object = None, pull: object = None) -> None:
                self.name = name
                assert name in (pico.PIN_BUTTON_HOLD, "LED")
                if name == pico.PIN_BUTTON_HOLD:
                    assert (mode, pull) == (Pin.IN, Pin.PULL_UP)

            def value(self, v: int | None = None) -> int:
                if v is not None:
                    machine.led.append(v)
                    return v
                level = machine.levels[min(machine.read, len(machine.levels) - 1)]
                machine.read += 1
                return level

        self.Pin = Pin


def test_held_at_power_up_the_clock_is_not_started(capsys: pytest.CaptureFixture[str]) -> None:
    machine = FakeMachine([0])
    slept: list[int] = []
    assert pico.service_mode(machine, slept.append) is True
    assert machine.read == pico.SERVICE_SAMPLES  # held the whole time it was read
    assert sum(slept) == pico.SERVICE_SAMPLES * pico.SERVICE_GAP_MS  # about 0.2 s
    assert machine.led == [1]
    assert "the REPL is free for mpremote" in capsys.readouterr().out


@pytest.mark.parametrize("levels", [[1], [0, 0, 0, 1]], ids=["not held", "let go at once"])
def test_otherwise_the_clock_starts(levels: list[int]) -> None:
    machine = FakeMachine(levels)
    assert pico.service_mode(machine, lambda ms: None) is False
    assert machine.led == []


def _pico(monkeypatch: pytest.MonkeyPatch, levels: list[int]) -> dict[str, Any]:
    """``main()``'s MicroPython modules and hardware replaced; what it did is returned."""
    done: dict[str, Any] = {"hardware": 0, "run": 0, "kbd_intr": []}
    monkeypatch.setitem(sys.modules, "machine", FakeMachine(levels))
    micropython = types.ModuleType("micropython")
    micropython.kbd_intr = done["kbd_intr"].append  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "micropython", micropython)
    monkeypatch.setattr(time, "sleep_ms", lambda ms: None, raising=False)

    class Hardware:
        boot_id = 1

        def __init__(self) -> None:
            done["hardware"] += 1
            sys.modules["micropython"].kbd_intr(-1)  # as PicoHardware does

        def now_ms(self) -> int:
            return 0

    def run(hw: object, device: object) -> None:
        done["run"] += 1

    monkeypatch.setattr(pico, "PicoHardware", Hardware)
    monkeypatch.setattr(pico, "run", run)
    return done


def test_main_leaves_the_repl_free_when_the_hold_button_is_held(
    monkeypatch: pytest.MonkeyPatch
) -> None:
    done = _pico(monkeypatch, [0])
    pico.main()
    assert done == {"hardware": 0, "run": 0, "kbd_intr": []}  # Ctrl-C still stops it


def test_main_runs_the_clock_otherwise(monkeypatch: pytest.MonkeyPatch) -> None:
    done = _pico(monkeypatch, [1])
    pico.main()
    assert done == {"hardware": 1, "run": 1, "kbd_intr": [-1]}
