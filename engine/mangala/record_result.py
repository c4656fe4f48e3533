"""What replaying a Mangala round record found: the sets, warnings and result, and the first
line the rules forbid (with its rule ID), in the JSON form ``hakem mangala check`` prints."""

from __future__ import annotations

from dataclasses import dataclass

from engine.mangala.position import SIDES, Position
from engine.mangala.scoring import Round


@dataclass(frozen=True)
class Problem:
    """The first line of a record the rules forbid."""

    line: int
    set_number: int | None
    rule: str
    reason: str

    def to_obj(self) -> dict[str, object]:
        """The JSON form of ``first_illegal``."""
        return {"line": self.line, "set": self.set_number, "rule": self.rule, "reason": self.reason}


@dataclass(frozen=True)
class RecordCheck:
    """What replaying a record found."""

    moves: int
    round: Round
    in_progress: Position | None
    first_illegal: Problem | None

    @property
    def legal(self) -> bool:
        """True when every line agrees with the rules."""
        return self.first_illegal is None

    def to_obj(self) -> dict[str, object]:
        """The JSON object ``hakem mangala check --json`` prints."""
        over = self.round.over
        return {
            "legal": self.legal,
            "moves": self.moves,
            "sets": [s.to_obj() for s in self.round.sets],
            "warnings": {side: self.round.warning_count(side) for side in SIDES},
            "round_over": over,
            "winner": self.round.winner,
            # the director's decision that ended the round, when one did (else null)
            "director_end": self._director_end(),
            "points": self.round.round_points() if over else None,
            "first_illegal": self.first_illegal.to_obj() if self.first_illegal else None,
            # the set under way where the record stops (its position after the last line)
            "in_progress": self._in_progress(),
        }

    def _director_end(self) -> dict[str, object] | None:
        decision = self.round.ended_by_director
        if decision is None:
            return None
        return {"set": decision.set_number, "winner": decision.winner, "reason": decision.reason}

    def _in_progress(self) -> dict[str, object] | None:
        position, number = self.in_progress, self.round.current_set
        if position is None or number is None or self.round.over:
            return None
        return {"set": number, "position": position.to_obj()}


__all__ = [
    "Problem",
    "RecordCheck",
]
