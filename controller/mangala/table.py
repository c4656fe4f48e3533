"""The live Mangala table (``hakem run`` for a Mangala round): camera, serial clock, gpiozero
LEDs and buzzer, journal and snapshots around the Mangala referee: the shared live table
(``controller.runtime.table``: its devices and its loop) with the Mangala referee, pipeline and
round record; resumes from the journal after a restart.

The table's configuration is the backgammon table's (``controller.config.table``): the player
sitting at the bottom of the picture (``players.bottom``) plays side a, the clock side is the
one they sit at, ``camera.corners`` are the Mangala board's outer corners (required: the board
has no markers).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Unpack

from controller.config.table import TableConfig
from controller.mangala.pipeline import MangalaPipeline
from controller.mangala.reading import MangalaFrameReader
from controller.mangala.records import RECORD_NAME, write_round_record
from controller.mangala.referee import MangalaConfig, start_referee
from controller.runtime import resume_check
from controller.runtime.session import seats
from controller.runtime.table import (
    DeviceOptions,
    deliver_recovery,
    drive,
    open_table,
    real_clock,
    resumed_clock,
)
from engine.errors import ConfigError
from engine.mangala.position import Side


def mangala_config(config: TableConfig, first_starter: Side = "a") -> MangalaConfig:
    """The referee's settings for a table: the bottom player is a, the other b (MG-EQ-1)."""
    bottom, top = seats(config)
    return MangalaConfig(players=(config.players.name(bottom), config.players.name(top)),
                         first_starter=first_starter, clock_a=bottom)


def run_mangala_table(
    config: TableConfig,
    *,
    first_starter: Side = "a",
    reader: Callable[[TableConfig], MangalaFrameReader] | None = None,
    **given: Unpack[DeviceOptions],
) -> int:
    """Run the table until the round ends, the camera ends or ``stop`` is set; write the round
    record next to the journal and return the number of journal entries."""
    if not config.camera.corners and reader is None:
        raise ConfigError("a mangala table needs camera.corners: the board's four outer "
                          "corners in pixels (TL, TR, BR, BL)")
    with open_table(config, **given) as table:
        journal = table.journal
        if table.resuming:
            resume_check.check_game("mangala", journal.entries, table.folder, table.live)
        wanted = mangala_config(config, first_starter)
        referee, startup = start_referee(wanted, journal.entries,
                                         restore_clock=not real_clock(table))
        frame_reader = (reader(config) if reader is not None
                        else MangalaFrameReader(config.camera.corners))
        pipeline = MangalaPipeline(referee, frame_reader, table.executor, table.time,
                                   reread_ms=config.camera.reread_ms)
        recovery, restart = None, None
        if table.resuming:
            if not referee.over:
                table.live.say(f"Resumed the round from {journal.path} "
                               f"({len(journal.entries)} entries)")
                resume_check.tell(table.live, resume_check.differences(
                    config, journal.entries, table.folder, wanted.players))
            # the clock kept the times and whose side runs (presses made meanwhile changed it);
            # configuring its countdown again would put both times back to the set's full
            # time, on hold: only a clock that lost its state gets them
            startup, recovery, restart = resumed_clock(table, referee, startup)
        table.executor.run(startup)
        if table.resuming and referee.over:
            resume_check.tell(table.live, resume_check.finished(
                journal.entries, journal.path, table.folder, "round"))
        if recovery is not None:
            deliver_recovery(pipeline, recovery, table.time, table.live)
        drive(table, pipeline, lambda: referee.over, pipeline.handle, restart)
        if referee.over:
            path = write_round_record(journal.entries, table.folder / RECORD_NAME)
            table.live.say(f"Wrote the round record {path}")
        return len(journal.entries)


__all__ = ["mangala_config", "run_mangala_table"]
