"""The hub against a spectator on the hall network: request bodies left on a connection,
account names told by login timing, passwords guessed from many addresses, connections held by
one address, oversized MQTT messages."""

from __future__ import annotations

import http.client
import json
import os
import re
import socket
import ssl
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.hub import auth
from controller.hub.http import MAX_BODY, MAX_CONNECTIONS_PER_ADDRESS
from controller.hub.link import LinkConfig, parse_broker_url
from controller.hub.publisher import TablePublisher
from controller.hub.server import HubApp
from controller.hub.service import (
    ACCOUNT_DELAY_CAP_S,
    ACCOUNT_DELAY_S,
    ACCOUNT_FAILURES,
    ACCOUNT_QUIET_S,
)
from controller.hub.topics import MAX_MESSAGE_BYTES
from tests.controller.hub.broker import Broker, make_certificates, wait_for
from tests.controller.hub.conftest import table_link
from tests.controller.hub.matches import simulated_match
from tests.controller.hub.test_http import PASSWORD, call
from tests.controller.hub.test_security import ROOT, raw_client, send

SMUGGLED = b"GET /api/tables HTTP/1.1\r\nHost: localhost\r\n\r\n"
"""A body that is itself a request: answered, it would be a second response."""


class Clock:
    """The hub's clock, moved by hand."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def app(tmp_path: Path, clock: Clock) -> Iterator[HubApp]:
    hub = HubApp(str(tmp_path / "hub.db"), None, request_timeout_s=1.0, clock=clock).start()
    hub.service.add_user("td", PASSWORD)
    yield hub
    hub.stop()


def address(app: HubApp) -> tuple[str, int]:
    host, port = app.http.server_address[:2]
    return str(host), int(port)


def exchange(app: HubApp, request: bytes, source: str = "127.0.0.1") -> bytes:
    """Send raw bytes on one connection and read until the hub closes it."""
    with socket.create_connection(address(app), timeout=20, source_address=(source, 0)) as conn:
        conn.sendall(request)
        data = b""
        while chunk := conn.recv(65536):
            data += chunk
    return data


def post_head(headers: str) -> bytes:
    return f"POST /api/login HTTP/1.1\r\nHost: localhost\r\n{headers}\r\n".encode()


REFUSED_BODIES = {
    "not application/json (refused before reading)":
        post_head(f"Content-Type: text/plain\r\nContent-Length: {len(SMUGGLED)}\r\n") + SMUGGLED,
    "larger than MAX_BODY":
        post_head(f"Content-Type: application/json\r\nContent-Length: {MAX_BODY + 1}\r\n")
        + SMUGGLED,
    "no Content-Length": post_head("Content-Type: application/json\r\n") + SMUGGLED,
    "a Content-Length that is not a number":
        post_head("Content-Type: application/json\r\nContent-Length: 37x\r\n") + SMUGGLED,
    "two Content-Lengths":
        post_head(f"Content-Type: application/json\r\nContent-Length: 0\r\n"
                  f"Content-Length: {len(SMUGGLED)}\r\n") + SMUGGLED,
    "a chunked body":
        post_head("Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n")
        + f"{len(SMUGGLED):x}\r\n".encode() + SMUGGLED + b"\r\n0\r\n\r\n",
}


@pytest.mark.parametrize("case", list(REFUSED_BODIES))
def test_a_refused_body_is_never_read_as_the_next_request(case: str, app: HubApp) -> None:
    """The refusal closes the connection: its body, a request here, gets no answer."""
    answer = exchange(app, REFUSED_BODIES[case])
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400") and b"\r\nConnection: close" in head, answer
    length = re.search(rb"\r\nContent-Length: (\d+)", head)
    assert length and len(body) == int(length.group(1)), answer  # and nothing after it


def test_a_body_read_whole_keeps_the_connection_for_the_next_request(app: HubApp) -> None:
    body = b'{"user": "td", "password": "wrong one"}'
    login = post_head(f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n") + body
    for bad in (login, post_head("Content-Type: application/json\r\nContent-Length: 4\r\n")
                + b"nope"):
        answer = exchange(app, bad + SMUGGLED)  # a wrong password; a body that is not JSON
        assert answer.count(b"HTTP/1.1 ") == 2 and b"HTTP/1.1 200" in answer, answer


def login_from(app: HubApp, source: str, user: str, password: str) -> tuple[int, str]:
    """POST /api/login from a loopback address of the test's choosing."""
    conn = http.client.HTTPConnection(*address(app), timeout=20, source_address=(source, 0))
    try:
        body = f'{{"user": "{user}", "password": "{password}"}}'
        conn.request("POST", "/api/login", body, {"Content-Type": "application/json"})
        response = conn.getresponse()
        answer: dict[str, Any] = json.loads(response.read())
        return response.status, str(answer.get("error", ""))
    finally:
        conn.close()


