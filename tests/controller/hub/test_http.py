"""The web API and director actions over real HTTP: reads are open, changes need a login."""

from __future__ import annotations

import json
import logging
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.hub.server import HubApp
from controller.hub.service import UNSIGNED_ROWS, ActionRefusedError, HubService
from controller.hub.store import AUDIT_TEXT_CHARS
from engine.backgammon.mat_reader import parse_mat
from tests.controller.hub.matches import simulated_match

PASSWORD = "correct horse battery"


def feed(service: HubService, table: str, entries: list[dict[str, Any]],
         match: str | None = None) -> None:
    for entry in entries:
        body = {"v": 1, "match": match or entries[0]["match_id"], "entry": entry}
        if entry.get("snapshot"):
            body["snapshot_jpeg"] = "/9j/2Q=="
        service.ingest(f"hakem/cup/{table}/events", json.dumps(body).encode())
    assert service.wait_idle(30)


def call(url: str, body: dict[str, Any] | None = None, token: str | None = None,
         ctype: str = "application/json") -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method="GET" if body is None else "POST")
    if body is not None:
        request.add_header("Content-Type", ctype)
    if token:
        request.add_header("Cookie", f"hakem_session={token}")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            raw = response.read()
            kind = response.headers.get("Content-Type", "")
            return response.status, json.loads(raw) if "json" in kind else raw.decode()
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[HubApp]:
    app = HubApp(str(tmp_path / "hub.db"), None).start()
    app.service.add_user("td", PASSWORD)
    feed(app.service, "3", simulated_match(3, seed=5, length=5))
    yield app
    app.stop()


def first_flag(app: HubApp) -> int:
    flags = app.service.table("cup", "3")["flags"]
    assert flags, "the simulated match has flags"
    return int(flags[0]["seq"])


def test_api_tables_lists_every_table_with_the_contract_fields(hub: HubApp) -> None:
    status, tables = call(hub.url + "/api/tables")
    assert status == 200 and len(tables) == 1
    card = tables[0]
    assert card["table"] == "3" and card["players"] == ["Ayse 3", "Mehmet 3"]
    assert isinstance(card["score"], list) and len(card["score"]) == 2
    assert card["finished"] is True and max(card["score"]) >= 5
    for key in ("cube", "clocks_ms", "running", "flags", "open_flags", "online", "tournament"):
        assert key in card
    status, detail = call(hub.url + "/api/tables/cup/3")
    assert status == 200 and detail["moves"] and detail["flags"][0]["rule"].startswith("BG-")
    status, svg = call(hub.url + "/api/tables/cup/3/board.svg")
    assert status == 200 and svg.startswith("<svg") and 'data-count="' in svg
    status, record = call(hub.url + "/api/tables/cup/3/match.mat")
    assert status == 200 and "Ayse 3" in record and detail["moves"][0]["move"] in record
    parsed = parse_mat(record)  # the engine's own .mat reader reads it back
    assert parsed.length == 5 and parsed.players == ("Ayse 3", "Mehmet 3")
    assert len(parsed.games) == len(detail["games"])
    assert "Doubles => 2" in record or not any(m["action"] == "double" for m in detail["moves"])
    assert call(hub.url + "/api/tables/cup/99")[0] == 404
    status, page = call(hub.url + "/")
    assert status == 200 and 'name="viewport"' in page and "/static/dashboard.js" in page


def test_every_change_gives_the_tables_summary_a_higher_revision(hub: HubApp) -> None:
    """Pages keep the summary with the highest revision, so each change must raise it: a new
    event, a director's action, another table's event (its own revision only)."""
    def revisions() -> dict[str, int]:
        return {t["table"]: t["revision"] for t in call(hub.url + "/api/tables")[1]}

    first = revisions()
    feed(hub.service, "4", simulated_match(4, seed=6, length=3)[:5])
    second = revisions()
    assert second["3"] == first["3"] and second["4"] > first["3"]
    token = call(hub.url + "/api/login", {"user": "td", "password": PASSWORD})[1]["token"]
    assert call(f"{hub.url}/api/tables/cup/3/flags/{first_flag(hub)}/ack", {}, token)[0] == 200
    third = revisions()
    assert third["3"] > second["4"] and third["4"] == second["4"]


