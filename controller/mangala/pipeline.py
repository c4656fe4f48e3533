"""The Mangala table's pipeline: the shared table pipeline (``controller.runtime.pipeline``:
stillness gate, re-reads, clock events, executor, snapshots) with the stone reader and the
Mangala referee; no dice and no cube.
"""

from __future__ import annotations

from collections.abc import Callable

from controller.clock.timebase import TimeSource
from controller.mangala.reading import MangalaFrameReader
from controller.mangala.referee import MangalaEvent, MangalaReferee
from controller.mangala.view import MangalaFrameSeen
from controller.runtime.effects import Executor
from controller.runtime.pipeline import TablePipeline, Timings
from vision.config import StillnessConfig
from vision.stillness import StillnessGate

MangalaTimings = Timings  # the shared timings (kept under this name for callers)


class MangalaPipeline(TablePipeline[MangalaFrameSeen, MangalaEvent]):
    """Feed it frames and clock events; it drives the referee and carries out its commands."""

    referee: MangalaReferee
    reader: MangalaFrameReader

    def __init__(self, referee: MangalaReferee, reader: MangalaFrameReader, executor: Executor,
                 time: TimeSource, *, gate: StillnessGate | None = None,
                 reread_ms: int = 1000,
                 observer: Callable[[str, int, object], None] | None = None) -> None:
        super().__init__(referee, reader, executor, time,
                         gate=gate if gate is not None else StillnessGate(StillnessConfig()),
                         reread_ms=reread_ms, observer=observer)


__all__ = ["MangalaPipeline", "MangalaTimings"]
