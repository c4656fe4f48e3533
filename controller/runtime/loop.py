"""Backgammon's table pipeline: the shared pipeline (``controller.runtime.pipeline``) with the
board, dice and cube reader and the backgammon referee, reading dice only while a throw may be
due.

The same :class:`Pipeline` serves ``hakem run`` (camera and serial clock in real time),
``hakem demo`` (rendered frames and the simulated clock in simulated time) and ``hakem replay``
(recorded frames and clock events): only the sources differ, so a replay is deterministic.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from controller.clock.timebase import TimeSource
from controller.referee.api import Event, FrameSeen, RefereeProtocol
from controller.runtime.effects import Executor
from controller.runtime.pipeline import TablePipeline, Timings, press_event
from controller.runtime.view import FrameReader
from vision.stillness import StillnessGate

# Referee stages in which no throw is due (``Referee.stage``).
NO_THROW_STAGES = frozenset({"move", "doubled", "game_over", "match_over", "over"})


class Pipeline(TablePipeline[FrameSeen, Event]):
    """Feed it frames and clock events; it drives the referee and carries out its commands."""

    reader: FrameReader

    def __init__(
        self,
        referee: RefereeProtocol,
        reader: FrameReader,
        executor: Executor,
        time: TimeSource,
        *,
        gate: StillnessGate | None = None,
        reread_ms: int = 1000,
        observer: Callable[[str, int, object], None] | None = None,
        dice_always: bool = False,
    ) -> None:
        super().__init__(referee, reader, executor, time,
                         gate=gate if gate is not None else StillnessGate(reader.config.stillness),
                         reread_ms=reread_ms, observer=observer)
        self.dice_always = dice_always

    def read_mode(self) -> bool:
        """Whether this still frame's dice are read (a reading without them is not reused for
        one that wants them)."""
        return self.dice_wanted()

    def read_still(self, image: np.ndarray, t: int) -> FrameSeen:
        return self.reader.read(image, t, with_dice=self.dice_wanted())

    def dice_wanted(self) -> bool:
        """Whether a still picture's dice are read. Reading dice is the slowest reader, and
        while a player moves (after their roll, before the press) or answers a double, no throw
        is due; ``dice_always`` reads them anyway, to catch a throw before the press
        (BG-ROLL-5)."""
        if self.dice_always:
            return True
        due = getattr(self.referee, "dice_due", None)
        if due is not None:  # the referee says: it also wants the dice at a move's press, to
            return bool(due)  # learn what lies there before the next throw (phantom dice)
        stage = getattr(self.referee, "stage", None)
        return stage not in NO_THROW_STAGES


__all__ = ["NO_THROW_STAGES", "Pipeline", "Timings", "press_event"]
