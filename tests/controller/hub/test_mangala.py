"""A Mangala table on the hub: its card, detail, live board, record and result come from what a
real Mangala table journals (players a and b, sowings of pits, sets and the round, MG-*), with
a as player 0, b as player 1 and the round's set points as the score (MG-T-1)."""

from __future__ import annotations

import urllib.error
import urllib.request
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from controller.hub.contract import MatchState
from controller.hub.export import round_record
from controller.hub.publisher import TablePublisher, match_id_of
from controller.hub.server import HubApp
from controller.mangala.records import round_text
from controller.mangala.referee import MangalaConfig, start_referee
from controller.referee.api import DirectorAction, JournalEntry
from controller.runtime.director_inbox import DirectorInbox
from engine.errors import InvalidInputError
from engine.mangala.record_check import check_record
from engine.mangala.record_reader import parse_record
from engine.mangala.sowing import play
from tests.controller.hub.broker import wait_for
from tests.controller.hub.mangala_rounds import (
    SIDES,
    demo_round,
    drawn_round,
    events,
    flag_waiting_round,
    replayed,
    table_record,
)
from tests.controller.hub.test_http import call
from tests.controller.mangala.harness import Table

PASSWORD = "a long enough secret"
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    """One whole round (seed 3, two planted illegal sowings) played at a Mangala table: its
    folder and its journal's entries."""
    folder = tmp_path_factory.mktemp("mangala") / "table"
    return folder, demo_round(folder, illegal=2, seed=3)


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[HubApp]:
    app = HubApp(str(tmp_path / "hub.db"), None).start()
    app.service.add_user("td", PASSWORD)
    yield app
    app.stop()


def feed(app: HubApp, round_entries: list[dict[str, Any]], entries: list[dict[str, Any]],
         table: str = "5") -> None:
    for body in events(round_entries, entries):
        app.service.ingest(f"hakem/cup/{table}/events", body)
    assert app.service.wait_idle(30)


def fold(entries: list[dict[str, Any]]) -> MatchState:
    state = MatchState("m")
    for entry in entries:
        state.apply(entry)
    return state


def test_the_fold_shows_who_is_to_move_the_set_points_the_winner_and_the_flags(
    played: tuple[Path, list[dict[str, Any]]],
) -> None:
    folder, entries = played
    check = replayed(folder)  # the engine's replay of the table's own record: the oracle
    state = MatchState("m")
    shown: list[tuple[dict[str, Any], int | None]] = []
    for entry in entries:
        state.apply(entry)
        if entry["type"] == "move":
            shown.append((entry, state.summary()["to_move"]))
        elif entry["type"] == "game_start":  # the set's starter moves first (MG-T-2)
            assert state.summary()["to_move"] == SIDES.index(entry["starter"])
    # after every sowing the card names the player who sows next (the extra turn, MG-1,
    # included), and nobody once the set is over (MG-4)
    for (move, to_move), (after, _) in pairwise(shown):
        if after["set"] == move["set"]:
            assert to_move == SIDES.index(after["player"]), move["seq"]
        else:
            assert to_move is None and move["set_over"]
    s = state.summary()
    assert s["game"] == "mangala" and s["players"] == ["Ayşe", "Mehmet"]
    r = check.round
    assert s["score"] == [r.set_points("a"), r.set_points("b")] == [1, 2]
    assert s["finished"] and r.winner == "b" and s["winner"] == 1
    assert s["to_move"] is None and s["game_number"] == len(r.sets) == 3
    points = r.round_points()
    assert s["mangala"]["round_points"] == [points["a"], points["b"]]
    assert s["mangala"]["warnings"] == [r.warning_count("a"), r.warning_count("b")] == [1, 1]
    assert s["mangala"]["result"] == "b"
    assert [g["stores"] for g in state.games] == [[x.a_store, x.b_store] for x in r.sets]
    assert [g["winner"] for g in state.games] == [SIDES.index(str(x.winner)) for x in r.sets]
    # the planted illegal sowings: flags naming the mover, the MG rule, corrected since
    illegal = [e for e in entries if e["type"] == "illegal_move"]
    assert [(f["seq"], f["player"], f["rule"], f["corrected"]) for f in state.flags] == [
        (e["seq"], SIDES.index(e["player"]), e["rule"], True) for e in illegal]
    assert all(f["rule"].startswith("MG-") and f["reason"] for f in state.flags)
    assert len(state.moves) == check.moves
    assert all(m["move"].startswith(f"pit {m['pit']}") for m in state.moves)


