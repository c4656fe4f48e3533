"""The pages for people: the dashboard, a table's page and the directors' audit (HTML shells;
data comes from /api/).

Scripts and styles are files in ``static/`` served from ``/static/`` so the pages run under a
strict Content-Security-Policy with no inline script.
"""

from __future__ import annotations

from html import escape
from importlib import resources
from typing import Final

STATIC_TYPES: Final = {
    "hub.css": "text/css; charset=utf-8",
    "common.js": "text/javascript; charset=utf-8",
    "dashboard.js": "text/javascript; charset=utf-8",
    "director.js": "text/javascript; charset=utf-8",
    "table.js": "text/javascript; charset=utf-8",
    "audit.js": "text/javascript; charset=utf-8",
    "icon.svg": "image/svg+xml",
}

_HEAD = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title><link rel="stylesheet" href="/static/hub.css">
<link rel="icon" href="/static/icon.svg" type="image/svg+xml"></head>
"""

# Who is logged in, and the log-in folded in the header (open where the page is for directors
# only); director.js drives it.
_DIRECTOR = """<span id="who"></span>
<button id="logout" type="button" hidden>Log out</button>
<details id="director"{open}><summary>Director log in</summary>
<form id="login"><input name="user" placeholder="director" autocomplete="username"
 aria-label="director" required>
<input name="password" type="password" placeholder="password" autocomplete="current-password"
 aria-label="password" required><button>Log in</button></form></details>"""


def static_file(name: str) -> bytes | None:
    """One of the bundled static files, or None."""
    if name not in STATIC_TYPES:
        return None
    return resources.files("controller.hub").joinpath("static", name).read_bytes()


def dashboard_page() -> str:
    """Every table as a card, updated live; the directors' audit a click away (the audit page
    asks a director to log in: a director refereeing many tables starts here)."""
    return (
        _HEAD.format(title="hakem: tournament")
        + """<body><header><h1>hakem: every table</h1>
<a href="/api/tables">JSON</a>
<a id="audit-link" href="/audit">directors' audit</a></header>
<main><p id="connection" class="lost" role="alert" hidden></p>
<p id="empty" hidden>No tables yet: a table appears here as soon as it connects to the hub.</p>
<div id="tables" aria-live="polite"></div></main>
<script src="/static/common.js"></script><script src="/static/dashboard.js"></script>
</body></html>
"""
    )


def table_page(tournament: str, table: str) -> str:
    """One table: live board, moves, flags with snapshots, the record, director actions."""
    t, n = escape(tournament, quote=True), escape(table, quote=True)
    return (
        _HEAD.format(title=f"hakem: table {n}")
        + f"""<body data-tournament="{t}" data-table="{n}">
<header><h1 id="title" tabindex="-1">Table {n}</h1><a href="/">all tables</a>
<a id="audit-link" href="/audit" hidden>audit</a>{_DIRECTOR.format(open="")}</header>
<main>
<p id="connection" class="lost" role="alert" hidden></p>
<p id="message" role="status"></p>
<div class="flag" id="warnings" hidden></div>
<div class="flag" id="flag-pending" role="status" hidden></div>
<div class="players" id="players">
<span id="name-0"></span><span class="score" id="score-0"></span>
<span class="clock" id="clock-0"></span>
<span id="name-1"></span><span class="score" id="score-1"></span>
<span class="clock" id="clock-1"></span>
</div>
<p class="meta" id="info"></p>
<div class="cols"><div><img id="board" class="board" alt="the board" hidden>
<p><a id="download" download hidden>Download the match record</a></p></div>
<div><h2>Flags</h2><p id="noflags">No flags.</p><ul class="flags" id="flags"></ul>
<form id="end" hidden><strong id="end-what">End the match:</strong>
<select name="winner"><option value="">no winner</option><option value="0">first player wins
</option><option value="1">second player wins</option></select>
<input name="note" placeholder="reason" maxlength="500"><button id="end-go">End match</button>
</form>
</div></div>
<h2>Moves</h2><table class="moves"><thead><tr><th id="moves-game">game</th><th>player</th>
<th id="moves-dice">dice</th><th>move</th></tr></thead><tbody id="moves"></tbody></table>
</main>
<script src="/static/common.js"></script><script src="/static/director.js"></script>
<script src="/static/table.js"></script>
</body></html>
"""
    )


def audit_page() -> str:
    """The audit of director actions and refusals, newest first, for a director reviewing a
    dispute (its data, /api/audit, needs a director's session)."""
    return (
        _HEAD.format(title="hakem: audit")
        + f"""<body><header><h1 id="title" tabindex="-1">Audit: directors' actions</h1>
<a href="/">all tables</a>{_DIRECTOR.format(open=" open")}</header>
<main><p id="message" role="status"></p>
<p id="need-login" hidden>Directors only: log in to see who did what at which table, and what
the hub refused.</p>
<div id="audit-view" hidden><p><button id="reload" type="button">Refresh</button>
<span id="count" class="meta"></span></p>
<p id="noaudit" hidden>Nothing audited yet.</p>
<ol class="audit" id="audit"></ol>
<p><button id="older" type="button" hidden>Older lines</button></p></div></main>
<script src="/static/common.js"></script><script src="/static/director.js"></script>
<script src="/static/audit.js"></script>
</body></html>
"""
    )


def not_found_page(path: str) -> str:
    """A page a person asked for that the hub does not have (a mistyped address): said in
    words, with the way back, not as the API's JSON."""
    return (
        _HEAD.format(title="hakem: no such page")
        + f"""<body><header><h1>No such page</h1><a href="/">all tables</a></header>
<main><p>The hub has no page <code>{escape(path)}</code>.</p>
<p><a href="/">See every table</a>, then open a table from its card.</p></main>
</body></html>
"""
    )
