"""Broker login and TLS from the link configuration, against a real Mosquitto."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from controller.config.table import load_table_config
from controller.hub.link import LinkConfig, parse_broker_url
from controller.hub.publisher import TablePublisher
from controller.hub.server import HubApp
from controller.runtime.table import publisher_for
from tests.controller.hub.broker import tls_broker, wait_for
from tests.controller.hub.matches import simulated_match


def test_tables_and_hub_log_in_over_tls_and_a_wrong_password_gets_nothing_through(
    tmp_path: Path,
) -> None:
    secure, ca = tls_broker(tmp_path, ("hub", "hub secret"), ("table1", "table secret"))
    tls_port = secure.port
    try:
        base = LinkConfig(tls=True, ca_file=str(ca), keepalive_s=5)
        hub_link = parse_broker_url(f"mqtts://hub:hub%20secret@127.0.0.1:{tls_port}", base)
        app = HubApp(str(tmp_path / "hub.db"), hub_link).start()
        try:
            wait_for(app.service.connected.is_set, 20, "the hub to log in over TLS")
            secret = tmp_path / "table.pw"
            secret.write_text("table secret\n")
            good = TablePublisher(replace(base, port=tls_port, host="127.0.0.1", table="1",
                                          tournament="cup", username="table1",
                                          password_file=str(secret),
                                          outbox=str(tmp_path / "good.db"))).start()
            bad = TablePublisher(replace(base, port=tls_port, host="127.0.0.1", table="2",
                                         tournament="cup", username="table1", password="wrong",
                                         outbox=str(tmp_path / "bad.db"))).start()
            try:
                entries = simulated_match(1, 1)
                good.publish_many(entries)
                bad.publish_many(simulated_match(2, 2))
                good.wait_delivered(30)
                assert app.service.table("cup", "1")["seq"] == len(entries)
                assert not bad.connected and len(bad.outbox) > 0  # kept on disk, not sent
                assert ("cup", "2") not in app.service.views
            finally:
                good.close()
                bad.close()
        finally:
            app.stop()
    finally:
        secure.stop()


def test_a_table_configured_by_its_toml_logs_in_with_a_password_file_its_ca_and_tournament(
    tmp_path: Path,
) -> None:
    """``hakem run``'s publisher from a ``[hub]`` section: mqtts with the broker's own CA, the
    password in a file (not in the url), and a tournament other than "default"."""
    secure, ca = tls_broker(tmp_path, ("hub", "hub secret"), ("table7", "table seven"))
    port = secure.port
    try:
        hub_link = parse_broker_url(f"mqtts://hub:hub%20secret@127.0.0.1:{port}",
                                    LinkConfig(ca_file=str(ca), keepalive_s=5))
        app = HubApp(str(tmp_path / "hub.db"), hub_link).start()
        try:
            wait_for(app.service.connected.is_set, 20, "the hub to log in over TLS")
            secret = tmp_path / "hub-password"
            secret.write_text("table seven\n")
            toml = tmp_path / "table.toml"
            toml.write_text(f'[table]\nid = "table-7"\n[journal]\ndirectory = "{tmp_path}"\n'
                            f'[hub]\nurl = "mqtts://table7@127.0.0.1:{port}"\n'
                            f'tournament = "izmir-2026"\nca_file = "{ca}"\n'
                            f'password_file = "{secret}"\n')
            factory = publisher_for(load_table_config(toml))
            assert factory is not None
            table = factory(tmp_path).start()
            try:
                entries = simulated_match(7, 7)
                table.publish_many(entries)
                table.wait_delivered(30)
                assert app.service.table("izmir-2026", "table-7")["seq"] == len(entries)
                assert ("default", "table-7") not in app.service.views
            finally:
                table.close()
        finally:
            app.stop()
    finally:
        secure.stop()
