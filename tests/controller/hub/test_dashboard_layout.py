"""The pages as a director sees them walking the hall: a phone, a tablet, a laptop (real
headless Chromium, sized as each; the boxes measured). Found in a QA pass with screenshots."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

from controller.hub.server import HubApp
from tests.controller.hub.broker import wait_for
from tests.controller.hub.matches import simulated_match
from tests.controller.hub.webdriver import Browser

SHOWN = ("const e = document.getElementById(arguments[0]);"
         "return !!e && getComputedStyle(e).display !== 'none';")
TEXT = "const e = document.getElementById(arguments[0]); return e ? e.textContent : '';"
BOX = ("const r = document.getElementById(arguments[0]).getBoundingClientRect();"
       "return [r.left, r.right, r.top, r.bottom];")
NO_SIDEWAYS = "return document.documentElement.scrollWidth <= window.innerWidth;"


def _ingest(hub: HubApp, table: str, leaf: str, bodies: list[dict[str, Any]]) -> None:
    for body in bodies:
        hub.service.ingest(f"hakem/cup/{table}/{leaf}", json.dumps(body).encode())
    assert hub.service.wait_idle(30)


def _match(hub: HubApp, table: str, entries: list[dict[str, Any]],
           players: list[str] | None = None) -> None:
    if players:
        entries[0] = {**entries[0], "players": players}
    _ingest(hub, table, "events", [{"v": 1, "match": "m", "entry": e} for e in entries])


def _up_to_the_first(entries: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return entries[: next(i for i, e in enumerate(entries) if e["type"] == kind) + 1]


def test_an_empty_hall_says_there_are_no_tables_yet(
    browser: Browser, make_hub: Callable[..., HubApp]
) -> None:
    """Before any table connected the dashboard was a header over a blank page."""
    hub = make_hub()
    browser.viewport(390, 844, mobile=True)
    browser.get(hub.url + "/")
    wait_for(lambda: browser.run(SHOWN, "empty"), 30, "the empty hall said")
    assert "No tables yet" in browser.run(TEXT, "empty")
    _match(hub, "3", simulated_match(3, seed=1)[:4])
    wait_for(lambda: browser.run(TEXT, "card-cup-3") != "", 30, "the first card")
    assert not browser.run(SHOWN, "empty")


def test_a_page_that_lost_the_hub_says_so(
    browser: Browser, make_hub: Callable[..., HubApp]
) -> None:
    """With the hub stopped, the dashboard and a table's page went on showing the last
    scores and a clock counting down, saying nothing: a director would trust stale data."""
    hub = make_hub()
    _match(hub, "3", simulated_match(3, seed=1)[:12])
    for page, ready in (("/", "card-cup-3"), ("/tables/cup/3", "score-0")):
        browser.get(hub.url + page)
        wait_for(lambda ready=ready: browser.run(TEXT, ready) != "", 30, f"{page} to fill")
        assert not browser.run(SHOWN, "connection")
    hub.stop()
    wait_for(lambda: browser.run(SHOWN, "connection"), 30, "the lost connection said")
    assert "No connection to the hub" in browser.run(TEXT, "connection")


def test_a_tables_page_on_a_laptop_keeps_each_clock_by_its_player_and_large(
    browser: Browser, make_hub: Callable[..., HubApp]
) -> None:
    """On a 1366 px screen each name stood at the left edge and its score and clock at the
    right, 1 300 px away, the clocks in body text; which checkers were whose was nowhere
    but in 8-letter names in the board's tray; an open flag looked like a seen one."""
    hub = make_hub()
    hub.service.add_user("td", "correct horse battery")
    entries = _up_to_the_first(simulated_match(2, seed=5, length=5), "illegal_move")
    _match(hub, "2", entries, ["Gülşen Şahin", "İbrahim Güneş"])
    browser.viewport(1366, 768)
    browser.get(hub.url + "/tables/cup/2")
    wait_for(lambda: "Gülşen" in browser.run(TEXT, "name-0"), 30, "the players")
    for p in (0, 1):
        name, clock = browser.run(BOX, f"name-{p}"), browser.run(BOX, f"clock-{p}")
        assert clock[0] - name[1] < 500, (name, clock)
        size = browser.run("return parseFloat(getComputedStyle("
                           "document.getElementById(arguments[0])).fontSize);", f"clock-{p}")
        assert size >= 24
    # the checkers' sides in shape (as drawn: light hollow, dark filled), not colour alone
    assert browser.run(TEXT, "name-0").startswith("○ Gülşen Şahin")
    assert browser.run(TEXT, "name-1").startswith("● İbrahim Güneş")
    seq = entries[-1]["seq"]
    flag = ("const e = document.getElementById(arguments[0]);"
            "return e ? [e.className, e.querySelector('strong').textContent] : null;")
    wait_for(lambda: browser.run(flag, f"flag-{seq}") is not None, 30, "the flag listed")
    assert browser.run(flag, f"flag-{seq}") == ["open", "⚑ illegal_move BG-MOVE-6"]
    token = hub.service.login("td", "correct horse battery", "test")
    hub.service.act(token, "test", "cup", "2", "acknowledge", {"seq": seq})
    wait_for(lambda: browser.run(flag, f"flag-{seq}") == ["seen", "illegal_move BG-MOVE-6"],
             30, "the flag seen")
    assert browser.run(NO_SIDEWAYS)


