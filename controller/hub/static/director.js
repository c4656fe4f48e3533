// A director's session on the pages that offer one (a table's page, the audit): who is logged
// in, the folded log-in and the log-out, and posting an action.
"use strict";
let user = null;
function say(text) { document.getElementById("message").textContent = text; }
async function post(path, body) {
  const r = await fetch(path, {method: "POST", headers: {"Content-Type": "application/json"},
                               body: JSON.stringify(body), credentials: "same-origin"});
  const data = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(data.error || ("HTTP " + r.status));
  return data;
}
async function whoami() {
  const r = await fetch("/api/session", {credentials: "same-origin"});
  user = (await r.json()).user;
  // the log-in sits folded in the header ("Director log in"), not above the page's matter
  document.getElementById("director").hidden = !!user;
  document.getElementById("login").hidden = !!user;
  document.getElementById("logout").hidden = !user;
  document.getElementById("who").textContent = user ? "director: " + user : "";
  const audit = document.getElementById("audit-link");
  if (audit) audit.hidden = !user;
}
// Wire the log-in and log-out; ``changed`` runs once the page knows who is logged in, and
// again after each log-in or log-out.
function directorSession(changed) {
  document.getElementById("login").onsubmit = e => {
    e.preventDefault();
    const f = e.target;
    post("/api/login", {user: f.user.value, password: f.password.value})
      .then(() => { f.password.value = ""; say(""); return whoami(); }, err => say(err.message))
      .then(() => {
        // the folded log-in is hidden once in, which left keyboard focus on the page's body
        if (user) document.getElementById("title").focus();
        return changed();
      });
  };
  document.getElementById("logout").onclick = () => post("/api/logout", {}).then(whoami).then(changed);
  return whoami().then(changed);
}
