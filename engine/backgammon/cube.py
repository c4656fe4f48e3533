"""The doubling cube (vido): value, owner, a pending offer; pure, every change returns a new cube.

Players are 0 and 1. Turn context (whose turn, whether they rolled) is the match's business
(``match.py``); the cube checks only what the cube itself knows (BG-CUBE-1..6).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from engine.errors import RuleViolationError

CUBE_FACES = (64, 2, 4, 8, 16, 32)
"""The faces of a physical cube (BG-EQ-1); 64 in the middle means value 1 (BG-CUBE-1)."""


def _other(player: int) -> int:
    return 1 - player


@dataclass(frozen=True)
class Cube:
    """The cube's state in one game.

    ``owner`` None means centred (both may double, BG-CUBE-1). ``offered_by`` is the player whose
    double is pending; while it is pending ``value`` is still the value before the double.
    ``in_play`` is False when the cube is off the board: the Crawford game (BG-MATCH-2) or a
    variant without cube (BG-OPEN-T). ``beaver`` is True when the pending offer is a beaver.
    """

    value: int = 1
    owner: int | None = None
    offered_by: int | None = None
    beaver: bool = False
    in_play: bool = True
    automatic: int = 0
    turned: bool = False

    def __post_init__(self) -> None:
        if self.value < 1 or self.value & (self.value - 1):
            raise RuleViolationError(f"cube value must be a power of two, not {self.value}")
        for name in ("owner", "offered_by"):
            who = getattr(self, name)
            if who is not None and who not in (0, 1):
                raise RuleViolationError(f"cube {name} must be player 0 or 1, not {who}")

    @property
    def centred(self) -> bool:
        """True while nobody owns the cube (BG-CUBE-1)."""
        return self.owner is None

    @property
    def offered_value(self) -> int:
        """The value a pending double proposes."""
        return self.value * 2

    @property
    def face(self) -> int:
        """The face that shows on the physical cube: 64 for value 1 (BG-CUBE-1)."""
        return 64 if self.value == 1 else self.value

    def may_double(self, player: int, *, limit: int = 0) -> str | None:
        """Why ``player`` may not turn the cube now, or None when the cube allows it."""
        if not self.in_play:
            return "the cube is not in play in this game (BG-MATCH-2 Crawford game, BG-CUBE-1)"
        if self.offered_by is not None:
            return "a double is already waiting for an answer (BG-CUBE-4)"
        if self.owner is not None and self.owner != player:
            return "only the player who owns the cube may double (BG-CUBE-4)"
        if limit and self.value * 2 > limit:
            return f"the cube may not go above {limit} at this table"
        return None

    def double(self, player: int, *, limit: int = 0) -> Cube:
        """``player`` offers a double (BG-CUBE-3); the value changes only when it is taken."""
        reason = self.may_double(player, limit=limit)
        if reason is not None:
            raise RuleViolationError(f"player {player} may not double: {reason}")
        return dataclasses.replace(self, offered_by=player, beaver=False)

    def take(self) -> Cube:
        """The pending double is taken: value doubles, the taker owns the cube (BG-CUBE-4).
        A taken beaver leaves the cube with the player who beavered (``002`` optional rule 2)."""
        if self.offered_by is None:
            raise RuleViolationError("no double to take (BG-CUBE-4)")
        doubler = self.offered_by
        owner = doubler if self.beaver else _other(doubler)
        return dataclasses.replace(
            self, value=self.value * 2, owner=owner, offered_by=None, beaver=False, turned=True
        )

    def drop(self) -> tuple[int, int]:
        """The pending double is dropped: (winner, points). The doubler wins the value before
        the double (BG-CUBE-4); a dropped beaver costs the value after the first double."""
        if self.offered_by is None:
            raise RuleViolationError("no double to drop (BG-CUBE-4)")
        return self.offered_by, self.value

    def beaver_double(self, player: int) -> Cube:
        """``player``, just doubled, takes and at once redoubles keeping the cube on their side;
        the original doubler answers as to a normal double (``002`` optional rule 2)."""
        if self.offered_by is None or self.offered_by == player:
            raise RuleViolationError(f"player {player} has no double to beaver")
        if self.beaver:
            raise RuleViolationError(
                "a raccoon (beavering a beaver) is not played under these rules: the doubler"
                " takes or drops the beaver (BG-SCORE-4)"
            )
        return dataclasses.replace(
            self, value=self.value * 2, owner=player, offered_by=player, beaver=True, turned=True
        )

    def automatic_double(self) -> Cube:
        """Equal opening dice double the stake; the cube stays centred (``002`` optional rule 1)."""
        if not self.in_play or not self.centred:
            raise RuleViolationError("an automatic double needs the cube centred and in play")
        return dataclasses.replace(self, value=self.value * 2, automatic=self.automatic + 1)

    def corrected(self, value: int, owner: int | None) -> Cube:
        """A cube found with a wrong value or place is put right (BG-CUBE-5)."""
        return dataclasses.replace(
            self, value=value, owner=owner, offered_by=None, beaver=False, turned=value > 1
        )


def new_cube(*, in_play: bool) -> Cube:
    """The cube at the start of a game: centred at 1 (BG-CUBE-1), or off the board."""
    return Cube(in_play=in_play)


__all__ = ["CUBE_FACES", "Cube", "new_cube"]
