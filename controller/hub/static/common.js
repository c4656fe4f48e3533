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
// what it shows may be out of date until the banner goes.
function connectionLost(lost) {
  const banner = document.getElementById("connection");
  if (!banner) return;
  banner.textContent = lost ? "⚠ No connection to the hub: trying again. What this page shows"
    + " may be out of date." : "";
  banner.hidden = !lost;
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
// Running clocks count down locally between updates.
const clockBase = new Map();
function tickClocks() {
  const now = Date.now();
  for (const [id, info] of clockBase) {
    const node = document.getElementById(id);
    if (node) node.textContent = fmtClock(info.ms - (now - info.at));
  }
}
setInterval(tickClocks, 250);
function setClock(node, ms, running) {
  node.textContent = fmtClock(ms);
  node.classList.toggle("running", running);
  if (running && ms !== null && ms !== undefined) clockBase.set(node.id, {ms: ms, at: Date.now()});
  else clockBase.delete(node.id);
}
