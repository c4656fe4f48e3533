"""The hub attacked from the hall: hostile MQTT messages, hostile text in a table's journal,
password guessing, stalled HTTP clients, and a table's broker login used against other tables."""

from __future__ import annotations

import http.client
import json
import re
import socket
import subprocess
import threading
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest

from controller.hub.publisher import TablePublisher
from controller.hub.server import HubApp
from controller.hub.topics import check_id
from engine.errors import InvalidInputError
from tests.controller.hub.broker import Broker, wait_for
from tests.controller.hub.conftest import table_link
from tests.controller.hub.matches import simulated_match
from tests.controller.hub.test_http import PASSWORD, call
from tests.controller.hub.webdriver import Browser

ROOT = Path(__file__).resolve().parents[3]
HOSTILE = '<img src=x onerror="window.hakemXss=1">"><svg onload="window.hakemXss=2">'


@contextmanager
def raw_client(broker: Broker, name: str, user: str | None = None,
               password: str | None = None) -> Iterator[mqtt.Client]:
    """A plain MQTT client on the test broker: what anyone with a login can run."""
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=name)
    if user is not None:
        client.username_pw_set(user, password)
    client.connect("127.0.0.1", broker.port)
    client.loop_start()
    wait_for(client.is_connected, 20, f"{name} on the broker")
    try:
        yield client
    finally:
        client.disconnect()
        client.loop_stop()


def send(client: mqtt.Client, topic: str, payload: bytes | str) -> None:
    """Publish at QoS 1 and wait for the broker's acknowledgement."""
    client.publish(topic, payload, 1).wait_for_publish(10)


def event(table: str, entry: dict[str, Any], match: str = "m1") -> tuple[str, bytes]:
    return f"hakem/cup/{table}/events", json.dumps({"v": 1, "match": match,
                                                    "entry": entry}).encode()


POISONS = {
    "a seq SQLite cannot hold": event("2", {"seq": 2**64, "time": "t", "type": "roll"}),
    "JSON nested too deeply": ("hakem/cup/2/events", b"[" * 100_000 + b"]" * 100_000),
    "a lone surrogate in the match id": (
        "hakem/cup/2/events",
        b'{"match": "m\\ud800", "entry": {"seq": 1, "time": "t", "type": "match_start", '
        b'"players": ["a", "b"]}}'),
}


@pytest.mark.parametrize("poison", list(POISONS))
def test_a_hostile_message_is_left_out_alone_not_with_other_tables_in_its_batch(
    poison: str, broker: Broker, make_hub: Callable[..., HubApp]
) -> None:
    """One message the hub cannot store used to undo its whole batch: every other table's
    entries that arrived with it were lost until those tables reconnected."""
    hub = make_hub()
    wait_for(hub.service.connected.is_set, 20, "the hub on the broker")
    service = hub.service
    entries = simulated_match(1, seed=3, length=3)[:4]
    with raw_client(broker, "hostile") as client:
        with service.store.lock:  # the writer waits here, so what follows is one batch
            send(client, "hakem/cup/0/presence", '{"status": "online"}')
            wait_for(lambda: service._received == 1 and service._inbox.empty(), 20,
                     "the writer to take the first message")
            for entry in entries[:2]:
                send(client, *event("1", entry))
            send(client, *POISONS[poison])
            for entry in entries[2:]:
                send(client, *event("1", entry))
            wait_for(lambda: service._received == 2 + len(entries), 20, "the batch to arrive")
        assert service.wait_idle(30)
    status, table = call(hub.url + "/api/tables/cup/1")
    assert status == 200 and table["seq"] == len(entries)  # table 1's entries all stored
    assert call(hub.url + "/api/tables/cup/2")[0] == 404  # the hostile one made no table
    assert service.store.event_count() == len(entries)


def test_ids_of_dots_only_are_refused_in_a_topic_and_in_a_config() -> None:
    """``..`` as a table id made a card whose link and API paths named other paths."""
    for bad in (".", "..", "..."):
        with pytest.raises(InvalidInputError, match=re.escape(repr(bad))):
            check_id(bad, "table")
    assert check_id("7.1", "table") == "7.1"


def test_a_table_id_of_dots_makes_no_card(broker: Broker, make_hub: Callable[..., HubApp]
                                          ) -> None:
    hub = make_hub()
    wait_for(hub.service.connected.is_set, 20, "the hub on the broker")
    with raw_client(broker, "hostile") as client:
        send(client, "hakem/cup/../presence", '{"status": "online"}')
        send(client, "hakem/../5/presence", '{"status": "online"}')
        send(client, "hakem/cup/6/presence", '{"status": "online"}')
    wait_for(lambda: hub.service._received == 3, 20, "three messages")
    assert hub.service.wait_idle(30)
    assert [(t["tournament"], t["table"]) for t in call(hub.url + "/api/tables")[1]] == [
        ("cup", "6")]


