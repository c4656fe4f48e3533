"""Through a real Mosquitto: many tables at once, a broker restart, a hub restart, presence."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from controller.hub.contract import MatchState
from controller.hub.publisher import TablePublisher, publish_journal
from controller.hub.server import HubApp
from controller.hub.service import HubService
from tests.controller.hub.broker import Broker, wait_for
from tests.controller.hub.conftest import table_link
from tests.controller.hub.matches import simulated_match

REPO = Path(__file__).resolve().parents[3]


def folded(entries: list[dict[str, Any]]) -> dict[str, Any]:
    state = MatchState(entries[0]["match_id"])
    for entry in entries:
        state.apply(entry)
    return state.summary()


def stored_entries(app: HubApp, table: str, match: str) -> list[dict[str, Any]]:
    return list(app.service.store.events("cup", table, match))


def get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())


def test_fifty_tables_publishing_whole_matches_at_once_reach_the_hub_complete(
    make_hub: Callable[..., HubApp], make_table: Callable[..., TablePublisher]
) -> None:
    hub = make_hub()
    matches = {str(n): simulated_match(n, seed=100 + n) for n in range(1, 51)}
    publishers = {table: make_table(table) for table in matches}
    threads = [
        threading.Thread(target=publishers[t].publish_many, args=(entries,))
        for t, entries in matches.items()
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    total = sum(len(e) for e in matches.values())
    wait_for(lambda: hub.service.stats["stored"] == total, 120, f"{total} events stored")
    for publisher in publishers.values():  # the hub's acknowledgements empty every outbox
        publisher.wait_delivered(60)
    tables = {t["table"]: t for t in get_json(hub.url + "/api/tables")}
    assert len(tables) == 50
    for table, entries in matches.items():
        assert stored_entries(hub, table, entries[0]["match_id"]) == entries
        expected = folded(entries)
        card = tables[table]
        assert card["players"] == expected["players"] and card["score"] == expected["score"]
        assert card["finished"] is True and card["seq"] == len(entries)
        assert {k: card[k] for k in expected} == expected
    assert hub.service.store.event_count() == total
    results = get_json(hub.url + "/api/results")
    assert len(results) == 50


def test_broker_killed_mid_match_loses_no_event_and_duplicates_none(
    broker: Broker, make_hub: Callable[..., HubApp], make_table: Callable[..., TablePublisher]
) -> None:
    hub = make_hub()
    matches = {str(n): simulated_match(n, seed=7 * n, length=5) for n in range(1, 6)}
    publishers = {table: make_table(table) for table in matches}
    wait_for(lambda: all(p.connected for p in publishers.values()), 20, "tables connected")
    thirds = {t: (len(e) // 3, 2 * len(e) // 3) for t, e in matches.items()}
    for table, entries in matches.items():  # one by one, as a live table journals them
        for entry in entries[: thirds[table][0]]:
            publishers[table].publish(entry)
    broker.kill()  # mid-match, with events in flight; no persistence: the broker forgets all
    wait_for(lambda: not any(p.connected for p in publishers.values()), 30, "tables to notice")
    for table, entries in matches.items():  # the network is away: these wait on disk
        for entry in entries[thirds[table][0] : thirds[table][1]]:
            publishers[table].publish(entry)
    broker.start()
    for table, entries in matches.items():
        for entry in entries[thirds[table][1] :]:
            publishers[table].publish(entry)
    for publisher in publishers.values():
        publisher.wait_delivered(90)
    assert hub.service.wait_idle(30)
    assert broker.starts == 2 and all(p.reconnects >= 2 for p in publishers.values())
    for table, entries in matches.items():
        assert stored_entries(hub, table, entries[0]["match_id"]) == entries  # each once, all
        card = hub.service.table("cup", table)
        assert card["score"] == folded(entries)["score"] and card["finished"]
        kinds = ("move", "double", "take", "drop")  # cube actions are in the move list too
        assert len(card["moves"]) == sum(1 for e in entries if e["type"] in kinds)


def _listening(broker: Broker, name: str, topic: str, into: list[dict[str, Any]]) -> Any:
    """A plain MQTT client (``name``) subscribed to ``topic``, appending each message's JSON to
    ``into``, its network loop running; the caller stops it."""
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=name)
    client.on_message = lambda c, u, m: into.append(json.loads(m.payload))
    client.connect("127.0.0.1", broker.port)
    client.subscribe(topic, 1)
    client.loop_start()
    return client


def test_an_event_sent_twice_is_stored_once_and_acknowledged_again(
    broker: Broker, make_hub: Callable[..., HubApp]
) -> None:
    """QoS 1 may deliver an event twice (a table resending what the hub's lost ack did not
    clear): the hub keeps one, counts the other as a duplicate, and acknowledges it again."""

    from controller.hub.topics import hub_presence_topic, table_topic

    hub = make_hub()
    entries = simulated_match(21, 21)[:5]
    # the hub says online after subscribing, on the same connection: once its word with this
    # boot arrives, the broker has taken its subscription (a real table sends on that word)
    said: list[dict[str, Any]] = []
    watch = _listening(broker, "raw-watch", hub_presence_topic("hakem"), said)
    try:
        wait_for(lambda: any(p.get("boot") == hub.service.boot for p in said), 30,
                 "the hub online")
    finally:
        watch.loop_stop()
        watch.disconnect()
    acks: list[dict[str, Any]] = []
    client = _listening(broker, "raw-table", table_topic("hakem", "cup", "21", "ack"), acks)
    try:
        match = entries[0]["match_id"]
        events = table_topic("hakem", "cup", "21", "events")

        def send_all() -> None:
            for entry in entries:
                body = json.dumps({"match": match, "entry": entry}).encode()
                client.publish(events, body, 1).wait_for_publish(10)

        def acked() -> bool:
            return any(a.get("matches", {}).get(match) == len(entries) for a in acks)

        send_all()
        wait_for(acked, 30, "the acknowledgement")
        acks.clear()
        send_all()  # again, as a table whose outbox kept them
        wait_for(lambda: hub.service.stats["duplicates"] == len(entries), 30, "the duplicates")
        assert hub.service.store.event_count() == len(entries)
        wait_for(acked, 30, "the acknowledgement again")
    finally:
        client.loop_stop()
        client.disconnect()


def test_hub_restarted_rebuilds_from_its_database_and_catches_up(
    tmp_path: Path, make_hub: Callable[..., HubApp], make_table: Callable[..., TablePublisher]
) -> None:
    hub = make_hub()
    matches = {str(n): simulated_match(n, seed=n, length=5) for n in range(1, 4)}
    publishers = {table: make_table(table) for table in matches}
    halves = {t: len(e) // 2 for t, e in matches.items()}
    for table, entries in matches.items():
        publishers[table].publish_many(entries[: halves[table]])
    for publisher in publishers.values():
        publisher.wait_delivered(60)
    before = get_json(hub.url + "/api/tables")
    details = {t: get_json(f"{hub.url}/api/tables/cup/{t}") for t in matches}
    hub.stop()

    offline = HubApp(str(tmp_path / "hub.db"), None).start()  # no broker: the database only
    try:
        rebuilt = get_json(offline.url + "/api/tables")
        assert [{**card, "revision": 0, "clock_age_ms": None} for card in rebuilt] == [
            {**card, "revision": 0, "clock_age_ms": None} for card in before
        ]
        # restamped on rebuild: a page left open across the restart takes the new summaries;
        # when each clock was heard is not stored (clock_age_ms: null after a restart)
        pairs = zip(rebuilt, before, strict=True)
        assert all(new["revision"] > old["revision"] for new, old in pairs)
        for table in matches:  # the detail carries the card's revision (restamped) too
            detail = get_json(f"{offline.url}/api/tables/cup/{table}")
            unstamped = {"revision": 0, "clock_age_ms": None}
            assert {**detail, **unstamped} == {**details[table], **unstamped}
    finally:
        offline.stop()

    for table, entries in matches.items():  # the match goes on while the hub is down
        publishers[table].publish_many(entries[halves[table] :])
    again = make_hub()
    for publisher in publishers.values():
        publisher.wait_delivered(60)
    assert again.service.wait_idle(30)
    for table, entries in matches.items():
        assert stored_entries(again, table, entries[0]["match_id"]) == entries
        assert again.service.table("cup", table)["finished"]


def test_presence_is_retained_and_the_last_will_marks_a_dead_table_offline(
    broker: Broker,
    tmp_path: Path,
    make_hub: Callable[..., HubApp],
    make_table: Callable[..., TablePublisher],
) -> None:
    hub = make_hub()
    graceful = make_table("1")
    graceful.publish_many(simulated_match(1, 1)[:5])
    graceful.wait_delivered(30)
    assert hub.service.table("cup", "1")["presence"] == "online"
    graceful.close()
    wait_for(lambda: hub.service.table("cup", "1")["presence"] == "offline", 20, "offline")

    link = table_link(broker, tmp_path, "2", keepalive_s=2)
    script = textwrap.dedent(f"""
        import sys, time
        from controller.hub.link import LinkConfig
        from controller.hub.publisher import TablePublisher
        from tests.controller.hub.matches import simulated_match
        link = LinkConfig(host="127.0.0.1", port={broker.port}, table="2", tournament="cup",
                          outbox={link.outbox!r}, keepalive_s=2)
        publisher = TablePublisher(link).start()
        publisher.publish_many(simulated_match(2, 2)[:3])
        publisher.wait_delivered(30)
        print("ready", flush=True)
        time.sleep(600)
    """)
    child = subprocess.Popen([sys.executable, "-c", script], cwd=REPO, stdout=subprocess.PIPE)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == b"ready"
        wait_for(lambda: hub.service.table("cup", "2")["presence"] == "online", 20, "online")
        os.kill(child.pid, signal.SIGKILL)  # no DISCONNECT: only the will can tell
        wait_for(lambda: hub.service.table("cup", "2")["presence"] == "offline", 20, "the will")
    finally:
        child.kill()
        child.wait(10)
        if child.stdout is not None:
            child.stdout.close()
    assert hub.service.table("cup", "2")["reported"]["seq"] == 3  # the retained state


def test_publish_journal_sends_a_whole_journal_and_sending_it_again_stores_nothing_twice(
    broker: Broker, tmp_path: Path, make_hub: Callable[..., HubApp]
) -> None:
    """``publish_journal`` (a finished journal at once) reaches the hub with its flags' photos;
    sent again, each entry is stored once. Whether the second send reaches the hub at all
    depends on when the hub's retained acknowledgement arrives (it may clear the outbox
    first), so the hub's own duplicate count is not asserted here: the broker test above
    kills the broker mid-match to make the resend certain."""
    from controller.records.journal import Journal

    hub = make_hub()
    entries = simulated_match(9, 9)
    journal_path = tmp_path / "demo" / "journal.jsonl"
    with Journal(journal_path) as journal:
        for entry in entries:
            fields = {k: v for k, v in entry.items() if k not in ("seq", "time", "type")}
            journal.append(entry["type"], **fields)
    flagged = [e for e in entries if e.get("snapshot")]
    for entry in flagged:
        (journal_path.parent / entry["snapshot"]).write_bytes(b"\xff\xd8fake-jpeg\xff\xd9")
    link = table_link(broker, tmp_path, "9")
    assert publish_journal(journal_path, link, until="hub") == len(entries)
    assert publish_journal(journal_path, link, until="broker") == len(entries)  # again
    assert hub.service.wait_idle(30)
    assert hub.service.store.event_count() == len(entries)
    detail = hub.service.table("cup", "9")
    assert detail["finished"] and detail["seq"] == len(entries)
    for flag in detail["flags"]:
        if flag["type"] == "illegal_move":
            assert flag["snapshot"] is True
            seq = flag["seq"]
            with urllib.request.urlopen(
                f"{hub.url}/api/tables/cup/9/snapshots/{detail['match']}/{seq}.jpg", timeout=10
            ) as response:
                assert response.read() == b"\xff\xd8fake-jpeg\xff\xd9"


def test_a_restarted_table_resumes_its_state_from_the_journal(
    make_hub: Callable[..., HubApp], make_table: Callable[..., TablePublisher]
) -> None:
    hub = make_hub()
    entries = simulated_match(12, 12)
    first = make_table("12")
    first.publish_many(entries[:30])
    first.wait_delivered(30)
    first.close()
    again = make_table("12")  # the Pi rebooted: same outbox, state rebuilt from the journal
    again.resume(entries[:30])
    again.publish_many(entries[30:])
    again.wait_delivered(30)
    assert again.state is not None and again.state.summary() == folded(entries)
    wait_for(lambda: (hub.service.table("cup", "12")["reported"] or {}).get("seq")
             == len(entries), 30, "the retained state")
    assert hub.service.table("cup", "12")["reported"]["players"] == ["Ayse 12", "Mehmet 12"]


def test_the_hub_says_when_it_cannot_reach_reaches_and_loses_the_broker(
        broker: Broker, make_hub: Callable[..., HubApp],
        caplog: pytest.LogCaptureFixture) -> None:
    """A director starting the hub before the broker (or with a mistyped port) is told, once,
    that no table can be heard yet; then when the hub connects, and when it loses the broker
    (before, the hub said nothing at all about its broker)."""
    caplog.set_level(logging.INFO, logger="hakem.hub")
    broker.stop()
    hub = make_hub()
    name = f"mqtt://127.0.0.1:{broker.port}"

    def said(text: str) -> list[str]:
        return [r.getMessage() for r in caplog.records if r.getMessage().startswith(text)]

    wait_for(lambda: said("cannot reach"), 10, "the hub to say the broker is not there")
    assert said("cannot reach") == [f"cannot reach the broker at {name}: no table is heard "
                                    "until it answers; trying again"]
    broker.start()
    wait_for(hub.service.connected.is_set, 15, "the hub to connect")
    assert said("connected") == [f"connected to the broker at {name}"]
    assert len(said("cannot reach")) == 1  # said once, however often paho tried again
    broker.kill()
    wait_for(lambda: said("lost the broker"), 15, "the hub to say it lost the broker")


def test_two_hubs_on_one_broker_keep_their_connections(
        make_hub: Callable[..., HubApp], tmp_path: Path,
        caplog: pytest.LogCaptureFixture) -> None:
    """Two rooms' hubs on one broker: each has a client id of its own, so neither takes the
    other's connection over (with one fixed id they knocked each other off every 200 ms)."""
    caplog.set_level(logging.INFO, logger="hakem.hub")
    first, second = make_hub(tmp_path / "a.db"), make_hub(tmp_path / "b.db")
    for hub in (first, second):
        wait_for(hub.service.connected.is_set, 15, "a hub to connect")
    threading.Event().wait(1.5)  # a takeover would have happened by now, many times
    assert first.service.connected.is_set() and second.service.connected.is_set()
    assert not [r for r in caplog.records if r.getMessage().startswith("lost the broker")]


