"""Demo tables on the hub, through a real Mosquitto: ``hakem demo --game mangala --publish URL
--table ID`` publishes its round as the backgammon demo does (it refused ``--publish``), and a
director's end of the match on the dashboard is carried out by a demo's referee, for both games,
and journalled as at a live table (a demo had no director inbox: the end did nothing)."""

from __future__ import annotations

import dataclasses
import io
import json
import threading
import urllib.request
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

import paho.mqtt.client as mqtt
import pytest

from controller.cli import main
from controller.demo.script import BUNDLED
from controller.demo.table import DemoOptions, DemoTable
from controller.hub.link import LinkConfig, parse_broker_url
from controller.hub.server import HubApp
from controller.hub.service import NotFoundError
from controller.hub.topics import DEFAULT_PREFIX, table_topic
from controller.mangala.demo import MangalaDemoOptions, MangalaDemoStats
from controller.mangala.records import RECORD_NAME
from controller.records.journal import read_journal
from controller.runtime.director_inbox import ANSWERS_NAME, INBOX_NAME
from tests.controller.hub.broker import Broker, tls_broker, wait_for
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
        captured = capsys.readouterr()
        report = json.loads(captured.out)
        assert report["ended_by_director"] is False
        assert "broker" not in captured.err  # a link that works is not said without a live log
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
                            when: Callable[[Sequence[dict[str, Any]]], bool],
                            served: list[str] | None = None,
                            ) -> Callable[[Sequence[dict[str, Any]]], None]:
    """A demo's ``before_frame`` hook: once ``when`` holds of the journal, a director ends
    the match on the hub (once the hub has the match), and the demo goes on only when the
    request has reached the table's inbox: it is taken before the next frame. ``served``
    takes the round record the hub serves then, before the table has carried the end out."""
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
        if served is not None:
            url = f"{hub.url}/api/tables/cup/{table}/round.txt"
            with urllib.request.urlopen(url, timeout=10) as response:
                served.append(response.read().decode("utf-8"))
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
    served: list[str] = []
    with cheap(options, log=log) as demo:
        demo.before_frame = _end_from_the_dashboard(
            hub, out, "6", 1, lambda entries: sum(e["type"] == "move" for e in entries) >= 3,
            served)
        stats = demo.run()
    assert stats.ended_by_director and 3 <= stats.sowings < stats.round_sowings
    _ended_by_the_director(out, hub, "6", "b")
    # the hub's record while the table had not carried the end out is the table's own record,
    # byte for byte: the director line holds the director's note (the format's reason), and
    # the card and the results say who ended the round
    assert served == [(out / RECORD_NAME).read_text(encoding="utf-8")]
    assert served[0].splitlines()[-1].endswith(" end winner b forfeit")
    assert hub.service.table("cup", "6")["ended_by"] == "td: forfeit"
    assert [r["ended_by"] for r in hub.service.results()] == ["td: forfeit"]
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



def test_a_demo_publishes_over_tls_with_a_password_file_and_a_tournament(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``hakem demo --publish`` takes the broker options ``hakem hub`` takes (it took a url
    only: no CA of the hall, no password file) and a table's tournament."""
    def fast(options: MangalaDemoOptions, *, log: TextIO | None = None,
             progress: TextIO | None = None) -> MangalaDemoStats:
        with cheap(options, log=log, progress=progress) as demo:
            return demo.run()

    monkeypatch.setattr("controller.mangala.cli.run_mangala_demo", fast)
    secure, ca = tls_broker(tmp_path, ("hub", "hub secret"), ("table5", "table five"))
    try:
        hub = HubApp(str(tmp_path / "hub.db"), parse_broker_url(
            f"mqtts://hub:hub%20secret@127.0.0.1:{secure.port}",
            LinkConfig(ca_file=str(ca), keepalive_s=5))).start()
        try:
            secret = tmp_path / "hub-password"
            secret.write_text("table five\n")
            out = tmp_path / "round"
            url = f"mqtts://table5@127.0.0.1:{secure.port}"
            both = ["demo", "--game", "mangala", "--out", str(out), "--table", "5"]
            assert main([*both, "--publish", url.replace("table5@", "table5:x@"),
                         "--broker-password-file", str(secret)]) == 2
            assert capsys.readouterr().err == (
                "hakem: demo: the broker password is both in --publish mqtts://table5:***@"
                f"127.0.0.1:{secure.port} and in --broker-password-file {secret}: give it "
                "once\n")
            assert not out.exists()  # refused before the round was opened
            assert main([*both, "--seed", "3", "--publish", url, "--ca", str(ca),
                         "--broker-password-file", str(secret), "--tournament", "izmir-2026",
                         "--json"]) == 0
            capsys.readouterr()
            entries = read_journal(out / "journal.jsonl").entries
            wait_for(lambda: ("izmir-2026", "5") in hub.service.views
                     and hub.service.table("izmir-2026", "5")["seq"] == entries[-1]["seq"],
                     30, "the hub to have the whole round")
        finally:
            hub.stop()
    finally:
        secure.stop()
    assert ("default", "5") not in hub.service.views


def test_the_demos_broker_options_go_with_publish_and_are_checked(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = str(tmp_path / "demo")
    secret = tmp_path / "pw"
    secret.write_text("s3cret\n")
    for argv, said in (
            (["--ca", str(secret)], "--ca only goes with --publish URL --table ID"),
            (["--publish", "mqtt://h", "--table", "4", "--broker-password-file", str(secret)],
             f"demo: --broker-password-file {secret} needs a user: --broker-user NAME, or "
             "USER@ in --publish"),
            (["--publish", "mqtt://u@h", "--table", "4", "--broker-password-file",
              str(tmp_path / "none")],
             f"demo: --broker-password-file: cannot read {tmp_path / 'none'}: no such file or "
             "directory"),
            (["--publish", "mqtts://h", "--table", "4", "--ca", str(secret)],
             f"demo: --ca {secret}: holds no PEM certificate"),
            (["--publish", "mqtt://h", "--table", "4", "--tournament", "a/b"],
             "bad tournament id 'a/b': use 1-64 letters, digits, '_', '.', '-' (not "
             "starting '_', not dots only)")):
        assert main(["demo", "--out", out, *argv]) == 2
        assert capsys.readouterr().err == f"hakem: {said}\n"
    assert not Path(out).exists()