def test_an_unknown_account_costs_one_password_check_as_a_known_one_does(
        app: HubApp, monkeypatch: pytest.MonkeyPatch) -> None:
    """An unknown name was answered without hashing: its speed told which accounts exist."""
    checks: list[tuple[int, int, int]] = []
    kdf = auth._scrypt

    def counted(password: str, salt: bytes, n: int, r: int, p: int) -> bytes:
        checks.append((n, r, p))
        return kdf(password, salt, n, r, p)

    monkeypatch.setattr(auth, "_scrypt", counted)
    assert login_from(app, "127.0.0.1", "td", "wrong one") == (
        401, "login refused: wrong user name or password")
    assert login_from(app, "127.0.0.2", "nobody", "wrong one") == (
        401, "login refused: wrong user name or password")
    assert checks == [(auth.SCRYPT_N, auth.SCRYPT_R, auth.SCRYPT_P)] * 2


def climb_to_the_cap(app: HubApp, clock: Clock, user: str, addresses: Iterator[str]) -> None:
    """Guess ACCOUNT_FAILURES times, then once after each hold, from a new address each time,
    checking each hold (the right password refused unchecked) up to ACCOUNT_DELAY_CAP_S."""
    for _ in range(ACCOUNT_FAILURES):
        assert login_from(app, next(addresses), user, "guess") == (
            401, "login refused: wrong user name or password")
    hold = ACCOUNT_DELAY_S
    while True:
        status, error = login_from(app, next(addresses), user, PASSWORD)
        assert status == 401 and error == (f"login refused: too many wrong passwords for "
                                           f"account {user!r}; try again in {int(hold)} s")
        clock.now += hold - 0.5
        assert login_from(app, next(addresses), user, PASSWORD)[1].endswith("try again in 1 s")
        clock.now += 0.5
        if hold == ACCOUNT_DELAY_CAP_S:
            return
        assert login_from(app, next(addresses), user, "guess")[1].endswith("wrong user name or "
                                                                         "password")
        hold = min(hold * 2, ACCOUNT_DELAY_CAP_S)


def test_guesses_for_one_account_from_many_addresses_are_held_longer_each_time(
        app: HubApp, clock: Clock) -> None:
    """The lockout was per address: a new address each time gave unlimited guesses. Now an
    account's guesses past ACCOUNT_FAILURES wait a hold that doubles to ACCOUNT_DELAY_CAP_S."""
    addresses = iter([f"127.0.{i // 250}.{i % 250 + 2}" for i in range(1000)])
    assert login_from(app, "127.0.9.9", "td", PASSWORD)[0] == 200  # the director's phone
    climb_to_the_cap(app, clock, "td", addresses)
    assert login_from(app, next(addresses), "td", "guess") == (  # a hold of the cap: checked
        401, "login refused: wrong user name or password")
    assert "for account 'td'" in login_from(app, next(addresses), "td", PASSWORD)[1]
    assert login_from(app, "127.0.9.9", "td", PASSWORD)[0] == 200  # its phone is not held
    assert login_from(app, next(addresses), "td", PASSWORD)[0] == 200  # nor, after, a new one
    for _ in range(ACCOUNT_FAILURES):  # a login starts the count anew...
        assert login_from(app, next(addresses), "td", "guess")[1].endswith("password")
    clock.now += ACCOUNT_QUIET_S  # ...and so does a quiet quarter of an hour
    for _ in range(ACCOUNT_FAILURES):
        assert login_from(app, next(addresses), "td", "guess")[1].endswith("password")
    assert "for account 'td'" in login_from(app, next(addresses), "td", "guess")[1]
    climb_to_the_cap(app, clock, "nobody", addresses)  # an unknown name alike: nothing told


