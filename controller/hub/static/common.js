// Shared by the dashboard and the table page: formatting and the live update stream.
"use strict";
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v !== null && v !== undefined) node.setAttribute(k, v);
  }
  for (const c of children) node.append(c === null || c === undefined ? "" : c);
  return node;
}
function fmtClock(ms) {
  if (ms === null || ms === undefined) return "–";
  const neg = ms < 0; ms = Math.abs(ms);
  const s = Math.floor(ms / 1000), m = Math.floor(s / 60);
  return (neg ? "-" : "") + m + ":" + String(s % 60).padStart(2, "0");
}
// A table as people know it: its [table] name with the id, or "Table N" without a name.
function tableName(t) { return t.name ? t.name + " (" + t.table + ")" : "Table " + t.table; }
function cubeText(t) {
  const c = t.cube || {value: 1, owner: null};
  const owner = c.owner === null || c.owner === undefined ? "centre" : (t.players[c.owner] || "?");
  let text = c.value + " (" + owner + ")";
  if (c.offered_by !== null && c.offered_by !== undefined) text += ", offered";
  return text;
}
// What the match is and where it stands: a backgammon match's length, game and cube; a Mangala
// round's set, stores and MG-T-4 warnings (its players a and b are 0 and 1, its score set points).
function matchText(t) {
  const m = t.mangala;
  if (t.game === "mangala" && m) {
    return "Mangala round · set " + t.game_number + (m.stores ? " · stores " + m.stores.join("-") : "")
      + " · warnings " + m.warnings.join("-") + (m.result === "draw" ? " · drawn" : "");
  }
  return (t.length ? t.length + "-point match" : "unlimited") + " · game " + t.game_number
    + " · cube " + cubeText(t) + (t.crawford ? " · Crawford" : "");
}
// A Mangala flag that fell before its player's turn (MG-CLOCK-2): the time-out, and its flag,
// follow on that player's turn; null when no flag waits.
function pendingFlagText(t) {
  const f = t.game === "mangala" && t.mangala ? t.mangala.flag_pending : null;
  if (!f) return null;
  const name = t.players[f.player] || "?";
  return "⚑ " + name + "'s flag fell (set " + f.set + "): the time-out follows on " + name
    + "'s turn (" + f.rule + ")";
}
// A page that no longer hears from the hub says so (the hub stopped, the phone left the Wi-Fi):
// what it shows may be out of date until the banner goes. A stream that ends and comes back
// within LOST_AFTER_MS is no lost hub (the hub drops a stalled stream, a proxy times one out,
// a stream refused for load falls back to polling): the browser reconnects in 1 s, unsaid.
const LOST_AFTER_MS = 5000;
let hubLost = false, lostTimer = null;
const connectionWatchers = [];
function showLost(lost) {
  if (hubLost === lost) return;
  hubLost = lost;
  const banner = document.getElementById("connection");
  if (banner) {
    banner.textContent = lost ? "⚠ No connection to the hub: trying again. What this page shows"
      + " may be out of date; its clocks are stopped." : "";
    banner.hidden = !lost;
  }
  connectionWatchers.forEach(f => f(lost));
}
function connectionLost(lost) {
  if (!lost) {
    clearTimeout(lostTimer);
    lostTimer = null;
    showLost(false);
  } else if (lostTimer === null && !hubLost) {
    lostTimer = setTimeout(() => { lostTimer = null; showLost(true); }, LOST_AFTER_MS);
  }
}
// Why a table's clocks are not counting down, though one is its player's: the table is not
// online (the hub heard no time since), or this page lost the hub; null when they may run.
function clocksStoppedText(t) {
  if (t.finished) return null;
  if (hubLost) return "■ clocks stopped: no connection to the hub";
  if (t.online) return null;
  return "■ clocks stopped at the last times heard: the table is "
    + (t.presence === "offline" ? "offline" : "not connected");
}
// The player to play, in words beside the name (not a dot or a colour alone).
function turnMark(t, p) {
  return t.to_move === p && !t.finished
    ? el("span", {class: "turn"}, t.game === "mangala" ? "• to move" : "• on roll") : "";
}
// Live updates: Server-Sent Events (whose first event is every table), falling back to polling
// every 3 s if the stream fails. Each summary carries its table's revision, so one that arrives
// late (a slow poll) cannot undo a newer one.
function liveUpdates(onTable, onAll) {
  let polling = null;
  const poll = () => fetch("/api/tables").then(r => { if (!r.ok) throw new Error(r.status); return r.json(); })
    .then(all => { connectionLost(false); onAll(all); }).catch(() => connectionLost(true));
  const startPolling = () => { if (polling === null) { poll(); polling = setInterval(poll, 3000); } };
  if (window.EventSource) {
    const es = new EventSource("/api/stream");
    es.addEventListener("table", e => { connectionLost(false); onTable(JSON.parse(e.data)); });
    es.addEventListener("tables", e => { connectionLost(false); onAll(JSON.parse(e.data)); });
    es.onopen = () => connectionLost(false);
    // the browser reconnects by itself (CONNECTING); a stream refused for good (CLOSED) polls
    es.onerror = () => { connectionLost(true); if (es.readyState === EventSource.CLOSED) startPolling(); };
  } else {
    startPolling();
  }
}
// Running clocks count down locally between updates; none while the hub is lost (the page no
// longer knows), nor for a table that is not online. Each clock keeps its reading: ms left,
// whether it runs, and at, when (this page's time) the hub heard it, so a summary carrying the
// same reading (after a roll or a move) does not set the clock back to it; a stopped clock
// stands at the time it showed (frozen), and counts on from the reading when it may run again.
const clockBase = new Map();
function clockShown(info, now) {
  if (info.frozen !== null) return info.frozen;
  return info.runs ? info.ms - (now - info.at) : info.ms;
}
function tickClocks() {
  if (hubLost) return;
  const now = Date.now();
  for (const [id, info] of clockBase) {
    const node = document.getElementById(id);
    if (node && info.runs && info.frozen === null) node.firstChild.nodeValue = fmtClock(clockShown(info, now));
  }
}
setInterval(tickClocks, 250);
// runs: the clock's player is to play (the match not finished); stopped: the page may not count
// it (clocksStoppedText); ageMs: how long ago the hub heard the reading (clock_age_ms). The
// running clock is marked by a sign and a frame (hub.css, .clock.running::before), not by its
// colour alone, and in words for a screen reader.
function setClock(node, ms, runs, stopped, ageMs) {
  const now = Date.now();
  let info = clockBase.get(node.id);
  const known = ms !== null && ms !== undefined;
  const fresh = !info || info.ms !== ms || info.runs !== runs;
  if (!known) clockBase.delete(node.id);
  else if (fresh) {
    info = {ms: ms, runs: runs, at: now - (runs && ageMs > 0 ? ageMs : 0), frozen: null};
    clockBase.set(node.id, info);
  }
  if (known) {
    // a reading first seen stopped stands at the time heard; one counted so far, where it was
    if (!runs || !stopped) info.frozen = null;
    else if (info.frozen === null) info.frozen = fresh ? ms : clockShown(info, now);
  }
  const counting = known && runs && !stopped;
  node.replaceChildren(fmtClock(known ? clockShown(info, now) : ms),
    counting ? el("span", {class: "unseen"}, " running") : "");
  node.classList.toggle("running", counting);
}