def test_actions_without_a_session_are_refused_logged_and_change_nothing(
    hub: HubApp, caplog: pytest.LogCaptureFixture
) -> None:
    seq = first_flag(hub)
    with caplog.at_level(logging.WARNING, logger="hakem.hub.audit"):
        status, body = call(f"{hub.url}/api/tables/cup/3/flags/{seq}/ack", {})
        assert status == 401 and "not logged in" in body["error"]
        status, body = call(f"{hub.url}/api/tables/cup/3/end", {"winner": 0}, token="forged")
        assert status == 401 and "session" in body["error"]
        status, body = call(hub.url + "/api/login", {"user": "td", "password": "wrong password"})
        assert status == 401 and "wrong user name or password" in body["error"]
        status, body = call(hub.url + "/api/login", {"user": "nobody", "password": PASSWORD})
        assert status == 401
    refused = [r.getMessage() for r in caplog.records if r.name == "hakem.hub.audit"]
    assert len(refused) == 4 and all(m.startswith("refused") for m in refused)
    detail = hub.service.table("cup", "3")
    assert detail["flags"][0]["acknowledged_by"] is None and detail["ended_by"] is None
    audit = hub.service.store.audit_log()
    assert [a["ok"] for a in audit] == [False] * 4
    assert audit[-1]["action"] == "acknowledge cup/3" and audit[-1]["remote"] == "127.0.0.1"
    assert call(hub.url + "/api/audit")[0] == 401


def test_a_director_acknowledges_overrides_and_ends_and_it_survives_a_restart(
    hub: HubApp, tmp_path: Path
) -> None:
    seq = first_flag(hub)
    status, body = call(hub.url + "/api/login", {"user": "td", "password": PASSWORD})
    assert status == 200
    token = body["token"]
    assert call(hub.url + "/api/session", token=token)[1] == {"user": "td"}
    assert call(f"{hub.url}/api/tables/cup/3/flags/{seq}/ack", {}, token)[0] == 200
    status, body = call(f"{hub.url}/api/tables/cup/3/flags/{seq}/override",
                        {"verdict": "sideways"}, token)
    assert status == 400 and "verdict" in body["error"]
    assert call(f"{hub.url}/api/tables/cup/3/flags/{seq}/override",
                {"verdict": "overturned", "note": "misread"}, token)[0] == 200
    feed(hub.service, "9", simulated_match(9, seed=4, length=5)[:30])  # a match under way
    ended = call(f"{hub.url}/api/tables/cup/9/end", {"winner": 1, "note": "forfeit"}, token)
    assert ended[0] == 200
    status, body = call(f"{hub.url}/api/tables/cup/9/end", {"winner": 1}, token, "text/plain")
    assert status == 400 and "application/json" in body["error"]  # no cross-site form posts
    flag = hub.service.table("cup", "3")["flags"][0]
    assert flag["acknowledged_by"] == "td"
    assert flag["override"] == {"verdict": "overturned", "by": "td", "note": "misread"}
    hub.stop()
    again = HubApp(str(tmp_path / "hub.db"), None).start()
    try:
        detail = again.service.table("cup", "3")
        assert detail["flags"][0]["override"]["verdict"] == "overturned"
        ended_detail = again.service.table("cup", "9")
        assert ended_detail["winner"] == 1 and ended_detail["ended_by"] == "td: forfeit"
        assert call(again.url + "/api/session", token=token)[1] == {"user": "td"}
        assert call(again.url + "/api/logout", {}, token)[0] == 200
        assert call(again.url + "/api/session", token=token)[1] == {"user": None}
    finally:
        again.stop()