def test_a_table_says_how_its_link_to_the_hub_goes(broker: Broker, tmp_path: Path) -> None:
    """``hakem run`` said nothing when its hub.url pointed nowhere or the broker went away
    (end-to-end QA): the publisher says each change of its link once, and nothing on its own
    goodbye."""
    said: list[str] = []
    broker.stop()
    publisher = TablePublisher(table_link(broker, tmp_path, "t1"))
    publisher.say = said.append
    publisher.start()
    name = f"The hub's broker at mqtt://127.0.0.1:{broker.port}"
    wait_for(lambda: said, 10, "the table to say the broker is not there")
    broker.start()
    wait_for(lambda: len(said) >= 2, 15, "the table to connect")
    broker.kill()
    wait_for(lambda: len(said) >= 3, 15, "the table to say it lost the broker")
    broker.start()
    wait_for(lambda: len(said) >= 4, 15, "the table to connect again")
    publisher.close()
    assert said == [
        f"{name} cannot be reached: the table's entries wait in its outbox until it answers; "
        "trying again",
        f"{name} answers: the table is on the hub",
        said[2],
        f"{name} answers: the table is on the hub"]
    assert said[2].startswith(f"{name} was lost (")


def test_two_tables_with_one_id_each_say_so_once(broker: Broker, tmp_path: Path) -> None:
    """Two tables given the same [table] id share one MQTT client id and take the link from
    each other; neither said a word, and each one's live log filled with lost/answers lines
    (end-to-end QA). Each now says once that another table is on the hub under its id."""
    said: dict[str, list[str]] = {"a": [], "b": []}
    tables = {}
    for key in ("a", "b"):
        publisher = TablePublisher(table_link(broker, tmp_path, "t1",
                                              outbox=str(tmp_path / f"outbox-{key}.db")))
        publisher.say = said[key].append
        tables[key] = publisher.start()
        threading.Event().wait(0.5)
    wait_for(lambda: all(t.twin for t in tables.values()), 20, "both tables to see the other")
    threading.Event().wait(1.0)  # the two keep taking the link from each other meanwhile
    for publisher in tables.values():
        publisher.close()
    for lines in said.values():
        twins = [line for line in lines if line.startswith("Another table is on the hub")]
        assert len(twins) == 1 and "table 't1' (tournament 'cup')" in twins[0]
        assert len(lines) <= 4  # not a line per takeover


