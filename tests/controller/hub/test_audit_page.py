"""The audit page in a real headless Chromium: what directors did and what the hub refused,
newest first, for directors only, as text whatever the words posted, on a phone's screen."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from controller.hub.server import HubApp
from controller.hub.service import ActionRefusedError
from engine.errors import HakemError
from tests.controller.hub.broker import wait_for
from tests.controller.hub.matches import simulated_match
from tests.controller.hub.test_http import call
from tests.controller.hub.webdriver import Browser

PASSWORD = "correct horse battery"
SHOWN = ("const e = document.getElementById(arguments[0]);"
         "return !!e && e.checkVisibility();")
TEXT = "const e = document.getElementById(arguments[0]); return e ? e.textContent : '';"
NO_SIDEWAYS = "return document.documentElement.scrollWidth <= window.innerWidth;"
ITEMS = ("return [...document.querySelectorAll('#audit li')].map(li => ({cls: li.className,"
         " verdict: li.querySelector('.verdict').textContent, text: li.textContent,"
         " time: li.querySelector('time').getAttribute('datetime'),"
         " shown: li.querySelector('time').textContent}));")
LOG_IN = ("const f = document.getElementById('login'); f.user.value = arguments[0];"
          "f.password.value = arguments[1]; f.requestSubmit();")


def _table_nine(hub: HubApp) -> None:
    """Table 9's match "m", 8 entries in (still played), and a director account td."""
    hub.service.add_user("td", PASSWORD)
    for entry in simulated_match(9, seed=2)[:8]:
        hub.service.ingest("hakem/cup/9/events",
                           json.dumps({"v": 1, "match": "m", "entry": entry}).encode())
    assert hub.service.wait_idle(30)


def _refused(attempt: Callable[[], Any]) -> None:
    with pytest.raises(HakemError):
        attempt()


def test_the_audit_page_lists_allowed_and_refused_actions_for_a_director_on_a_phone(
    browser: Browser, make_hub: Callable[..., HubApp]
) -> None:
    """The audit was JSON only (/api/audit): a director reviewing a dispute on the hall floor
    had no page for it. /audit asks a visitor to log in; once in, it lists each line newest
    first: allowed or refused in a sign and a word, the action, when (local time), who (or no
    session), from where, the refusal's words and what was asked; on a 390 px phone."""
    hub = make_hub()
    _table_nine(hub)
    token = hub.service.login("td", PASSWORD, "192.168.4.23")
    hub.service.act(token, "192.168.4.23", "cup", "9", "end", {"winner": 1, "note": "forfeit"})
    _refused(lambda: hub.service.act(token, "192.168.4.23", "cup", "9", "acknowledge",
                                     {"seq": 999, "note": ""}))
    _refused(lambda: hub.service.act(None, "192.168.4.77", "cup", "9", "end",
                                     {"winner": 0, "note": ""}))
    browser.viewport(390, 844, mobile=True)
    browser.get(hub.url + "/audit")
    wait_for(lambda: browser.run(SHOWN, "need-login"), 30, "the page to ask for a log-in")
    assert "log in" in browser.run(TEXT, "need-login")
    assert not browser.run(SHOWN, "audit-view")
    assert browser.run("return document.querySelectorAll('#audit li').length;") == 0
    assert browser.run(SHOWN, "login")  # the log-in open: the page is for directors only
    browser.run(LOG_IN, "td", PASSWORD)
    wait_for(lambda: browser.run(SHOWN, "audit-view"), 30, "the audit once logged in")
    assert not browser.run(SHOWN, "need-login")
    assert browser.run(TEXT, "who") == "director: td"
    items = browser.run(ITEMS)
    audit = hub.service.store.audit_log()
    assert len(items) == len(audit) == 5  # two log-ins, an end, two refusals
    assert [i["time"] for i in items] == [a["time"] for a in audit]  # newest first
    assert all(i["shown"] != i["time"] and i["shown"] for i in items)  # not the hub's UTC text
    browser_login, no_session, no_flag, end, login = items
    assert browser_login["verdict"] == "✓ allowed" and "login" in browser_login["text"]
    assert no_session["verdict"] == "✗ refused" and no_session["cls"] == "refused"
    assert "end cup/9" in no_session["text"] and "no session" in no_session["text"]
    assert "from 192.168.4.77" in no_session["text"] and "why: not logged in" in no_session["text"]
    assert "asked" not in no_session["text"]  # a request without a session keeps nothing
    assert no_flag["verdict"] == "✗ refused" and "acknowledge cup/9" in no_flag["text"]
    assert f"why: {audit[2]['detail']}" in no_flag["text"] and "by td" in no_flag["text"]
    assert 'asked: seq: 999, note: ""' in no_flag["text"]
    assert end["verdict"] == "✓ allowed" and end["cls"] == "allowed"
    assert 'asked: winner: 1, note: "forfeit"' in end["text"] and "why" not in end["text"]
    assert "from 192.168.4.23" in end["text"] and "by td" in end["text"]
    assert login["verdict"] == "✓ allowed" and "asked" not in login["text"]
    assert "5 lines, 2 refused" in browser.run(TEXT, "count")
    # a phone: nothing wider than the screen, the refresh button large enough for a finger
    assert browser.run("return window.innerWidth;") == 390
    assert browser.run(NO_SIDEWAYS)
    assert browser.run("return document.getElementById('reload').offsetHeight;") >= 44
    _refused(lambda: hub.service.act(token, "192.168.4.23", "cup", "9", "override",
                                     {"seq": 1000, "note": "", "verdict": "upheld"}))
    browser.run("document.getElementById('reload').click();")
    wait_for(lambda: "override cup/9" in browser.run(ITEMS)[0]["text"], 30, "the new refusal")


