"""The opening throw of a game: each player throws one die (BG-OPEN-1, BG-OPEN-2, BG-OPEN-T).

Pure: :func:`throw` takes the state and one player's throw and returns the new state. A valid
die is kept until the other player's die is valid too (BG-OPEN-2: only the player whose die is
invalid throws again); equal dice are both thrown again (BG-OPEN-1). The outcome names the
starter and, under the modern rules, the dice of the first move (the starter's die first).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from engine.backgammon.rules import Opening, Rules
from engine.errors import DiceError, InvalidInputError


@dataclass(frozen=True)
class OpeningThrows:
    """The opening throw so far: each player's valid die, or None while still to throw."""

    dice: tuple[int | None, int | None] = (None, None)
    rethrows: int = 0
    """How many times equal dice were thrown again (for automatic doubles, ``002`` option 1)."""

    @property
    def done(self) -> bool:
        """True when both dice are valid and different: the game can start."""
        a, b = self.dice
        return a is not None and b is not None and a != b

    @property
    def starter(self) -> int | None:
        """The player with the higher die once the throw is done."""
        a, b = self.dice
        if a is None or b is None or a == b:
            return None
        return 0 if a > b else 1

    def first_dice(self, rules: Rules) -> tuple[int, int] | None:
        """The first move's dice: both opening dice, the starter's first (BG-OPEN-1); None under
        BG-OPEN-T, where the starter throws both dice afresh."""
        starter = self.starter
        if starter is None or rules.opening is Opening.TURKISH:
            return None
        a, b = self.dice
        assert a is not None and b is not None
        return (a, b) if starter == 0 else (b, a)

    def waiting_for(self) -> tuple[int, ...]:
        """The players who still have to throw (after an invalid die or equal dice)."""
        return tuple(p for p in (0, 1) if self.dice[p] is None)


def throw(state: OpeningThrows, player: int, die: int | None) -> OpeningThrows:
    """``player`` throws one die; ``die`` None means the throw was invalid (BG-ROLL-2) and only
    that player throws again (BG-OPEN-2). Equal valid dice are both thrown again (BG-OPEN-1)."""
    if player not in (0, 1):
        raise InvalidInputError(f"players are 0 and 1, not {player}")
    if state.done:
        raise InvalidInputError("the opening throw is already decided")
    if state.dice[player] is not None:
        raise InvalidInputError(
            f"player {player} already has a valid opening die; only the other throws (BG-OPEN-2)"
        )
    if die is not None and (not isinstance(die, int) or not 1 <= die <= 6):
        raise DiceError(f"a die shows 1..6, not {die!r}")
    dice = list(state.dice)
    dice[player] = die
    if dice[0] is not None and dice[0] == dice[1]:
        return OpeningThrows((None, None), state.rethrows + 1)
    return dataclasses.replace(state, dice=(dice[0], dice[1]))


def needs_opening_throw(rules: Rules, game: int) -> bool:
    """Whether game ``game`` (1-based) starts with an opening throw: every game under the
    modern rules (BG-OPEN-1), only the first under BG-OPEN-T (the previous winner starts)."""
    return rules.opening is Opening.MODERN or game == 1


__all__ = ["OpeningThrows", "needs_opening_throw", "throw"]