def test_a_table_restarted_under_its_id_is_no_twin(broker: Broker, tmp_path: Path) -> None:
    """Its last run's presence, kept by the broker, is no other table."""
    said: list[str] = []
    first = TablePublisher(table_link(broker, tmp_path, "t1")).start()
    wait_for(lambda: first.reconnects > 0, 15, "the first run to connect")
    first.close()
    again = TablePublisher(table_link(broker, tmp_path, "t1"))
    again.say = said.append
    again.start()
    wait_for(lambda: again.reconnects > 0, 15, "the second run to connect")
    threading.Event().wait(1.0)
    again.close()
    assert not again.twin and not [s for s in said if s.startswith("Another table")]


def test_a_dead_runs_last_word_does_not_leave_the_table_offline(broker: Broker,
                                                                  tmp_path: Path) -> None:
    """A run that died without a goodbye (SIGKILL, power) leaves the broker its will,
    "offline", which the broker publishes only once the dead connection times out: after the
    restarted run said it is online. The restarted run says so again."""

    from controller.hub.topics import table_topic

    seen: list[dict[str, Any]] = []
    reader = _listening(broker, "reader", table_topic("hakem", "cup", "t1", "presence"), seen)
    dead = TablePublisher(table_link(broker, tmp_path, "t1", keepalive_s=2)).start()
    wait_for(lambda: dead.reconnects > 0, 15, "the first run to connect")
    dead.client.loop_stop()  # no more pings, no goodbye: the broker times it out (3 s)
    again = TablePublisher(table_link(broker, tmp_path, "t1",
                                      outbox=str(tmp_path / "outbox-again.db"))).start()
    wait_for(lambda: again.reconnects > 0, 15, "the restarted run to connect")

    def will_then_online() -> bool:
        wills = [i for i, m in enumerate(seen) if m.get("reason") == "lost"
                 and m.get("instance") == dead.instance]
        return bool(wills) and any(m.get("instance") == again.instance
                                   and m["status"] == "online" for m in seen[wills[0]:])

    wait_for(will_then_online, 15, "the dead run's will, then the restarted run online again")
    reader.loop_stop()
    reader.disconnect()
    again.close()
    assert not again.twin


