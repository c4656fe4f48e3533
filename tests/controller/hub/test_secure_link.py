"""Broker login and TLS from the link configuration, against a real Mosquitto."""

from __future__ import annotations

import subprocess
from dataclasses import replace
from pathlib import Path

from controller.hub.link import LinkConfig, parse_broker_url
from controller.hub.publisher import TablePublisher
from controller.hub.server import HubApp
from tests.controller.hub.broker import Broker, free_port, wait_for
from tests.controller.hub.matches import simulated_match


def make_certificates(folder: Path) -> tuple[Path, Path, Path]:
    """A throw-away CA and a server certificate for 127.0.0.1 (openssl, seconds)."""
    ca_key, ca, key, csr, cert = (folder / n for n in ("ca.key", "ca.pem", "srv.key", "srv.csr",
                                                       "srv.pem"))
    ext = folder / "ext.cnf"
    ext.write_text("subjectAltName=IP:127.0.0.1\n")
    run = lambda *a: subprocess.run(a, check=True, capture_output=True)  # noqa: E731
    run("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(ca_key),
        "-out", str(ca), "-days", "2", "-subj", "/CN=hakem test CA")
    run("openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(csr),
        "-subj", "/CN=127.0.0.1")
    run("openssl", "x509", "-req", "-in", str(csr), "-CA", str(ca), "-CAkey", str(ca_key),
        "-CAcreateserial", "-out", str(cert), "-days", "2", "-extfile", str(ext))
    return ca, cert, key


def test_tables_and_hub_log_in_over_tls_and_a_wrong_password_gets_nothing_through(
    tmp_path: Path,
) -> None:
    ca, cert, key = make_certificates(tmp_path)
    passwd = tmp_path / "passwd"
    passwd.write_text("")
    for user, password in (("hub", "hub secret"), ("table1", "table secret")):
        subprocess.run(["mosquitto_passwd", "-b", str(passwd), user, password], check=True,
                       capture_output=True)
    passwd.chmod(0o600)
    tls_port = free_port()
    secure = Broker(tmp_path / "secure", port=tls_port, extra_config=(
        "allow_anonymous false\n"
        f"password_file {passwd}\n"
        f"cafile {ca}\ncertfile {cert}\nkeyfile {key}\n"
    ))
    secure.start()  # the certificate lines follow the loopback listener line: a TLS listener
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
