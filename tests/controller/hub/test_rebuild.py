"""A restarted hub rebuilds every table from its database as it was live: each director action
is replayed where it was taken among the table's entries, not after all of them."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from controller.hub.contract import DASHBOARD_FLAG_TYPES
from controller.hub.server import HubApp
from tests.controller.hub.matches import simulated_match
from tests.controller.hub.test_http import PASSWORD, call, feed


def view(app: HubApp, table: str) -> dict[str, Any]:
    """A table's detail without what changes with every look (the revision stamp) or is not
    stored (when its clock reading was heard: null after a restart)."""
    detail = app.service.table("cup", table)
    detail.pop("revision")
    detail.pop("clock_age_ms")
    return detail


def test_the_tables_end_after_a_directors_end_keeps_the_last_word_after_a_restart(
    tmp_path: Path,
) -> None:
    """A director ended the match (forfeit) while the table went on and ended it itself: live,
    the table's match_end has the last word, and the stored result says so; a restarted hub
    replayed the director's end after every entry, so its view named the director's winner."""
    db = tmp_path / "hub.db"
    entries = simulated_match(9, seed=4, length=5)
    final = entries[-1]
    assert final["type"] == "match_end"
    app = HubApp(str(db), None).start()
    try:
        app.service.add_user("td", PASSWORD)
        feed(app.service, "9", entries[:-1])
        token = app.service.login("td", PASSWORD, "test")
        flag = app.service.table("cup", "9")["flags"][0]["seq"]
        app.service.act(token, "test", "cup", "9", "acknowledge", {"seq": flag})
        app.service.act(token, "test", "cup", "9", "end",
                        {"winner": 1 - final["winner"], "note": "forfeit"})
        feed(app.service, "9", [final], entries[0]["match_id"])
        live = view(app, "9")
        results = call(app.url + "/api/results")[1]
    finally:
        app.stop()
    assert live["winner"] == final["winner"] and live["score"] == final["score"]
    assert live["ended_by"] == "the table, whose result stands over td's end: forfeit"
    assert [(r["winner"], r["score"]) for r in results] == [(final["winner"], final["score"])]
    again = HubApp(str(db), None).start()
    try:
        assert view(again, "9") == live
        assert call(again.url + "/api/results")[1] == results
    finally:
        again.stop()


def test_actions_stored_by_an_older_hub_are_replayed_after_the_entries(tmp_path: Path) -> None:
    """A database from before actions knew their place among the entries opens (the column is
    added) and its actions are replayed after every entry of their match, as they were."""
    db = tmp_path / "hub.db"
    entries = simulated_match(9, seed=4, length=5)[:20]
    old = sqlite3.connect(db)
    old.execute("CREATE TABLE actions (id INTEGER PRIMARY KEY AUTOINCREMENT, time TEXT NOT NULL,"
                " user TEXT NOT NULL, tournament TEXT NOT NULL, tbl TEXT NOT NULL, match TEXT "
                "NOT NULL, kind TEXT NOT NULL, data TEXT NOT NULL)")
    old.execute("INSERT INTO actions (time, user, tournament, tbl, match, kind, data) VALUES "
                "('2026-11-22T10:00:00Z', 'td', 'cup', '9', ?, 'end', "
                "'{\"winner\": 0, \"note\": \"no show\"}')", (entries[0]["match_id"],))
    old.commit()
    old.close()
    app = HubApp(str(db), None).start()
    try:
        feed(app.service, "9", entries)
        assert app.service.store.actions()[0]["after_seq"] is None
    finally:
        app.stop()
    again = HubApp(str(db), None).start()
    try:
        detail = again.service.table("cup", "9")
        assert detail["finished"] and detail["winner"] == 0 and detail["ended_by"] == "td: no show"
    finally:
        again.stop()


def test_an_action_an_older_hub_stored_without_a_place_holds_back_none_taken_since(
    tmp_path: Path,
) -> None:
    """An older hub's acknowledgement (no place among the entries) is replayed after every
    entry, but the director's end taken since is replayed where it was taken: the table's
    match_end that followed it keeps the last word after a restart, as it had live."""
    db = tmp_path / "hub.db"
    entries = simulated_match(9, seed=4, length=5)
    final = entries[-1]
    flag = next(e["seq"] for e in entries if e["type"] in DASHBOARD_FLAG_TYPES)
    old = sqlite3.connect(db)
    old.execute("CREATE TABLE actions (id INTEGER PRIMARY KEY AUTOINCREMENT, time TEXT NOT NULL,"
                " user TEXT NOT NULL, tournament TEXT NOT NULL, tbl TEXT NOT NULL, match TEXT "
                "NOT NULL, kind TEXT NOT NULL, data TEXT NOT NULL)")
    old.execute("INSERT INTO actions (time, user, tournament, tbl, match, kind, data) VALUES "
                "('2026-11-22T10:00:00Z', 'td', 'cup', '9', ?, 'acknowledge', ?)",
                (entries[0]["match_id"], f'{{"seq": {flag}}}'))
    old.commit()
    old.close()
    app = HubApp(str(db), None).start()
    try:
        app.service.add_user("td", PASSWORD)
        feed(app.service, "9", entries[:-1])  # what the older hub had stored
    finally:
        app.stop()
    app = HubApp(str(db), None).start()  # the new hub on that database
    try:
        assert app.service.table("cup", "9")["flags"][0]["acknowledged_by"] == "td"
        token = app.service.login("td", PASSWORD, "test")
        app.service.act(token, "test", "cup", "9", "end",
                        {"winner": 1 - final["winner"], "note": "forfeit"})
        feed(app.service, "9", [final], entries[0]["match_id"])
        live = view(app, "9")
        assert [a["after_seq"] for a in app.service.store.actions()] == [None, final["seq"] - 1]
    finally:
        app.stop()
    assert live["winner"] == final["winner"] and live["score"] == final["score"]
    again = HubApp(str(db), None).start()
    try:
        assert view(again, "9") == live
    finally:
        again.stop()
