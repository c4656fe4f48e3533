"""Sets, rounds, warnings and the time-out rule (MG-4, MG-T-1, MG-T-2, MG-T-4, MG-CLOCK-3).

A round is played between the players sitting at sides ``a`` and ``b``; it is up to 3 sets,
each set won 1 point or drawn 0.5 each. A player who reaches 2 points wins the round and no
further set is played; otherwise the round ends after 3 sets and the higher total wins, equal
totals draw (seed rule e). Round points: win 1, loss 0, draw 0.5 each (MG-T-1). The third
warning in a round loses the round (MG-T-4). A tournament director may also end the round,
naming its winner (:class:`DirectorEnd`). Everything here is an immutable value.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from engine.errors import RuleViolationError
from engine.mangala.position import STONES, Position, Side, other
from engine.mangala.sowing import Winner, winner_of

CLOCK_SECONDS_PER_SET = 15 * 60  # per player, reset at the start of every set (MG-CLOCK-1)
SETS_PER_ROUND = 3
POINTS_TO_WIN = 2.0
WARNINGS_TO_LOSE = 3
HALF = STONES // 2
EndedBy = Literal["MG-4", "MG-CLOCK-3"]


@dataclass(frozen=True)
class SetResult:
    """How one set ended: the stores, the winner (or ``"draw"``) and the rule that ended it."""

    number: int
    starter: Side
    a_store: int
    b_store: int
    winner: Winner
    ended_by: EndedBy
    timed_out: Side | None = None

    def points(self, side: Side) -> float:
        """The set points of ``side``: 1 for a win, 0.5 for a draw, 0 for a loss."""
        if self.winner == "draw":
            return 0.5
        return 1.0 if self.winner == side else 0.0

    def to_obj(self) -> dict[str, object]:
        """The JSON form used by ``hakem mangala check``."""
        return {
            "set": self.number,
            "starter": self.starter,
            "a_store": self.a_store,
            "b_store": self.b_store,
            "winner": self.winner,
            "ended_by": self.ended_by,
            "timed_out": self.timed_out,
        }


def set_result(position: Position, number: int, starter: Side) -> SetResult:
    """The result of a finished set: most stones in the store wins, 24-24 draws (MG-4)."""
    if not position.set_over:
        raise RuleViolationError(f"set {number} is not over: both sides still have stones (MG-4)")
    if position.total() != STONES or any(position.a) or any(position.b):
        raise RuleViolationError(
            f"set {number} is not counted yet: the MG-4 sweep leaves all 48 stones in the stores"
        )
    return SetResult(
        number, starter, position.a_store, position.b_store, winner_of(position), "MG-4"
    )


def time_out(position: Position, flagged: Side, number: int, starter: Side) -> SetResult:
    """The set lost on time by ``flagged`` (MG-CLOCK-3).

    The flagged player's store is counted: 24 stones or more draws the set, fewer loses it.
    """
    own = position.store(flagged)
    winner: Winner = "draw" if own >= HALF else other(flagged)
    return SetResult(
        number, starter, position.a_store, position.b_store, winner, "MG-CLOCK-3", flagged
    )


@dataclass(frozen=True)
class RoundWarning:
    """A referee's warning (MG-T-4): the touched pit not played, or a move against the rules."""

    player: Side
    set_number: int
    reason: str


@dataclass(frozen=True)
class DirectorEnd:
    """A tournament director ended the round during set ``set_number``, naming ``winner`` (the
    reason as the director gave it, or empty): no further set or move is played."""

    winner: Side
    set_number: int
    reason: str = ""