class SubscribeHolder:
    """A TCP proxy to the broker that holds a client's bytes from its first SUBSCRIBE on until
    :attr:`release` is set: the broker's SUBACK is late, as under load."""

    def __init__(self, broker_port: int) -> None:
        self.broker_port = broker_port
        self.holding = threading.Event()  # a SUBSCRIBE reached the proxy and is held
        self.release = threading.Event()
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = int(self.server.getsockname()[1])
        self.sockets: list[socket.socket] = [self.server]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        """Pipe each connection to the broker, one thread each way."""
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.broker_port))
            self.sockets += [client, upstream]
            threading.Thread(target=self._pipe, args=(upstream, client, False), daemon=True).start()
            threading.Thread(target=self._pipe, args=(client, upstream, True), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket, hold: bool) -> None:
        """Copy ``source`` to ``sink``; with ``hold``, packet by packet, waiting for
        :attr:`release` before the first SUBSCRIBE (MQTT packet type 8)."""
        reader = source.makefile("rb")
        try:
            while True:
                if not hold:
                    data = source.recv(65536)
                    if not data:
                        return
                    sink.sendall(data)
                    continue
                head = reader.read(1)
                if not head:
                    return
                length_bytes, length, shift = b"", 0, 0
                while True:  # the remaining length: 7 bits a byte, low first
                    byte = reader.read(1)
                    length_bytes += byte
                    length |= (byte[0] & 0x7F) << shift
                    shift += 7
                    if not byte[0] & 0x80:
                        break
                packet = head + length_bytes + reader.read(length)
                if head[0] >> 4 == 8 and not self.release.is_set():
                    self.holding.set()
                    self.release.wait()
                sink.sendall(packet)
        except (OSError, IndexError):
            return
        finally:
            with contextlib.suppress(OSError):
                sink.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        """Let everything through and close every socket."""
        self.release.set()
        for sock in self.sockets:
            sock.close()


