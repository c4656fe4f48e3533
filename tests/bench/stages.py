"""Where a die read's time goes: CPU time of this thread by stage of
``vision.dice.board.read_board_dice`` (for ``tests.bench.dice --stages``).

:class:`StageClock` wraps the stage functions as ``vision.dice.board`` looks them up (module
globals, read at call time), so the reader runs unchanged and only slower by the timing
calls. Each stage counts its own time only: a stage called inside another (a face fit inside
a second chance) is taken out of the outer one. The candidates are a generator, timed at
each step. What no stage holds (the loop, the confidence, the die's fields, and whatever the
timed call does besides ``read_board_dice``) is "rest".
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

from vision.dice import board

# stage name -> the functions of ``vision.dice.board`` it holds
STAGES: dict[str, tuple[str, ...]] = {
    "candidates": ("hybrid_candidates", "spot_candidates", "scored_raster_candidates"),
    "fast read": ("fast_dice", "fast_board_die"),
    "face fit": ("read_candidate",),
    "face check, pose features": ("die_face", "_recentred"),
    "second chances": ("give_second_chance", "_second_chance_around"),
    "networks": ("_with_patch_opinion", "overruled"),
    "on checker": ("on_checker",),
}


class StageClock:
    """Times the stages while active (a context manager; entered twice is an error, left
    twice does nothing): ``ms`` per stage and ``total`` (of the calls :meth:`run` times),
    summed over every read."""

    def __init__(self, module: ModuleType = board) -> None:
        self.module = module
        self.ms: dict[str, float] = {name: 0.0 for name in STAGES}
        self.total = 0.0
        self.reads = 0
        self._saved: dict[str, Any] = {}
        self._inner: list[float] = []  # per open stage: time its inner stages took

    def __enter__(self) -> StageClock:
        if self._saved:
            raise RuntimeError("the stage clock is already running")
        for stage, names in STAGES.items():
            for name in names:
                self._saved[name] = getattr(self.module, name)
                setattr(self.module, name, self._wrap(stage, self._saved[name]))
        return self

    def __exit__(self, *exc: object) -> None:
        for name, fn in self._saved.items():
            setattr(self.module, name, fn)
        self._saved = {}

    def run(self, read: Callable[[], Any]) -> Any:
        """``read()`` (a read of one frame's dice), timed as a whole into ``total``."""
        start = time.thread_time()
        try:
            return read()
        finally:
            self.total += 1000.0 * (time.thread_time() - start)
            self.reads += 1

    @property
    def rest(self) -> float:
        """The reads' time no stage holds (ms)."""
        return self.total - sum(self.ms.values())

    def _timed(self, stage: str, call: Callable[[], Any]) -> Any:
        self._inner.append(0.0)
        start = time.thread_time()
        try:
            return call()
        finally:
            spent = 1000.0 * (time.thread_time() - start)
            inner = self._inner.pop()
            self.ms[stage] += spent - inner
            if self._inner:
                self._inner[-1] += spent

    def _wrap(self, stage: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            out = self._timed(stage, lambda: fn(*args, **kwargs))
            return self._steps(stage, out) if isinstance(out, Iterator) else out

        return timed

    def _steps(self, stage: str, items: Iterator[Any]) -> Iterator[Any]:
        """A generator's items, each step timed as the stage."""
        done = object()
        while True:
            item = self._timed(stage, lambda: next(items, done))
            if item is done:
                return
            yield item
