"""The Mangala table's pipeline: frames through the stillness gate to the stone reader, clock
events, the referee, and its commands carried out by the shared executor
(``controller.runtime.effects``), which journals first, then drives the clock, LEDs and log.

It is the backgammon pipeline's counterpart (``controller.runtime.loop``) for a board read by
``vision.mangala``: no dice and no cube, the same gate, executor, clock events and journal.
"""

from __future__ import annotations

import time as systime
from dataclasses import dataclass, field

import cv2
import numpy as np

from controller.clock.messages import ClockEvent, FlagEvent, PressEvent
from controller.clock.timebase import TimeSource
from controller.mangala.reading import MangalaFrameReader
from controller.mangala.referee import MangalaEvent, MangalaReferee
from controller.mangala.view import MangalaFrameSeen
from controller.referee.api import ClockHoldPressed, ClockPressed, FlagFell, MotionSeen
from controller.runtime.effects import Executor
from vision.config import StillnessConfig
from vision.stillness import StillnessGate


@dataclass
class MangalaTimings:
    """What the demo reports: press-to-verdict latencies, frames and readings."""

    press_ms: list[float] = field(default_factory=list)
    frames: int = 0
    reads: int = 0


class MangalaPipeline:
    """Feed it frames and clock events; it drives the referee and carries out its commands."""

    def __init__(self, referee: MangalaReferee, reader: MangalaFrameReader, executor: Executor,
                 time: TimeSource, *, gate: StillnessGate | None = None,
                 reread_ms: int = 1000) -> None:
        self.referee = referee
        self.reader = reader
        self.executor = executor
        self.time = time
        self.gate = gate if gate is not None else StillnessGate(StillnessConfig())
        self.reread_ms = reread_ms
        self.timings = MangalaTimings()
        self._still = False
        self._last_read_ms: int | None = None
        self._last_key: str | None = None
        self._read: MangalaFrameSeen | None = None
        self._read_key: str | None = None
        self._image: np.ndarray | None = None
        self._jpeg: bytes | None = None
        executor.frame_jpeg = self.current_jpeg

    def on_frame(self, image: np.ndarray, *, jpeg: bytes | None = None,
                 key: str | None = None) -> None:
        """One camera frame: motion is reported; a still scene is read when it becomes still,
        when the picture changes (``key`` names it, if known) and every ``reread_ms``."""
        t = self.time.now_ms()
        self.timings.frames += 1
        self._image, self._jpeg = image, jpeg
        if not self.gate.update(image):
            if self._still or self._last_read_ms is None:
                self.handle(MotionSeen(t_ms=t))
            self._still = False
            self._last_key = None
            return
        fresh = not self._still
        due = self._last_read_ms is None or t - self._last_read_ms >= self.reread_ms
        if key is not None and key != self._last_key:
            due = True
        if fresh or due:
            self._last_read_ms = t
            if key is not None and key == self._read_key and self._read is not None:
                # the very same picture (a recording's or the demo's): the same reading
                self.handle(MangalaFrameSeen(t, self._read.view))
            else:
                self.timings.reads += 1
                seen = self.reader.read(image, t)
                self._read, self._read_key = seen, key
                self.handle(seen)
            self._last_key = key
        self._still = True

    def current_jpeg(self) -> bytes | None:
        """The frame in view as JPEG (the snapshot of a flag)."""
        if self._jpeg is None and self._image is not None:
            ok, buf = cv2.imencode(".jpg", self._image, [cv2.IMWRITE_JPEG_QUALITY, 90])
            if ok:
                self._jpeg = buf.tobytes()
        return self._jpeg

    def on_clock(self, event: ClockEvent) -> None:
        """A press or a flag from the clock, as the referee's event."""
        t = self.time.now_ms()
        if isinstance(event, PressEvent):
            times = (int(event.times_ms[0]), int(event.times_ms[1]))
            start = systime.perf_counter()
            if event.button == "hold":
                self.handle(ClockHoldPressed(t_ms=t, times_ms=times))
            else:
                self.handle(ClockPressed(t_ms=t, side=event.button, times_ms=times))
            self.timings.press_ms.append((systime.perf_counter() - start) * 1000.0)
        elif isinstance(event, FlagEvent):
            self.handle(FlagFell(t_ms=t, side=event.side))

    def handle(self, event: MangalaEvent) -> None:
        """One event through the referee; its commands carried out in order."""
        self.executor.run(self.referee.handle(event))


__all__ = ["MangalaPipeline", "MangalaTimings"]