def test_the_hub_is_connected_and_says_online_only_once_the_broker_took_its_subscriptions(
        broker: Broker, tmp_path: Path) -> None:
    """The hub set ``connected`` (and said online, on which tables resend) as soon as the
    broker accepted its connection, before the broker acknowledged its subscriptions: events
    sent meanwhile were lost. Now it is connected, and says its boot, on the SUBACK; an event
    sent on that word is stored."""
    from controller.hub.link import LinkConfig, parse_broker_url
    from controller.hub.topics import hub_presence_topic, table_topic

    proxy = SubscribeHolder(broker.port)
    said: list[dict[str, Any]] = []
    watch = _listening(broker, "raw-watch", hub_presence_topic("hakem"), said)
    link = parse_broker_url(f"mqtt://127.0.0.1:{proxy.port}", LinkConfig(keepalive_s=5))
    hub = HubApp(str(tmp_path / "hub.db"), link).start()
    table: Any = None
    try:
        wait_for(proxy.holding.is_set, 30, "the hub's subscription at the proxy")
        assert not hub.service.connected.wait(1.0)  # held: no SUBACK yet
        proxy.release.set()
        wait_for(hub.service.connected.is_set, 30, "the hub to connect")
        wait_for(lambda: any(p.get("status") == "online" and p.get("boot") == hub.service.boot
                             for p in said), 30, "the hub online")
        entry = simulated_match(22, 22)[0]
        table = _listening(broker, "raw-table", table_topic("hakem", "cup", "22", "ack"), [])
        body = json.dumps({"match": entry["match_id"], "entry": entry}).encode()
        table.publish(table_topic("hakem", "cup", "22", "events"), body, 1).wait_for_publish(10)
        wait_for(lambda: hub.service.store.event_count() == 1, 30, "the event stored")
    finally:
        for client in (watch, table):
            if client is not None:
                client.loop_stop()
                client.disconnect()
        hub.stop()
        proxy.close()


