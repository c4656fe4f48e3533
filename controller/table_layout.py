"""How a table is laid out in the camera's picture: which image slot holds which player's point.

Default table: the first player (the player on roll in a Position ID) sits at the bottom of the
picture with the home boards on the right, so their point 1 is slot 23, point 6 slot 18, point
12 slot 12, point 13 slot 0 and point 24 slot 11 (image slot order of DESIGN.md). The opponent's
point q is the first player's point 25 - q. The first player plays the darker checkers unless
configured otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from engine.backgammon.position import Position
from engine.errors import PositionError

Colour = Literal["darker", "lighter"]
CHECKERS = 15


@dataclass(frozen=True)
class BoardCounts:
    """Checkers per image slot as (darker, lighter), and on the bar and borne off."""

    slots: tuple[tuple[int, int], ...]
    bar: tuple[int, int]
    off: tuple[int, int]


@dataclass(frozen=True)
class TableLayout:
    """Where the first player sits, which side the home boards are on, and their colour."""

    first_at_bottom: bool = True
    home_on_right: bool = True
    first_colour: Colour = "darker"

    def slot_of_point(self, point: int, *, first: bool = True) -> int:
        """Image slot of a point (1..24) in the first player's numbering, or in the opponent's
        numbering when ``first`` is False (their point q is our point 25 - q)."""
        if not 1 <= point <= 24:
            raise PositionError(f"point {point} is not in 1..24")
        p = point if first else 25 - point
        # default table: bottom row holds points 12..1 left to right, top row 13..24
        slot = 24 - p if p <= 12 else p - 13
        row, col = divmod(slot, 12)
        if not self.home_on_right:
            col = 11 - col
        if not self.first_at_bottom:
            row = 1 - row
        return row * 12 + col

    def point_of_slot(self, slot: int, *, first: bool = True) -> int:
        """The point number (1..24) an image slot is for the first player (or the opponent)."""
        if not 0 <= slot < 24:
            raise PositionError(f"slot {slot} is not in 0..23")
        for p in range(1, 25):
            if self.slot_of_point(p) == slot:
                return p if first else 25 - p
        raise AssertionError("unreachable: every slot holds one point")  # pragma: no cover

    @property
    def second_colour(self) -> Colour:
        return "lighter" if self.first_colour == "darker" else "darker"

    def counts(self, position: Position) -> BoardCounts:
        """The checkers of a position as the camera sees them on this table."""
        slots = [[0, 0] for _ in range(24)]
        first_i = 0 if self.first_colour == "darker" else 1
        second_i = 1 - first_i
        board = position.board
        for point in range(1, 25):
            c = board[point]
            if c == 0:
                continue
            slot = self.slot_of_point(point)
            slots[slot][first_i if c > 0 else second_i] += abs(c)
        bar = [0, 0]
        bar[first_i] = board[25]
        bar[second_i] = -board[0]
        on_first = sum(c for c in board if c > 0)
        on_second = -sum(c for c in board if c < 0)
        off = [0, 0]
        off[first_i] = CHECKERS - on_first
        off[second_i] = CHECKERS - on_second
        return BoardCounts(
            tuple((a, b) for a, b in slots), (bar[0], bar[1]), (off[0], off[1])
        )

    def counts_from_id(self, position_id: str) -> BoardCounts:
        """:meth:`counts` of a GNU Backgammon Position ID."""
        return self.counts(Position.from_id(position_id))


DEFAULT_LAYOUT = TableLayout()
