"""What the Mangala referee asks of a still frame, and the event that carries it.

The referee never trusts a raw stone count (DESIGN.md, engine-in-the-loop recognition): it asks
how well a whole board of 14 counts (cell order of ``vision.mangala.geometry``: a's pits 1..6,
a's store, b's pits 1..6, b's store) explains the frame, and what vision itself would say per
cell. The runtime adapts ``vision.mangala.reader`` to this; tests may use synthetic views.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

CELLS = 14


class MangalaView(Protocol):
    """A still frame's reading of the 14 cells."""

    @property
    def occluded(self) -> bool:
        """True when a hand or anything else hides part of the board."""
        ...

    @property
    def hidden(self) -> tuple[bool, ...]:
        """Per cell: True when that cell cannot be seen (no count is claimed for it)."""
        ...

    def log_likelihood(self, counts: Sequence[int]) -> float | None:
        """How well the 14 counts explain the frame; None when too little is visible."""
        ...

    def best_counts(self) -> tuple[tuple[int, ...], tuple[tuple[float, ...], ...]] | None:
        """Vision's own most likely count per cell and, per cell, the log-probability of every
        count 0..48 (for finding the best board with 48 stones); None when unreadable."""
        ...


@dataclass(frozen=True)
class MangalaFrameSeen:
    """A still frame of the Mangala board (the stillness gate passed)."""

    t_ms: int
    view: MangalaView
