"""``hakem hub``: accounts from stdin, argument errors, and the real command end to end."""

from __future__ import annotations

import io
import json
import signal
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from controller.cli import main
from controller.hub.publisher import publish_journal
from controller.hub.service import HubService
from controller.hub.store import DatabaseFolderError, HubStore
from engine.errors import HakemError
from tests.controller.hub.broker import Broker, free_port, make_certificates, wait_for
from tests.controller.hub.conftest import table_link
from tests.controller.hub.matches import simulated_match

REPO = Path(__file__).resolve().parents[3]


def test_add_user_reads_the_password_from_stdin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "hub.db"
    monkeypatch.setattr(sys, "stdin", io.StringIO("a long secret\n"))
    assert main(["hub", "--db", str(db), "--add-user", "td"]) == 0
    service = HubService(str(db))
    assert service.login("td", "a long secret", "test")
    service.store.close()
    monkeypatch.setattr(sys, "stdin", io.StringIO("short\n"))
    assert main(["hub", "--db", str(db), "--add-user", "td2"]) == 2
    assert "password too short" in capsys.readouterr().err
    assert main(["hub", "--db", str(db), "--list-users", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"users": ["td"]}


def test_bad_arguments_are_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "hub.db")
    assert main(["hub", "--db", db]) == 2
    assert "--broker URL and --http PORT are required" in capsys.readouterr().err
    assert main(["hub", "--db", db, "--broker", "http://x", "--http", "8080"]) == 2
    assert "not a broker url" in capsys.readouterr().err
    assert main(["hub", "--db", db, "--broker", "mqtt://h", "--http", "8080",
                 "--prefix", "a/#"]) == 2
    assert "bad prefix id" in capsys.readouterr().err
    secret = tmp_path / "secret"
    secret.write_text("s3cret\n")
    assert main(["hub", "--db", db, "--broker", "mqtt://hub:other@h", "--http", "8080",
                 "--broker-password-file", str(secret)]) == 2
    err = capsys.readouterr().err
    assert err == (f"hakem: hub: the broker password is both in --broker mqtt://hub:***@h and "
                   f"in --broker-password-file {secret}: give it once\n")


