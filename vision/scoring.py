"""How well a hypothesis (counts per slot per colour) explains a reading, for the referee.

The referee knows every legal result of a move (DESIGN.md, engine-in-the-loop recognition); it
asks :func:`hypothesis_log_likelihood` for each and keeps the best that fits clearly. Hidden
slots (and a hidden bar) say nothing, so they do not count for or against any hypothesis.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from engine.errors import PositionError
from vision.board_reader import BoardReading

FLOOR = 1e-12


@dataclass(frozen=True)
class HypothesisScore:
    """Log-likelihood of a hypothesis and its worst slot (the one that fits least)."""

    log_likelihood: float
    worst_slot: int | None  # None: the bar, or nothing visible
    worst_log: float
    compared: int  # slots (and bar) that took part

    @property
    def mean_log(self) -> float:
        return self.log_likelihood / self.compared if self.compared else 0.0


def hypothesis_log_likelihood(
    reading: BoardReading,
    slots: Sequence[tuple[int, int]],
    bar: tuple[int, int] | None = None,
) -> HypothesisScore:
    """Sum over visible slots of log P(slot shows (darker, lighter)), plus the bar if given.

    ``slots`` are 24 (darker, lighter) pairs in image slot order (see
    ``controller.table_layout`` for turning a position into them).
    """
    if len(slots) != 24:
        raise PositionError(f"a hypothesis needs 24 slots, not {len(slots)}")
    total = 0.0
    worst: tuple[float, int | None] = (0.0, None)
    compared = 0
    for i, (slot, (a, b)) in enumerate(zip(reading.slots, slots, strict=True)):
        if slot.hidden:
            continue
        lp = math.log(max(FLOOR, slot.joint(int(a), int(b))))
        total += lp
        compared += 1
        if lp < worst[0]:
            worst = (lp, i)
    if bar is not None and not reading.bar.hidden:
        lp = math.log(max(FLOOR, reading.bar.joint(int(bar[0]), int(bar[1]))))
        total += lp
        compared += 1
        if lp < worst[0]:
            worst = (lp, None)
    return HypothesisScore(total, worst[1], worst[0], compared)


def rank_hypotheses(
    reading: BoardReading,
    candidates: Sequence[tuple[Sequence[tuple[int, int]], tuple[int, int] | None]],
) -> list[tuple[int, HypothesisScore]]:
    """Candidates (slots, bar) best first, as (index into ``candidates``, score)."""
    scored = [(k, hypothesis_log_likelihood(reading, s, b)) for k, (s, b) in
              enumerate(candidates)]
    scored.sort(key=lambda item: -item[1].log_likelihood)
    return scored
