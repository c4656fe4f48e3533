"""Demo tables on the hub, through a real Mosquitto: ``hakem demo --game mangala --publish URL
--table ID`` publishes its round as the backgammon demo does (it refused ``--publish``), and a
director's end of the match on the dashboard is carried out by a demo's referee, for both games,
and journalled as at a live table (a demo had no director inbox: the end did nothing)."""

from __future__ import annotations

import dataclasses
import io
import json
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

import paho.mqtt.client as mqtt
import pytest

from controller.cli import main
from controller.demo.script import BUNDLED
from controller.demo.table import DemoOptions, DemoTable
from controller.hub.server import HubApp
from controller.hub.service import NotFoundError
from controller.hub.topics import DEFAULT_PREFIX, table_topic
from controller.mangala.demo import MangalaDemoOptions, MangalaDemoStats
from controller.records.journal import read_journal
from controller.runtime.director_inbox import ANSWERS_NAME, INBOX_NAME
from tests.controller.hub.broker import Broker, wait_for
from tests.controller.hub.conftest import table_link
from tests.controller.mangala.test_demo_flow import cheap

PASSWORD = "a long enough secret"


class Listener:
    """A plain MQTT subscriber to everything one table publishes."""

    def __init__(self, broker: Broker, table: str) -> None:
        self.messages: list[tuple[str, dict[str, Any]]] = []
        self._lock = threading.Lock()
        subscribed = threading.Event()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2,
                                  client_id=f"listener-{table}")
        events = table_topic(DEFAULT_PREFIX, "default", table, "events")
        topic = events.rsplit("/", 1)[0] + "/#"  # every leaf of the table

        def on_connect(client: mqtt.Client, *_: Any) -> None:
            client.subscribe(topic, 1)

        def on_subscribe(*_: Any) -> None:
            subscribed.set()

        def on_message(client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
            with self._lock:
                self.messages.append((message.topic.rsplit("/", 1)[-1],
                                      json.loads(message.payload)))

        self.client.on_connect = on_connect
        self.client.on_subscribe = on_subscribe
        self.client.on_message = on_message
        self.client.connect("127.0.0.1", broker.port)
        self.client.loop_start()
        assert subscribed.wait(10), "the listener did not subscribe"

    def of(self, leaf: str) -> list[dict[str, Any]]:
        """The bodies heard on the table's ``leaf`` topic, in order."""
        with self._lock:
            return [body for topic, body in self.messages if topic == leaf]

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def test_a_mangala_demo_publishes_its_round(
        broker: Broker, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Every journal entry on the table's events topic, in order and under one match, and the
    table online, then offline when the demo ends."""
    def fast(options: MangalaDemoOptions, *, log: TextIO | None = None,
             progress: TextIO | None = None) -> MangalaDemoStats:
        with cheap(options, log=log, progress=progress) as demo:
            return demo.run()

    monkeypatch.setattr("controller.mangala.cli.run_mangala_demo", fast)
    listener = Listener(broker, "5")
    out = tmp_path / "round"
    try:
        code = main(["demo", "--game", "mangala", "--seed", "3", "--out", str(out),
                     "--publish", broker.url, "--table", "5", "--json"])
        assert code == 0
        report = json.loads(capsys.readouterr().out)
        assert report["ended_by_director"] is False
        entries = read_journal(out / "journal.jsonl").entries
        assert entries[-1]["type"] == "match_end"
        wait_for(lambda: len(listener.of("events")) >= len(entries), 30, "every entry")
        wait_for(lambda: listener.of("presence")[-1]["status"] == "offline", 30,
                 "the table's goodbye")
    finally:
        listener.close()
    events = listener.of("events")
    heard = {e["entry"]["seq"]: e["entry"] for e in events}  # QoS 1: at least once
    assert [heard[seq] for seq in sorted(heard)] == entries
    assert [e["entry"]["seq"] for e in events] == sorted(e["entry"]["seq"] for e in events)
    assert len({e["match"] for e in events}) == 1
    assert any(p["status"] == "online" for p in listener.of("presence"))
    assert listener.of("state")[-1]["game"] == "mangala"


def _end_from_the_dashboard(hub: HubApp, out: Path, table: str, winner: int,
                            when: Callable[[Sequence[dict[str, Any]]], bool]
                            ) -> Callable[[Sequence[dict[str, Any]]], None]:
    """A demo's ``before_frame`` hook: once ``when`` holds of the journal, a director ends
    the match on the hub (once the hub has the match), and the demo goes on only when the
    request has reached the table's inbox: it is taken before the next frame."""
    done: list[bool] = []

    def hub_has(seq: int) -> bool:
        try:
            return int(hub.service.table("cup", table)["seq"]) >= seq
        except NotFoundError:
            return False

    def hook(entries: Sequence[dict[str, Any]]) -> None:
        if done or not when(entries):
            return
        done.append(True)
        wait_for(lambda: hub_has(entries[-1]["seq"]), 30, "the hub to have the match")
        token = hub.service.login("td", PASSWORD, "test")
        hub.service.act(token, "test", "cup", table, "end", {"winner": winner,
                                                             "note": "forfeit"})
        wait_for(lambda: (out / INBOX_NAME).exists(), 30, "the end to reach the table")

    return hook


def _ended_by_the_director(out: Path, hub: HubApp, table: str, winner: object) -> None:
    """The journal holds the director's end as a live table journals it, answered as taken,
    and the hub has every entry the table journalled."""
    entries = read_journal(out / "journal.jsonl").entries
    directed = [e for e in entries if e["type"] == "director"]
    assert [(e["action"], e["args"], e["director"]) for e in directed] == [
        ("end_match", {"winner": winner, "note": "forfeit"}, "td")]
    ends = [e for e in entries if e["type"] == "match_end"]
    assert len(ends) == 1 and ends[0]["how"] == "director" and ends[0]["winner"] == winner
    assert ends[0]["seq"] > directed[0]["seq"]
    answers = [json.loads(line) for line in (out / ANSWERS_NAME).read_text().splitlines()]
    assert [a["ok"] for a in answers] == [True]
    wait_for(lambda: hub.service.table("cup", table)["seq"] == entries[-1]["seq"], 30,
             "the hub to have the table's end")


def test_the_dashboards_end_of_the_match_ends_a_mangala_demo(
        broker: Broker, tmp_path: Path, make_hub: Callable[..., HubApp]) -> None:
    """The hub names the winner 1, the Mangala referee b (a live Mangala table refused the
    hub's end as 'winner is a or b, not 1')."""
    hub = make_hub()
    hub.service.add_user("td", PASSWORD)
    out = tmp_path / "round"
    options = MangalaDemoOptions(out=out, seed=3, publish=table_link(broker, tmp_path, "6"))
    log = io.StringIO()
    with cheap(options, log=log) as demo:
        demo.before_frame = _end_from_the_dashboard(
            hub, out, "6", 1, lambda entries: sum(e["type"] == "move" for e in entries) >= 3)
        stats = demo.run()
    assert stats.ended_by_director and 3 <= stats.sowings < stats.round_sowings
    _ended_by_the_director(out, hub, "6", "b")
    assert "Director td ends the round: Mehmet (b) wins" in log.getvalue()
    assert json.loads((out / "summary.json").read_text())["how"] == "director"
    with cheap(dataclasses.replace(options, publish=None)) as again:  # run on the same folder
        rerun = again.run()
    assert rerun.already_finished and rerun.ended_by_director  # from the journal, not the run


def test_the_dashboards_end_of_the_match_ends_a_backgammon_demo(
        broker: Broker, tmp_path: Path, make_hub: Callable[..., HubApp]) -> None:
    hub = make_hub()
    hub.service.add_user("td", PASSWORD)
    out = tmp_path / "match"
    options = DemoOptions(match=BUNDLED, out=out, seed=3, record=False,
                          publish=table_link(broker, tmp_path, "7"))
    log = io.StringIO()
    with DemoTable(options, log=log) as table:
        table.before_frame = _end_from_the_dashboard(
            hub, out, "7", 0, lambda entries: any(e["type"] == "move" for e in entries))
        stats = table.run()
    assert stats.ended_by_director
    _ended_by_the_director(out, hub, "7", 0)
    assert "The director ends the match" in log.getvalue()
    assert (out / "match.mat").is_file()

