"""A live table restarted after a power cut, through ``open_table`` (``hakem run``'s path) and a
real Mosquitto: what the journal took but the hub publisher never did still reaches the hub."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gpiozero.pins.mock import MockFactory

from controller.clock.timebase import FakeTime
from controller.hub.publisher import TablePublisher
from controller.hub.server import HubApp
from controller.referee.api import JournalEntry
from controller.runtime.effects import journal_append
from controller.runtime.table import open_table
from tests.controller.hub.broker import Broker
from tests.controller.hub.conftest import table_link
from tests.controller.hub.matches import simulated_match
from tests.controller.runtime.test_live_table import Camera, config, connected


def fields(entry: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in entry.items() if k not in ("seq", "time", "type")}


def test_entries_journalled_but_never_handed_on_reach_the_hub_after_a_restart(
        tmp_path: Path, broker: Broker, make_hub: Callable[..., HubApp]) -> None:
    """A power cut inside a step leaves its entries in the journal and not in the outbox
    (they are handed on when the step ends); the restarted table queued nothing but new
    entries, so the hub never got them and its view of the table stopped there."""
    hub = make_hub()
    entries = simulated_match(9, seed=4, length=5)
    folder = tmp_path / "table"
    link = table_link(broker, tmp_path, "9")
    publishers: list[TablePublisher] = []

    def factory(where: Path) -> TablePublisher:
        publishers.append(TablePublisher.of_folder(link, where))
        return publishers[-1]

    def table() -> Any:
        time = FakeTime(0)
        return open_table(config(folder), time=time, source=Camera(time, 1),
                          clock=connected(time), pin_factory=MockFactory(), log=io.StringIO(),
                          publisher_factory=factory)

    with table() as devices:
        for entry in entries[:10]:
            devices.executor.run([JournalEntry(entry["type"], fields(entry))])
        publishers[-1].wait_delivered(30)
        for entry in entries[10:12]:  # journalled; the power went before the step ended
            journal_append(devices.journal, entry["type"], fields(entry))
    with table() as devices:
        assert devices.resuming
        for entry in entries[12:]:
            devices.executor.run([JournalEntry(entry["type"], fields(entry))])
        publishers[-1].wait_delivered(30)
    assert hub.service.wait_idle(30)
    match = hub.service.table("cup", "9")["match"]
    stored = [e["seq"] for e in hub.service.store.events("cup", "9", match)]
    assert sorted(stored) == [e["seq"] for e in entries]
    detail = hub.service.table("cup", "9")
    assert detail["finished"] and detail["seq"] == entries[-1]["seq"]
    # restarted again with nothing new: the outbox keeps its mark past the hub's
    # acknowledgement, so nothing the hub has is queued again (a long match restarts cheaply)
    with table():
        assert len(publishers[-1].outbox) == 0


def test_resume_queues_what_follows_the_outbox_mark_and_a_markless_outbox_queues_all(
        tmp_path: Path) -> None:
    """No broker: rows stay queued. The mark outlives the hub's acknowledgement, so a
    restart queues only the entries the outbox never took; an outbox written before the
    mark was kept queues the whole journal once (the hub keeps one of each)."""
    import sqlite3

    from controller.hub.link import LinkConfig

    entries = simulated_match(9, seed=4, length=5)
    link = LinkConfig(table="9", tournament="cup", outbox=str(tmp_path / "outbox.db"))
    first = TablePublisher(link)
    first.publish_many(entries[:10])
    first.outbox.acknowledge(entries[0]["match_id"], 10)  # the hub stored them
    first.close()
    again = TablePublisher(link)
    assert again.resume(entries[:13]) == 3
    assert [r.seq for r in again.outbox.after(0)] == [11, 12, 13]
    assert again.state is not None and again.state.summary()["seq"] == 13
    again.close()
    with sqlite3.connect(tmp_path / "outbox.db") as db:
        db.execute("DELETE FROM queued")
    old = TablePublisher(link)
    assert old.resume(entries[:13]) == 10  # 1..10 again; 11..13 were still queued
    old.close()
