"""The table's durable outbox: events wait on disk until the hub says it has stored them.

Each match's highest seq ever queued is kept too (acknowledged rows leave, the mark stays): a
restarted table queues the journal's entries past it, which a power cut kept from the outbox.

A broker's PUBACK is not enough (a broker restarted without persistence forgets what it
acknowledged but had not yet delivered), so rows leave the outbox only when the hub's retained
``ack`` reports their ``seq`` stored. Inserts are fsynced (``synchronous=FULL``); deletions are
not, since a deletion lost to a power cut only costs a resend, which the hub ignores.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path
from typing import NamedTuple

_SCHEMA = """
CREATE TABLE IF NOT EXISTS outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    match TEXT NOT NULL,
    seq INTEGER NOT NULL,
    payload BLOB NOT NULL,
    UNIQUE (match, seq)
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS queued (match TEXT PRIMARY KEY, seq INTEGER NOT NULL);
"""


class OutboxRow(NamedTuple):
    """One queued event: its place in the queue, match, journal seq and the message bytes."""

    id: int
    match: str
    seq: int
    payload: bytes


class Outbox:
    """A FIFO of messages in SQLite, safe to use from the caller's and paho's threads."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(_SCHEMA)

    def add(self, rows: list[tuple[str, int, bytes]]) -> int:
        """Queue (match, seq, payload) rows durably in one transaction, raising each match's
        :meth:`queued_through` with them; returns the new count."""
        with self._lock:
            self._db.execute("PRAGMA synchronous=FULL")
            before = self._db.total_changes
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.executemany(
                    "INSERT OR IGNORE INTO outbox (match, seq, payload) VALUES (?, ?, ?)", rows
                )
                added = self._db.total_changes - before
                self._db.executemany(
                    "INSERT INTO queued (match, seq) VALUES (?, ?) ON CONFLICT (match) "
                    "DO UPDATE SET seq = max(seq, excluded.seq)",
                    [(match, seq) for match, seq, _ in rows],
                )
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
            return added

    def after(self, last_id: int, limit: int = 500) -> list[OutboxRow]:
        """Queued rows with ``id > last_id``, oldest first."""
        with self._lock:
            cursor = self._db.execute(
                "SELECT id, match, seq, payload FROM outbox WHERE id > ? ORDER BY id LIMIT ?",
                (last_id, limit),
            )
            return [OutboxRow(int(r[0]), str(r[1]), int(r[2]), bytes(r[3])) for r in cursor]

    def queued_through(self, match: str) -> int:
        """The highest seq of ``match`` ever queued, acknowledged or not (0: none, or an outbox
        from before the mark was kept)."""
        with self._lock:
            row = self._db.execute("SELECT seq FROM queued WHERE match = ?", (match,)).fetchone()
            return 0 if row is None else int(row[0])

    def acknowledge(self, match: str, seq: int) -> int:
        """Drop every row of ``match`` up to ``seq``: the hub has stored them. Returns the count."""
        with self._lock:
            self._db.execute("PRAGMA synchronous=NORMAL")
            cursor = self._db.execute(
                "DELETE FROM outbox WHERE match = ? AND seq <= ?", (match, seq)
            )
            return cursor.rowcount

    def __len__(self) -> int:
        with self._lock:
            row = self._db.execute("SELECT COUNT(*) FROM outbox").fetchone()
            return int(row[0])

    def get(self, key: str) -> str | None:
        """A remembered value (the current match id)."""
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
            return None if row is None else str(row[0])

    def put(self, key: str, value: str) -> None:
        """Remember a value durably."""
        with self._lock:
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    def close(self) -> None:
        """Close the database; safe to call twice."""
        with self._lock:
            self._db.close()
