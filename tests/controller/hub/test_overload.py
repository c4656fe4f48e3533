"""The hub's bounds under load: connections in all (refused in the accept loop, no thread each),
event streams whose pages are gone, and the queue of MQTT messages waiting to be stored."""

from __future__ import annotations

import json
import logging
import socket
import ssl
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from controller.hub import http as hub_http
from controller.hub.http import MAX_CONNECTIONS_PER_ADDRESS
from controller.hub.publisher import TablePublisher
from controller.hub.server import HubApp
from controller.hub.service import THROTTLE_SAY_S, HubService
from tests.controller.hub.broker import Broker, make_certificates, wait_for
from tests.controller.hub.matches import simulated_match
from tests.controller.hub.test_hall_abuse import address, exchange, stream_from


def silent_from(app: HubApp, source: str) -> socket.socket:
    """A connection from ``source`` that sends nothing."""
    return socket.create_connection(address(app), timeout=20, source_address=(source, 0))


def read_all(conn: socket.socket) -> bytes:
    """Everything the hub sends until it closes the connection."""
    data = b""
    while chunk := conn.recv(65536):
        data += chunk
    return data


@pytest.fixture
def crowded() -> Iterator[list[socket.socket]]:
    """Connections a test holds open; closed at its end."""
    held: list[socket.socket] = []
    yield held
    for conn in held:
        conn.close()


def test_over_its_address_cap_a_silent_connection_gets_its_503_at_once(
        tmp_path: Path, crowded: list[socket.socket]) -> None:
    """One over the cap was given a thread that waited 2 s for its request, then closed it
    unanswered: a client opening connection after connection held thread after thread."""
    with HubApp(str(tmp_path / "hub.db"), None, request_timeout_s=30.0) as app:
        crowded.extend(silent_from(app, "127.0.0.60") for _ in range(MAX_CONNECTIONS_PER_ADDRESS))
        wait_for(lambda: app.http.connections.get("127.0.0.60") == MAX_CONNECTIONS_PER_ADDRESS,
                 20, "every connection of 127.0.0.60 counted")
        with silent_from(app, "127.0.0.60") as refused:
            answer = read_all(refused)  # without a word sent
        assert answer.startswith(b"HTTP/1.1 503"), answer[:200]
        assert b"\r\nConnection: close\r\n" in answer and b"\r\nRetry-After: 5\r\n" in answer
        body = json.loads(answer.split(b"\r\n\r\n", 1)[1])
        assert body == {"error": f"too many connections from 127.0.0.60 (at most "
                                 f"{MAX_CONNECTIONS_PER_ADDRESS}); close some and try again"}
        wait_for(lambda: not len(app.http.refusals), 20, "the refused connection closed")


def test_connections_from_every_address_together_are_capped_without_a_thread_each(
        tmp_path: Path, crowded: list[socket.socket]) -> None:
    """Nothing capped all addresses together: a hall of clients, or one client with many
    addresses, made the hub start thread after thread."""
    before = threading.active_count()
    with HubApp(str(tmp_path / "hub.db"), None, request_timeout_s=30.0,
                max_connections=4) as app:
        started = threading.active_count()  # the web server's and the writer's
        crowded.extend(silent_from(app, f"127.0.0.{71 + k}") for k in range(4))
        wait_for(lambda: threading.active_count() == started + 4, 20, "four connection threads")
        for source in ("127.0.0.75", "127.0.0.71"):
            answer = exchange(app, b"GET /api/tables HTTP/1.1\r\nHost: localhost\r\n\r\n", source)
            assert answer.startswith(b"HTTP/1.1 503"), answer[:200]
            assert b"the hub has 4 connections open, its most" in answer, answer
        assert threading.active_count() == started + 4  # refused in the accept loop
        assert app.http.open_connections == 4
        crowded.pop().close()

        def served() -> bool:
            return exchange(app, b"GET /api/tables HTTP/1.1\r\nHost: localhost\r\nConnection: "
                                 b"close\r\n\r\n", "127.0.0.75").startswith(b"HTTP/1.1 200")

        wait_for(served, 20, "a connection served once one closed")
    wait_for(lambda: threading.active_count() <= before + 3, 20, "the hub's threads to end")


def stream_closed_is_uncounted(app: HubApp, source: str,
                                tls: ssl.SSLContext | None = None) -> None:
    """Open an event stream from ``source``, close it, and see its connection uncounted."""
    conn = stream_from(app, source, tls)
    assert app.http.connections.get(source) == 1
    conn.close()
    wait_for(lambda: source not in app.http.connections, 20,
             f"the closed stream's connection from {source} uncounted")


