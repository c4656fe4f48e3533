// The audit page: every director action and refusal the hub kept, newest first, for a
// director reviewing a dispute. Its words (names, notes, what was asked) come from anyone who
// posted to the hub: written as text, never as markup.
"use strict";
// A time as this device reads it (the hub keeps UTC); the hub's own words when unreadable.
function localTime(iso) {
  const when = new Date(iso);
  return isNaN(when) ? String(iso) : when.toLocaleString(undefined, {dateStyle: "medium", timeStyle: "medium"});
}
// What an action asked, on one line: "winner: 1, note: "forfeit""; a request cut at the hub's
// limit is kept as the start of its JSON, shown as it is.
function askedText(asked) {
  if (asked === null || asked === undefined) return null;
  if (typeof asked !== "object" || Array.isArray(asked)) return JSON.stringify(asked);
  return Object.entries(asked).map(([k, v]) => k + ": " + JSON.stringify(v)).join(", ");
}
// Who: the director, no session, or for a refused log-in the name tried (anyone's words).
function who(a) {
  if (a.user === null) return "no session";
  return (a.action === "login" && !a.ok ? "name tried: " : "by ") + a.user;
}
// One line of the audit: allowed or refused in a sign and a word (not a colour alone), what,
// when, who and from where, the refusal's words, and what was asked. An allowed action's
// detail is the data it asked, said once.
function auditItem(a) {
  const asked = askedText(a.asked);
  const li = el("li", {class: a.ok ? "allowed" : "refused"},
    el("strong", {class: "verdict"}, a.ok ? "✓ allowed" : "✗ refused"), " " + a.action,
    el("div", {class: "meta"}, el("time", {datetime: a.time}, localTime(a.time)),
      " · " + who(a) + " · from " + a.remote));
  if (a.detail && (!a.ok || asked === null)) {
    li.append(el("div", {class: "why"}, (a.ok ? "" : "why: ") + a.detail));
  }
  if (asked !== null) li.append(el("div", {class: "asked"}, "asked: " + asked));
  return li;
}
// The lines shown so far (the latest page, then each older one asked for).
let shownLines = [];
const PAGE = 200;  // the hub's lines a page
// The latest lines, or with ``older`` the page before the oldest shown, added below them.
async function load(older) {
  const last = shownLines.length ? shownLines[shownLines.length - 1].id : null;
  const r = await fetch("/api/audit" + (older && last !== null ? "?before=" + last : ""),
                        {credentials: "same-origin"});
  if (!r.ok) {
    if (r.status === 401 && user) await whoami();  // the session ran out: the log-in again
    document.getElementById("need-login").hidden = r.status !== 401;
    document.getElementById("audit-view").hidden = true;
    if (r.status !== 401) say("the hub did not give the audit (HTTP " + r.status + ")");
    return;
  }
  const page = await r.json();
  say("");
  const list = document.getElementById("audit");
  if (older) list.append(...page.map(auditItem));
  else list.replaceChildren(...page.map(auditItem));
  shownLines = older ? shownLines.concat(page) : page;
  document.getElementById("older").hidden = page.length < PAGE;
  counted();
  document.getElementById("need-login").hidden = true;
  document.getElementById("audit-view").hidden = false;
}
// The count of the lines shown and of the refusals among them.
function counted() {
  const lines = shownLines;
  document.getElementById("noaudit").hidden = lines.length > 0;
  const refused = lines.filter(a => !a.ok).length;
  document.getElementById("count").textContent = lines.length + (lines.length === 1 ? " line" : " lines")
    + ", " + refused + " refused · newest first";
}
// While a director has the page open and in view, lines the hub audits from now on appear at
// the top by themselves (a dispute being handled shows up without a click), and the older
// pages already shown stay below; more new lines than a page reads the latest page afresh.
async function newer() {
  if (!user || document.hidden || document.getElementById("audit-view").hidden) return;
  const r = await fetch("/api/audit", {credentials: "same-origin"});
  if (!r.ok) return load(false);  // the session ran out: as a load shows it
  const page = await r.json();
  const top = shownLines.length ? shownLines[0].id : null;  // as shown now, after the wait
  const fresh = top === null ? page : page.filter(a => a.id > top);
  if (!fresh.length) return;
  if (top !== null && fresh.length === page.length) return load(false);  // a gap: start again
  document.getElementById("audit").prepend(...fresh.map(auditItem));
  shownLines = fresh.concat(shownLines);
  counted();
}
const LIVE_MS = 5000;  // how often the open page asks the hub for new lines
setInterval(() => newer().catch(() => say("no connection to the hub")), LIVE_MS);
document.getElementById("reload").onclick = () => load(false).catch(() => say("no connection to the hub"));
document.getElementById("older").onclick = () => load(true).catch(() => say("no connection to the hub"));
directorSession(() => load(false).catch(() => say("no connection to the hub")));
