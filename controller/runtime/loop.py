"""Backgammon's table pipeline: the shared pipeline (``controller.runtime.pipeline``) with the
board, dice and cube reader and the backgammon referee, reading dice only while a throw may be
due.

The same :class:`Pipeline` serves ``hakem run`` (camera and serial clock in real time),
``hakem demo`` (rendered frames and the simulated clock in simulated time) and ``hakem replay``
(recorded frames and clock events): only the sources differ, so a replay is deterministic.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import numpy as np

from controller.clock.timebase import TimeSource
from controller.referee.api import Command, Event, FrameSeen, RefereeProtocol
from controller.runtime.effects import Executor
from controller.runtime.pipeline import TablePipeline, Timings, press_event
from controller.runtime.view import FrameReader
from vision.dice.reuse import FLAT_DOUBT
from vision.dice.scale import too_small
from vision.stillness import StillnessGate

# Referee stages in which no throw is due (``Referee.stage``).
NO_THROW_STAGES = frozenset({"move", "doubled", "game_over", "match_over", "over"})
# still frames in a row (about a second apart while the scene stays still) with something
# across the case's frame before the live log says so: a hand passing over it is gone sooner
FRAME_COVER_FRAMES = 5


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
        self._told = False  # the dice memory was told what memory_due said, once this still scene
        self._scale_said = False  # whether the dice's size in the picture was weighed
        # a live table (hakem run) says when its camera shows the dice too small to read (a
        # demo's rendered dice are another matter)
        self.warn_dice_scale = False
        self._covered = 0  # still frames in a row with something across the case's frame
        self._cover_said = False  # ... and whether the live log has said so

    def scene_moved(self) -> None:
        self._told = False

    def read_mode(self) -> tuple[bool, str | None]:
        """Whether this still frame's dice are read, and whether as :meth:`memory_due` says (a
        reading without them, or an earlier one of the same picture, is not reused for one
        the dice memory must take as the board before a throw or read thoroughly)."""
        return self.dice_wanted(), self.memory_due()

    def read_still(self, image: np.ndarray, t: int) -> FrameSeen:
        due = self.memory_due()
        if due is not None:
            self._told = True
            memory = getattr(self.reader, "dice_memory", None)
            if memory is not None:
                if due == "thorough":
                    memory.read_thoroughly(self.flat_doubt())
                else:
                    memory.read_before_throw(one_pair=self.one_pair())
        seen = self.reader.read(image, t, with_dice=self.dice_wanted())
        if self.warn_dice_scale and not self._scale_said:
            px = getattr(self.reader, "dice_face_px", None)
            if px is not None:  # the camera calibrated: can the dice be read at this size?
                self._scale_said = True
                warning = too_small(float(px))
                if warning is not None:
                    self.executor.log.say(f"Camera: {warning}")
        self._note_frame_cover(seen)
        return seen

    def _note_frame_cover(self, seen: FrameSeen) -> None:
        """Say in the live log, once, when :data:`FRAME_COVER_FRAMES` still frames in a row
        show something across the case's frame (the board is not read while it lies there: a
        clock or a score sheet left on the frame stops every verdict until moved off)."""
        why = getattr(getattr(seen, "board", None), "hidden_why", None)
        if not isinstance(why, str):
            self._covered, self._cover_said = 0, False
            return
        self._covered += 1
        if self._covered >= FRAME_COVER_FRAMES and not self._cover_said:
            self._cover_said = True
            self.executor.log.say(f"Camera: the board cannot be read: {why}")

    def memory_due(self) -> Literal["press", "thorough"] | None:
        """What the dice memory (``vision.dice.reuse``) is told before the next still frame,
        once per still scene: "thorough" when the referee sees a throw it cannot judge yet
        (``throw_unsure``: a die of it not found, or read unsurely), read whole, since a die
        the incremental read missed would else stay missed while the scene is still, and one
        the raster's candidates miss may lie among the whole frame's pip spots; "press" at a
        move's press (a flagged move's correction's too: the referee's ``move_pressed``),
        where the referee learns what lies on the board before the next throw (phantom
        dice): that picture is kept as the board before the throw, and a thorough
        read after the throw keeps no die where nothing changed since."""
        if self._told or not self.dice_wanted():
            return None
        referee = self.referee
        if getattr(referee, "move_pressed", False):
            return "press"
        return "thorough" if getattr(referee, "throw_unsure", False) else None

    def handle(self, event: Event) -> list[Command]:
        """One event through the referee (see :meth:`TablePipeline.handle`); after a still
        frame whose dice lie as the referee's last judged throw left them, the dice memory
        takes that frame as the board before the throw if it has none (a restarted table's
        memory is new until the next press: :meth:`DiceMemory.keep_as_before_throw`); after
        every still frame, it is told where the last judged throw's dice lay
        (:meth:`thrown_at`, ``DiceMemory.hold_pair``)."""
        commands = super().handle(event)
        memory = getattr(self.reader, "dice_memory", None)
        if isinstance(event, FrameSeen) and memory is not None:
            if getattr(self.referee, "dice_lie_as_thrown", False):
                memory.keep_as_before_throw()
            hold = getattr(memory, "hold_pair", None)
            if hold is not None:
                hold(self.thrown_at())
        return commands

    def thrown_at(self) -> tuple[tuple[float, float], ...]:
        """Where the dice of the referee's last judged throw lay (``thrown_at``), at a table
        with one pair of dice (:meth:`one_pair`); else none: with a pair each, the other
        player's pair may be thrown while this one lies still."""
        if not self.one_pair():
            return ()
        places = getattr(self.referee, "thrown_at", ())
        return tuple(places) if isinstance(places, tuple) else ()

    def one_pair(self) -> bool:
        """Whether the table plays with one pair of dice (BG-EQ-2, the referee's rules; a
        referee without them: no)."""
        rules = getattr(getattr(self.referee, "config", None), "rules", None)
        dice = getattr(getattr(rules, "dice", None), "value", None)
        return dice == "shared-pair"

    def flat_doubt(self) -> float:
        """The referee's ``flat_doubt`` (a die read flat from this cocked probability on may
        be cocked), which a thorough read of the dice uses as well; the dice memory's default
        for a referee without one."""
        config = getattr(self.referee, "config", None)
        doubt = getattr(getattr(config, "recognition", None), "flat_doubt", None)
        return float(doubt) if isinstance(doubt, (int, float)) else FLAT_DOUBT

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
