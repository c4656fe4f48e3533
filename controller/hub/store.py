"""The hub's SQLite database: every event, presence, reported state, accounts, sessions, actions.

Everything the dashboard shows is rebuilt from here after a restart: events are folded again
in ``seq`` order per match (:mod:`controller.hub.contract`) and each director action replayed
where it was taken, after the ``seq`` its match had been folded to then (``actions.after_seq``).
Events are keyed by (tournament, table, match, seq), which is how duplicates are dropped.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.hub.auth import PasswordHash
from engine.errors import HakemError

AUDIT_ASKED_CHARS = 1000  # what a request asked for is kept up to this many characters of JSON
MAX_ROW_ID = 2**63 - 1  # SQLite's largest integer: every row's id is below it
AUDIT_TEXT_CHARS = 300  # a line's user, action and detail are kept up to this many characters

_SCHEMA = """
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tournament TEXT NOT NULL, tbl TEXT NOT NULL, match TEXT NOT NULL,
    first_seen REAL NOT NULL,
    UNIQUE (tournament, tbl, match)
);
CREATE TABLE IF NOT EXISTS events (
    tournament TEXT NOT NULL, tbl TEXT NOT NULL, match TEXT NOT NULL, seq INTEGER NOT NULL,
    type TEXT NOT NULL, time TEXT NOT NULL, entry TEXT NOT NULL, received REAL NOT NULL,
    PRIMARY KEY (tournament, tbl, match, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS snapshots (
    tournament TEXT NOT NULL, tbl TEXT NOT NULL, match TEXT NOT NULL, seq INTEGER NOT NULL,
    jpeg BLOB NOT NULL,
    PRIMARY KEY (tournament, tbl, match, seq)
);
CREATE TABLE IF NOT EXISTS results (
    tournament TEXT NOT NULL, tbl TEXT NOT NULL, match TEXT NOT NULL,
    players TEXT NOT NULL, score TEXT NOT NULL, winner INTEGER, finished_at TEXT,
    PRIMARY KEY (tournament, tbl, match)
);
CREATE TABLE IF NOT EXISTS presence (
    tournament TEXT NOT NULL, tbl TEXT NOT NULL, status TEXT NOT NULL, time TEXT,
    PRIMARY KEY (tournament, tbl)
);
CREATE TABLE IF NOT EXISTS table_info (
    tournament TEXT NOT NULL, tbl TEXT NOT NULL, name TEXT NOT NULL, twin TEXT,
    PRIMARY KEY (tournament, tbl)
);
CREATE TABLE IF NOT EXISTS reported (
    tournament TEXT NOT NULL, tbl TEXT NOT NULL, state TEXT NOT NULL,
    PRIMARY KEY (tournament, tbl)
);
CREATE TABLE IF NOT EXISTS users (
    name TEXT PRIMARY KEY, salt BLOB NOT NULL, digest BLOB NOT NULL,
    n INTEGER NOT NULL, r INTEGER NOT NULL, p INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS sessions (
    token_hash TEXT PRIMARY KEY, user TEXT NOT NULL, expires REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS actions (
    id INTEGER PRIMARY KEY AUTOINCREMENT, time TEXT NOT NULL, user TEXT NOT NULL,
    tournament TEXT NOT NULL, tbl TEXT NOT NULL, match TEXT NOT NULL, kind TEXT NOT NULL,
    data TEXT NOT NULL, after_seq INTEGER
);
CREATE TABLE IF NOT EXISTS audit (
    id INTEGER PRIMARY KEY AUTOINCREMENT, time TEXT NOT NULL, remote TEXT NOT NULL,
    user TEXT, action TEXT NOT NULL, ok INTEGER NOT NULL, detail TEXT NOT NULL, asked TEXT
);
"""


class DatabaseFolderError(HakemError, FileNotFoundError):
    """The folder meant to hold the hub's database does not exist (a mistyped ``--db``)."""


@dataclass(frozen=True)
class StoredEvent:
    """One stored event row."""

    tournament: str
    table: str
    match: str
    seq: int
    entry: dict[str, Any]


class HubStore:
    """A thread-safe wrapper over one SQLite connection (WAL, fsync on commit)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        if str(path) != ":memory:" and not self.path.parent.is_dir():
            # a folder made here hid a mistyped --db behind an empty dashboard; the file itself
            # is still made (a new hub starts without one)
            raise DatabaseFolderError(
                f"no folder {str(self.path.parent)!r} for the hub's database {str(path)!r}")
        self.lock = threading.RLock()
        self.db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.executescript(_SCHEMA)
        columns = {str(row[1]) for row in self.db.execute("PRAGMA table_info(actions)")}
        if "after_seq" not in columns:  # a database from before actions knew their place
            self.db.execute("ALTER TABLE actions ADD COLUMN after_seq INTEGER")
        columns = {str(row[1]) for row in self.db.execute("PRAGMA table_info(audit)")}
        if "asked" not in columns:  # a database from before the audit kept what was asked
            self.db.execute("ALTER TABLE audit ADD COLUMN asked TEXT")

    def close(self) -> None:
        """Close the connection."""
        with self.lock:
            self.db.close()

    # -- ingest (the writer thread, inside one transaction per batch) ----------------------
    def begin(self) -> None:
        """Start a write transaction (hold ``lock`` until :meth:`commit`)."""
        self.db.execute("BEGIN IMMEDIATE")

    def commit(self) -> None:
        """Commit (fsync) the batch."""
        self.db.execute("COMMIT")

    def rollback(self) -> None:
        """Abandon the batch."""
        self.db.execute("ROLLBACK")

    def mark(self) -> None:
        """Open a savepoint inside the batch, so one message can be undone on its own."""
        self.db.execute("SAVEPOINT message")

    def keep(self) -> None:
        """Keep what was written since :meth:`mark`."""
        self.db.execute("RELEASE message")

    def undo(self) -> None:
        """Undo what was written since :meth:`mark`; the rest of the batch stays."""
        self.db.execute("ROLLBACK TO message")
        self.db.execute("RELEASE message")

    def add_match(self, tournament: str, table: str, match: str, now: float) -> bool:
        """Record a match the first time it is seen; True if it is new."""
        cur = self.db.execute(
            "INSERT OR IGNORE INTO matches (tournament, tbl, match, first_seen) VALUES (?,?,?,?)",
            (tournament, table, match, now),
        )
        return cur.rowcount == 1

    def add_event(
        self, tournament: str, table: str, match: str, entry: dict[str, Any], now: float
    ) -> bool:
        """Store an event unless (table, match, seq) is already there; True if it is new."""
        cur = self.db.execute(
            "INSERT OR IGNORE INTO events VALUES (?,?,?,?,?,?,?,?)",
            (tournament, table, match, int(entry["seq"]), str(entry["type"]),
             str(entry["time"]), json.dumps(entry, ensure_ascii=False), now),
        )
        return cur.rowcount == 1

    def add_snapshot(self, tournament: str, table: str, match: str, seq: int, jpeg: bytes) -> None:
        """Keep a flag's evidence photo."""
        self.db.execute(
            "INSERT OR IGNORE INTO snapshots VALUES (?,?,?,?,?)",
            (tournament, table, match, seq, jpeg),
        )

    def set_result(
        self, tournament: str, table: str, match: str, players: list[str],
        score: list[int | float], winner: int | None, finished_at: str | None,
    ) -> None:
        """Record (or update) a finished match's result."""
        self.db.execute(
            "INSERT OR REPLACE INTO results VALUES (?,?,?,?,?,?,?)",
            (tournament, table, match, json.dumps(players), json.dumps(score), winner, finished_at),
        )

    def set_presence(self, tournament: str, table: str, status: str, time: str | None) -> None:
        """Remember a table's last presence message."""
        self.db.execute(
            "INSERT OR REPLACE INTO presence VALUES (?,?,?,?)", (tournament, table, status, time)
        )

    def set_table_info(self, tournament: str, table: str, name: str, twin: str | None) -> None:
        """Remember a table's name and the hub's warning about it: an offline table's retained
        presence has no name, and the warning came from the order entries arrived in, so a
        restarted hub could learn neither again."""
        self.db.execute(
            "INSERT OR REPLACE INTO table_info VALUES (?,?,?,?)", (tournament, table, name, twin)
        )

    def set_reported(self, tournament: str, table: str, state: dict[str, Any]) -> None:
        """Remember a table's last retained state message."""
        self.db.execute(
            "INSERT OR REPLACE INTO reported VALUES (?,?,?)", (tournament, table, json.dumps(state))
        )

    # -- reads ------------------------------------------------------------------------------
    def matches(self) -> list[tuple[str, str, str]]:
        """Every (tournament, table, match), in the order first seen."""
        with self.lock:
            rows = self.db.execute("SELECT tournament, tbl, match FROM matches ORDER BY id")
            return [(str(a), str(b), str(c)) for a, b, c in rows]

    def events(self, tournament: str, table: str, match: str) -> Iterator[dict[str, Any]]:
        """A match's stored entries in seq order."""
        with self.lock:
            rows = self.db.execute(
                "SELECT entry FROM events WHERE tournament=? AND tbl=? AND match=? ORDER BY seq",
                (tournament, table, match),
            ).fetchall()
        for (text,) in rows:
            yield json.loads(text)

    def event_count(self) -> int:
        """How many events are stored (all tables)."""
        with self.lock:
            return int(self.db.execute("SELECT COUNT(*) FROM events").fetchone()[0])

    def snapshot(self, tournament: str, table: str, match: str, seq: int) -> bytes | None:
        """A flag's photo, or None."""
        with self.lock:
            row = self.db.execute(
                "SELECT jpeg FROM snapshots WHERE tournament=? AND tbl=? AND match=? AND seq=?",
                (tournament, table, match, seq),
            ).fetchone()
        return None if row is None else bytes(row[0])

    def has_snapshot(self, tournament: str, table: str, match: str, seq: int) -> bool:
        """True when a flag's photo is stored."""
        return self.snapshot(tournament, table, match, seq) is not None

    def presences(self) -> list[tuple[str, str, str, str | None]]:
        """Every table's last presence."""
        with self.lock:
            rows = self.db.execute("SELECT tournament, tbl, status, time FROM presence")
            return [(str(a), str(b), str(c), d) for a, b, c, d in rows]

    def table_infos(self) -> list[tuple[str, str, str, str | None]]:
        """Every table's remembered name and warning (:meth:`set_table_info`)."""
        with self.lock:
            rows = self.db.execute("SELECT tournament, tbl, name, twin FROM table_info")
            return [(str(a), str(b), str(c), d) for a, b, c, d in rows]

    def reported_states(self) -> list[tuple[str, str, dict[str, Any]]]:
        """Every table's last retained state."""
        with self.lock:
            rows = self.db.execute("SELECT tournament, tbl, state FROM reported").fetchall()
        return [(str(a), str(b), json.loads(c)) for a, b, c in rows]

    def results(self) -> list[dict[str, Any]]:
        """Finished matches."""
        with self.lock:
            rows = self.db.execute("SELECT * FROM results ORDER BY finished_at").fetchall()
        return [
            {"tournament": r[0], "table": r[1], "match": r[2], "players": json.loads(r[3]),
             "score": json.loads(r[4]), "winner": r[5], "finished_at": r[6]}
            for r in rows
        ]

    # -- accounts, sessions, actions, audit ---------------------------------------------------
    def put_user(self, name: str, hashed: PasswordHash) -> None:
        """Create or replace a director account."""
        with self.lock:
            self.db.execute(
                "INSERT OR REPLACE INTO users VALUES (?,?,?,?,?,?)",
                (name, hashed.salt, hashed.digest, hashed.n, hashed.r, hashed.p),
            )

    def user(self, name: str) -> PasswordHash | None:
        """A director's stored hash, or None."""
        with self.lock:
            row = self.db.execute(
                "SELECT salt, digest, n, r, p FROM users WHERE name=?", (name,)
            ).fetchone()
        if row is None:
            return None
        return PasswordHash(bytes(row[0]), bytes(row[1]), int(row[2]), int(row[3]), int(row[4]))

    def users(self) -> list[str]:
        """Every account name."""
        with self.lock:
            return [str(r[0]) for r in self.db.execute("SELECT name FROM users ORDER BY name")]

    def add_session(self, token_hash: str, user: str, expires: float) -> None:
        """Open a session."""
        with self.lock:
            self.db.execute("INSERT INTO sessions VALUES (?,?,?)", (token_hash, user, expires))

    def session_user(self, token_hash: str, now: float) -> str | None:
        """The user of a live session; expired sessions are deleted."""
        with self.lock:
            self.db.execute("DELETE FROM sessions WHERE expires <= ?", (now,))
            row = self.db.execute(
                "SELECT user FROM sessions WHERE token_hash=?", (token_hash,)
            ).fetchone()
        return None if row is None else str(row[0])

    def drop_session(self, token_hash: str) -> None:
        """Log out."""
        with self.lock:
            self.db.execute("DELETE FROM sessions WHERE token_hash=?", (token_hash,))

    def add_action(
        self, time: str, user: str, tournament: str, table: str, match: str, kind: str,
        data: dict[str, Any], after_seq: int,
    ) -> None:
        """Record a director action (replayed on rebuild) taken when its match had been folded
        up to entry ``after_seq``."""
        with self.lock:
            self.db.execute(
                "INSERT INTO actions (time, user, tournament, tbl, match, kind, data, after_seq) "
                "VALUES (?,?,?,?,?,?,?,?)",
                (time, user, tournament, table, match, kind, json.dumps(data), after_seq),
            )

    def actions(self) -> list[dict[str, Any]]:
        """Every director action, oldest first (``id`` says which came first); ``after_seq`` is
        None for one stored before the hub recorded it."""
        with self.lock:
            rows = self.db.execute(
                "SELECT time, user, tournament, tbl, match, kind, data, after_seq, id "
                "FROM actions ORDER BY id"
            ).fetchall()
        return [
            {"time": r[0], "user": r[1], "tournament": r[2], "table": r[3], "match": r[4],
             "kind": r[5], "data": json.loads(r[6]), "after_seq": r[7], "id": r[8]}
            for r in rows
        ]

    def audit(self, time: str, remote: str, user: str | None, action: str, ok: bool,
              detail: str, asked: Any = None) -> None:
        """Log an attempted action, allowed or refused; ``asked``: what it asked for (JSON),
        None when that is not kept (a request without a session, or with no readable body)."""
        kept = None if asked is None else _asked_text(asked)
        with self.lock:
            self.db.execute(
                "INSERT INTO audit (time, remote, user, action, ok, detail, asked) "
                "VALUES (?,?,?,?,?,?,?)",
                (time, remote, None if user is None else _cut(user), _cut(action), int(ok),
                 _cut(detail), kept),
            )

    def audit_log(self, limit: int = 200, before: int | None = None) -> list[dict[str, Any]]:
        """The latest audit lines, newest first (``before``: those older than the line of that
        ``id``, the next page), at most ``limit``."""
        with self.lock:
            rows = self.db.execute(
                "SELECT id, time, remote, user, action, ok, detail, asked FROM audit "
                "WHERE id < ? ORDER BY id DESC LIMIT ?",
                (MAX_ROW_ID if before is None else before, limit),
            ).fetchall()
        return [
            {"id": r[0], "time": r[1], "remote": r[2], "user": r[3], "action": r[4],
             "ok": bool(r[5]), "detail": r[6], "asked": None if r[7] is None else json.loads(r[7])}
            for r in rows
        ]


def _cut(text: str) -> str:
    """``text`` as the audit keeps it: whole up to :data:`AUDIT_TEXT_CHARS`, else its start
    and "..." (a name tried or an address posted to may be 64 KiB long)."""
    return text if len(text) <= AUDIT_TEXT_CHARS else text[:AUDIT_TEXT_CHARS] + "..."


def _asked_text(asked: Any) -> str:
    """``asked`` as the JSON the audit keeps: whole when short, else the start of its JSON text
    as one string (a refused body may be up to 64 KiB)."""
    text = json.dumps(asked)
    if len(text) <= AUDIT_ASKED_CHARS:
        return text
    return json.dumps(text[:AUDIT_ASKED_CHARS] + "...")