def test_a_table_page_links_a_logged_in_director_to_the_audit(
    browser: Browser, make_hub: Callable[..., HubApp]
) -> None:
    """A director's controls on a table's page lead to the audit; a visitor sees no link."""
    hub = make_hub()
    _table_nine(hub)
    browser.get(hub.url + "/tables/cup/9")
    wait_for(lambda: browser.run(TEXT, "title").startswith("Table 9: "), 30, "the table")
    assert not browser.run(SHOWN, "audit-link")
    browser.run(LOG_IN, "td", PASSWORD)
    wait_for(lambda: browser.run(SHOWN, "audit-link"), 30, "the audit link once logged in")
    browser.run("document.getElementById('audit-link').click();")
    wait_for(lambda: browser.run("return location.pathname;") == "/audit", 30, "the audit page")
    wait_for(lambda: browser.run(SHOWN, "audit-view"), 30, "the audit, still logged in")
    browser.run("document.getElementById('logout').click();")
    wait_for(lambda: browser.run(SHOWN, "need-login"), 30, "logged out: asked to log in")
    assert not browser.run(SHOWN, "audit-view")


def test_names_and_notes_in_the_audit_are_shown_as_text_not_run(
    browser: Browser, make_hub: Callable[..., HubApp]
) -> None:
    """Anyone on the hall Wi-Fi can try a log-in under any name, and a note is the director's
    free text: each is in the audit as it was typed, markup and all, and must reach the page
    as words, never as elements that run."""
    hub = make_hub()
    _table_nine(hub)
    script_name = "<script>window.pwned = 'name'</script>"
    image_note = "<img src=x onerror=\"window.pwned = 'note'\">"
    with pytest.raises(ActionRefusedError):
        hub.service.login(script_name, "guess", "192.168.4.66")
    token = hub.service.login("td", PASSWORD, "192.168.4.23")
    hub.service.act(token, "192.168.4.23", "cup", "9", "end", {"winner": 0, "note": image_note})
    browser.get(hub.url + "/audit")
    browser.run(LOG_IN, "td", PASSWORD)
    wait_for(lambda: len(browser.run(ITEMS)) == 4, 30, "the audit's four lines")
    text = browser.run(TEXT, "audit")
    assert f"name tried: {script_name}" in text and json.dumps(image_note) in text
    assert browser.run("return document.querySelectorAll('#audit script, #audit img').length;") == 0
    assert browser.run("return window.pwned === undefined;")
    assert browser.run(NO_SIDEWAYS)