def test_on_a_phone_a_card_opens_with_a_tap_anywhere_and_buttons_are_large_enough(
    browser: Browser, make_hub: Callable[..., HubApp]
) -> None:
    """On a 390 px phone only the table's name (a few letters, 20 px high) opened its page;
    the login fields and buttons were 34 px high (under the 44 px advised for a finger); an
    offline table said so in small grey letters; a table not yet on the hub showed a broken
    image and a dead download link."""
    hub = make_hub()
    _ingest(hub, "6", "presence", [{"status": "offline", "time": "2026-11-22T09:00:00Z"}])
    _match(hub, "6", simulated_match(6, seed=13, length=5)[:30], ["Selin", "Burak"])
    browser.viewport(390, 844, mobile=True)
    browser.get(hub.url + "/")
    wait_for(lambda: browser.run(TEXT, "card-cup-6") != "", 30, "the card")
    target = browser.run(
        "const r = document.getElementById('card-cup-6').getBoundingClientRect();"
        "const hit = document.elementFromPoint(r.left + r.width / 2, r.bottom - 8);"
        "const a = hit && hit.closest('a'); return a ? a.getAttribute('href') : null;")
    assert target == "/tables/cup/6"
    status = browser.run("const s = document.querySelector('#card-cup-6 .status');"
                         "return [s.textContent, parseFloat(getComputedStyle(s).fontWeight)];")
    assert status[0] == "⚠ offline" and status[1] >= 700
    assert browser.run(NO_SIDEWAYS)
    browser.get(hub.url + "/tables/cup/99")  # no such table yet
    wait_for(lambda: browser.run(TEXT, "message") == "no such table yet", 30, "the message")
    assert not browser.run(SHOWN, "board") and not browser.run(SHOWN, "download")
    browser.run("document.getElementById('director').open = true;")  # folded in the header
    heights = browser.run("return Array.from(document.querySelectorAll("
                          "'#director summary, #login input, #login button'))"
                          ".map(e => e.offsetHeight);")
    assert len(heights) == 4 and min(heights) >= 44, heights
    assert browser.run(NO_SIDEWAYS)


