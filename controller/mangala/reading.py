"""From a still camera frame to what the Mangala referee is told: the stone reader's probabilities
per cell (``vision.mangala.reader``) as a :class:`controller.mangala.view.MangalaView`.

The board's corners are fixed for a table (the camera does not move during a round), so they are
given once, from the table's configuration or the demo's camera.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from controller.mangala.view import MangalaFrameSeen
from vision.mangala.geometry import check_corners
from vision.mangala.reader import MangalaReading, log_likelihood, read_mangala

# Fewer cells in view than this and no board can be judged at all.
MIN_VISIBLE_CELLS = 10


@dataclass(frozen=True)
class ReadingView:
    """A :class:`vision.mangala.reader.MangalaReading` as the referee asks about it."""

    reading: MangalaReading

    @property
    def occluded(self) -> bool:
        return self.reading.occluded

    @property
    def hidden(self) -> tuple[bool, ...]:
        return tuple(c.hidden for c in self.reading.cells)

    def log_likelihood(self, counts: Sequence[int]) -> float | None:
        if sum(1 for c in self.reading.cells if not c.hidden) < MIN_VISIBLE_CELLS:
            return None
        return log_likelihood(self.reading, counts)

    def best_counts(self) -> tuple[tuple[int, ...], tuple[tuple[float, ...], ...]] | None:
        if sum(1 for c in self.reading.cells if not c.hidden) < MIN_VISIBLE_CELLS:
            return None
        return self.reading.counts, self._logs

    @cached_property
    def _logs(self) -> tuple[tuple[float, ...], ...]:
        return tuple(tuple(math.log(max(p, 1e-300)) for p in c.probs) for c in self.reading.cells)


class MangalaFrameReader:
    """Reads still frames of one Mangala table with fixed board corners (TL, TR, BR, BL)."""

    def __init__(self, corners: Sequence[float] | np.ndarray) -> None:
        self.corners = check_corners(np.asarray(corners, np.float32).reshape(4, 2))

    def read(self, image: np.ndarray, t_ms: int) -> MangalaFrameSeen:
        """The referee's event for one still frame."""
        return MangalaFrameSeen(t_ms, ReadingView(read_mangala(image, self.corners)))


__all__ = ["MIN_VISIBLE_CELLS", "MangalaFrameReader", "ReadingView"]