def _hub_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["hub", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("hakem: ") and err.count("\n") == 1, err
    return err


def test_a_ca_file_with_a_plain_mqtt_url_is_refused_as_a_tables_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A table refuses ``hub.ca_file`` with an ``mqtt://`` url; the hub and a publishing demo
    do the same with ``--ca`` (they had turned TLS on at the plain port, 1883)."""
    ca, _, _ = make_certificates(tmp_path / "certs")
    err = _hub_error(["--db", str(tmp_path / "hub.db"), "--broker", "mqtt://127.0.0.1:1",
                      "--http", "0", "--ca", str(ca)], capsys)
    assert err == (f"hakem: hub: --ca {ca} is for a TLS broker, but --broker "
                   "mqtt://127.0.0.1:1 is not mqtts://\n")
    out = tmp_path / "demo"
    assert main(["demo", "--out", str(out), "--publish", "mqtt://u:pw@h", "--table", "4",
                 "--ca", str(ca)]) == 2
    assert capsys.readouterr().err == (f"hakem: demo: --ca {ca} is for a TLS broker, but "
                                       "--publish mqtt://u:***@h is not mqtts://\n")
    assert not out.exists()


def test_a_database_that_cannot_be_opened_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("not a database\n" * 100, encoding="utf-8")
    for db in (str(text), str(tmp_path), "/dev/null"):
        err = _hub_error(["--db", db, "--list-users"], capsys)
        assert err.startswith(f"hakem: cannot open the hub's database {db}: ")
    err = _hub_error(["--db", str(text), "--broker", "mqtt://127.0.0.1:1", "--http", "0"], capsys)
    assert err == f"hakem: cannot open the hub's database {text}: file is not a database\n"


def test_start_up_failures_name_the_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = ["--db", str(tmp_path / "hub.db"), "--broker", "mqtt://127.0.0.1:1", "--http", "0"]
    missing = str(tmp_path / "nosuch.pem")
    err = _hub_error([*run, "--https-cert", missing, "--https-key", missing], capsys)
    assert err == f"hakem: hub: --https-cert {missing}: no such file\n"
    text = tmp_path / "notes.txt"
    text.write_text("no certificate here\n", encoding="utf-8")
    err = _hub_error([*run, "--https-cert", str(text), "--https-key", str(text)], capsys)
    assert err == f"hakem: hub: --https-cert {text}: holds no PEM certificate\n"
    broken = tmp_path / "broken.pem"
    broken.write_text("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
                      encoding="utf-8")
    err = _hub_error([*run, "--ca", str(broken)], capsys)
    assert err.startswith(f"hakem: hub: --ca {broken}: not a usable CA file (")
    err = _hub_error([*run, "--bind", "no-such-host.invalid"], capsys)
    assert err.startswith("hakem: hub: --bind no-such-host.invalid: no such address")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        err = _hub_error([*run[:-1], str(port), "--bind", "127.0.0.1"], capsys)
    assert err == (f"hakem: hub: cannot listen on --bind 127.0.0.1 --http {port}: "
                   "address already in use\n")


def test_accounts_refuse_an_empty_name_and_a_password_not_utf8(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "hub.db")
    monkeypatch.setattr(sys, "stdin", io.StringIO("a long secret\n"))
    err = _hub_error(["--db", db, "--add-user", ""], capsys)
    assert err.startswith("hakem: bad user name ''")
    # stdin decoded with surrogates for the bytes that are not UTF-8 (a Latin-1 terminal)
    monkeypatch.setattr(sys, "stdin", io.StringIO("pass\udce9word123\n"))
    err = _hub_error(["--db", db, "--add-user", "td"], capsys)
    assert err == "hakem: hub: the password (first line of stdin) is not UTF-8 text\n"
    strict = io.TextIOWrapper(io.BytesIO(b"pass\xe9word123\n"), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", strict)
    assert "is not UTF-8 text" in _hub_error(["--db", db, "--add-user", "td"], capsys)


def test_session_hours_must_be_a_finite_positive_number(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for value in ("nan", "inf", "0"):
        with pytest.raises(SystemExit) as info:
            main(["hub", "--db", str(tmp_path / "hub.db"), "--broker", "mqtt://h", "--http", "0",
                  "--session-hours", value])
        assert info.value.code == 2
        err = capsys.readouterr().err
        assert err.startswith("hakem: hub: argument --session-hours: must be more than 0")


def test_hakem_hub_serves_the_dashboard_and_stops_cleanly_on_sigterm(
    broker: Broker, tmp_path: Path
) -> None:
    port = free_port()
    process = subprocess.Popen(
        # a password in the url (the test broker takes anyone): never said or logged
        [str(REPO / ".venv/bin/hakem"), "hub", "--broker",
         broker.url.replace("mqtt://", "mqtt://hub:s3cret@"), "--http", str(port),
         "--db", str(tmp_path / "hub.db"), "--bind", "127.0.0.1"],
        cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}/api/tables"

    def tables() -> list[dict[str, object]] | None:
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                result: list[dict[str, object]] = json.loads(response.read())
                return result
        except OSError:
            return None

    try:
        wait_for(lambda: tables() is not None, 30, "the hub's web server")
        entries = simulated_match(8, seed=8)
        publish_journal(entries, table_link(broker, tmp_path, "8"), until="hub", timeout_s=60)
        listed = tables()
        assert listed is not None and listed[0]["table"] == "8" and listed[0]["finished"] is True
        process.send_signal(signal.SIGTERM)
        assert process.wait(20) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)
        assert process.stderr is not None
        err = process.stderr.read().decode()
        process.stderr.close()
    assert "dashboard on http://127.0.0.1:" in err and "Traceback" not in err
    assert "(broker mqtt://hub:***@127.0.0.1:" in err and "s3cret" not in err


def test_listing_accounts_makes_no_database_and_says_when_there_are_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A mistyped --db made a new, empty database (and its folders) and listed a blank line;
    an empty --db was taken (QA pass)."""
    missing = tmp_path / "nodir" / "hub.db"
    err = _hub_error(["--db", str(missing), "--list-users"], capsys)
    assert err == f"hakem: hub: no hub database at {str(missing)!r} (--add-user makes one)\n"
    assert not missing.parent.exists()
    assert "--db must name the hub's database file" in _hub_error(["--db", "", "--list-users"],
                                                                    capsys)
    empty = tmp_path / "hub.db"
    HubService(str(empty)).store.close()
    assert main(["hub", "--db", str(empty), "--list-users"]) == 0
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("hub: no accounts yet")


def test_a_database_in_a_folder_that_does_not_exist_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A mistyped --db folder was made, and the hub showed an empty dashboard (QA pass); the
    file itself is still made in a folder that exists."""
    missing = tmp_path / "nodir" / "hub.db"
    expected = f"hakem: no folder {str(missing.parent)!r} for the hub's database {str(missing)!r}\n"
    run = ["--db", str(missing), "--broker", "mqtt://127.0.0.1:1", "--http", "0"]
    assert _hub_error(run, capsys) == expected
    monkeypatch.setattr(sys, "stdin", io.StringIO("a long secret\n"))
    assert _hub_error(["--db", str(missing), "--add-user", "td"], capsys) == expected
    assert not missing.parent.exists()
    with pytest.raises(DatabaseFolderError) as info:
        HubStore(missing)
    assert isinstance(info.value, HakemError) and isinstance(info.value, FileNotFoundError)
    HubStore(tmp_path / "hub.db").close()
    assert (tmp_path / "hub.db").is_file()


def test_the_start_line_says_how_the_hall_reaches_a_hub_on_every_interface() -> None:
    """End-to-end QA: on every interface (the default --bind) the hub said only "dashboard on
    http://127.0.0.1:8080/", which a director's phone cannot open; it names the machine's
    mDNS name too (an address the hub answers to, hub.md), and says nothing more when bound
    to one address."""
    from controller.cli.hub_commands import dashboard_words
    from controller.hub.hosts import mdns_name

    assert dashboard_words("http://127.0.0.1:8080", "0.0.0.0") == (
        f"http://127.0.0.1:8080/ (every interface: from another device, "
        f"http://{mdns_name()}:8080/ or this machine's address)")
    assert dashboard_words("https://10.0.0.5:8443", "10.0.0.5") == "https://10.0.0.5:8443/"


@pytest.mark.parametrize("host", ["", "localhost", "localhost.localdomain"])
def test_the_start_line_names_no_mdns_name_a_machine_without_a_name_lacks(
        host: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Review of the start line's .local address: a machine with no host name of its own (none,
    or ``localhost``, which mDNS does not publish) was said to be ``http://.local:8080/`` or
    ``http://localhost.local:8080/``, which no device can open; the line then says to use the
    machine's address only."""
    import socket

    from controller.cli.hub_commands import dashboard_words

    monkeypatch.setattr(socket, "gethostname", lambda: host)
    assert dashboard_words("http://127.0.0.1:8080", "0.0.0.0") == (
        "http://127.0.0.1:8080/ (every interface: from another device, this machine's "
        "address)")
