"""Topics, broker URLs, the link configuration (TOML) and the durable outbox."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.config.loader import build, load_toml_file
from controller.hub.link import LinkConfig, parse_broker_url
from controller.hub.outbox import Outbox
from controller.hub.topics import parse_table_topic, table_topic
from engine.errors import ConfigError, HakemError, InvalidInputError, ProtocolError


def test_topics_have_one_prefix_then_tournament_then_table() -> None:
    topic = table_topic("hakem", "istanbul-open", "12", "events")
    assert topic == "hakem/istanbul-open/12/events"
    parsed = parse_table_topic("hakem", topic)
    assert (parsed.tournament, parsed.table, parsed.leaf) == ("istanbul-open", "12", "events")
    for bad in ("hakem/a/b", "other/a/b/events", "hakem/a/b/c/events", "hakem/_hub/x/events",
                "hakem/a/+/events", "hakem/a/b/nonsense"):
        with pytest.raises(ProtocolError, match="topic"):
            parse_table_topic("hakem", bad)


def test_broker_urls_give_host_port_tls_and_login() -> None:
    link = parse_broker_url("mqtts://td:s%40cret@broker.hall:8884")
    assert (link.host, link.port, link.tls, link.username, link.password) == (
        "broker.hall", 8884, True, "td", "s@cret")
    assert parse_broker_url("mqtt://127.0.0.1").port == 1883
    assert parse_broker_url("mqtts://h").port == 8883
    for bad in ("http://h:1", "mqtt://", "mqtt://h:99999", "mqtt://h/path"):
        with pytest.raises(InvalidInputError):
            parse_broker_url(bad)


def test_a_refused_broker_url_is_named_without_its_password() -> None:
    for bad, shown in (("mqtt://table7:hunter22@hub.hall:99999", "mqtt://table7:***@hub.hall:99999"),
                       ("http://table7:hunter22@hub.hall", "http://table7:***@hub.hall"),
                       ("mqtt://table7:hunter22@[::1", "mqtt://table7:***@[::1")):
        with pytest.raises(InvalidInputError) as info:
            parse_broker_url(bad)
        assert repr(shown) in str(info.value) and "hunter22" not in str(info.value)


def test_link_config_builds_from_toml_and_refuses_bad_ids(tmp_path: Path) -> None:
    secret = tmp_path / "pw"
    secret.write_text("hunter22\n")
    toml = tmp_path / "hub.toml"
    toml.write_text(f'host = "10.0.0.2"\nport = 8883\ntls = true\nca_file = "/etc/ca.pem"\n'
                    f'username = "table7"\npassword_file = "{secret}"\ntable = "7"\n'
                    'tournament = "izmir-2026"\n')
    link = load_toml_file(LinkConfig, toml)
    assert link.tls and link.ca_file == "/etc/ca.pem" and link.secret() == "hunter22"
    with pytest.raises(ConfigError, match=r"hub\.table"):
        build(LinkConfig, {"table": "7/+"})
    with pytest.raises(ConfigError, match=r"hub\.port"):
        build(LinkConfig, {"port": 0})
    with pytest.raises(ConfigError, match="unknown key 'colour'"):
        build(LinkConfig, {"colour": "red"})
    with pytest.raises(HakemError, match="password_file"):
        LinkConfig(username="x", password_file=str(tmp_path / "missing")).secret()


def test_outbox_keeps_order_and_rows_across_reopen_until_acknowledged(tmp_path: Path) -> None:
    path = tmp_path / "outbox.db"
    box = Outbox(path)
    assert box.add([("m", 1, b"a"), ("m", 2, b"b"), ("m", 3, b"c")]) == 3
    assert box.add([("m", 2, b"b"), ("n", 1, b"d")]) == 1  # (match, seq) once
    box.put("match", "n")
    box.close()
    again = Outbox(path)
    assert [(r.match, r.seq, r.payload) for r in again.after(0)] == [
        ("m", 1, b"a"), ("m", 2, b"b"), ("m", 3, b"c"), ("n", 1, b"d")]
    assert again.get("match") == "n"
    assert again.acknowledge("m", 2) == 2
    rows = again.after(0)
    assert [(r.match, r.seq) for r in rows] == [("m", 3), ("n", 1)]
    assert again.after(rows[0].id) == rows[1:] and len(again) == 2
    again.close()
