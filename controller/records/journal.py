"""The match journal: one JSON object per line, appended and fsynced before the referee acts.

The journal is the source of truth a restarted controller replays, so a write either reaches the
disk whole or is detected: a torn last line (power lost mid-write) is cut off on reopen, any other
malformed line is an error naming its line number.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from controller.closing import ClosedOnExit
from controller.records.files import naming, sync_folder
from engine.errors import RecordFormatError

# The journal's file name in a table's journal folder (hakem run, hakem director).
JOURNAL_NAME: Final = "journal.jsonl"
# The entries of a throw: a game's first one starts it, after which the game before stands as
# scored (BG-CUBE-5: its cube is put right only until then); the referee and the journal check
# both go by it.
THROW_TYPES: Final = frozenset({"opening_roll", "roll", "invalid_throw", "early_throw"})

# The contract types of DESIGN.md; tables may add their own, but these are the ones others read.
CONTRACT_TYPES: Final = frozenset(
    {
        "match_start",
        "game_start",
        "opening_roll",
        "roll",
        "invalid_throw",
        "move",
        "illegal_move",
        "correction",
        "double",
        "take",
        "drop",
        "game_end",
        "match_end",
        "time_out",
        "cannot_read",
        "clock",
    }
)
# A flag must tell the player why: the rule ID from RULES.md and a sentence.
FLAG_TYPES: Final = frozenset({"invalid_throw", "illegal_move", "cannot_read"})
RESERVED_FIELDS: Final = frozenset({"seq", "time", "type"})


def utc_now_iso() -> str:
    """Wall-clock time in ISO 8601 with milliseconds, the journal's ``time`` field."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def validate_entry(entry: Mapping[str, Any], where: str) -> None:
    """Refuse an entry that breaks the journal contract; ``where`` names it in the message."""
    seq = entry.get("seq")
    if not isinstance(seq, int) or isinstance(seq, bool) or seq < 1:
        raise RecordFormatError(f"{where}: seq must be a positive integer, got {seq!r}")
    time = entry.get("time")
    if not isinstance(time, str):
        raise RecordFormatError(f"{where}: time must be an ISO 8601 string, got {time!r}")
    kind = entry.get("type")
    if not isinstance(kind, str) or not kind:
        raise RecordFormatError(f"{where}: type must be a non-empty string, got {kind!r}")
    if kind in FLAG_TYPES:
        for key in ("rule", "reason"):
            value = entry.get(key)
            if not isinstance(value, str) or not value:
                raise RecordFormatError(f"{where}: a {kind} flag needs a {key}, got {value!r}")


def match_start_fields(entries: Sequence[Mapping[str, Any]], game: str) -> dict[str, Any]:
    """The configuration a journal's ``match_start`` holds, to resume a ``game`` match from it
    (journals written before Mangala carry no ``game``: those are backgammon)."""
    first = entries[0]
    kind, held = first.get("type"), first.get("game", "backgammon")
    if kind != "match_start" or held != game:
        raise RecordFormatError(
            f"journal starts with {kind!r} of {held!r}, not a {game} match_start: cannot resume")
    return {k: v for k, v in first.items() if k not in ("seq", "time", "type", "game")}


@dataclass(frozen=True)
class JournalContents:
    """What reading a journal found: its entries and whether a torn last line was dropped."""

    entries: list[dict[str, Any]]
    torn_tail: bool
    valid_bytes: int


def read_journal(path: str | os.PathLike[str]) -> JournalContents:
    """Read and validate a journal; a torn final line is reported, any other damage raises."""
    data = Path(path).read_bytes()
    entries: list[dict[str, Any]] = []
    offset = 0
    torn = False
    lines = data.split(b"\n")
    for number, raw in enumerate(lines, start=1):
        is_last = number == len(lines)
        if is_last and raw == b"":
            break
        if is_last:
            # No newline after it: the write was cut off before it completed.
            torn = True
            break
        where = f"{os.fspath(path)} line {number}"
        try:
            entry = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
            reason = ("nested too deeply" if isinstance(exc, RecursionError)
                      else exc.__class__.__name__)
            raise RecordFormatError(f"{where}: not a JSON object ({reason})") from None
        if not isinstance(entry, dict):
            raise RecordFormatError(f"{where}: not a JSON object, got {type(entry).__name__}")
        validate_entry(entry, where)
        if entries and entry["seq"] != entries[-1]["seq"] + 1:
            raise RecordFormatError(
                f"{where}: seq {entry['seq']} does not follow {entries[-1]['seq']}"
            )
        entries.append(entry)
        offset += len(raw) + 1
    return JournalContents(entries=entries, torn_tail=torn, valid_bytes=offset)


class Journal(ClosedOnExit):
    """An append-only, fsynced journal file; reopening continues the sequence numbers.

    Use as a context manager; closing twice is harmless.
    """

    def __init__(
        self, path: str | os.PathLike[str], *, clock: Callable[[], str] = utc_now_iso
    ) -> None:
        self.path = Path(path)
        self._clock = clock
        self.path.parent.mkdir(parents=True, exist_ok=True)
        existed = self.path.exists()
        contents = read_journal(self.path) if existed else JournalContents([], False, 0)
        self.recovered_torn_tail = contents.torn_tail
        self._entries = contents.entries
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        if contents.torn_tail:
            os.ftruncate(fd, contents.valid_bytes)
            os.fsync(fd)
        self._file: Any = os.fdopen(fd, "r+b")
        self._file.seek(0, os.SEEK_END)
        if not existed:
            sync_folder(self.path.parent)

    @property
    def entries(self) -> list[dict[str, Any]]:
        """Every entry so far, oldest first (a copy: the journal itself is append-only)."""
        return list(self._entries)

    @property
    def next_seq(self) -> int:
        """The sequence number the next entry will carry."""
        return self._entries[-1]["seq"] + 1 if self._entries else 1

    def append(self, kind: str, /, **fields: Any) -> dict[str, Any]:
        """Write one entry durably (fsync) and return it; only then may the referee act on it.

        ``kind`` is positional-only so that an entry may carry a field named ``kind`` too.
        """
        if self._file is None:
            raise RecordFormatError(f"journal {self.path} is closed")
        clash = RESERVED_FIELDS.intersection(fields)
        if clash:
            raise RecordFormatError(f"journal field {sorted(clash)[0]!r} is set by the journal")
        entry: dict[str, Any] = {"seq": self.next_seq, "time": self._clock(), "type": kind}
        entry.update(fields)
        validate_entry(entry, f"new {kind} entry")
        line = json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n"
        with naming(self.path):  # a full disk: the line names the journal
            self._file.write(line.encode("utf-8"))
            self._file.flush()
            os.fsync(self._file.fileno())
        self._entries.append(entry)
        return entry

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.entries)

    def close(self) -> None:
        """Close the file; safe to call more than once."""
        if self._file is not None:
            file, self._file = self._file, None
            with naming(self.path):  # what a full disk kept in the buffer is written here
                file.close()

    @property
    def closed(self) -> bool:
        """True once :meth:`close` has run."""
        return self._file is None


def torn_tail_note(path: str | os.PathLike[str], last_seq: int) -> str:
    """The line on stderr saying that a journal's torn last line (a write the process or the
    power stopped half-way) is cut off, and after which entry its match resumes."""
    return (f"hakem: the journal's last line was torn (power lost?); it was cut off, and "
            f"{os.fspath(path)} resumes after entry {last_seq}")
