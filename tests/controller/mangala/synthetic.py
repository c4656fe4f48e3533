"""Synthetic still-frame readings for the Mangala referee's tests: a stone reader that is right
with probability ``sure`` per cell and spreads the rest over the neighbouring counts."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from controller.mangala.view import MangalaFrameSeen

MAX = 48
FLOOR = 1e-6


@dataclass(frozen=True)
class SyntheticView:
    """Reads ``board`` (14 counts); ``hidden_cells`` are covered by a hand."""

    board: tuple[int, ...]
    sure: float = 0.9999
    hidden_cells: frozenset[int] = frozenset()

    def __post_init__(self) -> None:
        logs = tuple(self._compute(c) for c in range(14))
        object.__setattr__(self, "_logs", logs)

    def _log_probs(self, cell: int) -> tuple[float, ...]:
        logs: tuple[tuple[float, ...], ...] = getattr(self, "_logs")  # noqa: B009
        return logs[cell]

    def _compute(self, cell: int) -> tuple[float, ...]:
        true = self.board[cell]
        p = [FLOOR] * (MAX + 1)
        p[true] += self.sure
        for n in (true - 1, true + 1):
            if 0 <= n <= MAX:
                p[n] += (1 - self.sure) / 2
        total = sum(p)
        return tuple(math.log(x / total) for x in p)

    @property
    def occluded(self) -> bool:
        return bool(self.hidden_cells)

    @property
    def hidden(self) -> tuple[bool, ...]:
        return tuple(c in self.hidden_cells for c in range(14))

    def log_likelihood(self, counts: Sequence[int]) -> float | None:
        return sum(self._log_probs(c)[n] for c, n in enumerate(counts)
                   if c not in self.hidden_cells)

    def best_counts(self) -> tuple[tuple[int, ...], tuple[tuple[float, ...], ...]] | None:
        return self.board, tuple(self._log_probs(c) for c in range(14))


def frame(t_ms: int, board: Sequence[int], **kw: object) -> MangalaFrameSeen:
    """A still frame showing ``board``."""
    return MangalaFrameSeen(t_ms, SyntheticView(tuple(board), **kw))  # type: ignore[arg-type]
