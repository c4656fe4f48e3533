"""The configuration loader: every wrong key or value is refused with its dotted name."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import pytest

from controller.config.loader import build, load_toml_file
from engine.errors import ConfigError


@dataclass(frozen=True)
class Clock:
    port: str | None = None
    delay_s: float = 12.0
    reserve_s_per_point: float = 120.0
    kind: Literal["serial", "sim"] = "sim"

    def __post_init__(self) -> None:
        if self.delay_s < 0:
            raise ConfigError(f"clock.delay_s: must not be negative, got {self.delay_s}")


@dataclass(frozen=True)
class Table:
    id: str = "table-1"
    players: tuple[str, str] = ("A", "B")
    pins: dict[str, int] = field(default_factory=dict)
    clock: Clock = field(default_factory=Clock)


def test_defaults_need_no_file() -> None:
    assert build(Table, {}) == Table()


def test_values_are_converted_to_their_types(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    path.write_text(
        'id = "t7"\nplayers = ["Ayşe", "Mehmet"]\n[pins]\nturn_left = 17\n'
        '[clock]\nkind = "serial"\nport = "/dev/ttyACM0"\ndelay_s = 15\n',
        encoding="utf-8",
    )
    table = load_toml_file(Table, path)
    assert table.players == ("Ayşe", "Mehmet")
    assert table.pins == {"turn_left": 17}
    assert table.clock == Clock(port="/dev/ttyACM0", delay_s=15.0, kind="serial")
    assert isinstance(table.clock.delay_s, float)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"clock": {"delay": 3}}, "unknown key 'clock.delay'"),
        ({"colour": "red"}, "unknown key 'colour'"),
        ({"clock": {"delay_s": "12"}}, "clock.delay_s: expected a number, got '12'"),
        ({"clock": {"delay_s": True}}, "clock.delay_s: expected a number, got True"),
        ({"clock": {"kind": "usb"}}, "clock.kind: must be one of 'serial', 'sim', got 'usb'"),
        ({"clock": {"delay_s": -1}}, "clock.delay_s: must not be negative"),
        ({"clock": 5}, "clock: expected a table, got 5"),
        ({"players": ["A"]}, "players: expected 2 items, got 1"),
        ({"players": ["A", 2]}, r"players\[1\]: expected a string, got 2"),
        ({"pins": {"turn_left": 1.5}}, "pins.turn_left: expected a whole number, got 1.5"),
        ({"clock": {"port": 7}}, "clock.port: expected a string, got 7"),
    ],
)
def test_bad_keys_and_values_name_the_key(data: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        build(Table, data)


def test_bad_toml_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "broken.toml"
    path.write_text("id = \n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"broken\.toml: not valid TOML"):
        load_toml_file(Table, path)
