"""Building a correct Mangala round record while the round is played: each sowing, warning,
time-out or director's decision appended with the set and round results it brings."""

from __future__ import annotations

from engine.errors import RuleViolationError
from engine.mangala.position import Position, Side
from engine.mangala.record import (
    Caution,
    DirectorDecision,
    Entry,
    Move,
    RoundEnd,
    RoundRecord,
    SetEnd,
    SetPosition,
    SetStart,
    TimeOut,
)
from engine.mangala.scoring import Round, SetResult, set_result, time_out
from engine.mangala.sowing import play


class RecordBuilder:
    """Builds a correct record while a round is played (used by the referee and tests)."""

    def __init__(self, first_starter: Side, players: dict[Side, str] | None = None) -> None:
        self.players = dict(players or {})
        self.round = Round(first_starter)
        self.entries: list[Entry] = []
        self.position: Position | None = None

    def start_set(self) -> Position:
        """Begin the next set with its MG-T-2 starter; returns the starting position."""
        number = self._number()
        starter = self.round.starter(number)
        self.position = Position.initial(starter)
        self.entries.append(SetStart(0, number, starter))
        return self.position

    def move(self, pit: int) -> Position:
        """Play ``pit`` in the current set and record it; closes the set when it ends (MG-4)."""
        if self.position is None:
            raise RuleViolationError("no set is in progress")
        mover = self.position.to_move
        result = play(self.position, pit)
        assert mover is not None
        self.entries.append(Move(0, self._number(), mover, pit, result.position))
        self.position = result.position
        if result.set_over:
            self._close(set_result(result.position, self._number(), self._starter()))
        return result.position

    def set_position(self, position: Position) -> None:
        """Record a director's correction: play goes on from ``position`` in the current set."""
        if self.position is None:
            raise RuleViolationError("no set is in progress")
        self.entries.append(SetPosition(0, self._number(), position))
        self.position = position

    def warn(self, player: Side, reason: str = "") -> None:
        """Record a warning (MG-T-4)."""
        self.entries.append(Caution(0, self._number(), player, reason))
        self.round = self.round.warn(player, reason)
        if self.round.over:
            self.position = None
            points = self.round.round_points()
            winner = self.round.winner
            assert winner is not None
            self.entries.append(RoundEnd(0, winner, points["a"], points["b"]))

    def time_out(self, player: Side) -> None:
        """Record ``player``'s time running out and close the set (MG-CLOCK-3)."""
        if self.position is None:
            raise RuleViolationError("no set is in progress")
        self.entries.append(TimeOut(0, self._number(), player))
        self._close(time_out(self.position, player, self._number(), self._starter()))

    def end_by_director(self, winner: Side, reason: str = "") -> None:
        """Record a director ending the round in the current (or just ended) set, ``winner``
        the winner; nothing is played after it."""
        number = self.round.current_set
        if number is None:
            raise RuleViolationError("the round is already over: a director cannot end it again")
        if self.position is None:  # between sets: the set just ended
            number = len(self.round.sets)
        if number == 0:
            raise RuleViolationError("no set has started: there is no round to end yet")
        self.entries.append(DirectorDecision(0, number, winner, reason))
        self.round = self.round.end_by_director(winner, number, reason)
        self.position = None

    def _close(self, result: SetResult) -> None:
        self.entries.append(SetEnd(0, result.number, result.a_store, result.b_store, result.winner))
        self.round = self.round.add_set(result)
        self.position = None
        winner = self.round.winner
        if winner is not None:
            points = self.round.round_points()
            self.entries.append(RoundEnd(0, winner, points["a"], points["b"]))

    def _number(self) -> int:
        number = self.round.current_set
        if number is None:
            raise RuleViolationError("the round is over: no further set is played (MG-T-1)")
        return number

    def _starter(self) -> Side:
        return self.round.starter(self._number())

    def record(self) -> RoundRecord:
        """The record so far."""
        return RoundRecord(dict(self.players), tuple(self.entries))


__all__ = [
    "RecordBuilder",
]