def stream_from(app: HubApp, source: str, tls: ssl.SSLContext | None = None,
                receive_buffer: int | None = None) -> socket.socket:
    """An open event stream from ``source`` (over TLS with a ``tls`` context; with a
    ``receive_buffer`` of so many bytes, set before it connects), its first event read."""
    conn = socket.socket()
    if receive_buffer is not None:
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    conn.settimeout(20)
    conn.bind((source, 0))
    conn.connect(address(app))
    if tls is not None:
        conn = tls.wrap_socket(conn, server_hostname="127.0.0.1")
    conn.sendall(b"GET /api/stream HTTP/1.1\r\nHost: localhost\r\n\r\n")
    data = b""
    while b"event: tables" not in data:
        chunk = conn.recv(65536)
        assert chunk, data
        data += chunk
    return conn


def test_one_address_holds_no_more_than_its_share_of_connections(tmp_path: Path) -> None:
    """Nothing capped one client: event streams (or idle connections) from one address could
    hold every thread and file descriptor the hub has."""
    with HubApp(str(tmp_path / "hub.db"), None, request_timeout_s=30.0) as app:
        held = [stream_from(app, "127.0.0.50") for _ in range(MAX_CONNECTIONS_PER_ADDRESS - 1)]
        idle = http.client.HTTPConnection(*address(app), timeout=20,
                                          source_address=("127.0.0.50", 0))
        idle.request("GET", "/api/session")  # then left open (keep-alive)
        assert idle.getresponse().read() == b'{"user": null}'
        try:
            answer = exchange(app, b"GET /api/tables HTTP/1.1\r\nHost: localhost\r\nConnection: "
                                   b"close\r\n\r\n", "127.0.0.50")
            assert answer.startswith(b"HTTP/1.1 503"), answer[:200]
            assert b"\r\nConnection: close\r\n" in answer and b"too many connections" in answer
            assert call(app.url + "/api/tables")[0] == 200  # another address is served
            idle.close()  # (a stream closed is noticed at its next write: a keep-alive)

            def served() -> bool:
                return exchange(app, b"GET /api/tables HTTP/1.1\r\nHost: localhost\r\nConnection: "
                                     b"close\r\n\r\n", "127.0.0.50").startswith(b"HTTP/1.1 200")

            wait_for(served, 20, "a connection of 127.0.0.50 to be served once one closed")
        finally:
            idle.close()
            for conn in held:
                conn.close()


def test_connections_closed_are_uncounted(tmp_path: Path) -> None:
    with HubApp(str(tmp_path / "hub.db"), None, request_timeout_s=30.0) as app:
        for _ in range(3 * MAX_CONNECTIONS_PER_ADDRESS):
            answer = exchange(app, b"GET /api/session HTTP/1.1\r\nHost: localhost\r\nConnection: "
                                   b"close\r\n\r\n")
            assert answer.startswith(b"HTTP/1.1 200"), answer[:200]
        wait_for(lambda: not app.http.connections, 20, "every connection uncounted")