def test_a_mangala_rounds_card_detail_and_result_on_the_hub(
    played: tuple[Path, list[dict[str, Any]]], hub: HubApp,
) -> None:
    folder, entries = played
    r = replayed(folder).round
    halfway = next(i for i, e in enumerate(entries) if e["type"] == "game_end") + 12
    feed(hub, entries, entries[:halfway])
    card = call(hub.url + "/api/tables")[1][0]
    assert card["score"] == [0, 1] and not card["finished"] and card["winner"] is None
    last_move = [e for e in entries[:halfway] if e["type"] == "move"][-1]
    assert card["to_move"] == SIDES.index(last_move["position"]["to_move"])
    feed(hub, entries, entries[halfway:])
    card = call(hub.url + "/api/tables")[1][0]
    detail = call(hub.url + "/api/tables/cup/5")[1]
    for shown in (card, detail):
        assert shown["players"] == ["Ayşe", "Mehmet"] and shown["game"] == "mangala"
        assert shown["score"] == [r.set_points("a"), r.set_points("b")]
        assert shown["finished"] and shown["winner"] == 1 and shown["to_move"] is None
        assert shown["mangala"]["warnings"] == [1, 1]
    assert card["flags"] == len(detail["flags"]) == 2
    assert [f["player"] for f in detail["flags"]] == [
        SIDES.index(e["player"]) for e in entries if e["type"] == "illegal_move"]
    assert all(f["snapshot"] is False for f in detail["flags"])  # none was sent here
    results = call(hub.url + "/api/results")[1]
    assert [(x["table"], x["players"], x["score"], x["winner"]) for x in results] == [
        ("5", ["Ayşe", "Mehmet"], [1, 2], 1)]


def test_the_results_give_the_round_points_and_say_a_drawn_round_is_drawn(
    played: tuple[Path, list[dict[str, Any]]], hub: HubApp, tmp_path: Path,
) -> None:
    """/api/results had the set points and the winner only: no round points (MG-T-1), and a
    drawn round (winner null) read like a round a director ended without a winner."""
    folder, entries = played
    r = replayed(folder).round
    feed(hub, entries, entries)  # table 5: b won the round
    drawn = drawn_round(tmp_path / "drawn")
    feed(hub, drawn, drawn, table="6")
    feed(hub, entries, entries[:50], table="7")
    token = hub.service.login("td", PASSWORD, "test")
    hub.service.act(token, "test", "cup", "7", "end", {"winner": None, "note": "hall closed"})
    results = {x["table"]: x for x in call(hub.url + "/api/results")[1]}
    won, tie, closed = results["5"], results["6"], results["7"]
    points = r.round_points()
    assert (won["game"], won["winner"], won["drawn"]) == ("mangala", 1, False)
    assert won["round_points"] == [points["a"], points["b"]] == [0, 1]
    assert won["games"] == [{"game": n, "winner": SIDES.index(str(x.winner)), "points": 1,
                             "drawn": False} for n, x in enumerate(r.sets, start=1)]
    assert won["ended_by"] is None
    assert (tie["winner"], tie["drawn"], tie["score"]) == (None, True, [1.5, 1.5])
    assert tie["round_points"] == [0.5, 0.5]
    assert tie["games"] == [{"game": n, "winner": None, "points": 0.5, "drawn": True}
                            for n in (1, 2, 3)]
    assert (closed["winner"], closed["drawn"], closed["round_points"]) == (None, False, None)
    assert closed["ended_by"] == "td: hall closed"


def test_a_directors_end_at_the_table_names_the_director_on_the_card(tmp_path: Path) -> None:
    """``hakem director end-match`` at the table, not on the hub: the card said nothing of
    who ended the round (``ended_by`` null)."""
    table = Table(tmp_path, MangalaConfig(players=("Ayşe", "Mehmet")))
    try:
        position = table.referee.position
        assert position is not None
        table.show(position.board())
        table.send(DirectorAction(table.time.now_ms(), "end_match",
                                  {"winner": "a", "reason": "b left the hall"}, "Ayse Kaya"))
        s = fold(table.journal.entries).summary()
    finally:
        table.close()
    assert s["finished"] and s["winner"] == 0
    assert s["ended_by"] == "Ayse Kaya: b left the hall"


def cells(svg: str) -> dict[str, int]:
    """{pit or store: stones} of a drawn board."""
    root = ET.fromstring(svg)
    return {g.attrib["data-at"]: int(g.attrib["data-count"]) for g in root.iter(f"{SVG}g")}


