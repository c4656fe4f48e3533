"""The live Mangala table (``hakem run`` for a Mangala round): camera, serial clock, gpiozero
LEDs and buzzer, journal and snapshots around the Mangala referee, with the shared runtime's
devices (``controller.runtime.table``); resumes from the journal after a restart.

The table's configuration is the backgammon table's (``controller.config.table``): the player
sitting at the bottom of the picture (``players.bottom``) plays side a, the clock side is the
one they sit at, ``camera.corners`` are the Mangala board's outer corners (required: the board
has no markers).
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from controller.clock.host import HostClock
from controller.clock.messages import Side as ClockSide
from controller.clock.sim import LoopbackClock
from controller.clock.timebase import MonotonicTime, TimeSource
from controller.config.table import TableConfig
from controller.mangala.pipeline import MangalaPipeline
from controller.mangala.reading import MangalaFrameReader
from controller.mangala.records import RECORD_NAME, write_round_record
from controller.mangala.referee import MangalaConfig, start_referee
from controller.records.journal import Journal
from controller.runtime.effects import Executor, LiveLog
from controller.runtime.table import (
    JOURNAL_NAME,
    StopFlag,
    open_camera,
    open_clock,
    stop_on_signals,
)
from controller.signals import Signals
from engine.errors import ConfigError
from engine.mangala.position import Side
from vision.sources import FrameSource


def mangala_config(config: TableConfig, first_starter: Side = "a") -> MangalaConfig:
    """The referee's settings for a table: the bottom player is a, the other b (MG-EQ-1)."""
    p = config.players
    top: ClockSide = "right" if p.bottom == "left" else "left"
    return MangalaConfig(players=(p.name(p.bottom), p.name(top)), first_starter=first_starter,
                         clock_a=p.bottom)


def run_mangala_table(
    config: TableConfig,
    *,
    first_starter: Side = "a",
    stop: StopFlag | None = None,
    log: TextIO | None = None,
    time: TimeSource | None = None,
    source: FrameSource | None = None,
    clock: HostClock | LoopbackClock | None = None,
    pin_factory: Any = None,
    reader: Callable[[TableConfig], MangalaFrameReader] | None = None,
) -> int:
    """Run the table until the round ends, the camera ends or ``stop`` is set; write the round
    record next to the journal and return the number of journal entries."""
    if not config.camera.corners and reader is None:
        raise ConfigError("a mangala table needs camera.corners: the board's four outer "
                          "corners in pixels (TL, TR, BR, BL)")
    flag = stop if stop is not None else StopFlag(threading.Event())
    timer: TimeSource = time if time is not None else MonotonicTime()
    folder = Path(config.journal.directory)
    with contextlib.ExitStack() as stack, stop_on_signals(flag):
        journal = stack.enter_context(Journal(folder / JOURNAL_NAME))
        live = LiveLog(stream=log if log is not None else sys.stdout, file=folder / "live.log")
        signals = stack.enter_context(Signals(config.signals, time=timer,
                                              pin_factory=pin_factory))
        the_clock = clock if clock is not None else open_clock(config, timer)
        stack.callback(the_clock.close)
        camera = source if source is not None else open_camera(config.camera)
        stack.callback(camera.close)
        executor = Executor(journal, the_clock, signals, folder / "snapshots", live,
                            frame_jpeg=lambda: None)
        resuming = bool(journal.entries)
        referee, startup = start_referee(mangala_config(config, first_starter), journal.entries)
        frame_reader = (reader(config) if reader is not None
                        else MangalaFrameReader(config.camera.corners))
        pipeline = MangalaPipeline(referee, frame_reader, executor, timer,
                                   reread_ms=config.camera.reread_ms)
        if resuming:
            live.say(f"Resumed the round from {journal.path} ({len(journal.entries)} entries)")
        executor.run(startup)
        while not flag.is_set and not referee.over:
            for event in the_clock.poll():
                pipeline.on_clock(event)
            frame = camera.read()
            if frame is None:
                live.say("The camera has no more frames")
                break
            pipeline.on_frame(frame.image)
            signals.tick()
        if referee.over:
            path = write_round_record(journal.entries, folder / RECORD_NAME)
            live.say(f"Wrote the round record {path}")
        elif flag.is_set:
            live.say("Stopped; the journal is complete up to here, `hakem run` resumes it")
        return len(journal.entries)


__all__ = ["mangala_config", "run_mangala_table"]