class _Published:
    """A stand-in paho client that keeps what the hub publishes."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, str]] = []

    def publish(self, topic: str, payload: str, qos: int, retain: bool) -> None:
        self.sent.append((topic, payload))


def test_a_suback_that_refuses_the_subscriptions_leaves_the_hub_silent_and_unconnected(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A SUBACK with a failure code (0x80): the hub says no boot, does not count as connected
    and logs the refusal; a granting one (QoS 1) makes it say online."""
    from paho.mqtt.packettypes import PacketTypes
    from paho.mqtt.reasoncodes import ReasonCode

    service = HubService(str(tmp_path / "hub.db"))
    try:
        client = _Published()
        refused, granted = (ReasonCode(PacketTypes.SUBACK, identifier=code) for code in (0x80, 1))
        with caplog.at_level("WARNING", logger="hakem.hub"):
            service._on_subscribe(client, None, 1, [refused], None)  # type: ignore[arg-type]
        assert not service.connected.is_set() and client.sent == []
        assert "refused the hub's subscriptions" in caplog.text
        service._on_subscribe(client, None, 2, [granted], None)  # type: ignore[arg-type]
        assert service.connected.is_set()
        assert [json.loads(p)["status"] for _, p in client.sent] == ["online"]
    finally:
        service.store.close()