def test_a_mistyped_address_gets_a_page_a_phone_can_read(
    browser: Browser, make_hub: Callable[..., HubApp]
) -> None:
    """``/tabels/cup/3`` answered the API's JSON (``{"error": ...}``), laid out 980 px wide
    on a phone, with no way back to the tables; the API still answers JSON."""
    hub = make_hub()
    try:
        urllib.request.urlopen(hub.url + "/tabels/cup/3", timeout=10)
        raise AssertionError("a page that does not exist was answered")
    except urllib.error.HTTPError as exc:
        assert exc.code == 404 and exc.headers["Content-Type"].startswith("text/html")
        exc.close()
    try:
        urllib.request.urlopen(hub.url + "/api/nothing", timeout=10)
        raise AssertionError("an API path that does not exist was answered")
    except urllib.error.HTTPError as exc:
        assert exc.code == 404 and "error" in json.loads(exc.read())
    browser.viewport(390, 844, mobile=True)
    browser.get(hub.url + "/tabels/cup/3")
    assert "No such page" in browser.run("return document.body.textContent;")
    assert browser.run("return document.querySelector('main a').getAttribute('href');") == "/"
    assert browser.run("return window.innerWidth;") == 390
    assert browser.run(NO_SIDEWAYS)


WATCH_BANNER = ("window.bannerShown = 0; const b = document.getElementById('connection');"
                "new MutationObserver(() => { if (!b.hidden) window.bannerShown++; })"
                ".observe(b, {attributes: true});")


def _end_streams(hub: HubApp) -> None:
    """End every open event stream as the hub does one that stalled (or a proxy, timing it
    out): the browser reconnects in a second; wait until it has."""
    broadcaster = hub.service.broadcaster
    with broadcaster._lock:
        old = list(broadcaster._queues)
    assert old
    for q in old:
        q.put_nowait(None)

    def back() -> bool:
        with broadcaster._lock:
            return any(q not in old for q in broadcaster._queues)
    wait_for(back, 30, "the page to reconnect")


def test_a_stream_that_ends_and_comes_back_shows_no_lost_connection_banner(
    browser: Browser, make_hub: Callable[..., HubApp]
) -> None:
    """Any error on the event stream showed the banner at once, so a stream the hub ended
    (stalled, or its proxy timing out) flashed "No connection to the hub" on every page for
    the second the browser took to reconnect, the hub never lost."""
    hub = make_hub()
    _match(hub, "3", simulated_match(3, seed=1)[:12])
    for page, ready in (("/", "card-cup-3"), ("/tables/cup/3", "score-0")):
        browser.get(hub.url + page)
        wait_for(lambda ready=ready: browser.run(TEXT, ready) != "", 30, f"{page} to fill")
        browser.run(WATCH_BANNER)
        _end_streams(hub)
        _end_streams(hub)
        assert browser.run("return window.bannerShown;") == 0, page
        assert not browser.run(SHOWN, "connection")


def _ticks(browser: Browser, clock: str) -> bool:
    """Whether the clock's text changes within two seconds."""
    before = browser.run(TEXT, clock)
    import time
    time.sleep(2.2)
    return bool(browser.run(TEXT, clock) != before)


def test_an_offline_tables_clocks_stand_still_and_say_so(
    browser: Browser, make_hub: Callable[..., HubApp]
) -> None:
    """A table gone offline (its Pi unplugged) kept its player's clock counting down on its
    card and its page, as if the hub still heard its time: a director would call a flag that
    never fell. An online table's clock still runs."""
    hub = make_hub()
    entries = simulated_match(6, seed=13, length=5)[:30]
    assert any(e["type"] == "clock" and e.get("running") is not None for e in entries)
    for table, status in (("6", "offline"), ("7", "online")):
        _ingest(hub, table, "presence", [{"status": status, "time": "2026-11-22T09:00:00Z"}])
        _match(hub, table, [dict(e) for e in entries], ["Selin", "Burak"])
    running = next(t for t in hub.service.tables() if t["table"] == "6")["running"]
    assert running in (0, 1)
    browser.get(hub.url + "/")
    wait_for(lambda: browser.run(TEXT, "card-cup-6") != "", 30, "the card")
    assert not _ticks(browser, f"clock-cup-6-{running}")
    assert _ticks(browser, f"clock-cup-7-{running}")  # online: counting down
    card = browser.run(TEXT, "card-cup-6")
    assert "clocks stopped at the last times heard: the table is offline" in card
    assert "clocks stopped" not in browser.run(TEXT, "card-cup-7")
    browser.get(hub.url + "/tables/cup/6")
    wait_for(lambda: browser.run(TEXT, f"clock-{running}") not in ("", "–"), 30, "the clocks")
    assert not _ticks(browser, f"clock-{running}")
    assert "clocks stopped" in browser.run(TEXT, "info")
    assert "running" not in browser.run(
        "return document.getElementById(arguments[0]).className;", f"clock-{running}")


