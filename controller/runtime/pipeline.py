"""The table's pipeline for any game: frames through the stillness gate to the game's reader,
clock presses and flags as referee events, the referee, and its commands carried out in order
by the shared executor (``controller.runtime.effects``: journal first, then clock, LEDs, log).

A game brings its reader (a still frame to the referee's event) and its referee; backgammon
(``controller.runtime.loop``) adds when dice are worth reading, Mangala
(``controller.mangala.pipeline``) only its defaults. Everything else lives here once: when a
still scene is read and re-read, a reading reused for the very same picture, the JPEG of the
frame in view for a flag's snapshot, the benchmark's timings.
"""

from __future__ import annotations

import dataclasses
import time as systime
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Protocol, TypeVar, cast

import cv2
import numpy as np

from controller.clock.messages import ClockEvent, FlagEvent, PressEvent
from controller.clock.timebase import TimeSource
from controller.referee.api import (
    ClockHoldPressed,
    ClockPressed,
    Command,
    DirectorAction,
    FlagFell,
    MotionSeen,
)
from controller.runtime.effects import Executor
from vision.stillness import StillnessGate

JPEG_QUALITY = 90  # a flag's snapshot of the frame in view


class Timed(Protocol):
    """A referee event: stamped with the table time it happened at."""

    @property
    def t_ms(self) -> int: ...


class StillFrame(Timed, Protocol):
    """A game's event for a still frame: a dataclass stamped with the table time it was read."""

    __dataclass_fields__: ClassVar[dict[str, Any]]


SeenT = TypeVar("SeenT", bound=StillFrame)
SeenT_co = TypeVar("SeenT_co", bound=StillFrame, covariant=True)
EventT = TypeVar("EventT", bound=Timed)
EventT_contra = TypeVar("EventT_contra", bound=Timed, contravariant=True)


class StillReader(Protocol[SeenT_co]):
    """A game's reader: one still frame to the referee's event."""

    def read(self, image: np.ndarray, t_ms: int) -> SeenT_co: ...


class GameReferee(Protocol[EventT_contra]):
    """A game's referee: one event in, the commands to carry out in order. Its events include
    :class:`MotionSeen`, :class:`ClockPressed`, :class:`ClockHoldPressed` and :class:`FlagFell`
    (the pipeline sends those for every game) and its reader's still-frame event."""

    def handle(self, event: EventT_contra) -> list[Command]: ...


class FrameSink(Protocol):
    """A game's pipeline as whatever feeds it sees it (the live table's loop, the demos)."""

    def on_clock(self, event: ClockEvent) -> None: ...

    def on_frame(self, image: np.ndarray, *, jpeg: bytes | None = None,
                 key: str | None = None) -> None: ...

    def handle(self, event: DirectorAction) -> list[Command]:
        """A director's action (``hakem director``, the hub's dashboard) through the referee;
        its commands carried out."""
        ...


@dataclass
class Timings:
    """What the benchmark reports: press-to-verdict latencies and frames handled."""

    press_ms: list[float] = field(default_factory=list)  # handling one press, in ms
    frames: int = 0
    reads: int = 0  # still frames read (reused readings included)
    reused: int = 0  # reads of a picture already read (the same ``key``): not read again
    busy_s: float = 0.0  # time spent in the pipeline (gate, readers, referee, commands)

    @property
    def computed(self) -> int:
        """Readings actually computed by the reader."""
        return self.reads - self.reused


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


class TablePipeline(Generic[SeenT, EventT]):
    """Feed it frames and clock events; it drives the game's referee and carries out its
    commands. ``SeenT`` is the game's still-frame event, ``EventT`` every event its referee
    takes."""

    def __init__(
        self,
        referee: GameReferee[EventT],
        reader: StillReader[SeenT],
        executor: Executor,
        time: TimeSource,
        *,
        gate: StillnessGate,
        reread_ms: int = 1000,
        observer: Callable[[str, int, object], None] | None = None,
    ) -> None:
        self.referee = referee
        self.reader = reader
        self.executor = executor
        self.time = time
        self.gate = gate
        self.reread_ms = reread_ms
        self.observer = observer
        self.timings = Timings()
        self._still = False
        self._last_read_ms: int | None = None
        self._last_read_key: str | None = None
        self._image: np.ndarray | None = None
        self._jpeg: bytes | None = None
        self._read_cache: tuple[str, Hashable, SeenT] | None = None
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
        if not self.gate.update(image):
            if self._still or self._last_read_ms is None:
                self._common(MotionSeen(t_ms=t))
            self._still = False
            self._last_read_key = None
            self.scene_moved()
        else:
            self.executor.still_frame()  # a snapshot a restart found missing, before the read
            fresh = not self._still
            due = self._last_read_ms is None or t - self._last_read_ms >= self.reread_ms
            if key is not None and key != self._last_read_key:
                due = True
            if fresh or due:
                self._last_read_ms = t
                self._last_read_key = key
                self.timings.reads += 1
                self._common(self._read(image, t, key))
            self._still = True
        self.timings.busy_s += systime.perf_counter() - start

    def _read(self, image: np.ndarray, t: int, key: str | None) -> SeenT:
        """The reading of a still frame. A picture named by the same ``key`` as the last one
        read is the very same picture (the demo's and a replay's frames are pure functions of
        what they show), so its reading is reused, restamped, rather than computed again."""
        mode = self.read_mode()
        cached = self._read_cache
        if key is not None and cached is not None and cached[0] == key and cached[1] == mode:
            self.timings.reused += 1
            return dataclasses.replace(cached[2], t_ms=t)
        seen = self.read_still(image, t)
        self._read_cache = (key, mode, seen) if key is not None else None
        return seen

    def scene_moved(self) -> None:
        """A frame with motion in it: a game's pipeline forgets what it kept about the still
        scene (nothing here)."""

    def read_mode(self) -> Hashable:
        """What the reader is asked for besides the picture (a reading is reused only for the
        same picture and the same mode); a game overrides it with :meth:`read_still`."""
        return None

    def read_still(self, image: np.ndarray, t: int) -> SeenT:
        """The game's reader on one still frame."""
        return self.reader.read(image, t)

    def current_jpeg(self) -> bytes | None:
        """The frame now in view as JPEG (the snapshot of a flag)."""
        if self._jpeg is None and self._image is not None:
            ok, buf = cv2.imencode(".jpg", self._image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
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
            self._common(press_event(event, t))
            elapsed = systime.perf_counter() - start
            self.timings.press_ms.append(elapsed * 1000.0)
            self.timings.busy_s += elapsed
        elif isinstance(event, FlagEvent):
            self._common(FlagFell(t_ms=t, side=event.side))

    # the referee ---------------------------------------------------------------------------
    def _common(self, event: MotionSeen | ClockPressed | ClockHoldPressed | FlagFell | SeenT
                ) -> None:
        """An event the pipeline makes itself: every game's referee takes these (see
        :class:`GameReferee`), which the type system cannot say of a type parameter."""
        self.handle(cast(EventT, event))

    def handle(self, event: EventT) -> list[Command]:
        """One event through the referee; its commands carried out in order (and returned)."""
        if self.observer is not None and not isinstance(event, MotionSeen):
            self.observer("event", event.t_ms, event)
        commands = self.referee.handle(event)
        self.executor.run(commands)
        return commands


__all__ = ["FrameSink", "GameReferee", "StillFrame", "StillReader", "TablePipeline", "Timings",
           "press_event"]
