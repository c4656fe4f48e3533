"""Starting or resuming the referee of one table from its configuration and its journal.

A journal that already holds a match is the source of truth (DESIGN.md, Records): the referee's
settings come from its ``match_start`` entry and its state from folding every entry, so a
restarted table continues exactly where it was; the commands the restore returns bring the
LEDs and the clock's times back.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from controller.clock.timebase import TimeSource
from controller.config.table import TableConfig
from controller.records.journal import match_start_fields
from controller.referee.api import Command, RefereeProtocol, Side
from controller.referee.config import RefereeConfig
from controller.referee.machine import Referee
from controller.runtime.effects import Executor
from controller.runtime.loop import Pipeline
from controller.runtime.view import FrameReader


def seats(config: TableConfig) -> tuple[Side, Side]:
    """The clock sides of the player at the bottom of the picture (the first player of either
    game: backgammon's player 0, Mangala's side a) and of the player at the top."""
    bottom: Side = config.players.bottom
    return bottom, ("right" if bottom == "left" else "left")


def referee_config(config: TableConfig, *, players: tuple[str, str] | None = None,
                   length: int | None = None) -> RefereeConfig:
    """The referee's settings for a table: the bottom player is the engine's first player."""
    p = config.players
    bottom, top = seats(config)
    names = players if players is not None else (p.name(bottom), p.name(top))
    points = length if length is not None else config.match.length
    reserve = round(config.clock.reserve_s_per_point * 1000) * points
    return RefereeConfig(
        players=names,
        length=points,
        rules=config.rules.engine_rules(crawford=config.match.crawford),
        layout=p.layout(),
        clock_sides=(bottom, top),
        reserve_ms=reserve,
        delay_ms=round(config.clock.delay_s * 1000),
    )


COLOURS_NAME = "colours.json"


def colours_store(folder: Path, resuming: bool) -> Path:
    """Where a table keeps the checker colours learned at the start of its match (BG-EQ-3); a
    new match forgets the last one's, since other checkers may be on the board."""
    path = folder / COLOURS_NAME
    if not resuming:
        path.unlink(missing_ok=True)
    return path


def build_pipeline(config: TableConfig, referee: RefereeProtocol, executor: Executor,
                   time: TimeSource, observer: Callable[[str, int, object], None] | None = None,
                   *, colours_file: Path | None = None) -> Pipeline:
    """The pipeline of a table as its configuration says (the same for run, demo and replay,
    so a replay reads exactly as the session did); ``colours_file``: where the learned
    checker colours are kept for a restart (:func:`colours_store`)."""
    layout = config.players.layout()
    reader = FrameReader(config.vision_config(), config.camera.corners,
                         darker_at_top=(layout.first_colour == "darker") != layout.first_at_bottom,
                         die_floor=config.camera.die_floor,
                         cocked_floor=config.camera.cocked_floor, colours_file=colours_file)
    return Pipeline(referee, reader, executor, time, reread_ms=config.camera.reread_ms,
                    observer=observer, dice_always=config.camera.dice_always)


def start_referee(
    config: RefereeConfig, entries: Sequence[dict[str, Any]], *, restore_clock: bool = True
) -> tuple[Referee, list[Command]]:
    """A referee for a new match (no entries) or one resumed from a journal's entries, and the
    commands to carry out before anything else (``restore_clock`` as in
    :meth:`Referee.restore`)."""
    if not entries:
        referee = Referee(config)
        return referee, referee.begin()
    fields = match_start_fields(entries, "backgammon")
    referee = Referee(RefereeConfig.from_json(fields))
    return referee, referee.restore(entries, restore_clock=restore_clock)