def test_a_mangala_tables_live_board_is_a_mangala_board(
    played: tuple[Path, list[dict[str, Any]]], hub: HubApp,
) -> None:
    _, entries = played
    moves = [i for i, e in enumerate(entries) if e["type"] == "move"]
    cut = moves[20] + 1
    feed(hub, entries, entries[:cut])
    status, svg = call(hub.url + "/api/tables/cup/5/board.svg")
    assert status == 200
    position = entries[cut - 1]["position"]
    expected = {f"{side}{pit}": position[side][pit - 1] for side in SIDES for pit in range(1, 7)}
    expected |= {"a_store": position["a_store"], "b_store": position["b_store"]}
    assert cells(svg) == expected  # 12 pits and 2 stores, no backgammon points
    to_move = [t.attrib["data-side"] for t in ET.fromstring(svg).iter(f"{SVG}text")
               if t.attrib.get("data-to-move") == "yes"]
    assert to_move == [position["to_move"]]


def download(url: str) -> tuple[int, str, str]:
    """(status, body, Content-Disposition) of a GET."""
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return (response.status, response.read().decode("utf-8"),
                    response.headers.get("Content-Disposition", ""))
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode("utf-8"), ""


def test_a_mangala_table_offers_its_round_record_not_a_mat(
    played: tuple[Path, list[dict[str, Any]]], hub: HubApp,
) -> None:
    folder, entries = played
    part = entries[:70]
    feed(hub, entries, part)
    status, text, _ = download(hub.url + "/api/tables/cup/5/round.txt")
    assert status == 200 and text == round_text(part)  # the round so far
    feed(hub, entries, entries[70:])
    status, body, _ = download(hub.url + "/api/tables/cup/5/match.mat")
    assert status == 404 and "round.txt" in body
    status, text, disposition = download(hub.url + "/api/tables/cup/5/round.txt")
    assert status == 200 and text == table_record(folder)  # what the table itself wrote
    assert 'filename="table-5-round.txt"' in disposition


def test_a_round_a_director_ended_on_the_hub_is_finished_in_its_record_until_the_table_ends_it(
    played: tuple[Path, list[dict[str, Any]]], tmp_path: Path,
) -> None:
    """The table offline, the director ends the round on the hub (a wins, MG-T-1 round points
    1 and 0): the downloaded record ends with the director's line and replays as a round won
    by a. The table's own match_end (b won it) then has the last word: its record alone, no
    second end, and a card that says the table's result stands; a restart shows the same."""
    folder, entries = played
    db = str(tmp_path / "hub.db")
    url = "/api/tables/cup/5/round.txt"
    app = HubApp(db, None).start()
    try:
        app.service.add_user("td", PASSWORD)
        feed(app, entries, entries[:50])
        token = app.service.login("td", PASSWORD, "test")
        app.service.act(token, "test", "cup", "5", "end", {"winner": 0, "note": "b no-show"})
        card = call(app.url + "/api/tables")[1][0]
        assert card["finished"] and card["winner"] == 0 and card["ended_by"] == "td: b no-show"
        assert card["mangala"]["round_points"] == [1, 0] and card["mangala"]["result"] == "a"
        status, text, _ = download(app.url + url)
        under_way = [e["set"] for e in entries[:50] if e["type"] == "game_start"][-1]
        assert status == 200 and text == round_text(entries[:50]) + (
            f"director {under_way} end winner a b no-show\n")
        check = check_record(parse_record(text))
        assert check.legal and check.round.over and check.round.winner == "a"
        assert check.round.round_points() == {"a": 1.0, "b": 0.0}
        feed(app, entries, entries[50:])
        card = call(app.url + "/api/tables")[1][0]
        status, text, _ = download(app.url + url)
    finally:
        app.stop()
    assert status == 200 and text == table_record(folder) and "director" not in text
    assert card["winner"] == 1 and card["mangala"]["result"] == "b"
    assert card["mangala"]["round_points"] == [0, 1]
    assert card["ended_by"] == "the table, whose result stands over td's end: b no-show"
    again = HubApp(db, None).start()
    try:
        rebuilt = call(again.url + "/api/tables")[1][0]
        unstamped = {"revision": 0, "clock_age_ms": None}  # neither is stored
        assert {**rebuilt, **unstamped} == {**card, **unstamped}
        assert download(again.url + url)[1] == text
    finally:
        again.stop()


def test_a_hub_end_without_a_winner_gives_no_round_points_and_no_director_line(
    played: tuple[Path, list[dict[str, Any]]],
) -> None:
    """The record's director line names a winner: an end with none leaves the record as the
    journal has it, and the card without round points."""
    _, entries = played
    state = fold(entries[:50])
    state.end(None, "td", "hall closed")
    assert state.summary()["mangala"]["round_points"] is None
    assert round_record(state, entries[:50], "5")[0] == round_text(entries[:50])
    state.end(1, "td", "a left")
    assert state.summary()["mangala"]["round_points"] == [0, 1]