def test_a_table_page_that_lost_the_hub_does_not_say_online(
    browser: Browser, make_hub: Callable[..., HubApp]
) -> None:
    """With the banner saying the hub was lost, the line under the scores still said
    "online" and the clock still counted down."""
    hub = make_hub()
    _ingest(hub, "3", "presence", [{"status": "online", "time": "2026-11-22T09:00:00Z"}])
    _match(hub, "3", simulated_match(3, seed=1)[:12])
    browser.get(hub.url + "/tables/cup/3")
    wait_for(lambda: "online" in browser.run(TEXT, "info"), 30, "the page said online")
    hub.stop()
    wait_for(lambda: browser.run(SHOWN, "connection"), 30, "the lost connection said")
    info = browser.run(TEXT, "info")
    assert "online" not in info and "no connection to the hub" in info
    assert not _ticks(browser, "clock-0") and not _ticks(browser, "clock-1")


def test_one_flag_is_a_flag_on_the_card(
    browser: Browser, make_hub: Callable[..., HubApp]
) -> None:
    """A card with one flag read "1 open / 1 flags"."""
    hub = make_hub()
    _match(hub, "3", simulated_match(3, seed=1)[:4])
    browser.get(hub.url + "/")
    wait_for(lambda: browser.run(TEXT, "card-cup-3") != "", 30, "the card")
    summary = next(t for t in hub.service.tables() if t["table"] == "3")
    for rev, (open_flags, flags) in enumerate(((1, 1), (0, 1), (1, 3)), start=1):
        shown = {**summary, "revision": summary["revision"] + rev, "open_flags": open_flags,
                 "flags": flags, "last_flag": None}
        browser.run("render(JSON.parse(arguments[0]));", json.dumps(shown))
        line = browser.run("return document.querySelector('#card-cup-3 .flag').textContent;")
        assert line == ("⚑ " if open_flags else "") + {1: f"{open_flags} open / 1 flag",
                                                       3: f"{open_flags} open / 3 flags"}[flags]


