"""Engine-in-the-loop recognition (DESIGN.md): which legal result, if any, the frame shows.

The referee knows the position before the move and the dice, so it knows every legal result. It
asks the frame how well each explains the picture, takes the best when it explains the picture
clearly, calls the move illegal only when no legal result fits AND vision's own reading is
confident (then :func:`engine.backgammon.judge.judge` names the rule), and otherwise waits.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from controller.referee.api import BoardView
from controller.referee.config import RecognitionSettings
from controller.table_layout import TableLayout
from engine.backgammon.judge import judge
from engine.backgammon.moves import result_boards
from engine.backgammon.notation import format_steps
from engine.backgammon.position import Position
from engine.errors import PositionError

Step = tuple[int, int]
Slots = tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Recognition:
    """What the frame shows after a move.

    ``legal``: ``result`` is the legal result (mover's view) and ``move`` its text.
    ``illegal``: ``result`` is the position vision read (mover's view), ``rule``/``reason`` from
    the judge. ``unreadable``: nothing can be said yet (``reason`` says why).
    """

    verdict: Literal["legal", "illegal", "unreadable"]
    result: Position | None = None
    move: str = ""
    rule: str = ""
    reason: str = ""


def hypothesis(
    layout: TableLayout, board: tuple[int, ...], player: int
) -> tuple[Slots, tuple[int, int]]:
    """The image slots and bar of ``board`` seen from ``player`` (0 sits where the layout's
    first player sits)."""
    position = Position(board) if player == 0 else Position(board).swap()
    counts = layout.counts(position)
    return counts.slots, counts.bar


def position_of_counts(
    layout: TableLayout, slots: Slots, bar: tuple[int, int], player: int
) -> Position | None:
    """The position (``player``'s view) that per-slot counts describe, or None when no
    position can look like that (both colours on one point, more than 15 checkers)."""
    if len(slots) != 24:
        return None
    first_i = 0 if layout.first_colour == "darker" else 1
    board = [0] * 26
    for slot, pair in enumerate(slots):
        mine, theirs = pair[first_i], pair[1 - first_i]
        if mine and theirs:
            return None
        point = layout.point_of_slot(slot)
        board[point] = mine if mine else -theirs
    board[25] = bar[first_i]
    board[0] = -bar[1 - first_i]
    try:
        position = Position(tuple(board))
    except PositionError:
        return None
    return position if player == 0 else position.swap()


class StillViews:
    """Several still frames of one unchanged scene read as one: their log-likelihoods add up,
    so a slot misread in one frame is outvoted by the others; vision's own reading is that of
    the most confident frame."""

    def __init__(self, views: Sequence[BoardView]) -> None:
        self.views = list(views)

    @property
    def occluded(self) -> bool:
        return any(v.occluded for v in self.views)

    def log_likelihood(
        self, slots: Sequence[tuple[int, int]], bar: tuple[int, int]
    ) -> float | None:
        total = 0.0
        for view in self.views:
            ll = view.log_likelihood(slots, bar)
            if ll is None:
                return None
            total += ll
        return total

    def best_counts(self) -> tuple[tuple[tuple[int, int], ...], tuple[int, int], float] | None:
        """Per slot the count most frames read (ties: the most confident frame's)."""
        readings = [c for c in (v.best_counts() for v in self.views) if c is not None]
        if not readings:
            return None
        readings.sort(key=lambda c: -c[2])
        slots = [_mode([r[0][i] for r in readings]) for i in range(len(readings[0][0]))]
        bar = _mode([r[1] for r in readings])
        # where frames disagree, keep the count the frames' evidence favours, not the vote
        best = self.log_likelihood(slots, bar)
        for i in range(len(slots)):
            for value in {r[0][i] for r in readings} - {slots[i]}:
                trial = [*slots[:i], value, *slots[i + 1 :]]
                ll = self.log_likelihood(trial, bar)
                if best is not None and ll is not None and ll > best:
                    slots, best = trial, ll
        for value in {r[1] for r in readings} - {bar}:
            ll = self.log_likelihood(slots, value)
            if best is not None and ll is not None and ll > best:
                bar, best = value, ll
        return tuple(slots), bar, readings[0][2]


def _mode(values: list[tuple[int, int]]) -> tuple[int, int]:
    """The most frequent value; the earliest among equals (values come most confident first)."""
    best, best_n = values[0], 0
    for value in values:
        n = values.count(value)
        if n > best_n:
            best, best_n = value, n
    return best


def recognise(
    view: BoardView,
    before: Position,
    dice: tuple[int, int],
    player: int,
    layout: TableLayout,
    settings: RecognitionSettings,
) -> Recognition:
    """Judge the move ``player`` made from ``before`` with ``dice`` as the frame shows it."""
    if view.occluded:
        # a hidden slot could hide the difference between a legal and an illegal move
        return Recognition("unreadable", reason="part of the board is hidden")
    legal: dict[tuple[int, ...], tuple[Step, ...]] = dict(result_boards(before, dice))
    if not legal:
        legal = {before.board: ()}  # no legal move: the turn passes (BG-MOVE-7, BG-BAR-4)
    scored: list[tuple[float, tuple[int, ...]]] = []
    for board in legal:
        slots, bar = hypothesis(layout, board, player)
        ll = view.log_likelihood(slots, bar)
        if ll is None:
            return Recognition("unreadable", reason="too little of the board is visible")
        scored.append((ll, board))
    scored.sort(key=lambda item: -item[0])
    best_ll, best_board = scored[0]
    second_ll = scored[1][0] if len(scored) > 1 else None
    own = view.best_counts()
    own_ll: float | None = None
    if own is not None:
        own_ll = view.log_likelihood(own[0], own[1])
    clear = second_ll is None or best_ll - second_ll >= settings.margin
    fits = own_ll is None or own_ll - best_ll <= settings.fit_slack
    if clear and fits:
        result = Position(best_board)
        return Recognition("legal", result, format_steps(before.board, legal[best_board]))
    if (
        own is not None
        and own_ll is not None
        and own[2] >= settings.confident
        and own_ll - best_ll >= settings.illegal_margin
    ):
        seen = position_of_counts(layout, own[0], own[1], player)
        if seen is not None and seen.board not in legal:
            verdict = judge(before, seen, dice)
            if not verdict.legal and verdict.rule and verdict.reason:
                return Recognition("illegal", seen, rule=verdict.rule, reason=verdict.reason)
    if not clear:
        return Recognition("unreadable", reason="two legal moves fit the picture equally well")
    return Recognition("unreadable", reason="no legal move fits and the reading is not sure")


__all__ = ["Recognition", "hypothesis", "position_of_counts", "recognise"]
