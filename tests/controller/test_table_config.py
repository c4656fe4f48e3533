"""The table's TOML configuration: defaults, the example file, and errors that name the key."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from controller.config.table import (
    EXAMPLE_TOML,
    TableConfig,
    load_table_config,
    table_config_from_mapping,
)
from controller.runtime.session import referee_config
from engine.backgammon.rules import DiceSetup, Opening
from engine.errors import ConfigError


def test_no_file_gives_every_default() -> None:
    config = load_table_config(None)
    assert config == TableConfig()
    assert config.match.length == 5 and config.match.crawford
    assert config.rules.engine_rules(crawford=True).dice is DiceSetup.SHARED_PAIR


def test_the_example_file_is_valid_and_matches_the_defaults() -> None:
    config = table_config_from_mapping(tomllib.loads(EXAMPLE_TOML))
    assert config == TableConfig()


def test_a_file_is_read(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    path.write_text(
        '[table]\nid = "t7"\n[match]\nlength = 7\n[players]\nleft = "Ayse"\nright = "Bora"\n'
        'bottom = "right"\nbottom_colour = "lighter"\n[rules]\nopening = "turkish"\n'
        'dice = "pair-each"\n[camera]\nsource = "0"\ncorners = [1, 2, 3, 4, 5, 6, 7, 8]\n'
        '[clock]\nport = "/dev/ttyUSB0"\ndelay_s = 10\n[signals]\nbuzzer = 18\n'
        '[vision.stillness]\nstill_frames = 4\n',
        encoding="utf-8",
    )
    config = load_table_config(path)
    assert config.table.id == "t7"
    assert config.camera.corners == (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0)
    assert config.signals.buzzer == 18
    assert config.vision_config().stillness.still_frames == 4
    rules = config.rules.engine_rules(crawford=config.match.crawford)
    assert rules.opening is Opening.TURKISH and rules.dice is DiceSetup.PAIR_EACH


@pytest.mark.parametrize(
    ("data", "key"),
    [
        ({"clock": {"delay_s": "twelve"}}, "clock.delay_s"),
        ({"clock": {"port": ""}}, "clock.port"),
        ({"match": {"length": 0}}, "match.length"),
        ({"match": {"lenght": 5}}, "match.lenght"),
        ({"players": {"bottom": "middle"}}, "players.bottom"),
        ({"players": {"left": "Ali", "right": "Ali"}}, "players.right"),
        ({"rules": {"dice": "three"}}, "rules.dice"),
        ({"camera": {"corners": [1, 2, 3]}}, "camera.corners"),
        ({"camera": {"fps": 0}}, "camera.fps"),
        ({"camera": {"die_floor": 2}}, "camera.die_floor"),
        ({"signals": {"buzzer": 5}}, "signals.buzzer"),
        ({"signals": {"turn_left": 40}}, "signals.turn_left"),
        ({"table": {"id": "a b"}}, "table.id"),
        ({"vision": {"stillness": {"still_frames": "x"}}}, "vision.stillness.still_frames"),
        ({"vision": {"nonsense": 1}}, "vision.nonsense"),
        ({"hub": {"url": 3}}, "hub.url"),
        ({"kitchen": {}}, "kitchen"),
    ],
)
def test_every_error_names_the_key(data: dict[str, object], key: str) -> None:
    with pytest.raises(ConfigError) as info:
        table_config_from_mapping(data)
    assert key in str(info.value)


def test_bad_toml_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "broken.toml"
    path.write_text("[match\nlength = 3\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"broken\.toml"):
        load_table_config(path)


def test_the_referee_settings_follow_who_sits_where() -> None:
    config = table_config_from_mapping(
        {"players": {"left": "Ayse", "right": "Bora", "bottom": "right"},
         "match": {"length": 3}, "clock": {"delay_s": 12, "reserve_s_per_point": 120}}
    )
    rc = referee_config(config)
    # the bottom player is the engine's first player (the layout's first player)
    assert rc.players == ("Bora", "Ayse")
    assert rc.clock_sides == ("right", "left")
    assert rc.player_of_side("right") == 0
    assert rc.delay_ms == 12_000 and rc.reserve_ms == 3 * 120_000
    assert rc.length == 3
