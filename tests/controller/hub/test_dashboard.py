"""The dashboard in a real headless Chromium: scores change live as the match is played."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from controller.hub.publisher import TablePublisher
from controller.hub.server import HubApp
from tests.controller.hub.broker import wait_for
from tests.controller.hub.mangala_rounds import demo_round, events, flag_waiting_round
from tests.controller.hub.matches import simulated_match
from tests.controller.hub.webdriver import Browser

SCORE = "const e = document.getElementById(arguments[0]); return e ? e.textContent : null;"


def test_a_tables_score_changes_on_the_dashboard_without_reload(
    browser: Browser, make_hub: Callable[..., HubApp], make_table: Callable[..., TablePublisher]
) -> None:
    hub = make_hub()
    entries = simulated_match(4, seed=11, length=5)
    table = make_table("4")
    other = make_table("5")
    other.publish_many(simulated_match(5, seed=12)[:10])
    table.publish_many(entries[:3])  # match_start, game_start, opening roll
    browser.get(hub.url + "/")
    wait_for(lambda: browser.run(SCORE, "score-cup-4-0") == "0", 30, "the card for table 4")
    stale = next(t for t in hub.service.tables() if t["table"] == "4")  # the score is 0-0
    browser.run("window.hakemMarker = 'same page';")
    seen = []
    start = 3
    for i, entry in enumerate(entries[3:], start=3):
        if entry["type"] != "game_end":
            continue
        table.publish_many(entries[start : i + 1])
        start = i + 1
        a, b = entry["score"]
        wait_for(lambda a=a, b=b: (browser.run(SCORE, "score-cup-4-0"),
                                   browser.run(SCORE, "score-cup-4-1")) == (str(a), str(b)),
                 30, f"the dashboard to show {a}-{b}")
        seen.append((a, b))
    table.publish_many(entries[start:])
    assert len(seen) >= 2  # the score changed at least twice while the page stayed open
    wait_for(lambda: "finished" in browser.run(
        "return document.getElementById('card-cup-4').className;"), 30, "finished")
    assert browser.run("return window.hakemMarker;") == "same page"  # never reloaded
    # A summary that arrives late (an older revision, say from a slow poll) changes nothing.
    final = (browser.run(SCORE, "score-cup-4-0"), browser.run(SCORE, "score-cup-4-1"))
    browser.run("render(JSON.parse(arguments[0]));", json.dumps(stale))
    assert (browser.run(SCORE, "score-cup-4-0"), browser.run(SCORE, "score-cup-4-1")) == final
    assert browser.run("return document.documentElement.scrollWidth <= window.innerWidth;")
    assert browser.run("return document.querySelectorAll('#tables .card h2').length;") == 2


def test_the_table_page_draws_the_board_and_lists_moves_and_flags(
    browser: Browser, make_hub: Callable[..., HubApp], make_table: Callable[..., TablePublisher]
) -> None:
    hub = make_hub()
    entries = simulated_match(6, seed=5, length=5)
    table = make_table("6")
    table.publish_many(entries[:20])
    browser.get(hub.url + "/tables/cup/6")
    rows = "return document.querySelectorAll('#moves tr').length;"
    kinds = ("move", "double", "take", "drop")
    moves = sum(1 for e in entries[:20] if e["type"] in kinds)
    wait_for(lambda: browser.run(rows) == moves, 30, f"{moves} moves listed")
    browser.run("window.hakemMarker = 1;")
    table.publish_many(entries[20:])
    total = sum(1 for e in entries if e["type"] in kinds)
    wait_for(lambda: browser.run(rows) == total, 30, f"{total} moves listed")
    flags = sum(1 for e in entries if e["type"] in ("illegal_move", "invalid_throw"))
    assert browser.run("return document.querySelectorAll('#flags li').length;") == flags
    wait_for(lambda: browser.run(
        "const b = document.getElementById('board'); return b.complete && b.naturalWidth;") > 0,
        30, "the SVG board to load")
    assert browser.run("return window.hakemMarker;") == 1
    # A phone-width window (412 px): nothing wider than the screen, no sideways scrolling.
    assert browser.run("return document.documentElement.scrollWidth <= window.innerWidth;")
    assert browser.run("return document.getElementById('login').hidden;") is False


def test_a_card_shows_the_tables_name_and_a_warning(
    browser: Browser, make_hub: Callable[..., HubApp], make_table: Callable[..., TablePublisher]
) -> None:
    """A card is headed by the table's name, and the hub's warning on it (two tables under
    one id, ``HubService._twin_check``) is shown on it, the card marked for attention."""
    hub = make_hub()
    make_table("7", name="Masa 7").publish_many(simulated_match(7, seed=3)[:4])
    browser.get(hub.url + "/")
    wait_for(lambda: browser.run(SCORE, "score-cup-7-0") == "0", 30, "the card for table 7")
    card = next(t for t in hub.service.tables() if t["table"] == "7")
    # the table's [table] name, from its presence, heads its card (it was unused, QA pass)
    assert card["name"] == "Masa 7"
    head = "return document.querySelector('#card-cup-7 h2 a').textContent;"
    wait_for(lambda: browser.run(head) == "Masa 7 (7)", 30, "the card headed by the name")
    warned = {**card, "revision": card["revision"] + 1,
              "warnings": ["two tables with the same [table] id?"]}
    browser.run("render(JSON.parse(arguments[0]));", json.dumps(warned))
    text = browser.run("return document.getElementById('card-cup-7').textContent;")
    assert "two tables with the same [table] id?" in text
    assert "alert" in browser.run("return document.getElementById('card-cup-7').className;")


DISPLAY = "return getComputedStyle(document.getElementById(arguments[0])).display;"
TEXT = "return document.getElementById(arguments[0]).textContent;"


def _ingest(hub: HubApp, leaf: str, bodies: list[dict[str, object]]) -> None:
    for body in bodies:
        hub.service.ingest(f"hakem/cup/9/{leaf}", json.dumps(body).encode())
    assert hub.service.wait_idle(30)


def _events(match: str, entries: list[dict[str, object]]) -> list[dict[str, object]]:
    return [{"v": 1, "match": match, "entry": entry} for entry in entries]


def test_the_table_page_names_the_table_and_offers_the_end_only_while_it_can_be_used(
    browser: Browser, make_hub: Callable[..., HubApp]
) -> None:
    """QA pass: the stylesheet's ``form { display: flex }`` showed forms marked hidden (the
    end form to visitors, the login form after logging in); the page said "Table 9" without
    the name or the hub's warning; a finished match kept a player on roll, its dice and the
    end form."""
    hub = make_hub()
    hub.service.add_user("td", "correct horse battery")
    _ingest(hub, "presence", [{"status": "online", "time": "2026-11-22T09:00:00Z",
                               "name": "Masa 9"}])
    other, match = simulated_match(9, seed=1), simulated_match(9, seed=2, length=1)
    _ingest(hub, "events", _events("other", other[:6]) + _events("m", match[:8])
            + _events("other", other[6:8]))  # two unfinished matches: a warning
    browser.get(hub.url + "/tables/cup/9")
    wait_for(lambda: browser.run(TEXT, "title").startswith("Masa 9 (9): "), 30, "the name")
    assert "two tables with the same [table] id?" in browser.run(TEXT, "warnings")
    assert browser.run(DISPLAY, "warnings") != "none"
    assert browser.run(DISPLAY, "end") == "none"  # a visitor: no end form
    assert browser.run(DISPLAY, "login") != "none"
    browser.run("const f = document.getElementById('login'); f.user.value = 'td';"
                "f.password.value = 'correct horse battery'; f.requestSubmit();")
    wait_for(lambda: browser.run(DISPLAY, "login") == "none", 30, "the login form to go")
    wait_for(lambda: browser.run(DISPLAY, "end") != "none", 30, "the end form for a director")
    assert "•" in browser.run(TEXT, "name-0") + browser.run(TEXT, "name-1")  # someone on roll
    _ingest(hub, "events", _events("m", match[8:]))
    wait_for(lambda: "finished" in browser.run(TEXT, "info"), 30, "the match finished")
    wait_for(lambda: browser.run(DISPLAY, "end") == "none", 30, "no end form once finished")
    assert "•" not in browser.run(TEXT, "name-0") + browser.run(TEXT, "name-1")
    assert "dice" not in browser.run(TEXT, "info")


WINNERS = ("return [...document.getElementById('end').winner.options]"
           ".map(o => o.textContent.trim());")


def test_the_end_form_names_the_players_it_can_make_the_winner(
    browser: Browser, make_hub: Callable[..., HubApp]
) -> None:
    """End-to-end QA: the end form's winner read "first player wins" / "second player wins",
    so a director ending a match for a forfeit had to work out which name was "first" (the
    page lists the players under other words), and a wrong guess gave the match to the
    other player. It names them, as the page shows them."""
    hub = make_hub()
    hub.service.add_user("td", "correct horse battery")
    _ingest(hub, "events", _events("m", simulated_match(9, seed=2)[:8]))
    browser.get(hub.url + "/tables/cup/9")
    browser.run("const f = document.getElementById('login'); f.user.value = 'td';"
                "f.password.value = 'correct horse battery'; f.requestSubmit();")
    wait_for(lambda: browser.run(DISPLAY, "end") != "none", 30, "the end form for a director")
    assert browser.run(WINNERS) == ["no winner", "Ayse 9 wins", "Mehmet 9 wins"]


def _ended_on_the_hub(hub: HubApp) -> list[dict[str, object]]:
    """Table 9's match "m", 8 entries in, ended by director td on the hub (winner 1, forfeit)
    with no word from the table since; its entries, played and not."""
    hub.service.add_user("td", "correct horse battery")
    match = simulated_match(9, seed=2)
    _ingest(hub, "events", _events("m", match[:8]))
    token = hub.service.login("td", "correct horse battery", "test")
    hub.service.act(token, "test", "cup", "9", "end", {"winner": 1, "note": "forfeit"})
    return match


def test_a_directors_end_the_table_has_not_carried_out_may_be_replaced_on_the_page(
    browser: Browser, make_hub: Callable[..., HubApp]
) -> None:
    """QA as a tournament director: a match ended on the hub while its table was down hid the
    end form, so a wrong winner could be put right only through the API, which takes it until
    the table carries the end out. The form is offered then, saying it replaces the pending
    end; once the table has carried it out (its match_end), it is gone."""
    hub = make_hub()
    match = _ended_on_the_hub(hub)
    browser.get(hub.url + "/tables/cup/9")
    wait_for(lambda: "finished" in browser.run(TEXT, "info"), 30, "the match ended on the hub")
    assert browser.run(DISPLAY, "end") == "none"  # a visitor: no end form
    browser.run("const f = document.getElementById('login'); f.user.value = 'td';"
                "f.password.value = 'correct horse battery'; f.requestSubmit();")
    wait_for(lambda: browser.run(DISPLAY, "end") != "none", 30, "the form replacing the end")
    assert browser.run(TEXT, "end-what").startswith("Replace the pending end")
    assert browser.run(TEXT, "end-go") == "Replace the end"
    browser.run("const f = document.getElementById('end'); f.winner.value = '0';"
                "f.note.value = 'wrong player'; f.requestSubmit();")
    wait_for(lambda: "(ended by td: wrong player)" in browser.run(TEXT, "info"), 30,
             "the end replaced")
    assert hub.service.table("cup", "9")["winner"] == 0
    assert browser.run(DISPLAY, "end") != "none"  # still not carried out: still replaceable
    end = {"seq": 9, "time": match[8]["time"], "type": "match_end", "winner": 0,
           "score": [3, 0], "how": "director"}
    _ingest(hub, "events", _events("m", [end]))  # the table, back, carries the end out
    wait_for(lambda: browser.run(DISPLAY, "end") == "none", 30, "no end form once carried out")


def test_a_mangala_table_on_the_dashboard_and_its_page(
    browser: Browser, make_hub: Callable[..., HubApp], make_table: Callable[..., TablePublisher],
    tmp_path: Path,
) -> None:
    """A Mangala round published through the broker: its card shows the set points, the winner
    and the set with no cube; its page draws the Mangala board and offers the round record."""
    entries = demo_round(tmp_path / "round")
    hub = make_hub()
    make_table("8").publish_many(entries)
    browser.get(hub.url + "/")
    wait_for(lambda: (browser.run(SCORE, "score-cup-8-0"), browser.run(SCORE, "score-cup-8-1"))
             == ("1", "2"), 30, "the round's set points on the card")
    card = browser.run(TEXT, "card-cup-8")
    assert "Mangala round · set 3" in card and "warnings 1-1" in card and "cube" not in card
    assert "Mehmet ★" in card  # b won the round (MG-T-1)
    browser.get(hub.url + "/tables/cup/8")
    moves = sum(1 for e in entries if e["type"] == "move")
    rows = "return document.querySelectorAll('#moves tr').length;"
    wait_for(lambda: browser.run(rows) == moves, 30, f"{moves} sowings listed")
    assert "/round.txt?match=" in browser.run("return document.getElementById('download').href;")
    assert browser.run(TEXT, "download") == "Download the round record"
    assert browser.run(TEXT, "moves-game") == "set"
    assert "finished, Mehmet wins" in browser.run(TEXT, "info")
    wait_for(lambda: browser.run(
        "const b = document.getElementById('board'); return b.complete && b.naturalWidth;") > 0,
        30, "the SVG board to load")
    assert browser.run("return document.documentElement.scrollWidth <= window.innerWidth;")


def test_a_mangala_tables_end_form_speaks_of_the_round(
    browser: Browser, make_hub: Callable[..., HubApp], tmp_path: Path,
) -> None:
    """A director at a Mangala table read "End the match:" and "End match", as at a
    backgammon table, though the page, its card and its record speak of a round: the form says
    round, for a round under way and for a pending end of one."""
    entries = demo_round(tmp_path / "round")
    under_way = entries[: next(i for i, e in enumerate(entries) if e["type"] == "move") + 3]
    hub = make_hub()
    hub.service.add_user("td", "correct horse battery")
    for body in events(entries, under_way):
        hub.service.ingest("hakem/cup/8/events", body)
    assert hub.service.wait_idle(30)
    browser.get(hub.url + "/tables/cup/8")
    wait_for(lambda: "Mangala round" in browser.run(TEXT, "info"), 30, "the round")
    browser.run("const f = document.getElementById('login'); f.user.value = 'td';"
                "f.password.value = 'correct horse battery'; f.requestSubmit();")
    wait_for(lambda: browser.run(DISPLAY, "end") != "none", 30, "the end form for a director")
    assert browser.run(TEXT, "end-what") == "End the round:"
    assert browser.run(TEXT, "end-go") == "End round"
    token = hub.service.login("td", "correct horse battery", "test")
    hub.service.act(token, "test", "cup", "8", "end", {"winner": 0, "note": "b no-show"})
    wait_for(lambda: browser.run(TEXT, "end-what").startswith("Replace"), 30, "the pending end")
    assert browser.run(TEXT, "end-what") == ("Replace the pending end of the round (the table "
                                             "has not carried it out yet):")
    assert "match" not in browser.run(TEXT, "end")


def test_a_card_says_which_director_ended_the_match(
    browser: Browser, make_hub: Callable[..., HubApp]
) -> None:
    """The card said "finished" and starred the winner, not that a director ended the match
    nor who (only the table's page did)."""
    hub = make_hub()
    _ended_on_the_hub(hub)
    browser.get(hub.url + "/")
    card = "const c = document.getElementById('card-cup-9'); return c ? c.textContent : '';"
    wait_for(lambda: "finished" in browser.run(card), 30, "the finished card")
    assert "ended by td: forfeit" in browser.run(card)


def test_a_mangala_flag_waiting_for_its_players_turn_on_the_card_and_the_page(
    browser: Browser, make_hub: Callable[..., HubApp], make_table: Callable[..., TablePublisher],
    tmp_path: Path,
) -> None:
    """b's flag fell before b's turn (flag_fell, MG-CLOCK-2): the card and the table's page
    say so, the time-out following on b's turn (was: nothing but the stopped clock); once the
    time-out comes its flag is listed and the waiting flag is gone."""
    waiting, entries = flag_waiting_round(tmp_path / "round")
    hub = make_hub()
    table = make_table("6")
    table.publish_many(waiting)
    expected = "Mehmet's flag fell (set 1): the time-out follows on Mehmet's turn (MG-CLOCK-2)"
    browser.get(hub.url + "/")
    wait_for(lambda: expected in (browser.run(
        "const c = document.getElementById('card-cup-6'); return c ? c.textContent : '';")),
        30, "the waiting flag on the card")
    assert "alert" in browser.run("return document.getElementById('card-cup-6').className;")
    browser.get(hub.url + "/tables/cup/6")
    wait_for(lambda: expected in browser.run(TEXT, "flag-pending"), 30, "the waiting flag")
    assert browser.run(DISPLAY, "flag-pending") != "none"
    assert browser.run(TEXT, "noflags") == "No flags."
    table.publish_many(entries[len(waiting):])
    wait_for(lambda: browser.run(DISPLAY, "flag-pending") == "none", 30, "the time-out")
    assert "time_out MG-CLOCK-3" in browser.run(TEXT, "flags")