def test_a_message_over_the_size_limit_is_left_out_by_the_hub(
        broker: Broker, make_hub: Callable[..., HubApp]) -> None:
    """A broker without ``message_size_limit`` passed the hub any size of body to decode."""
    hub = make_hub()
    wait_for(hub.service.connected.is_set, 20, "the hub on the broker")
    start = simulated_match(4, seed=2, length=3)[0]
    event = {"v": 1, "match": start["match_id"], "entry": start, "snapshot_jpeg": ""}

    def sized(body: dict[str, Any], key: str, size: int) -> bytes:
        """``body`` with ``key`` padded so that its JSON is ``size`` bytes."""
        return json.dumps({**body, key: "A" * (size - len(json.dumps(body)))}).encode()

    with raw_client(broker, "hostile") as client:
        send(client, "hakem/cup/5/events", sized(event, "snapshot_jpeg", MAX_MESSAGE_BYTES + 1))
        send(client, "hakem/cup/5/state", sized({"pad": ""}, "pad", MAX_MESSAGE_BYTES + 1))
        send(client, "hakem/cup/4/state", sized({"pad": ""}, "pad", MAX_MESSAGE_BYTES))
    wait_for(lambda: hub.service._received == 3, 30, "three messages")
    assert hub.service.wait_idle(30)
    assert hub.service.stats["rejected"] == 2
    assert [t["table"] for t in call(hub.url + "/api/tables")[1]] == ["4"]  # at the limit


def test_with_the_documented_size_limit_a_table_sends_a_photo_too_large_without_it(
        tmp_path: Path) -> None:
    """The broker drops a message over its limit yet acknowledges it: an entry sent with a
    photo too large never reached the hub, which then held back every later entry."""
    text = (ROOT / "hardware_docs" / "hub.md").read_text()
    limit = re.search(r"```\nlistener .*?\nmessage_size_limit (\d+)\n.*?```", text, re.S)
    assert limit and int(limit.group(1)) == MAX_MESSAGE_BYTES
    broker = Broker(tmp_path / "broker", extra_config=f"message_size_limit {limit.group(1)}\n")
    broker.start()
    try:
        entries = simulated_match(6, seed=7, length=3)
        flagged = [e for e in entries if e.get("snapshot")][:2]
        assert len(flagged) == 2
        folder = tmp_path / "journal"
        (folder / "snapshots").mkdir(parents=True)
        (folder / "snapshots" / flagged[0]["snapshot"]).write_bytes(
            os.urandom(MAX_MESSAGE_BYTES * 3 // 4))  # base64 takes it over the limit
        (folder / "snapshots" / flagged[1]["snapshot"]).write_bytes(b"\xff\xd8small\xff\xd9")
        said: list[str] = []
        hub_link = parse_broker_url(broker.url, LinkConfig(keepalive_s=5))
        with HubApp(str(tmp_path / "hub.db"), hub_link) as hub, \
                TablePublisher.of_folder(table_link(broker, tmp_path, "6"), folder) as table:
            table.say = said.append
            table.publish_many(entries)
            table.wait_delivered(60)
            detail = hub.service.table("cup", "6")
            assert detail["seq"] == len(entries) and detail["finished"]
            photos = {f["seq"]: f["snapshot"] for f in detail["flags"]}
            assert photos[flagged[0]["seq"]] is False and photos[flagged[1]["seq"]] is True
            assert any(f"without its photo {flagged[0]['snapshot']}" in s for s in said), said
    finally:
        broker.stop()


def test_over_https_a_client_that_never_shakes_hands_stops_no_one_else(tmp_path: Path) -> None:
    """The TLS handshake ran in the accept loop: one connection that sent nothing stopped the
    hub from taking any other."""
    ca, cert, key = make_certificates(tmp_path / "certs")
    with HubApp(str(tmp_path / "hub.db"), None, certfile=str(cert), keyfile=str(key),
                request_timeout_s=30.0) as app, \
            socket.create_connection(address(app), timeout=20) as silent:
        context = ssl.create_default_context(cafile=str(ca))
        with urllib.request.urlopen(app.url + "/api/tables", timeout=10,
                                    context=context) as response:
            assert response.status == 200 and json.loads(response.read()) == []
        silent.sendall(b"GET / HTTP/1.1\r\n\r\n")  # not TLS: refused, the hub goes on
        assert silent.recv(1024) == b""
        with urllib.request.urlopen(app.url + "/api/session", timeout=10,
                                    context=context) as response:
            assert response.status == 200
