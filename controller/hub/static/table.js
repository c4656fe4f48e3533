// A table's page: live board (SVG), moves, flags with snapshots, director actions.
"use strict";
const page = document.body.dataset;
const api = "/api/tables/" + encodeURIComponent(page.tournament) + "/" + encodeURIComponent(page.table);
let lastSeq = -1, busy = false, again = false, shown = null;
// A director may end a match still being played; a finished one offers nothing to end, but
// for a director's end on the hub the table has not carried out yet (it is down): that one may
// be replaced, and the form says so. The winner is offered by name ("first player" left the
// director to work out who that was).
function offerEnd() {
  const form = document.getElementById("end");
  const pending = !!shown && shown.finished && !!shown.end_pending;
  form.hidden = !user || !shown || (shown.finished && !pending);
  // a Mangala table plays a round, as its card and record say, not a match
  const noun = shown && shown.game === "mangala" ? "round" : "match";
  document.getElementById("end-what").textContent = pending
    ? "Replace the pending end of the " + noun + " (the table has not carried it out yet):"
    : "End the " + noun + ":";
  document.getElementById("end-go").textContent = pending ? "Replace the end" : "End " + noun;
  if (shown) for (const p of [0, 1]) form.winner.options[p + 1].textContent = (shown.players[p] || "?") + " wins";
}
function flagItem(t, f) {
  const who = f.player === null ? "" : (t.players[f.player] || "?") + ": ";
  // a flag no director has seen stands out by a mark and a border, not by colour alone
  const li = el("li", {id: "flag-" + f.seq, class: f.acknowledged_by ? "seen" : "open"},
    el("strong", {}, (f.acknowledged_by ? "" : "⚑ ") + f.type + " " + f.rule), " " + who + f.reason,
    el("div", {class: "meta"}, (t.game === "mangala" ? "set " : "game ") + f.game + " · seq " + f.seq + " · " + (f.time || "")
      + (f.corrected ? " · corrected" : "")
      + (f.acknowledged_by ? " · seen by " + f.acknowledged_by : " · OPEN")
      + (f.override ? " · " + f.override.verdict + " by " + f.override.by
        + (f.override.note ? " (" + f.override.note + ")" : "") : "")));
  if (f.snapshot) li.append(el("img", {src: api + "/snapshots/" + encodeURIComponent(t.match) + "/" + f.seq + ".jpg",
                                       alt: "snapshot of seq " + f.seq, loading: "lazy"}));
  if (user && t.current) {
    const ack = el("button", {type: "button"}, "Acknowledge");
    ack.onclick = () => post(api + "/flags/" + f.seq + "/ack", {}).then(refresh, e => say(e.message));
    const verdict = el("select", {}, el("option", {value: "upheld"}, "uphold"), el("option", {value: "overturned"}, "overturn"));
    const note = el("input", {placeholder: "note", maxlength: "500"});
    const go = el("button", {type: "button"}, "Override");
    go.onclick = () => post(api + "/flags/" + f.seq + "/override", {verdict: verdict.value, note: note.value})
      .then(refresh, e => say(e.message));
    li.append(el("form", {}, ack, verdict, note, go));
  }
  return li;
}
function show(t) {
  shown = t;
  offerEnd();
  document.getElementById("title").textContent = tableName(t) + ": " + t.players.join(" vs ");
  const warnings = t.warnings || [];
  document.getElementById("warnings").replaceChildren(...warnings.map(w => el("p", {}, "⚠ " + w)));
  document.getElementById("warnings").hidden = warnings.length === 0;
  const pending = pendingFlagText(t);
  document.getElementById("flag-pending").textContent = pending || "";
  document.getElementById("flag-pending").hidden = !pending;
  const mangala = t.game === "mangala";
  for (const p of [0, 1]) {
    // which checkers are whose, by shape as the board draws them: player 0 light, 1 dark
    const name = document.getElementById("name-" + p);
    name.replaceChildren((mangala ? "" : (p === 0 ? "○ " : "● ")) + (t.players[p] || "?"), turnMark(t, p));
    name.title = mangala ? "" : (p === 0 ? "light checkers" : "dark checkers");
    document.getElementById("score-" + p).textContent = String(t.score[p]);
  }
  showInfo(t);
  document.getElementById("board").hidden = false;
  document.getElementById("download").hidden = false;
  document.getElementById("board").src = api + "/board.svg?match=" + encodeURIComponent(t.match) + "&seq=" + t.seq;
  // a Mangala round has no .mat: its record is the round record the table writes
  const download = document.getElementById("download");
  download.href = api + (mangala ? "/round.txt" : "/match.mat") + "?match=" + encodeURIComponent(t.match);
  download.textContent = mangala ? "Download the round record" : "Download the match record";
  document.getElementById("moves-game").textContent = mangala ? "set" : "game";
  document.getElementById("moves-dice").textContent = mangala ? "" : "dice";
  const body = document.getElementById("moves");
  body.replaceChildren(...t.moves.map(m => el("tr", {}, el("td", {}, String(m.game)),
    el("td", {}, m.player === null ? "?" : t.players[m.player]), el("td", {}, m.dice ? m.dice.join("") : ""),
    el("td", {}, m.action === "double" ? "doubles to " + m.cube : (m.move || "(no move)")))));
  const flags = document.getElementById("flags");
  flags.replaceChildren(...t.flags.map(f => flagItem(t, f)));
  document.getElementById("noflags").hidden = t.flags.length > 0;
}
// The line under the scores, and the clocks: what the match is, and whether the table is heard
// (not "online" while this page has lost the hub; clocks stopped when the table is not heard).
function showInfo(t) {
  const stopped = clocksStoppedText(t);
  for (const p of [0, 1]) {
    setClock(document.getElementById("clock-" + p), t.clocks_ms ? t.clocks_ms[p] : null,
             t.running === p && !t.finished, !!stopped, t.clock_age_ms);
  }
  const heard = hubLost ? "" : (t.online ? " · online" : "");
  document.getElementById("info").textContent = matchText(t)
    + (t.dice ? " · dice " + t.dice.join("-") : "")
    + (t.finished ? " · finished" + (t.winner !== null ? ", " + t.players[t.winner] + " wins" : "") : "")
    + (t.ended_by ? " (ended by " + t.ended_by + ")" : "") + heard
    + (stopped ? " · " + stopped : (t.online || hubLost ? "" : " · " + t.presence));
}
connectionWatchers.push(() => { if (shown) showInfo(shown); });
async function refresh() {
  if (busy) { again = true; return; }
  busy = true;
  try {
    const r = await fetch(api);
    if (r.ok) { const t = await r.json(); lastSeq = t.seq; show(t); }
    else say("no such table yet");
  } finally {
    busy = false;
    if (again) { again = false; refresh(); }
  }
}
document.getElementById("end").onsubmit = e => {
  e.preventDefault();
  const f = e.target;
  const winner = f.winner.value === "" ? null : Number(f.winner.value);
  post(api + "/end", {winner: winner, note: f.note.value}).then(refresh, err => say(err.message));
};
liveUpdates(t => { if (t.tournament === page.tournament && t.table === page.table) refresh(); },
            () => refresh());
directorSession(() => { offerEnd(); return refresh(); });
