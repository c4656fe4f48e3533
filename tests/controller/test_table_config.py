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
from tests.controller.hub.broker import make_certificates


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


@pytest.fixture(scope="module")
def broker_ca(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A CA certificate as a hall's self-signed broker would hand its tables."""
    ca, _, _ = make_certificates(tmp_path_factory.mktemp("ca"))
    return ca


def test_the_hub_section_gives_the_tournament_the_brokers_ca_and_a_password_file(
    tmp_path: Path, broker_ca: Path,
) -> None:
    secret = tmp_path / "hub-password"
    secret.write_text("table seven\n", encoding="utf-8")
    path = tmp_path / "table.toml"
    path.write_text(f'[table]\nid = "table-7"\n[hub]\nurl = "mqtts://table7@hub.hall"\n'
                    f'tournament = "izmir-2026"\nprefix = "cup"\nca_file = "{broker_ca}"\n'
                    f'password_file = "{secret}"\n', encoding="utf-8")
    config = load_table_config(path)
    link = config.hub.link(config.table.id, str(tmp_path / "outbox.sqlite"))
    assert (link.host, link.port, link.tls, link.ca_file) == ("hub.hall", 8883, True,
                                                              str(broker_ca))
    assert (link.username, link.password, link.secret()) == ("table7", None, "table seven")
    assert (link.prefix, link.tournament, link.table) == ("cup", "izmir-2026", "table-7")
    assert link.outbox == str(tmp_path / "outbox.sqlite")


def test_without_a_url_the_hub_files_are_not_needed() -> None:
    config = table_config_from_mapping({"hub": {"password_file": "/nowhere/pw"}})
    assert not config.hub.url


@pytest.mark.parametrize(
    ("hub", "words"),
    [
        ({"user": "table7"}, "unknown key 'hub.user' (known here: ca_file, password_file, "
                             "prefix, tournament, url)"),
        ({"password_file": 7}, "hub.password_file: expected a string, got 7"),
        ({"ca_file": True}, "hub.ca_file: expected a string, got True"),
        ({"tournament": ["cup"]}, "hub.tournament: expected a string, got a list"),
        ({"tournament": "izmir 2026"}, "hub.tournament: bad tournament id 'izmir 2026'"),
        ({"prefix": "_hub"}, "hub.prefix: bad prefix id '_hub'"),
        ({"url": "http://hub.hall"}, "hub.url: not a broker url"),
        ({"url": "mqtt://table7@hub.hall", "password_file": "/nowhere/pw"},
         "hub.password_file: cannot read /nowhere/pw: no such file or directory"),
        ({"url": "mqtt://hub.hall", "password_file": "<pw>"},
         "hub.password_file: hub.url names no user"),
        ({"url": "mqtt://table7:inline@hub.hall", "password_file": "<pw>"},
         "hub.password_file: hub.url holds a password too"),
        ({"url": "mqtt://table7@hub.hall", "ca_file": "<ca>"},
         "hub.ca_file: <ca> is for a TLS broker, but hub.url is not"),
        ({"url": "mqtts://hub.hall", "ca_file": "<pw>"},
         "hub.ca_file: cannot use <pw> as a CA file: no certificate"),
        ({"url": "mqtts://hub.hall", "ca_file": "/nowhere/ca.crt"},
         "hub.ca_file: cannot use /nowhere/ca.crt as a CA file: no such file or directory"),
    ],
)
def test_a_bad_hub_section_is_refused_naming_the_key_and_the_value(
    tmp_path: Path, broker_ca: Path, hub: dict[str, object], words: str,
) -> None:
    secret = tmp_path / "pw"
    secret.write_text("table seven\n", encoding="utf-8")
    files = {"<pw>": str(secret), "<ca>": str(broker_ca)}
    data = {key: files.get(value, value) if isinstance(value, str) else value
            for key, value in hub.items()}
    with pytest.raises(ConfigError) as info:
        table_config_from_mapping({"hub": data})
    assert words.replace("<pw>", str(secret)).replace("<ca>", str(broker_ca)) in str(info.value)


@pytest.mark.parametrize(
    ("content", "words"),
    [(b"", "the first line of PATH is empty"), (b"\nsecret\n", "the first line of PATH is empty"),
     (b"\xff\xfe\n", "PATH is not UTF-8 text"), (None, "cannot read PATH: is a directory")],
)
def test_a_password_file_that_gives_no_password_is_refused_on_load(
    tmp_path: Path, content: bytes | None, words: str,
) -> None:
    path = tmp_path / "pw"
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)
    with pytest.raises(ConfigError) as info:
        table_config_from_mapping({"hub": {"url": "mqtt://table7@hub.hall",
                                           "password_file": str(path)}})
    assert str(info.value) == "hub.password_file: " + words.replace("PATH", str(path)) + (
        ": it must hold the broker password" if "empty" in words else "")


def test_a_publishing_tables_id_must_suit_the_hubs_topics() -> None:
    assert table_config_from_mapping({"table": {"id": "_t7"}}).table.id == "_t7"
    with pytest.raises(ConfigError, match=r"^table\.id: bad table id '_t7'"):
        table_config_from_mapping({"table": {"id": "_t7"}, "hub": {"url": "mqtt://hub.hall"}})
