"""``hakem replay``: the same pipeline on a recording's frames and clock events, in recorded time.

Nothing in the pipeline reads the wall clock or a random source except the journal's ``time``
field, so a replay writes the same journal entries as the session that was recorded.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from gpiozero.pins.mock import MockFactory

from controller.clock.timebase import FakeTime
from controller.config.table import TableConfig, table_config_from_mapping
from controller.records.journal import Journal, read_journal
from controller.runtime.effects import Executor, LiveLog
from controller.runtime.loop import Timings
from controller.runtime.recording import Recording
from controller.runtime.session import build_pipeline, referee_config, start_referee
from controller.signals import Signals
from engine.errors import ConfigError, InvalidInputError, RecordFormatError


class _ReplayTime(FakeTime):
    """Recorded time: set to each step's time as the step is replayed."""

    def set(self, t_ms: int) -> None:
        if t_ms > self.now_ms():
            self.advance(t_ms - self.now_ms())


@dataclass
class ReplayResult:
    """Where the replay's journal went and how the pipeline did."""

    journal: Path
    entries: int
    timings: Timings
    # said on stderr when the recording ends before the journal it was made with goes on
    cut_short: str | None = None


def recording_config(recording: Recording) -> TableConfig:
    """The table configuration the recorded session ran with."""
    data = recording.meta.get("config")
    if not isinstance(data, dict):
        raise RecordFormatError(f"{recording.folder}: meta.json holds no table configuration")
    try:
        return table_config_from_mapping(data)
    except ConfigError as exc:
        raise RecordFormatError(f"{recording.folder}: meta.json: {exc}") from None


def replay(folder: str | Path, out: str | Path, *, log: TextIO | None = None,
           quiet: bool = False) -> ReplayResult:
    """Run the pipeline on a recording, writing a fresh journal (and snapshots) into ``out``."""
    recording = Recording(folder)
    resumed = recording.resumed_at()
    if resumed is not None:
        raise InvalidInputError(
            f"{recording.folder}: the session was stopped and resumed (timeline line "
            f"{resumed}): a replay plays one uninterrupted session from its first frame, and "
            "the resumed part began from the journal as the stop left it; its journal and "
            "records are the session's own")
    config = recording_config(recording)
    out_dir = Path(out)
    journal_path = out_dir / "journal.jsonl"
    if journal_path.exists():
        raise InvalidInputError(f"{journal_path} already exists: replay into an empty folder")
    time = _ReplayTime(0)
    with Journal(journal_path) as journal, Signals(
        config.signals, time=time, pin_factory=MockFactory()
    ) as signals:
        referee, startup = start_referee(referee_config(config), [])
        executor = Executor(journal, None, signals, out_dir / "snapshots",
                            LiveLog(stream=None if quiet else (log if log is not None
                                                               else sys.stdout)),
                            frame_jpeg=lambda: None)
        pipeline = build_pipeline(config, referee, executor, time)
        executor.run(startup)
        lines, last_ms = 0, 0
        for step in recording.steps():
            lines, last_ms = lines + 1, step.t_ms
            time.set(step.t_ms)
            if step.frame is not None:
                image, jpeg = recording.frame(step.frame)
                pipeline.on_frame(image, jpeg=jpeg, key=step.frame)
            elif step.clock is not None:
                pipeline.on_clock(step.clock)
            elif step.director is not None:
                pipeline.handle(step.director)
            signals.tick()
        replayed = len(journal.entries)
    return ReplayResult(journal_path, replayed, pipeline.timings,
                        journal_goes_on(recording, replayed, lines, last_ms))


def journal_goes_on(recording: Recording, replayed: int, lines: int, last_ms: int) -> str | None:
    """The line saying that the recording ends before the journal it was made with: a session
    killed loses the frames its recorder had not synced yet, while their verdicts are journalled,
    so the replay stops short of them. None when the recording names no journal, or it ends
    no later than the replay."""
    source = recording.journal()
    try:
        held = len(read_journal(source).entries) if source is not None else 0
    except (OSError, RecordFormatError):  # gone, or not a journal: nothing to compare with
        return None
    if held <= replayed:
        return None
    return (f"hakem: the recording ends at {last_ms} ms (timeline line {lines}), after journal "
            f"entry {replayed}; the journal it was made with, {source}, goes on to entry "
            f"{held} (the session stopped before its last frames reached the disk)")