def test_sessions_expire_and_passwords_are_stored_hashed(tmp_path: Path) -> None:
    now = [1000.0]
    service = HubService(str(tmp_path / "hub.db"), session_ttl_s=60, clock=lambda: now[0])
    service.add_user("td", PASSWORD)
    token = service.login("td", PASSWORD, "test")
    assert service.session_user(token) == "td"
    now[0] += 61
    assert service.session_user(token) is None
    with pytest.raises(ActionRefusedError, match="expired"):
        service.act(token, "test", "cup", "3", "end", {"winner": None})
    raw = b"".join(p.read_bytes() for p in tmp_path.glob("hub.db*"))  # the WAL too
    assert PASSWORD.encode() not in raw and token.encode() not in raw
    with pytest.raises(ValueError, match="too short"):
        service.add_user("x", "short")
    service.store.close()


def test_repeated_wrong_passwords_lock_the_address_out_for_a_while(tmp_path: Path) -> None:
    now = [0.0]
    service = HubService(str(tmp_path / "hub.db"), clock=lambda: now[0])
    service.add_user("td", PASSWORD)
    for _ in range(5):
        with pytest.raises(ActionRefusedError, match="wrong user name or password"):
            service.login("td", "guess", "10.0.0.9")
    with pytest.raises(ActionRefusedError, match="too many wrong passwords"):
        service.login("td", PASSWORD, "10.0.0.9")  # even the right one, from that address
    assert service.login("td", PASSWORD, "10.0.0.7")  # another address is not affected
    now[0] += 301
    assert service.login("td", PASSWORD, "10.0.0.9")
    refused = [a for a in service.store.audit_log() if not a["ok"]]
    assert len(refused) == 6
    service.store.close()


