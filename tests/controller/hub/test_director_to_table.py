"""A match the director ends on the hub is ended at the table too: the table's publisher hands
it to the running referee (``controller.runtime.director_inbox``), through a real Mosquitto.
Acknowledging or overriding a flag stays the hub's record (the referee is overridden at the
table, ``hakem director``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from controller.hub.publisher import TablePublisher
from controller.hub.server import HubApp
from controller.runtime.director_inbox import INBOX_NAME, DirectorInbox
from tests.controller.hub.broker import Broker, wait_for
from tests.controller.hub.conftest import table_link
from tests.controller.hub.matches import simulated_match

PASSWORD = "a long enough secret"


def test_the_hubs_end_of_a_match_reaches_the_tables_referee(
    tmp_path: Path, make_hub: Callable[..., HubApp], make_table: Callable[..., TablePublisher]
) -> None:
    hub = make_hub()
    hub.service.add_user("td", PASSWORD)
    folder = tmp_path / "table"
    folder.mkdir()
    table = make_table("7", director_folder=folder)
    entries = [e for e in simulated_match(7, 7) if e["type"] not in ("match_end",)][:20]
    table.publish_many(entries)
    table.wait_delivered(30)
    wait_for(lambda: hub.service.table("cup", "7")["seq"] == entries[-1]["seq"], 30,
             "the hub has the match")
    token = hub.service.login("td", PASSWORD, "test")
    seq = hub.service.table("cup", "7")["flags"][0]["seq"]
    hub.service.act(token, "test", "cup", "7", "override", {"seq": seq,
                                                           "verdict": "overturned"})
    hub.service.act(token, "test", "cup", "7", "end", {"winner": 1, "note": "forfeit"})
    wait_for(lambda: len(table.director_messages) == 2, 30, "the director's messages")
    requests = DirectorInbox(folder).poll()
    assert [(r.action, r.args, r.director) for r in requests] == [
        ("end_match", {"winner": 1, "note": "forfeit"}, "td")]  # the override is the hub's
    lines = (folder / INBOX_NAME).read_text().splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["action"] == "end_match"


def test_an_end_made_while_the_table_is_offline_reaches_it_when_it_is_back(
    tmp_path: Path, make_hub: Callable[..., HubApp], broker: Broker
) -> None:
    """The hub ended a match whose table was down: the hub showed it finished, the table never
    heard of it and play resumed (end-to-end QA). The end is kept on the broker for the table,
    which carries it out once back, and only once."""
    hub = make_hub()
    hub.service.add_user("td", PASSWORD)
    folder = tmp_path / "table"
    folder.mkdir()
    entries = [e for e in simulated_match(8, 8) if e["type"] != "match_end"][:20]
    table = TablePublisher(table_link(broker, tmp_path, "8"), director_folder=folder).start()
    table.publish_many(entries)
    table.wait_delivered(30)
    wait_for(lambda: hub.service.table("cup", "8")["seq"] == entries[-1]["seq"], 30,
             "the hub has the match")
    table.close()  # the table is down
    token = hub.service.login("td", PASSWORD, "test")
    hub.service.act(token, "test", "cup", "8", "end", {"winner": 0, "note": "no show"})
    assert not (folder / INBOX_NAME).exists()
    back = TablePublisher(table_link(broker, tmp_path, "8"), director_folder=folder)
    back.resume(entries)
    back.start()
    wait_for(lambda: (folder / INBOX_NAME).exists(), 30, "the end to reach the table")
    requests = DirectorInbox(folder).poll()
    assert [(r.action, r.args, r.director) for r in requests] == [
        ("end_match", {"winner": 0, "note": "no show"}, "td")]
    back.close()
    # the table journalled the end: back again, the kept end is not carried out twice
    again = TablePublisher(table_link(broker, tmp_path, "8"), director_folder=folder)
    again.resume([*entries, {"seq": entries[-1]["seq"] + 1, "time": "t", "type": "match_end",
                             "winner": 0}])
    again.start()
    wait_for(lambda: again.director_messages, 30, "the kept end to arrive")
    again.close()
    assert len((folder / INBOX_NAME).read_text().splitlines()) == 1