def test_the_player_to_play_and_the_running_clock_are_marked_in_words_and_shape(
    browser: Browser, make_hub: Callable[..., HubApp]
) -> None:
    """The player on roll was marked by a small dot after the name and the running clock by
    a pale yellow background alone: neither seen across a hall, nor without colour."""
    hub = make_hub()
    _ingest(hub, "6", "presence", [{"status": "online", "time": "2026-11-22T09:00:00Z"}])
    _match(hub, "6", simulated_match(6, seed=13, length=5)[:30], ["Selin", "Burak"])
    summary = next(t for t in hub.service.tables() if t["table"] == "6")
    p, running = summary["to_move"], summary["running"]
    assert p in (0, 1) and running in (0, 1)
    mark = ("const e = document.querySelector(arguments[0]);"
            "return e ? [e.textContent, parseFloat(getComputedStyle(e).fontWeight)] : null;")
    clock = ("const e = document.getElementById(arguments[0]); const s = getComputedStyle(e);"
             "return [getComputedStyle(e, '::before').content, parseFloat(s.outlineWidth),"
             " parseFloat(s.fontWeight)];")
    browser.get(hub.url + "/")
    wait_for(lambda: browser.run(TEXT, "card-cup-6") != "", 30, "the card")
    turn = browser.run(mark, "#card-cup-6 .turn")
    assert turn == ["• on roll", 700.0]
    assert browser.run("return document.querySelectorAll('#card-cup-6 .turn').length;") == 1
    before, outline, weight = browser.run(clock, f"clock-cup-6-{running}")
    assert "▶" in before and outline >= 2 and weight >= 700
    assert browser.run(clock, f"clock-cup-6-{1 - running}")[0] in ("none", "normal")
    browser.get(hub.url + "/tables/cup/6")
    wait_for(lambda: "Selin" in browser.run(TEXT, "name-0"), 30, "the players")
    assert browser.run(mark, f"#name-{p} .turn") == ["• on roll", 700.0]
    assert browser.run(mark, f"#name-{1 - p} .turn") is None
    before, outline, weight = browser.run(clock, f"clock-{running}")
    assert "▶" in before and outline >= 2 and weight >= 700


def test_the_director_log_in_is_folded_in_the_header_and_opens_from_the_keyboard(
    browser: Browser, make_hub: Callable[..., HubApp]
) -> None:
    """The log-in form (two fields and a button, three rows on a phone) stood above the
    scores on every table's page, pushing the match down for everyone reading it in the hall
    though only a director uses it. Once logged in, keyboard focus fell to the page's body."""
    hub = make_hub()
    hub.service.add_user("td", "correct horse battery")
    _match(hub, "3", simulated_match(3, seed=1)[:12], ["Selin", "Burak"])
    browser.viewport(390, 844, mobile=True)
    browser.get(hub.url + "/tables/cup/3")
    wait_for(lambda: "Selin" in browser.run(TEXT, "name-0"), 30, "the players")
    visible = "return document.getElementById(arguments[0]).checkVisibility();"
    assert not browser.run(visible, "login")
    assert browser.run(BOX, "players")[2] < browser.run(BOX, "title")[3] + 120
    toggle = "return document.querySelector('#director summary').textContent;"
    assert browser.run(toggle) == "Director log in"
    browser.run("document.querySelector('#director summary').focus();")
    browser.keys("\ue007")  # Enter on the focused toggle
    wait_for(lambda: browser.run(visible, "login"), 10, "the form opened")
    browser.keys("\ue004", "t", "d", "\ue004", *"correct horse battery", "\ue007")
    wait_for(lambda: browser.run(TEXT, "who") == "director: td", 30, "logged in")
    assert not browser.run(visible, "login") and not browser.run(visible, "director")
    # the folded log-in hidden, focus went to the page's body: back to the page's heading
    wait_for(lambda: browser.run("return document.activeElement.id;") == "title", 10,
             "the focus on the heading")
    assert browser.run(NO_SIDEWAYS)


def test_a_long_name_wraps_inside_its_card_on_a_phone(
    browser: Browser, make_hub: Callable[..., HubApp]
) -> None:
    """A name with no space to break at (a club's whole name) widened its card past a phone's
    screen, pushing the score and clock out of sight."""
    hub = make_hub()
    long_name = "KarşıyakaTavlaVeMangalaKulübüTurnuvaOyuncusuAyşe"
    _match(hub, "3", simulated_match(3, seed=1)[:6], players=[long_name, "Ali"])
    browser.viewport(390, 844, mobile=True)
    browser.get(hub.url + "/")
    wait_for(lambda: long_name in browser.run(TEXT, "card-cup-3"), 30, "the card")
    assert browser.run(NO_SIDEWAYS)
    card = browser.run(BOX, "card-cup-3")
    score = browser.run(BOX, "score-cup-3-0")
    assert card[1] <= 390 and card[0] <= score[0] and score[1] <= card[1], (card, score)