@pytest.fixture
def app(tmp_path: Path) -> Iterator[HubApp]:
    hub = HubApp(str(tmp_path / "hub.db"), None, request_timeout_s=0.5).start()
    hub.service.add_user("td", PASSWORD)
    yield hub
    hub.stop()


def test_login_attempts_sent_all_at_once_get_no_more_than_five_checked(app: HubApp) -> None:
    """The lockout counted a failure only once its password had been checked: attempts sent
    together all passed the count while the first was still hashing."""
    attempts = 12
    start = threading.Barrier(attempts)
    answers: list[tuple[int, str]] = []
    lock = threading.Lock()

    def guess(i: int) -> None:
        start.wait()
        status, body = call(app.url + "/api/login", {"user": "td", "password": f"guess {i}"})
        with lock:
            answers.append((status, body["error"]))

    threads = [threading.Thread(target=guess, args=(i,)) for i in range(attempts)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(answers) == attempts and all(status == 401 for status, _ in answers)
    checked = [e for _, e in answers if "wrong user name or password" in e]
    assert len(checked) == 5, answers
    status, body = call(app.url + "/api/login", {"user": "td", "password": PASSWORD})
    assert status == 401 and "too many wrong passwords" in body["error"]


def test_a_right_password_still_logs_in_and_does_not_count_against_the_address(
        app: HubApp) -> None:
    for _ in range(6):
        assert call(app.url + "/api/login", {"user": "td", "password": PASSWORD})[0] == 200
    for i in range(4):
        assert call(app.url + "/api/login", {"user": "td", "password": f"no {i}"})[0] == 401
    assert call(app.url + "/api/login", {"user": "td", "password": PASSWORD})[0] == 200


def test_a_client_that_stalls_mid_body_is_disconnected_and_others_are_served(app: HubApp
                                                                              ) -> None:
    host, port = app.http.server_address[:2]
    with socket.create_connection((str(host), int(port)), timeout=20) as stalled:
        stalled.sendall(b"POST /api/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: "
                        b"application/json\r\nContent-Length: 100\r\n\r\n{")
        assert call(app.url + "/api/tables")[0] == 200  # served meanwhile (threads)
        assert stalled.recv(1024) == b""  # closed by the hub, no answer to half a body


def test_a_body_nested_too_deeply_is_refused_with_400(app: HubApp) -> None:
    body = b"[" * 30_000 + b"]" * 30_000
    request = urllib.request.Request(app.url + "/api/login", data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    assert refused.value.code == 400
    assert "nested too deeply" in json.loads(refused.value.read())["error"]


def test_hostile_text_from_a_table_and_a_note_are_shown_as_text_never_as_markup(
    browser: Browser, make_hub: Callable[..., HubApp],
    make_table: Callable[..., TablePublisher],
) -> None:
    """Player names, the table's name, a flag's rule and reason, move text and a director's
    note, all markup, reach the dashboard, the table page and the board as text."""
    hub = make_hub()
    hub.service.add_user("td", PASSWORD)
    table = make_table("9", name=HOSTILE)
    start = {"seq": 1, "time": "2026-05-01T10:00:00Z", "type": "match_start",
             "players": [HOSTILE, "b" + HOSTILE], "length": 3, "match_id": "x1"}
    entries = [start,
               {"seq": 2, "time": "t", "type": "game_start", "number": 1, "score": [0, 0]},
               {"seq": 3, "time": "t", "type": "move", "player": 0, "dice": [3, 1],
                "move": HOSTILE},
               {"seq": 4, "time": "t", "type": "illegal_move", "player": 1, "rule": HOSTILE,
                "reason": HOSTILE}]
    table.publish_many(entries)
    wait_for(lambda: hub.service.tables() and hub.service.tables()[0]["seq"] == 4, 30,
             "the entries at the hub")
    token = call(hub.url + "/api/login", {"user": "td", "password": PASSWORD})[1]["token"]
    assert call(hub.url + "/api/tables/cup/9/end", {"winner": 0, "note": HOSTILE},
                token)[0] == 200
    injected = ("return [document.querySelectorAll('img[src=\"x\"], svg[onload], [onerror]')"
                ".length, window.hakemXss === undefined, document.documentElement.textContent];")
    browser.get(hub.url + "/")
    wait_for(lambda: "ended by td" in browser.run(injected)[2], 30, "the card")
    found, clean, text = browser.run(injected)
    assert found == 0 and clean and text.count(HOSTILE) >= 3  # names, table name, flag, note
    browser.get(hub.url + "/tables/cup/9")
    wait_for(lambda: "(ended by td" in browser.run(injected)[2], 30, "the table page")
    found, clean, text = browser.run(injected)
    assert found == 0 and clean and text.count(HOSTILE) >= 4  # move, rule, reason, note too
    browser.get(hub.url + "/api/tables/cup/9/board.svg")  # opened alone: names in its title
    found, clean, text = browser.run(injected)
    assert found == 0 and clean and HOSTILE[:8] in text


def acl_from_docs() -> str:
    """The ACL file hub.md gives for a hall (the block after its ``user hub`` line)."""
    text = (ROOT / "hardware_docs" / "hub.md").read_text()
    found = re.search(r"```\n(user hub\n.*?)```", text, re.S)
    assert found, "hub.md gives no ACL file starting 'user hub'"
    return found.group(1)


def test_with_the_documented_acl_a_table_login_cannot_end_or_write_another_tables_match(
    tmp_path: Path,
) -> None:
    """Without an ACL any login (a table's, from its Pi) could publish another table's
    director ``end`` (its referee would end the match) or its events."""
    acl = acl_from_docs()
    table8 = acl[acl.index("user table7"):].replace("table7", "table8").replace("/7/", "/8/")
    (tmp_path / "acl").write_text(acl + "\n" + table8)
    passwd = tmp_path / "passwd"
    passwd.write_text("")
    for user in ("hub", "table7", "table8"):
        subprocess.run(["mosquitto_passwd", "-b", str(passwd), user, f"{user} secret"],
                       check=True, capture_output=True)
    passwd.chmod(0o600)
    broker = Broker(tmp_path / "broker", extra_config=(
        f"allow_anonymous false\npassword_file {passwd}\nacl_file {tmp_path / 'acl'}\n")).start()
    try:
        secret = tmp_path / "table7-password"
        secret.write_text("table7 secret\n")
        link = table_link(broker, tmp_path, "7", username="table7", password_file=str(secret))
        folder = tmp_path / "journal"
        folder.mkdir()
        hub_secret = tmp_path / "hub-password"
        hub_secret.write_text("hub secret\n")
        from controller.hub.link import LinkConfig, parse_broker_url
        hub_link = parse_broker_url(broker.url, LinkConfig(
            keepalive_s=5, username="hub", password_file=str(hub_secret)))
        with HubApp(str(tmp_path / "hub.db"), hub_link) as hub, \
                TablePublisher.of_folder(link, folder) as table:
            hub.service.add_user("td", PASSWORD)
            entries = simulated_match(7, seed=4, length=3)
            table.publish_many(entries[:5])
            match = entries[0]["match_id"]
            wait_for(lambda: call(hub.url + "/api/tables")[1]
                     and call(hub.url + "/api/tables")[1][0]["seq"] == 5, 30, "table 7's entries")
            end = json.dumps({"kind": "end", "user": "td", "match": match, "winner": 1,
                              "note": "x"})
            forged = {"seq": 6, "time": "t", "type": "match_end", "winner": 1, "score": [0, 3]}
            for topic, payload in [("hakem/cup/7/director", end), event("7", forged, match)]:
                with raw_client(broker, "hostile", "table8", "table8 secret") as hostile:
                    hostile.publish(topic, payload, 1)
                    # Mosquitto drops the message and closes the connection that sent it
                    wait_for(lambda h=hostile: not h.is_connected(), 20, "the broker's refusal")
            with raw_client(broker, "table8", "table8", "table8 secret") as own:
                send(own, "hakem/cup/8/presence", '{"status": "online"}')  # its own: fine
            wait_for(lambda: any(t["table"] == "8" for t in call(hub.url + "/api/tables")[1]),
                     30, "table 8's own presence")
            token = call(hub.url + "/api/login", {"user": "td", "password": PASSWORD})[1]
            status, _ = call(hub.url + "/api/tables/cup/7/end", {"winner": 0, "note": "real"},
                             token["token"])
            assert status == 200
            wait_for(lambda: table.director_messages, 30, "the director's end at table 7")
            assert [m["note"] for m in table.director_messages] == ["real"]
            card = next(t for t in call(hub.url + "/api/tables")[1] if t["table"] == "7")
            assert card["seq"] == 5 and card["winner"] == 0  # the forged match_end never came
    finally:
        broker.stop()


def test_odd_methods_get_an_answer_and_change_nothing(app: HubApp) -> None:
    host, port = app.http.server_address[:2]
    for method in ("OPTIONS", "PUT", "DELETE", "PATCH", "TRACE"):
        conn = http.client.HTTPConnection(str(host), int(port), timeout=10)
        conn.request(method, "/api/tables/cup/9/end", body=b"{}",
                     headers={"Content-Type": "application/json"})
        assert conn.getresponse().status == 501, method
        conn.close()
    assert call(app.url + "/api/audit")[0] == 401


def test_head_of_the_stream_gets_the_headers_alone_and_the_connection_ends(app: HubApp) -> None:
    host, port = app.http.server_address[:2]
    with socket.create_connection((str(host), int(port)), timeout=20) as conn:
        conn.sendall(b"HEAD /api/stream HTTP/1.1\r\nHost: localhost\r\n\r\n")
        data = b""
        while (chunk := conn.recv(4096)) and b"event:" not in data + chunk:
            data += chunk
        data += chunk
    assert data.startswith(b"HTTP/1.1 200") and data.endswith(b"\r\n\r\n")
    assert b"text/event-stream" in data and b"event:" not in data
