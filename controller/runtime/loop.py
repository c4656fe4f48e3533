"""The table's pipeline: frames through the stillness gate to the readers, clock events, the
referee, and its commands carried out in order.

The same :class:`Pipeline` serves ``hakem run`` (camera and serial clock in real time),
``hakem demo`` (rendered frames and the simulated clock in simulated time) and ``hakem replay``
(recorded frames and clock events): only the sources differ, so a replay is deterministic.
"""

from __future__ import annotations

import dataclasses
import time as systime
from collections.abc import Callable
from dataclasses import dataclass, field

import cv2
import numpy as np

from controller.clock.messages import ClockEvent, FlagEvent, PressEvent
from controller.clock.timebase import TimeSource
from controller.referee.api import (
    ClockHoldPressed,
    ClockPressed,
    Event,
    FlagFell,
    FrameSeen,
    MotionSeen,
    RefereeProtocol,
)
from controller.runtime.effects import Executor
from controller.runtime.view import FrameReader
from vision.stillness import StillnessGate

# Referee stages in which no throw is due (``Referee.stage``).
NO_THROW_STAGES = frozenset({"move", "doubled", "game_over", "match_over", "over"})


@dataclass
class Timings:
    """What the benchmark reports: press-to-verdict latencies and frames handled."""

    press_ms: list[float] = field(default_factory=list)  # handling one press, in ms
    frames: int = 0
    reads: int = 0
    reused: int = 0  # reads of a picture already read (the same ``key``): not read again
    busy_s: float = 0.0  # time spent in the pipeline (gate, readers, referee, commands)


def press_event(event: PressEvent, t_ms: int, *, recovered: bool = False
                ) -> ClockPressed | ClockHoldPressed:
    """The referee's event for a press the clock reported (its boot and number kept, so the
    journal knows which presses it has acted on)."""
    times = (int(event.times_ms[0]), int(event.times_ms[1]))
    press = (int(event.boot), int(event.number))
    if event.button == "hold":
        return ClockHoldPressed(t_ms=t_ms, times_ms=times, press=press, recovered=recovered)
    return ClockPressed(t_ms=t_ms, side=event.button, times_ms=times, press=press,
                        recovered=recovered)


class Pipeline:
    """Feed it frames and clock events; it drives the referee and carries out its commands."""

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
        self.referee = referee
        self.reader = reader
        self.executor = executor
        self.time = time
        self.gate = gate if gate is not None else StillnessGate(reader.config.stillness)
        self.reread_ms = reread_ms
        self.observer = observer
        self.dice_always = dice_always
        self.timings = Timings()
        self._still = False
        self._last_read_ms: int | None = None
        self._last_read_key: str | None = None
        self._image: np.ndarray | None = None
        self._jpeg: bytes | None = None
        self._read_cache: tuple[str, bool, FrameSeen] | None = None
        executor.frame_jpeg = self.current_jpeg

    # frames --------------------------------------------------------------------------------
    def on_frame(self, image: np.ndarray, *, jpeg: bytes | None = None,
                 key: str | None = None) -> None:
        """One camera frame: motion is reported, a still scene is read when it becomes still,
        when the picture changes (``key`` names a picture, if known) and every ``reread_ms``
        while it stays still (the referee wants more than one frame to agree on a verdict)."""
        start = systime.perf_counter()
        t = self.time.now_ms()
        if self.observer is not None:
            self.observer("frame", t, (key, jpeg))
        self.timings.frames += 1
        self._image = image
        self._jpeg = jpeg
        still = self.gate.update(image)
        if not still:
            if self._still or self._last_read_ms is None:
                self.handle(MotionSeen(t_ms=t))
            self._still = False
            self._last_read_key = None
        else:
            fresh = not self._still
            due = (key is None or key != self._last_read_key or self._last_read_ms is None
                   or t - self._last_read_ms >= self.reread_ms)
            if key is None:
                due = self._last_read_ms is None or t - self._last_read_ms >= self.reread_ms
            if fresh or due:
                self._last_read_ms = t
                self._last_read_key = key
                self.timings.reads += 1
                self.handle(self._read(image, t, key))
            self._still = True
        self.timings.busy_s += systime.perf_counter() - start

    def _read(self, image: np.ndarray, t: int, key: str | None) -> FrameSeen:
        """The reading of a still frame. A picture named by the same ``key`` as the last one
        read is the very same picture (the demo's and a replay's frames are pure functions of
        what they show), so its reading is reused rather than computed again."""
        with_dice = self.dice_wanted()
        cached = self._read_cache
        if key is not None and cached is not None and cached[0] == key and cached[1] == with_dice:
            self.timings.reused += 1
            return dataclasses.replace(cached[2], t_ms=t)
        seen = self.reader.read(image, t, with_dice=with_dice)
        self._read_cache = (key, with_dice, seen) if key is not None else None
        return seen

    def dice_wanted(self) -> bool:
        """Whether a still picture's dice are read. Reading dice is the slowest reader, and
        while a player moves (after their roll, before the press) or answers a double, no throw
        is due; ``dice_always`` reads them anyway, to catch a throw before the press
        (BG-ROLL-5)."""
        if self.dice_always:
            return True
        stage = getattr(self.referee, "stage", None)
        return stage not in NO_THROW_STAGES

    def current_jpeg(self) -> bytes | None:
        """The frame now in view as JPEG (the snapshot of a flag)."""
        if self._jpeg is None and self._image is not None:
            ok, buf = cv2.imencode(".jpg", self._image, [cv2.IMWRITE_JPEG_QUALITY, 90])
            if ok:
                self._jpeg = buf.tobytes()
        return self._jpeg

    # the clock -----------------------------------------------------------------------------
    def on_clock(self, event: ClockEvent) -> None:
        """A press or a flag from the clock, as the referee's event."""
        t = self.time.now_ms()
        if self.observer is not None:
            self.observer("clock", t, event)
        if isinstance(event, PressEvent):
            start = systime.perf_counter()
            self.handle(press_event(event, t))
            elapsed = systime.perf_counter() - start
            self.timings.press_ms.append(elapsed * 1000.0)
            self.timings.busy_s += elapsed
        elif isinstance(event, FlagEvent):
            self.handle(FlagFell(t_ms=t, side=event.side))

    # the referee ---------------------------------------------------------------------------
    def handle(self, event: Event) -> None:
        """One event through the referee; its commands carried out in order."""
        if self.observer is not None and not isinstance(event, MotionSeen):
            self.observer("event", event.t_ms, event)
        self.executor.run(self.referee.handle(event))