def test_a_time_out_a_warning_and_the_clock_sides_of_a_mangala_table(tmp_path: Path) -> None:
    """a sits at the right-hand clock side; b is warned by the director, then b's time runs out
    with an empty store: b loses set 1 (MG-CLOCK-3) and starts set 2 (MG-T-2)."""
    config = MangalaConfig(players=("Ayşe", "Mehmet"), clock_a="right", set_ms=60_000)
    table = Table(tmp_path, config)
    try:
        position = table.referee.position
        assert position is not None
        table.show(position.board())  # the set-up seen: a's clock runs
        table.show(play(position, 1).position.board())
        table.tick(2_000)
        table.press("a")
        state = fold(table.journal.entries)
        a_time, b_time = state.summary()["clocks_ms"]
        assert a_time < b_time == 60_000  # a's time was used, not the left-hand side's
        assert state.summary()["running"] == state.summary()["to_move"] == 1
        table.send(DirectorAction(table.time.now_ms(), "warn",
                                  {"player": "b", "reason": "touched pit 2"}, "td"))
        table.tick(61_000)
        assert table.count("time_out") == 1
        s = fold(table.journal.entries).summary()
    finally:
        table.close()
    assert s["mangala"]["warnings"] == [0, 1]
    flag = s["last_flag"]
    assert (flag["type"], flag["player"], flag["rule"]) == ("time_out", 1, "MG-CLOCK-3")
    assert flag["reason"] == "Mehmet's time ran out with 0 stones in the store: the set is lost"
    assert s["score"] == [1, 0] and s["game_number"] == 2 and s["to_move"] == 1
    assert s["clocks_ms"] == [60_000, 60_000] and s["running"] is None  # MG-CLOCK-1


def test_the_hubs_end_of_a_mangala_round_is_carried_out_by_its_referee(
    played: tuple[Path, list[dict[str, Any]]], tmp_path: Path,
    make_hub: Callable[..., HubApp], make_table: Callable[..., TablePublisher],
) -> None:
    """Through a real Mosquitto: the table's retained state is the Mangala view, and the
    director's end (winner 1, the hub's way) reaches the referee as winner b, its way."""
    _, entries = played
    part = entries[:60]
    hub = make_hub()
    hub.service.add_user("td", PASSWORD)
    folder = tmp_path / "table"
    folder.mkdir()
    table = make_table("7", director_folder=folder)
    table.publish_many(part)
    table.wait_delivered(30)
    wait_for(lambda: (hub.service.table("cup", "7")["reported"] or {}).get("seq")
             == part[-1]["seq"], 30, "the table's retained state")
    reported = hub.service.table("cup", "7")["reported"]
    assert reported["score"] == [0, 1] and reported["mangala"]["warnings"] == [0, 1]
    token = hub.service.login("td", PASSWORD, "test")
    hub.service.act(token, "test", "cup", "7", "end", {"winner": 1, "note": "a withdrew"})
    wait_for(lambda: len(table.director_messages) == 1, 30, "the director's end")
    requests = DirectorInbox(folder).poll()
    assert [(q.action, q.args, q.director) for q in requests] == [
        ("end_match", {"winner": "b", "note": "a withdrew"}, "td")]
    referee, _ = start_referee(MangalaConfig(), part)
    out = referee.handle(DirectorAction(0, requests[0].action, requests[0].args, "td"))
    ends = [c.fields for c in out if isinstance(c, JournalEntry) and c.type == "match_end"]
    assert [e["winner"] for e in ends] == ["b"] and referee.over


def test_a_flag_that_waits_for_its_players_turn_stops_the_clocks_on_the_hub(
        tmp_path: Path) -> None:
    """b's flag falls while a's press awaits its verdict (MG-CLOCK-2: journalled flag_fell);
    a's sowing is illegal and corrected untimed: the card shows b's time at 0 and nobody's
    running, the clock standing flagged (was: b's, then a's time shown running), until the
    time-out and set 2's countdown (MG-CLOCK-1)."""
    from controller.mangala.mistakes import mistakes
    from controller.referee.api import FlagFell, MotionSeen
    from tests.controller.mangala.test_referee import setup, sow

    table = Table(tmp_path)
    try:
        position = setup(table)
        table.send(MotionSeen(table.time.now_ms()))
        table.press("a")
        table.tick(300)
        table.send(FlagFell(table.time.now_ms(), table.referee.side_of("b")))
        s = fold(table.journal.entries).summary()
        assert s["running"] is None and s["clocks_ms"][1] == 0
        table.show(mistakes(position, 1)[0][1])
        assert table.count("illegal_move") == 1 and table.count("time_out") == 0
        s = fold(table.journal.entries).summary()
        assert s["running"] is None and s["to_move"] == 0 and s["clocks_ms"][1] == 0
        sow(table, position, 1)
        assert table.last("time_out")["player"] == "b"
        s = fold(table.journal.entries).summary()
        assert s["game_number"] == 2 and s["running"] is None
        table.show(table.referee.position.board() if table.referee.position else ())
        s = fold(table.journal.entries).summary()
        assert s["running"] == s["to_move"] == 1  # set 2's starter, b: the flag is gone
    finally:
        table.close()