def test_a_stream_whose_page_is_gone_frees_its_connection_without_a_write(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A closed stream was noticed only when a keep-alive write failed, the second after the
    close: up to 30 s in which its address's slot stayed taken."""
    monkeypatch.setattr(hub_http, "KEEPALIVE_S", 3600.0)  # no write to notice it by
    with HubApp(str(tmp_path / "hub.db"), None, request_timeout_s=30.0) as app:
        stream_closed_is_uncounted(app, "127.0.0.80")


def test_over_https_too_a_stream_whose_page_is_gone_frees_its_connection(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hub_http, "KEEPALIVE_S", 3600.0)
    ca, cert, key = make_certificates(tmp_path / "certs")
    with HubApp(str(tmp_path / "hub.db"), None, certfile=str(cert), keyfile=str(key),
                request_timeout_s=30.0) as app:
        stream_closed_is_uncounted(app, "127.0.0.82", ssl.create_default_context(cafile=str(ca)))


def test_a_stream_sends_its_keepalive_while_it_watches_its_client(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hub_http, "KEEPALIVE_S", 0.0)
    monkeypatch.setattr(hub_http, "STREAM_CHECK_S", 0.01)
    with HubApp(str(tmp_path / "hub.db"), None, request_timeout_s=30.0) as app:
        conn = stream_from(app, "127.0.0.81")
        data = b""
        while data.count(b": keepalive\n\n") < 2:
            chunk = conn.recv(65536)
            assert chunk, data
            data += chunk
        conn.close()


def event(table: str, seq: int, size: int = 0) -> tuple[str, bytes]:
    """An event message of table ``table`` (a ``match_start`` at seq 1, else a roll), padded to
    at least ``size`` bytes."""
    entry = ({"seq": 1, "time": "t1", "type": "match_start", "players": ["a", "b"]} if seq == 1
             else {"seq": seq, "time": f"t{seq}", "type": "roll", "player": 0, "dice": [3, 1]})
    body = {"v": 1, "match": "m1", "entry": entry, "pad": ""}
    body["pad"] = "x" * max(0, size - len(json.dumps(body)))
    return f"hakem/cup/{table}/events", json.dumps(body).encode()


class Clock:
    """The hub's clock, moved by hand."""

    def __init__(self) -> None:
        self.now = 5_000.0

    def __call__(self) -> float:
        return self.now


def test_a_full_inbox_drops_messages_unacknowledged_and_names_the_table_once(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The queue between paho's thread and the writer was unbounded: a table flooding the hub
    (each message up to 4 MiB) could take all its memory."""
    clock = Clock()
    hub = HubService(str(tmp_path / "hub.db"), None, clock=clock,
                     inbox_limits=(100, 900)).start()
    try:
        with caplog.at_level(logging.WARNING, logger="hakem.hub"), hub.store.lock:  # stalled
            assert hub.ingest(*event("1", 1, 450)) and hub.ingest(*event("1", 2, 450))
            assert not hub.ingest(*event("1", 3))  # over the bytes
            assert not hub.ingest(*event("1", 4))  # the table named once
            assert not hub.ingest(*event("2", 1))
            clock.now += THROTTLE_SAY_S
            assert not hub.ingest(*event("1", 5))
        assert hub.wait_idle(20)
        said = [r.getMessage() for r in caplog.records
                if "dropped unacknowledged" in r.getMessage()]
        assert [line.split("from table ")[1].split(" ")[0] for line in said] == [
            "cup/1", "cup/2", "cup/1"], said
        assert hub.stats["dropped"] == 4 and hub.stats["stored"] == 2
        assert hub.table("cup", "1")["seq"] == 2 and ("cup", "2") not in hub.views
        assert hub.ingest(*event("1", 3))  # room again
        assert hub.wait_idle(20) and hub.table("cup", "1")["seq"] == 3
    finally:
        hub.stop()


def test_with_a_message_count_cap_a_table_whose_messages_were_dropped_gets_them_in(
        broker: Broker, make_hub: Callable[..., HubApp],
        make_table: Callable[..., TablePublisher]) -> None:
    """The table resends only what the hub asks for again (a new boot): the hub asks once it
    has caught up, so every entry dropped while it was behind is stored, in order."""
    hub = make_hub(inbox_limits=(5, 1 << 20))
    wait_for(hub.service.connected.is_set, 20, "the hub on the broker")
    table = make_table("3")
    wait_for(lambda: table.connected, 20, "the table on the broker")
    entries = simulated_match(3, seed=11, length=3)
    assert len(entries) > 20
    with hub.service.store.lock:  # the writer stalls on its next batch: the queue fills
        table.publish_many(entries)
        wait_for(lambda: hub.service.stats["dropped"] > 0, 30, "a message dropped")
    table.wait_delivered(60)  # acknowledged by the hub, every one
    assert hub.service.wait_idle(20)
    detail = hub.service.table("cup", "3")
    assert detail["seq"] == len(entries) and detail["finished"]
    stored = hub.service.store.events("cup", "3", detail["match"])
    assert [e["seq"] for e in stored] == [e["seq"] for e in entries]


def stalled_stream(app: HubApp, source: str) -> socket.socket:
    """An event stream from ``source`` whose client reads nothing after its first event, with
    a small receive buffer: its window closes after a few KiB, as a phone gone from the Wi-Fi
    stops taking them (there, by acknowledging nothing at all)."""
    return stream_from(app, source, receive_buffer=2048)


@pytest.mark.parametrize("sent", [16 * 1024, 16 * 1024 * 1024])
def test_a_stream_whose_client_stalls_is_dropped_and_its_slot_freed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sent: int) -> None:
    """A device that left the network without closing held its stream's connection until TCP
    gave up (minutes), its write blocked or its bytes never acknowledged: now a stream whose
    client takes nothing for ``stream_stall_s`` is dropped, whether the hub had little to send
    (its bytes wait unacknowledged) or much (its write blocks), and its slot is freed."""
    monkeypatch.setattr(hub_http, "KEEPALIVE_S", 3600.0)  # no keep-alive write to notice it by
    with HubApp(str(tmp_path / "hub.db"), None, request_timeout_s=600.0,
                stream_stall_s=1.0) as app:
        conn = stalled_stream(app, "127.0.0.84")
        try:
            assert app.http.connections.get("127.0.0.84") == 1
            update = json.dumps({"table": "1", "pad": "x" * 4000})
            for _ in range(max(1, sent // len(update))):
                app.service.broadcaster.send(update)
            wait_for(lambda: "127.0.0.84" not in app.http.connections, 60,
                     "the stalled stream's connection uncounted")
            assert not app.service.broadcaster._queues  # its listener gone with it
        finally:
            conn.close()
        assert stalled_stream(app, "127.0.0.84")  # the slot serves again