def test_table_reads_snapshots_without_holding_the_views_lock(
    hub: HubApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The writer takes store.lock then views_lock; a reader doing the reverse deadlocks CI."""
    import threading

    service = hub.service
    real = service.store.has_snapshot
    held_while_querying: list[bool] = []

    def probe(*args: Any) -> bool:
        free = threading.Event()

        def try_views() -> None:
            if service.views_lock.acquire(timeout=0.5):
                service.views_lock.release()
                free.set()

        other = threading.Thread(target=try_views)
        other.start()
        other.join()
        held_while_querying.append(not free.is_set())
        return real(*args)

    monkeypatch.setattr(service.store, "has_snapshot", probe)
    assert service.table("cup", "3")["flags"]
    assert held_while_querying and not any(held_while_querying)


def test_two_tables_publishing_under_one_id_are_named_on_the_card(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A second table configured with the first one's id: their entries interleave under one
    card, which switched between their matches without a word (end-to-end QA). Entries of an
    unfinished match that is not the table's latest, while the latest is unfinished too, are
    named once, in the log and on the card; one match after another finished one is not."""
    caplog.set_level(logging.WARNING, logger="hakem.hub")
    service = HubService(str(tmp_path / "hub.db")).start()
    try:
        def send(match: str, entries: list[dict[str, Any]]) -> None:
            for entry in entries:
                service.ingest("hakem/cup/5/events",
                               json.dumps({"v": 1, "match": match, "entry": entry}).encode())
            assert service.wait_idle(30)

        send("first", simulated_match(5, 1))  # a whole match, then the next: no warning
        second = simulated_match(5, 2)
        send("second", second[:6])
        assert service.tables()[0]["warnings"] == []
        send("twin", simulated_match(5, 3)[:6])  # a third starts: still one after another
        send("second", second[6:9])  # ... but the second one goes on meanwhile
        card = service.tables()[0]
        assert card["warnings"] == ["entries of two unfinished matches arrive for table 5: two "
                                    "tables with the same [table] id?"]
        send("second", second[9:12])
        assert len([r for r in caplog.records if "two tables" in r.getMessage()]) == 1
    finally:
        service.stop()


def login(app: HubApp) -> str:
    """A director's session token."""
    return str(call(app.url + "/api/login", {"user": "td", "password": PASSWORD})[1]["token"])


def test_a_match_ended_from_the_dashboard_is_in_the_results_once(tmp_path: Path) -> None:
    """The director's end finished the match without storing its result, so the table's
    match_end that followed was no longer an ending and the match never reached
    /api/results (QA pass). Stored on the director's end, updated (not doubled) by the
    table's match_end, and kept across a restart."""
    app = HubApp(str(tmp_path / "hub.db"), None).start()
    try:
        app.service.add_user("td", PASSWORD)
        entries = simulated_match(9, seed=4, length=5)
        feed(app.service, "9", entries[:30])
        ended = call(f"{app.url}/api/tables/cup/9/end", {"winner": 1, "note": "forfeit"},
                     login(app))
        assert ended[0] == 200
        results = call(app.url + "/api/results")[1]
        assert [(r["table"], r["winner"]) for r in results] == [("9", 1)]
        end = {"seq": 31, "time": entries[30]["time"], "type": "match_end", "winner": 1,
               "score": [0, 5]}
        feed(app.service, "9", [end], entries[0]["match_id"])
        results = call(app.url + "/api/results")[1]
        assert [(r["table"], r["winner"], r["score"]) for r in results] == [("9", 1, [0, 5])]
    finally:
        app.stop()
    again = HubApp(str(tmp_path / "hub.db"), None).start()
    try:
        assert len(call(again.url + "/api/results")[1]) == 1
    finally:
        again.stop()


def test_the_results_give_each_games_points_and_who_ended_a_match(tmp_path: Path) -> None:
    """/api/results had the score and the winner only: each game's points, and the director
    who ended a match, are there too (additive keys)."""
    app = HubApp(str(tmp_path / "hub.db"), None).start()
    try:
        app.service.add_user("td", PASSWORD)
        played = simulated_match(3, seed=6, length=5)
        feed(app.service, "3", played)
        ended = simulated_match(9, seed=4, length=5)
        feed(app.service, "9", ended[:30])
        call(f"{app.url}/api/tables/cup/9/end", {"winner": 0, "note": "forfeit"}, login(app))
        results = {r["table"]: r for r in call(app.url + "/api/results")[1]}
    finally:
        app.stop()
    games = [{"game": n, "winner": e["winner"], "points": e["points"]}
             for n, e in enumerate((e for e in played if e["type"] == "game_end"), start=1)]
    assert len(games) >= 2 and {g["points"] for g in games} != {1}  # the cube was used
    assert {k: results["3"][k] for k in ("game", "drawn", "round_points", "games", "ended_by")
            } == {"game": "backgammon", "drawn": False, "round_points": None, "games": games,
                  "ended_by": None}
    assert results["9"]["winner"] == 0 and results["9"]["ended_by"] == "td: forfeit"


def _named_twins(app: HubApp) -> None:
    """Table 9 online as "Masa 9", with entries of two unfinished matches arriving for it
    (two tables under one id: the hub's warning)."""
    presence = {"status": "online", "time": "2026-11-22T09:00:00Z", "name": "Masa 9"}
    app.service.ingest("hakem/cup/9/presence", json.dumps(presence).encode())
    first, second = simulated_match(9, seed=1), simulated_match(9, seed=2)
    feed(app.service, "9", first[:6])
    feed(app.service, "9", second[:6])
    feed(app.service, "9", first[6:8], first[0]["match_id"])  # the first goes on


def test_a_tables_detail_carries_everything_its_card_has(tmp_path: Path) -> None:
    """The detail lacked the name, the warnings, the match count and the revision, so the
    table's page titled "Table 9" and never showed the warning (QA pass)."""
    app = HubApp(str(tmp_path / "hub.db"), None).start()
    try:
        _named_twins(app)
        card = call(app.url + "/api/tables")[1][0]
        detail = call(app.url + "/api/tables/cup/9")[1]
        assert set(card) <= set(detail)
        for key in ("name", "warnings", "matches", "revision", "online", "table", "tournament"):
            assert detail[key] == card[key], key
        assert detail["name"] == "Masa 9" and detail["matches"] == 2 and detail["warnings"]
    finally:
        app.stop()


def test_a_restarted_hub_keeps_a_tables_name_and_its_warning(tmp_path: Path) -> None:
    """The name came only from the table's live presence and the warning from the order
    entries arrived in; after a restart an offline table was "Table 9" without a warning."""
    app = HubApp(str(tmp_path / "hub.db"), None).start()
    try:
        _named_twins(app)
        will = {"status": "offline", "reason": "lost"}  # the last will names nothing
        app.service.ingest("hakem/cup/9/presence", json.dumps(will).encode())
        assert app.service.wait_idle(30)
        before = call(app.url + "/api/tables")[1][0]
    finally:
        app.stop()
    again = HubApp(str(tmp_path / "hub.db"), None).start()
    try:
        card = call(again.url + "/api/tables")[1][0]
        assert card["presence"] == "offline" and card["name"] == "Masa 9"
        assert card["warnings"] == before["warnings"] and card["warnings"]
    finally:
        again.stop()


def test_a_browser_dropping_its_connection_is_one_quiet_log_line(
    hub: HubApp, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """socketserver printed a whole traceback on stderr for each connection a browser reset
    (QA pass); any other failure is one line naming the error."""
    import socket
    import struct

    from controller.hub.http import HubRequestHandler
    from tests.controller.hub.broker import wait_for

    caplog.set_level(logging.INFO, logger="hakem.hub.http")
    host, port = hub.http.server_address[:2]
    with socket.create_connection((str(host), int(port))) as sock:
        sock.sendall(b"GET /api/tables HTTP/1.1\r\n")  # the headers never come:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    # ... the connection is reset while the hub reads them
    wait_for(lambda: any("closed the connection" in r.getMessage() for r in caplog.records),
             10, "the dropped connection logged")

    def broken(self: HubRequestHandler) -> None:
        raise RuntimeError("something broke")

    monkeypatch.setattr(HubRequestHandler, "do_GET", broken)
    with pytest.raises(OSError):
        call(hub.url + "/api/tables")
    wait_for(lambda: any("something broke" in r.getMessage() for r in caplog.records),
             10, "the failure logged")
    lines = [r.getMessage() for r in caplog.records if r.name == "hakem.hub.http"]
    assert len(lines) == 2 and lines[1].endswith("RuntimeError: something broke"), lines
    assert not any(r.exc_info for r in caplog.records if r.name == "hakem.hub.http")
    assert "Traceback" not in capsys.readouterr().err


def test_pages_name_an_icon_and_the_browsers_favicon_request_gets_it(hub: HubApp) -> None:
    # a browser asks for /favicon.ico on every page: it got the "no such page" HTML with a 404
    status, page = call(hub.url + "/")
    assert status == 200 and 'rel="icon" href="/static/icon.svg"' in page
    for path in ("/favicon.ico", "/static/icon.svg"):
        with urllib.request.urlopen(hub.url + path, timeout=10) as response:
            assert response.status == 200
            assert response.headers["Content-Type"] == "image/svg+xml"
            assert response.read().startswith(b"<svg")


def test_a_match_that_is_over_is_not_ended_again_and_its_result_stands(tmp_path: Path) -> None:
    """End-to-end QA: an end posted for a match already over (the table played it out, or a
    director had ended it; a page opened before, a card mistaken for another) was taken: the
    card and /api/results then gave the director's winner beside the table's score (lasse won
    3-0, the card said richbkgm1 won, "ended by td: oops"). The page offers no end for a
    finished match; the API refuses it too, naming the result, which stands."""
    app = HubApp(str(tmp_path / "hub.db"), None).start()
    try:
        app.service.add_user("td", PASSWORD)
        played = simulated_match(3, seed=6, length=5)
        feed(app.service, "3", played)
        token = login(app)
        card = app.service.table("cup", "3")
        loser = 1 - card["winner"]
        status, body = call(f"{app.url}/api/tables/cup/3/end", {"winner": loser, "note": "oops"},
                            token)
        score = "-".join(str(p) for p in card["score"])
        assert status == 400 and body["error"] == (
            f"the match is over (won by {card['players'][card['winner']]}, score {score}): its"
            " result stands, and there is nothing to end")
        after = app.service.table("cup", "3")
        assert (after["winner"], after["ended_by"]) == (card["winner"], None)
        assert [r["winner"] for r in call(app.url + "/api/results")[1]] == [card["winner"]]
        ended = simulated_match(9, seed=4, length=5)
        feed(app.service, "9", ended[:30])
        assert call(f"{app.url}/api/tables/cup/9/end", {"winner": 1, "note": "forfeit"},
                    token)[0] == 200
        # the director's own end, not carried out by the table yet (it is down), may be put
        # right: a wrong winner replaced, sent to the table in its place
        assert call(f"{app.url}/api/tables/cup/9/end", {"winner": 0, "note": "wrong player"},
                    token)[0] == 200
        assert app.service.table("cup", "9")["winner"] == 0
        end = {"seq": 31, "time": ended[30]["time"], "type": "match_end", "winner": 0,
               "score": [5, 0], "how": "director"}
        feed(app.service, "9", [end], ended[0]["match_id"])
        status, body = call(f"{app.url}/api/tables/cup/9/end", {"winner": 1}, token)
        assert status == 400 and body["error"].endswith(
            ", ended by td: wrong player): its result stands, and there is nothing to end")
        assert app.service.table("cup", "9")["winner"] == 0
    finally:
        app.stop()


def test_refused_director_actions_are_in_the_audit_with_what_was_asked_and_why(
        hub: HubApp) -> None:
    """QA as a tournament director: an action the hub refused from a logged-in director (an
    end for a match the table ended, a flag that does not exist, a bad verdict, a body it
    cannot read) left no trace in /api/audit, so a dispute over what was tried could not be
    looked into. Each is kept, refused (``ok`` false), with who, when, what was asked and
    the refusal's words; a request without a session keeps no contents, and no password."""
    token = login(hub)
    seq = first_flag(hub)
    tries = [
        ("end", {"winner": 0, "note": "forfeit"}, 400),
        ("flags/999999/override", {"verdict": "upheld", "note": "seen"}, 404),
        (f"flags/{seq}/override", {"verdict": "sideways"}, 400),
        ("flags/%C2%B2/ack", {}, 404),  # "²": a digit that is no number (it dropped the connection)
    ]
    answers = []
    for path, body, expected in tries:
        status, answer = call(f"{hub.url}/api/tables/cup/3/{path}", body, token)
        assert status == expected, (path, answer)
        answers.append(answer["error"])
    status, answer = call(f"{hub.url}/api/tables/cup/3/end", {"winner": 1}, token, "text/plain")
    assert status == 400
    answers.append(answer["error"])
    status, _ = call(f"{hub.url}/api/tables/cup/3/end", {"winner": 1, "note": PASSWORD},
                     None, "text/plain")  # no session: nothing of its body is kept
    assert status == 400
    status, audit = call(hub.url + "/api/audit", token=token)
    assert status == 200
    refused = [a for a in reversed(audit) if not a["ok"]]
    assert [a["user"] for a in refused] == ["td"] * 5 + [None]
    assert [a["action"] for a in refused] == [
        "end cup/3", "override cup/3", "override cup/3", "acknowledge cup/3", "end cup/3",
        "end cup/3"]
    assert [a["detail"] for a in refused[:5]] == answers
    assert "the match is over" in refused[0]["detail"]
    assert [a["asked"] for a in refused] == [
        {"winner": 0, "note": "forfeit"}, {"seq": 999999, "note": "seen", "verdict": "upheld"},
        {"seq": seq, "note": "", "verdict": "sideways"}, {"seq": "\u00b2", "note": ""}, None,
        None]
    assert all(a["time"] and a["remote"] == "127.0.0.1" for a in refused)
    assert PASSWORD not in json.dumps(audit)
    assert app_unchanged(hub)


def test_refusals_anyone_can_send_cannot_crowd_the_audit(hub: HubApp) -> None:
    """Review of the audit: a flag number of 5000 digits (Python's int() refuses it) dropped
    the connection unanswered; a refusal without a session kept an address of any length
    (40,000 characters a line), and anyone on the hall's Wi-Fi could write such lines without
    end, pushing a director's own actions out of the audit's latest 200. A long number is no
    flag (404, audited); a line's texts are cut; refusals without a session are audited up
    to UNSIGNED_ROWS a minute from one address."""
    token = login(hub)
    status, answer = call(f"{hub.url}/api/tables/cup/3/flags/{'9' * 5000}/ack", {}, token)
    assert status == 404 and answer["error"].startswith("no flag '99")
    long_table = "a" * 20_000
    for _ in range(UNSIGNED_ROWS + 10):
        status, _ = call(f"{hub.url}/api/tables/{long_table}/{long_table}/x", {}, None)
        assert status == 404
    status, audit = call(hub.url + "/api/audit", token=token)
    assert status == 200
    unsigned = [a for a in audit if a["user"] is None]
    assert len(unsigned) == UNSIGNED_ROWS
    assert max(len(a["action"]) for a in audit) <= AUDIT_TEXT_CHARS + 3
    assert audit[-1]["action"] == "login" and audit[-1]["ok"]  # the director's log-in kept
    assert audit[-2]["action"] == "acknowledge cup/3" and audit[-2]["user"] == "td"
    assert audit[-2]["asked"].startswith('{"seq": "999')  # cut: its JSON text's start
    assert app_unchanged(hub)


def app_unchanged(app: HubApp) -> bool:
    """Nothing refused changed the table: no end by a director, no flag seen or overridden."""
    detail = app.service.table("cup", "3")
    return detail["ended_by"] is None and all(
        f["acknowledged_by"] is None and f["override"] is None for f in detail["flags"])


def test_an_audit_kept_by_an_older_hub_is_read_and_added_to(tmp_path: Path) -> None:
    """A database whose audit lines have no record of what was asked (an older hub) is
    opened, its lines read with none, and new lines keep theirs."""
    import sqlite3

    path = tmp_path / "hub.db"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE audit (id INTEGER PRIMARY KEY AUTOINCREMENT, time TEXT NOT NULL,"
                   " remote TEXT NOT NULL, user TEXT, action TEXT NOT NULL, ok INTEGER NOT NULL,"
                   " detail TEXT NOT NULL)")
        db.execute("INSERT INTO audit (time, remote, user, action, ok, detail) VALUES "
                   "('2026-11-01T10:00:00Z', '10.0.0.2', 'td', 'end cup/1', 1, '{}')")
    db.close()
    service = HubService(str(path))
    try:
        service.store.audit("2026-11-02T10:00:00Z", "10.0.0.3", "td", "end cup/2", False,
                            "no match at table cup/2", {"winner": 1, "note": "x" * 5000})
        newest, oldest = service.store.audit_log()
        assert oldest["asked"] is None and oldest["action"] == "end cup/1"
        assert isinstance(newest["asked"], str) and len(newest["asked"]) < 1100
        assert newest["asked"].startswith('{"winner": 1, "note": "xxx')
    finally:
        service.store.close()
