"""Carrying out the referee's commands, in order: the journal first (appended and fsynced before
anything after it happens), then the clock, the LEDs and buzzer, snapshots and the live log."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from controller.clock.api import MatchClock
from controller.records.files import write_whole
from controller.records.journal import Journal
from controller.referee.api import (
    Buzz,
    ClockCommand,
    Command,
    JournalEntry,
    Say,
    SetSignal,
    TakeSnapshot,
)
from controller.signals import PATTERNS, Signals
from engine.errors import DeviceError

# The referee's buzzer pattern names to the LED board's patterns.
BUZZ_PATTERNS: dict[str, str] = {
    "flag": "time_out",
    "illegal": "illegal_move",
    "throw_again": "invalid_throw",
    "ok": "ok",
    "cannot_read": "cannot_read",
}


@dataclass
class LiveLog:
    """The readable live log: one line per thing a person watching the table wants to know."""

    stream: TextIO | None = None
    file: Path | None = None
    lines: list[str] = field(default_factory=list)
    keep: int = 0  # keep this many lines in ``lines`` (tests and the benchmark read them)
    clear_line: bool = False  # wipe a progress line on the same terminal first

    def say(self, text: str) -> None:
        if self.stream is not None:
            self.stream.write(("\r\033[K" if self.clear_line else "") + text + "\n")
            self.stream.flush()
        if self.file is not None:
            with self.file.open("a", encoding="utf-8") as out:
                out.write(text + "\n")
        if self.keep:
            self.lines.append(text)
            del self.lines[: -self.keep]


class Executor:
    """Runs commands against the journal, clock, signals, snapshot folder and log."""

    def __init__(
        self,
        journal: Journal,
        clock: MatchClock | None,
        signals: Signals | None,
        snapshot_dir: Path | None,
        log: LiveLog,
        frame_jpeg: Callable[[], bytes | None],
    ) -> None:
        self.journal = journal
        self.clock = clock
        self.signals = signals
        self.snapshot_dir = snapshot_dir
        self.log = log
        self.frame_jpeg = frame_jpeg
        self.last_entry: dict[str, Any] | None = None
        self.on_entry: Callable[[dict[str, Any]], None] | None = None  # e.g. the hub publisher
        self.snapshots: list[Path] = []
        self._wanted: list[str] = []  # snapshots a restart found missing, for the next still frame
        self._turn: dict[str, bool] = {"turn_left": False, "turn_right": False}
        self._held: list[dict[str, Any]] | None = None  # entries of the step under way

    def run(self, commands: list[Command]) -> None:
        """Carry out one step's commands in order; the entries they journal are handed to
        ``on_entry`` once the whole step is done: the referee asks for a flag's snapshot
        after journalling the flag, and the hub publisher sends the picture with the entry
        (handed over at once, the file was not there yet and the hub never got it)."""
        held: list[dict[str, Any]] = []
        self._held = held
        try:
            for command in commands:
                self.execute(command)
        finally:
            self._held = None
            for entry in held:
                self._hand_on(entry)

    def execute(self, command: Command) -> None:
        if isinstance(command, JournalEntry):
            self.last_entry = journal_append(self.journal, command.type, command.fields)
            if self._held is not None:
                self._held.append(self.last_entry)
            else:
                self._hand_on(self.last_entry)
        elif isinstance(command, ClockCommand):
            self._clock(command)
        elif isinstance(command, SetSignal):
            self._signal(command)
        elif isinstance(command, Buzz):
            if self.signals is not None:
                pattern = BUZZ_PATTERNS.get(command.pattern, command.pattern)
                if pattern in PATTERNS:
                    self.signals.buzz(pattern)
                else:
                    self.log.say(f"(no buzzer pattern {command.pattern!r})")
        elif isinstance(command, TakeSnapshot):
            if command.missing:
                self._wanted.append(command.label)
            else:
                self._snapshot(command.label)
        elif isinstance(command, Say):
            self.log.say(command.text)

    def publish_to(self, publisher: Any, say: Callable[[str], None] | None = None) -> None:
        """Have ``publisher`` (the hub's, ``hakem run`` and the demos alike) follow the journal:
        its words of its link into the live log (or to ``say``, set before it starts), started,
        the journal so far given to its ``resume`` (the hub's state rebuilt, and what a crash
        mid-step journalled but never handed on queued), then each new entry. A test's
        stand-in may lack all but ``publish``."""
        if hasattr(publisher, "say"):
            publisher.say = say or self.log.say
        if hasattr(publisher, "start"):
            publisher.start()
        if self.journal.entries and hasattr(publisher, "resume"):
            publisher.resume(self.journal.entries)
        self.on_entry = publisher.publish

    def _hand_on(self, entry: dict[str, Any]) -> None:
        """Give a journalled entry to ``on_entry`` (the hub publisher), if any."""
        if self.on_entry is not None:
            self.on_entry(entry)

    def _clock(self, command: ClockCommand) -> None:
        clock = self.clock
        if clock is None:
            return
        a = command.args
        if command.action == "start":
            if command.side is None:
                raise DeviceError("clock start needs a side")
            clock.start(command.side)
        elif command.action == "hold":
            clock.hold()
        elif command.action == "resume":
            clock.resume()
        elif command.action == "set_times":
            clock.set_times(int(a["left_ms"]), int(a["right_ms"]))
            if command.side is not None:
                clock.start(command.side)
        elif command.action == "configure_delay":
            clock.configure_delay(int(a["delay_ms"]), int(a["reserve_ms"]))
        elif command.action == "configure_countdown":
            clock.configure_countdown(int(a["total_ms"]))

    def _signal(self, command: SetSignal) -> None:
        signals = self.signals
        if signals is None:
            return
        name = command.signal
        if name in self._turn:
            self._turn[name] = command.on
            left, right = self._turn["turn_left"], self._turn["turn_right"]
            signals.turn("left" if left and not right else "right" if right and not left
                         else None)
        elif name == "throw_again":
            signals.throw_again(command.on)
        elif name == "illegal_move":
            signals.illegal_move(command.on)
        elif name == "cannot_read":
            signals.cannot_read(command.on)
        elif name == "system_ok":
            signals.system_ok(command.on)

    def still_frame(self) -> None:
        """A still frame is in view: keep the snapshots a restart found missing
        (``TakeSnapshot.missing``), saying so, since the picture is of the board after the
        restart, not at the flag."""
        wanted, self._wanted = self._wanted, []
        for label in wanted:
            path = self._snapshot_path(label)
            if path is None or path.exists():
                continue
            if self._snapshot(label):
                self.log.say(f"The table went down before it kept the snapshot {path.name} of "
                             "its last flag: taken now, as the board lies after the restart")

    def _snapshot_path(self, label: str) -> Path | None:
        """Where the snapshot the referee called ``label`` goes: under that name (the flag's
        ``snapshot`` field) when it is a plain JPEG file name, else named after the journal
        entry it goes with; None without a snapshot folder."""
        if self.snapshot_dir is None:
            return None
        seq = self.last_entry["seq"] if self.last_entry is not None else 0
        name = Path(label).name
        if name != label or not name or name.startswith(".") or not name.lower().endswith(
                (".jpg", ".jpeg")):
            safe = "".join(c if c.isalnum() or c in "-_" else "-" for c in label)[:40]
            name = f"{seq:06d}-{safe or 'flag'}.jpg"
        return self.snapshot_dir / name

    def _snapshot(self, label: str) -> bool:
        """Keep the current frame as evidence (:meth:`_snapshot_path`); whether it was kept."""
        path = self._snapshot_path(label)
        if path is None:
            return False
        data = self.frame_jpeg()
        if data is None:
            self.log.say(f"(no frame to keep for {label})")
            return False
        path.parent.mkdir(parents=True, exist_ok=True)
        write_whole(path, data)  # synced: a power cut leaves no empty picture as evidence
        self.snapshots.append(path)
        return True


def journal_append(journal: Journal, kind: str, fields: dict[str, Any]) -> dict[str, Any]:
    """Append one entry durably (validated, one line, flushed and fsynced) and return it."""
    return journal.append(kind, **fields)


def default_log(out: TextIO | None = None) -> LiveLog:
    """A log printing to stdout (or ``out``)."""
    return LiveLog(stream=out if out is not None else sys.stdout)
