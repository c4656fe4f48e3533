// The dashboard: one card per table, replaced in place as updates arrive (no reload).
"use strict";
const grid = document.getElementById("tables");
function key(t) { return t.tournament + "/" + t.table; }
const summaries = new Map();  // each card's summary, drawn again when the hub is lost or back
function render(t) {
  const id = "card-" + t.tournament + "-" + t.table;
  let card = document.getElementById(id);
  if (card && Number(card.dataset.rev) > t.revision) return;  // an older summary arriving late
  if (!card) {
    card = el("article", {id: id, class: "card"});
    card.dataset.sort = key(t);
    grid.append(card);
    const cards = Array.from(grid.children);
    cards.sort((a, b) => a.dataset.sort.localeCompare(b.dataset.sort, undefined, {numeric: true}));
    cards.forEach(c => grid.append(c));
  }
  summaries.set(key(t), t);
  card.dataset.sort = key(t);
  card.dataset.seq = t.seq;
  card.dataset.rev = t.revision;
  card.className = "card" + (t.online ? " online" : "")
    + (t.open_flags || (t.warnings || []).length || pendingFlagText(t) ? " alert" : "")
    + (t.finished ? " finished" : "");
  const href = "/tables/" + encodeURIComponent(t.tournament) + "/" + encodeURIComponent(t.table);
  // a table the hub no longer hears stands out in words and shape, not only its border's colour
  // (and one this page cannot hear, the hub lost, is not said online)
  const unheard = !t.finished && (hubLost || !t.online);
  const status = t.finished ? "finished"
    : (hubLost ? "⚠ unknown" : (t.online ? "online" : "⚠ " + (t.presence || "offline")));
  const head = el("h2", {}, el("a", {href: href}, tableName(t)),
    el("span", {class: "meta status" + (unheard ? " offline" : "")}, status));
  const stopped = clocksStoppedText(t);
  const rows = el("div", {class: "players"});
  for (const p of [0, 1]) {
    const clock = el("span", {class: "clock", id: "clock-" + t.tournament + "-" + t.table + "-" + p});
    setClock(clock, t.clocks_ms ? t.clocks_ms[p] : null, t.running === p && !t.finished, !!stopped,
             t.clock_age_ms);
    const name = (t.players[p] || "?") + (t.winner === p ? " ★" : "");
    rows.append(el("span", {class: "name"}, name, turnMark(t, p)),
      el("span", {class: "score", id: "score-" + t.tournament + "-" + t.table + "-" + p}, String(t.score[p])),
      clock);
  }
  // who ended the match, when a director did (on the hub or at the table)
  const meta = el("div", {class: "meta"}, matchText(t) + (t.ended_by ? " · ended by " + t.ended_by : ""));
  const parts = [head, rows, meta];
  if (stopped) parts.push(el("div", {class: "meta stopped"}, stopped));
  if (t.flags) {
    const last = t.last_flag;
    parts.push(el("div", {class: "flag"}, (t.open_flags ? "⚑ " : "") + t.open_flags + " open / " + t.flags
      + (t.flags === 1 ? " flag" : " flags")
      + (last ? " · last: " + last.rule + " " + last.reason : "")));
  }
  const pending = pendingFlagText(t);
  if (pending) parts.push(el("div", {class: "flag pending", id: "pending-" + t.tournament + "-" + t.table}, pending));
  for (const warning of t.warnings || []) {
    parts.push(el("div", {class: "flag warning"}, "⚠ " + warning));
  }
  card.replaceChildren(...parts);
}
// An empty hall says so, rather than showing a blank page.
function showEmpty() { document.getElementById("empty").hidden = grid.children.length > 0; }
connectionWatchers.push(() => summaries.forEach(render));
liveUpdates(t => { render(t); showEmpty(); }, all => { all.forEach(render); showEmpty(); });
