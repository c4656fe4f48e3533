"""A broker whose TLS certificate does not do: the hub and a table say what is wrong with it and
which setting to change (they said they could not reach the broker, and a director looked for a
network fault), and go on trying: a table keeps queuing, and connects once the broker is put
right. Against a real Mosquitto with certificates made for the test."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from controller.cli import build_parser
from controller.cli.broker_options import broker_link
from controller.config.table import load_table_config
from controller.hub.publisher import TablePublisher
from controller.hub.server import HubApp
from controller.runtime.table import publisher_for
from tests.controller.hub.broker import make_certificates, tls_broker, wait_for
from tests.controller.hub.matches import simulated_match

WAIT = "; no table is heard until it is put right; trying again"


def _hub_said(caplog: pytest.LogCaptureFixture, tmp_path: Path, url: str, *options: str
              ) -> list[str]:
    """Start ``hakem hub``'s link to ``url`` with ``options``, as its command line builds it,
    and return what it logs of its broker: the first failure, or its connection."""
    args = build_parser().parse_args(["hub", "--db", str(tmp_path / "hub.db"), "--http", "0",
                                      "--broker", url, *options])
    caplog.clear()
    app = HubApp(str(tmp_path / "hub.db"), broker_link(args, "--broker", "hub")).start()
    try:
        wait_for(lambda: [r for r in caplog.records if "broker" in r.getMessage()], 20,
                 "the hub to say how its broker is")
    finally:
        app.stop()
    return [r.getMessage() for r in caplog.records if "broker" in r.getMessage()]


def test_the_hub_says_the_certificate_is_for_another_host_or_signed_by_another_ca(
    tmp_path: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="hakem.hub")
    broker, ca = tls_broker(tmp_path, ("hub", "hub secret"), names="DNS:localhost")
    other_ca, _, _ = make_certificates(tmp_path / "other")
    port = broker.port
    try:
        said = _hub_said(caplog, tmp_path, f"mqtts://hub:hub%20secret@127.0.0.1:{port}",
                         "--ca", str(ca))
        assert said == [
            f"cannot connect to the broker at mqtts://hub:***@127.0.0.1:{port}: the broker's "
            "certificate does not match host '127.0.0.1': name the broker in --broker as its "
            "certificate does, or give the broker a certificate for '127.0.0.1'" + WAIT]
        said = _hub_said(caplog, tmp_path, f"mqtts://hub:hub%20secret@localhost:{port}",
                         "--ca", str(other_ca))
        assert said == [
            f"cannot connect to the broker at mqtts://hub:***@localhost:{port}: the broker's "
            f"certificate is not signed by the CA in {other_ca}: give the CA that signed it in "
            "--ca" + WAIT]
        # the broker itself is sound: by the name its certificate gives, with its CA
        said = _hub_said(caplog, tmp_path, f"mqtts://hub:hub%20secret@localhost:{port}",
                         "--ca", str(ca))
        assert said == [f"connected to the broker at mqtts://hub:***@localhost:{port}"]
    finally:
        broker.stop()


def _table(folder: Path, hub_section: str) -> tuple[TablePublisher, list[str]]:
    """``hakem run``'s publisher of a table whose ``[hub]`` section is ``hub_section``,
    started, and what it says of its link."""
    toml = folder / "table.toml"
    toml.write_text(f'[table]\nid = "7"\n[journal]\ndirectory = "{folder}"\n[hub]\n'
                    + hub_section)
    factory = publisher_for(load_table_config(toml))
    assert factory is not None
    table = factory(folder)
    said: list[str] = []
    table.say = said.append
    return table.start(), said


def test_a_table_says_the_certificate_has_expired_keeps_queuing_and_connects_once_renewed(
    tmp_path: Path,
) -> None:
    """``hakem run``'s publisher from its ``[hub]`` section: the messages name its keys."""
    broker, ca = tls_broker(tmp_path / "old", ("table7", "seven"), names="DNS:localhost",
                            expired=True)
    try:
        secret = tmp_path / "hub-password"
        secret.write_text("seven\n")
        table, said = _table(tmp_path, f'url = "mqtts://table7@localhost:{broker.port}"\n'
                             f'ca_file = "{ca}"\npassword_file = "{secret}"\n')
        try:
            entries = simulated_match(7, 7)
            table.publish_many(entries[:10])
            wait_for(lambda: said, 20, "the table to say how its broker is")
            table.publish_many(entries[10:])
            assert said == [
                f"The hub's broker at mqtts://table7@localhost:{broker.port} cannot be used: the "
                "broker's certificate has expired: give the broker a new one, or set this "
                "machine's date if it is wrong; the table's entries wait in its outbox; trying "
                "again"]
            assert len(table.outbox) == len(entries) and not table.connected
            # the broker renewed by the hall's CA, on the same port: the table gets through
            broker.stop()
            make_certificates(ca.parent, "DNS:localhost")
            broker.start()
            table.wait_delivered(30, "broker")
            assert said[-1].endswith("answers: the table is on the hub")
        finally:
            table.close()
    finally:
        broker.stop()


def test_a_table_trusting_only_the_systems_cas_is_told_to_name_the_halls_ca(
    tmp_path: Path,
) -> None:
    broker, _ = tls_broker(tmp_path, names="DNS:localhost")
    try:
        table, said = _table(tmp_path, f'url = "mqtts://localhost:{broker.port}"\n')
        try:
            wait_for(lambda: said, 20, "the table to say how its broker is")
        finally:
            table.close()
    finally:
        broker.stop()
    assert said == [
        f"The hub's broker at mqtts://localhost:{broker.port} cannot be used: the broker's "
        "certificate is not signed by a CA this machine trusts (no CA file given): give the CA "
        "that signed it in hub.ca_file; the table's entries wait in its outbox; trying again"]
