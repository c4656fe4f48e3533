"""The clocks on the dashboard and a table's page keep the time the player has (real headless
Chromium; the page's clock, Date.now, is driven by the test, so no assertion waits on speed)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from controller.hub.server import HubApp
from tests.controller.hub.broker import wait_for
from tests.controller.hub.matches import simulated_match
from tests.controller.hub.test_dashboard_layout import TEXT, _ingest, _match
from tests.controller.hub.webdriver import Browser

# the page's time stands still unless the test moves it (the 250 ms tick still runs)
FAKE_TIME = "window.fakeNow = Date.now(); Date.now = () => window.fakeNow;"
ADVANCE = "window.fakeNow += arguments[0]; tickClocks();"
SHOWN_TIME = "const e = document.getElementById(arguments[0]); return e.firstChild.nodeValue;"


def _table_with_a_running_clock(hub: HubApp) -> dict[str, Any]:
    _ingest(hub, "6", "presence", [{"status": "online", "time": "2026-11-22T09:00:00Z"}])
    _match(hub, "6", simulated_match(6, seed=13, length=5)[:30], ["Selin", "Burak"])
    summary = next(t for t in hub.service.tables() if t["table"] == "6")
    assert summary["running"] in (0, 1)
    return summary


def _to_seconds(text: str) -> int:
    minutes, seconds = text.lstrip("-").split(":")
    return (-1 if text.startswith("-") else 1) * (int(minutes) * 60 + int(seconds))


def test_a_running_clock_keeps_its_time_through_other_updates_a_lost_hub_and_an_offline_table(
    browser: Browser, make_hub: Callable[..., HubApp]
) -> None:
    """Each summary reset the clock's count to the last clock press: after a roll a clock
    that had run a minute showed its full time again; a lost hub or an offline table froze it
    at that reading (more than the player had) and it counted down from there on return."""
    hub = make_hub()
    summary = _table_with_a_running_clock(hub)
    running = summary["running"]
    clock = f"clock-cup-6-{running}"
    browser.get(hub.url + "/")
    wait_for(lambda: browser.run(TEXT, "card-cup-6") != "", 30, "the card")
    browser.run(FAKE_TIME)
    rev = summary["revision"]

    def show(**changes: Any) -> None:
        nonlocal rev
        rev += 1
        browser.run("render(JSON.parse(arguments[0]));", json.dumps(
            {**summary, "revision": rev, "clocks_ms": [300_000, 300_000], "clock_age_ms": 0,
             **changes}))

    show()  # a clock press: 5:00 left, heard just now
    assert browser.run(SHOWN_TIME, clock) == "5:00"
    browser.run(ADVANCE, 60_000)
    assert browser.run(SHOWN_TIME, clock) == "4:00"
    show(dice=[3, 1])  # a roll: the same reading
    assert browser.run(SHOWN_TIME, clock) == "4:00"
    browser.run(ADVANCE, 30_000)
    browser.run("showLost(true);")
    browser.run(ADVANCE, 120_000)
    assert browser.run(SHOWN_TIME, clock) == "3:30"  # stopped where it stood
    browser.run("showLost(false);")  # back: 3 min 30 s since the press
    assert browser.run(SHOWN_TIME, clock) == "1:30"
    show(online=False, presence="offline")
    browser.run(ADVANCE, 300_000)
    assert browser.run(SHOWN_TIME, clock) == "1:30"
    show()  # online again, no press heard in the 5 minutes
    assert browser.run(SHOWN_TIME, clock) == "-3:30"
    show(dice=[6, 6], online=False, presence="offline")
    assert browser.run(SHOWN_TIME, clock) == "-3:30"


def test_a_page_opened_after_the_clock_press_counts_from_when_the_hub_heard_it(
    browser: Browser, make_hub: Callable[..., HubApp]
) -> None:
    """A page opened two minutes after a clock press showed the full reading and counted
    down from its own opening: two minutes more than the player had. The hub now says how
    long ago it heard the reading (clock_age_ms); a later entry that is no clock press (a
    roll) does not make it younger."""
    hub = make_hub()
    summary = _table_with_a_running_clock(hub)
    running, ms = summary["running"], summary["clocks_ms"][summary["running"]]
    view = hub.service.views[("cup", "6")]
    view.clock_heard[summary["match"]] -= 120  # the press was heard two minutes ago
    _ingest(hub, "6", "events", [{"v": 1, "match": summary["match"], "entry": {
        "seq": summary["seq"] + 1, "time": "2026-11-22T10:00:00.000+00:00", "type": "director",
        "action": "note", "args": {}}}])
    age = next(t for t in hub.service.tables() if t["table"] == "6")["clock_age_ms"]
    assert 120_000 <= age < 600_000
    for page, clock in (("/", f"clock-cup-6-{running}"), ("/tables/cup/6", f"clock-{running}")):
        browser.get(hub.url + page)
        wait_for(lambda clock=clock: browser.run(TEXT, clock) not in ("", "–"), 30, "the clock")
        shown = _to_seconds(browser.run(SHOWN_TIME, clock))
        assert ms // 1000 - 600 < shown <= ms // 1000 - 120, (page, shown, ms)


def test_the_running_clock_says_running_to_a_screen_reader(
    browser: Browser, make_hub: Callable[..., HubApp]
) -> None:
    """The running clock's only sign beyond its colour was a CSS ▶, which a screen reader
    reads as a triangle, if at all."""
    hub = make_hub()
    summary = _table_with_a_running_clock(hub)
    running = summary["running"]
    word = ("const e = document.querySelector(arguments[0]);"
            "return e ? [e.textContent, e.getBoundingClientRect().width] : null;")
    browser.get(hub.url + "/")
    wait_for(lambda: browser.run(TEXT, "card-cup-6") != "", 30, "the card")
    text, width = browser.run(word, f"#clock-cup-6-{running} .unseen")
    assert text.strip() == "running" and width <= 1
    assert browser.run(word, f"#clock-cup-6-{1 - running} .unseen") is None
    browser.get(hub.url + "/tables/cup/6")
    wait_for(lambda: browser.run(TEXT, f"clock-{running}") not in ("", "–"), 30, "the clock")
    assert browser.run(word, f"#clock-{running} .unseen")[0].strip() == "running"


def test_a_rebuild_keeps_when_each_clock_was_heard_and_a_restart_forgets_it(
        tmp_path: Any) -> None:
    """A resync (rebuild) folds the stored entries again: the clocks' readings were heard when
    they arrived, not at the rebuild (it said 0 ms, giving the player on roll time back); a
    restarted hub does not know, and says so (None: a page counts from its own sight)."""
    from controller.hub.service import HubService

    db = str(tmp_path / "hub.db")
    service = HubService(db).start()
    try:
        for entry in simulated_match(6, seed=13, length=5)[:30]:
            service.ingest("hakem/cup/6/events",
                           json.dumps({"v": 1, "match": "m", "entry": entry}).encode())
        assert service.wait_idle(30)
        view = next(iter(service.views.values()))
        view.clock_heard["m"] -= 120.0  # heard two minutes ago
        service.rebuild()
        card = next(t for t in service.tables() if t["table"] == "6")
        assert card["clock_age_ms"] is not None and card["clock_age_ms"] >= 119_000
    finally:
        service.stop()
    again = HubService(db).start()
    try:
        card = next(t for t in again.tables() if t["table"] == "6")
        assert card["clock_age_ms"] is None
    finally:
        again.stop()