def test_a_flag_waiting_for_its_players_turn_is_shown_until_its_time_out(
        tmp_path: Path, hub: HubApp) -> None:
    """b's flag falls while a's press awaits its verdict (flag_fell): the card and the table's
    detail name b's pending flag, the time-out following on b's turn, with no flag yet (was:
    only the stopped clock showed it); the time-out replaces it with its flag (MG-CLOCK-2,
    MG-CLOCK-3)."""
    waiting, entries = flag_waiting_round(tmp_path / "table")
    assert entries[-1]["type"] != "flag_fell" and any(e["type"] == "time_out" for e in entries)
    fell = waiting[-1]
    assert fell["type"] == "flag_fell"
    s = fold(waiting).summary()
    assert s["mangala"]["flag_pending"] == {
        "player": 1, "seq": fell["seq"], "set": 1, "time": fell["time"],
        "rule": "MG-CLOCK-2", "reason": fell["reason"]}
    assert s["flags"] == 0 and s["last_flag"] is None
    feed(hub, entries, waiting)
    card = call(hub.url + "/api/tables")[1][0]
    detail = call(hub.url + "/api/tables/cup/5")[1]
    for shown in (card, detail):
        assert shown["mangala"]["flag_pending"]["player"] == 1
    feed(hub, entries, entries[len(waiting):])
    s = fold(entries).summary()
    assert s["mangala"]["flag_pending"] is None
    assert (s["last_flag"]["type"], s["last_flag"]["player"]) == ("time_out", 1)
    detail = call(hub.url + "/api/tables/cup/5")[1]
    assert detail["mangala"]["flag_pending"] is None
    assert [(f["type"], f["player"]) for f in detail["flags"]] == [("time_out", 1)]


def test_a_flag_falling_after_a_hub_end_leaves_the_finished_round_without_a_pending_flag(
        tmp_path: Path, hub: HubApp) -> None:
    """A director ends the round on the hub with no winner; b's flag_fell, journalled before
    the table heard of it, arrives after: the finished card showed b's flag pending. It is
    stored as received but shows nothing pending, nor after a restart of the hub."""
    waiting, entries = flag_waiting_round(tmp_path / "table")
    fell = waiting[-1]
    assert fell["type"] == "flag_fell"
    feed(hub, entries, waiting[:-1])
    token = hub.service.login("td", PASSWORD, "127.0.0.1")
    hub.service.act(token, "127.0.0.1", "cup", "5", "end", {"winner": None, "note": "closed"})
    feed(hub, entries, [fell])
    match = match_id_of(entries[0])
    assert [e["seq"] for e in hub.service.store.events("cup", "5", match)][-1] == fell["seq"]
    for shown in (call(hub.url + "/api/tables")[1][0], call(hub.url + "/api/tables/cup/5")[1]):
        assert shown["finished"] is True and shown["winner"] is None
        assert shown["mangala"]["flag_pending"] is None
        assert shown["running"] is None and shown["to_move"] is None
    hub.service.rebuild()
    assert hub.service.tables()[0]["mangala"]["flag_pending"] is None


def test_a_drawn_round_is_not_ended_again_and_the_refusal_says_it_was_drawn(
    hub: HubApp, tmp_path: Path,
) -> None:
    """Review of the refusal to end a match already over: at a drawn Mangala round it said
    "the match is over (no winner, score 1.5-1.5)", which reads like a round a director ended
    without a winner; the card and results tell a draw apart (hub.md), and so does the
    refusal, in a round's words."""
    drawn = drawn_round(tmp_path / "drawn")
    feed(hub, drawn, drawn, table="6")
    token = hub.service.login("td", PASSWORD, "test")
    with pytest.raises(InvalidInputError) as refused:
        hub.service.act(token, "test", "cup", "6", "end", {"winner": 0, "note": "oops"})
    assert str(refused.value) == ("the round is over (drawn, score 1.5-1.5): its result stands, "
                                  "and there is nothing to end")