def test_older_audit_lines_are_a_page_away(browser: Browser,
                                           make_hub: Callable[..., HubApp]) -> None:
    """The audit gave its latest 200 lines and nothing older: a dispute from the morning was
    out of reach by the afternoon. ``/api/audit?before=ID`` gives the lines before that one
    (a bad ``before`` is named, 400), and the page's "Older lines" adds them below."""
    hub = make_hub()
    _table_nine(hub)
    for k in range(205):
        hub.service.store.audit(f"2026-11-26T09:{k // 60:02d}:{k % 60:02d}Z", "192.168.4.23",
                                "td", f"acknowledge cup/{k}", True, "")
    latest = hub.service.store.audit_log()
    assert len(latest) == 200 and latest[0]["id"] > latest[-1]["id"]
    older = hub.service.store.audit_log(before=latest[-1]["id"])
    assert [a["action"] for a in older] == [f"acknowledge cup/{k}" for k in (4, 3, 2, 1, 0)]
    token = hub.service.login("td", PASSWORD, "192.168.4.23")
    status, answer = call(hub.url + "/api/audit?before=" + str(latest[-1]["id"]), token=token)
    assert status == 200 and [a["id"] for a in answer][:5] == [a["id"] for a in older][:5]
    status, answer = call(hub.url + "/api/audit?before=yesterday", token=token)
    assert status == 400 and "'yesterday'" in answer["error"]
    browser.get(hub.url + "/audit")
    wait_for(lambda: browser.run(SHOWN, "need-login"), 30, "the page to ask for a log-in")
    browser.run(LOG_IN, "td", PASSWORD)
    wait_for(lambda: browser.run(SHOWN, "audit-view"), 30, "the audit once logged in")
    assert len(browser.run(ITEMS)) == 200
    assert browser.run(SHOWN, "older")
    browser.run("document.getElementById('older').click();")
    every = len(hub.service.store.audit_log(limit=1000))  # the log-ins too
    assert every > 205
    wait_for(lambda: len(browser.run(ITEMS)) == every, 30, "the older lines below")
    assert "acknowledge cup/0" in browser.run(ITEMS)[-1]["text"]
    assert not browser.run(SHOWN, "older")  # nothing older left


def test_the_dashboard_leads_a_director_to_the_audit_log_in(
    browser: Browser, make_hub: Callable[..., HubApp]
) -> None:
    """A director refereeing many tables starts on the dashboard: its header links the audit,
    which asks for a director's log-in before it shows anything."""
    hub = make_hub()
    _table_nine(hub)
    browser.get(hub.url + "/")
    wait_for(lambda: browser.run(SHOWN, "audit-link"), 30, "the dashboard's audit link")
    browser.run("document.getElementById('audit-link').click();")
    wait_for(lambda: browser.run("return location.pathname;") == "/audit", 30, "the audit page")
    wait_for(lambda: browser.run(SHOWN, "need-login"), 30, "asked to log in")
    assert not browser.run(SHOWN, "audit-view")
    browser.run(LOG_IN, "td", PASSWORD)
    wait_for(lambda: browser.run(SHOWN, "audit-view"), 30, "the audit once logged in")


def test_new_audit_lines_appear_on_the_open_page_above_the_older_ones(
    browser: Browser, make_hub: Callable[..., HubApp]
) -> None:
    """A director keeps the audit open while handling a dispute: a refusal the hub audits
    afterwards appears at the top without a click, and the lines already shown stay, once."""
    hub = make_hub()
    _table_nine(hub)
    browser.get(hub.url + "/audit")
    wait_for(lambda: browser.run(SHOWN, "need-login"), 30, "the page to ask for a log-in")
    browser.run(LOG_IN, "td", PASSWORD)
    wait_for(lambda: browser.run(SHOWN, "audit-view"), 30, "the audit once logged in")
    before = [i["text"] for i in browser.run(ITEMS)]
    assert len(before) == 1  # the log-in
    _refused(lambda: hub.service.act(None, "192.168.4.77", "cup", "9", "end",
                                     {"winner": 0, "note": ""}))
    wait_for(lambda: len(browser.run(ITEMS)) == 2, 30, "the new refusal, unasked")
    items = browser.run(ITEMS)
    assert "end cup/9" in items[0]["text"] and items[0]["verdict"] == "✗ refused"
    assert [i["text"] for i in items[1:]] == before
    assert "2 lines, 1 refused" in browser.run(TEXT, "count")