@dataclass(frozen=True)
class Round:
    """A round between sides ``a`` and ``b``; ``first_starter`` starts set 1 (MG-T-2)."""

    first_starter: Side
    sets: tuple[SetResult, ...] = ()
    warnings: tuple[RoundWarning, ...] = ()
    lost_on_warnings: Side | None = None
    ended_by_director: DirectorEnd | None = None

    def starter(self, number: int) -> Side:
        """Who starts set ``number``: set 2 the player who was second in set 1, set 3 the
        starter of set 1 (MG-T-2)."""
        if not 1 <= number <= SETS_PER_ROUND:
            raise RuleViolationError(f"set {number} does not exist: a round has 3 sets (MG-T-1)")
        return other(self.first_starter) if number == 2 else self.first_starter

    def set_points(self, side: Side) -> float:
        """The set points of ``side`` so far (win 1, draw 0.5)."""
        return sum(s.points(side) for s in self.sets)

    @property
    def over(self) -> bool:
        """True after a third warning, after 3 sets, when a player has 2 set points, or once a
        director ended the round."""
        return (
            self.ended_by_director is not None
            or self.lost_on_warnings is not None
            or len(self.sets) >= SETS_PER_ROUND
            or max(self.set_points("a"), self.set_points("b")) >= POINTS_TO_WIN
        )

    @property
    def current_set(self) -> int | None:
        """The number of the set being played or next to play; ``None`` once the round is over."""
        return None if self.over else len(self.sets) + 1

    def add_set(self, result: SetResult) -> Round:
        """The round after ``result``; refuses a set the rules do not allow (MG-T-1, MG-T-2)."""
        if self.over:
            raise RuleViolationError(
                f"set {result.number} may not be played: the round is already over (MG-T-1)"
            )
        expected = len(self.sets) + 1
        if result.number != expected:
            raise RuleViolationError(f"set {result.number} given where set {expected} is due")
        if result.starter != self.starter(expected):
            raise RuleViolationError(
                f"set {expected} is started by {self.starter(expected)}, not {result.starter} "
                f"(MG-T-2)"
            )
        return replace(self, sets=(*self.sets, result))

    def warn(self, player: Side, reason: str = "") -> Round:
        """The round after a warning to ``player``; the third one in the round loses it (MG-T-4)."""
        if self.over:
            raise RuleViolationError("the round is already over: no warning can be given")
        number = len(self.sets) + 1
        warnings = (*self.warnings, RoundWarning(player, number, reason))
        lost = player if self.warning_count(player) + 1 >= WARNINGS_TO_LOSE else None
        return replace(self, warnings=warnings, lost_on_warnings=lost)

    def end_by_director(self, winner: Side, set_number: int, reason: str = "") -> Round:
        """The round a director ended in set ``set_number`` with ``winner``; refused once the
        round is over (MG-T-1)."""
        if self.over:
            raise RuleViolationError("the round is already over: a director cannot end it again")
        return replace(self, ended_by_director=DirectorEnd(winner, set_number, reason))

    def warning_count(self, player: Side) -> int:
        """Warnings ``player`` has had in this round, all sets together (MG-T-4)."""
        return sum(1 for w in self.warnings if w.player == player)

    @property
    def winner(self) -> Winner | None:
        """``"a"``, ``"b"`` or ``"draw"`` once the round is over, else ``None`` (MG-T-1, MG-T-4);
        the director's winner when a director ended it."""
        if not self.over:
            return None
        if self.ended_by_director is not None:
            return self.ended_by_director.winner
        if self.lost_on_warnings is not None:
            return other(self.lost_on_warnings)
        a, b = self.set_points("a"), self.set_points("b")
        if a == b:
            return "draw"
        return "a" if a > b else "b"

    def round_points(self) -> dict[Side, float]:
        """Tournament points of the round: win 1, loss 0, draw 0.5 each (MG-T-1)."""
        winner = self.winner
        if winner is None:
            raise RuleViolationError("the round is not over yet: no points to give")
        if winner == "draw":
            return {"a": 0.5, "b": 0.5}
        return {"a": 1.0 if winner == "a" else 0.0, "b": 1.0 if winner == "b" else 0.0}


__all__ = [
    "CLOCK_SECONDS_PER_SET",
    "DirectorEnd",
    "Round",
    "RoundWarning",
    "SetResult",
    "set_result",
    "time_out",
]
