"""Carrying out the referee's commands: the journal on disk before anything after it, the
clock (the real firmware core behind the simulated link), gpiozero LEDs on MockFactory,
snapshots and the live log."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from gpiozero.pins.mock import MockFactory

from controller.clock.sim import LoopbackClock
from controller.clock.timebase import FakeTime
from controller.records.journal import Journal, read_journal
from controller.referee.api import (
    Buzz,
    ClockCommand,
    Command,
    JournalEntry,
    Say,
    SetSignal,
    TakeSnapshot,
)
from controller.runtime.effects import Executor, LiveLog, journal_append
from controller.signals import Signals


class DiskCheckingClock:
    """A test double of the clock that records, at each command, what the journal file on disk
    holds (so the test sees whether the entry was written before the command ran)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.seen: list[tuple[str, list[str]]] = []

    def _note(self, name: str) -> None:
        types = [json.loads(line)["type"] for line in self.path.read_text().splitlines()]
        self.seen.append((name, types))

    def hold(self) -> None:
        self._note("hold")

    def start(self, side: str) -> None:
        self._note(f"start {side}")

    def resume(self) -> None:
        self._note("resume")

    def set_times(self, left_ms: int, right_ms: int) -> None:
        self._note(f"set_times {left_ms} {right_ms}")

    def configure_delay(self, delay_ms: int, reserve_ms: int) -> None:
        self._note(f"delay {delay_ms} {reserve_ms}")

    def configure_countdown(self, total_ms: int) -> None:
        self._note(f"countdown {total_ms}")


def _executor(tmp_path: Path, clock: Any, signals: Signals | None, out: io.StringIO,
              jpeg: bytes | None = b"\xff\xd8jpeg") -> tuple[Executor, Journal]:
    journal = Journal(tmp_path / "journal.jsonl")
    executor = Executor(journal, clock, signals, tmp_path / "snapshots", LiveLog(stream=out),
                        frame_jpeg=lambda: jpeg)
    return executor, journal


def test_the_journal_is_on_disk_before_the_commands_after_it(tmp_path: Path) -> None:
    clock = DiskCheckingClock(tmp_path / "journal.jsonl")
    executor, journal = _executor(tmp_path, clock, None, io.StringIO())
    with journal:
        executor.run([
            JournalEntry("illegal_move", {"player": 0, "rule": "BG-MOVE-6",
                                          "reason": "a die was not played"}),
            ClockCommand("hold"),
            ClockCommand("start", side="left"),
            JournalEntry("correction", {"player": 0}),
            ClockCommand("set_times", args={"left_ms": 5000, "right_ms": 7000}),
        ])
    assert clock.seen == [
        ("hold", ["illegal_move"]),
        ("start left", ["illegal_move"]),
        ("set_times 5000 7000", ["illegal_move", "correction"]),
    ]


def test_an_entry_with_a_kind_field_is_journalled(tmp_path: Path) -> None:
    with Journal(tmp_path / "j.jsonl") as journal:
        journal_append(journal, "game_end", {"winner": 1, "kind": "gammon", "points": 2})
        journal_append(journal, "move", {"player": 0})
    entries = read_journal(tmp_path / "j.jsonl").entries
    assert [(e["seq"], e["type"]) for e in entries] == [(1, "game_end"), (2, "move")]
    assert entries[0]["kind"] == "gammon"


def test_signals_buzzer_snapshot_and_log(tmp_path: Path) -> None:
    time = FakeTime(0)
    out = io.StringIO()
    with Signals(time=time, pin_factory=MockFactory()) as signals:
        executor, journal = _executor(tmp_path, None, signals, out)
        commands: list[Command] = [
            JournalEntry("invalid_throw", {"player": 1, "rule": "BG-ROLL-2",
                                           "reason": "a die is cocked",
                                           "snapshot": "flag-0001.jpg"}),
            SetSignal("throw_again", True),
            SetSignal("turn_right", True),
            Buzz("throw_again"),
            TakeSnapshot("flag-0001.jpg"),
            TakeSnapshot("../evil name"),
            Say("Invalid throw by Bora: a die is cocked (BG-ROLL-2)"),
        ]
        with journal:
            executor.run(commands)
        lit = signals.lit()
        assert lit["throw_again"] and lit["turn_right"] and not lit["turn_left"]
        assert signals.buzzing and lit["buzzer"]
        time.advance(2000)
        signals.tick()
        assert not signals.lit()["buzzer"]
        executor.run([SetSignal("turn_right", False), SetSignal("turn_left", True)])
        assert signals.lit()["turn_left"] and not signals.lit()["turn_right"]
    assert (tmp_path / "snapshots" / "flag-0001.jpg").read_bytes() == b"\xff\xd8jpeg"
    others = sorted(p.name for p in (tmp_path / "snapshots").iterdir())
    assert others == ["000001----evil-name.jpg", "flag-0001.jpg"]
    assert "Invalid throw by Bora" in out.getvalue()


def test_clock_commands_reach_the_firmware(tmp_path: Path) -> None:
    time = FakeTime(0)
    clock = LoopbackClock(time)
    executor, journal = _executor(tmp_path, clock, None, io.StringIO())
    with journal:
        executor.run([ClockCommand("configure_delay", args={"delay_ms": 12_000,
                                                            "reserve_ms": 360_000}),
                      ClockCommand("set_times", args={"left_ms": 100_000, "right_ms": 90_000}),
                      ClockCommand("start", side="right")])
    for _ in range(200):
        time.advance(10)
        clock.poll()
    # the firmware core runs the right side's delay, then its reserve
    left, right = clock.sim.times_ms()
    assert left == 100_000
    assert right == 90_000  # two seconds in: still inside the 12 s delay (TTB-CLOCK-4)
    time.advance(20_000)
    clock.poll()
    assert clock.sim.times_ms()[1] < 90_000


def test_the_hub_is_handed_a_flag_once_its_snapshot_is_on_disk(tmp_path: Path) -> None:
    """The referee journals a flag, then asks for its snapshot: the publisher (``on_entry``)
    sends the picture with the entry, so it is handed the step's entries after the whole
    step (handed each at once, it found no picture and the hub never got one)."""
    snaps = tmp_path / "snaps"
    handed: list[tuple[str, bool]] = []
    with Journal(tmp_path / "journal.jsonl") as journal:
        executor = Executor(journal, None, None, snaps, LiveLog(), frame_jpeg=lambda: b"jpeg")
        executor.on_entry = lambda entry: handed.append(
            (entry["type"], (snaps / "flag-0001.jpg").exists()))
        executor.run([JournalEntry("flag", {"rule": "BG-MOVE-1", "snapshot": "flag-0001.jpg"}),
                      TakeSnapshot("flag-0001.jpg"), Say("Illegal move")])
        assert handed == [("flag", True)]
        executor.execute(JournalEntry("note", {"text": "alone"}))  # outside a step: at once
        assert handed[-1] == ("note", True)
