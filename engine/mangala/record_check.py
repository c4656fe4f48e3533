"""Replaying a Mangala round record through the rules, line by line, to the first line they
forbid; lines out of order are format errors."""

from __future__ import annotations

from engine.errors import RecordFormatError
from engine.mangala.judge import judge
from engine.mangala.position import STONES, Position, Side
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
from engine.mangala.record_result import Problem, RecordCheck
from engine.mangala.record_writer import point_text
from engine.mangala.scoring import Round, SetResult, set_result, time_out
from engine.mangala.sowing import play


class _Stop(Exception):
    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.reason)
        self.problem = problem


def check_record(record: RoundRecord) -> RecordCheck:
    """Replay a record through the rules and report the first line they forbid.

    Lines out of order (a move with no set started, a set number that skips) are format errors
    and raise :class:`RecordFormatError` naming the line.
    """
    starters = [e for e in record.entries if isinstance(e, SetStart)]
    first: Side = starters[0].starter if starters else "a"
    state = _Replay(Round(first))
    try:
        for entry in record.entries:
            state.apply(entry)
    except _Stop as stop:
        return RecordCheck(state.moves, state.round, state.position, stop.problem)
    return RecordCheck(state.moves, state.round, state.position, None)


class _Replay:
    def __init__(self, round_: Round) -> None:
        self.round = round_
        self.position: Position | None = None
        self.number: int | None = None
        self.moves = 0
        self.last_result: SetResult | None = None

    def apply(self, entry: Entry) -> None:
        if isinstance(entry, SetStart):
            self._start(entry)
        elif isinstance(entry, Move):
            self._move(entry)
        elif isinstance(entry, SetPosition):
            self._set_position(entry)
        elif isinstance(entry, Caution):
            self._in_set(entry.line, entry.number, allow_finished=True)
            if self.round.over:
                self._stop(entry.line, entry.number, "MG-T-4", "the round is already over")
            self.round = self.round.warn(entry.player, entry.reason)
            if self.round.over:
                self.position = None
        elif isinstance(entry, TimeOut):
            if self.round.over:
                self._stop(entry.line, entry.number, "MG-T-1", "the round is already over")
            self._in_set(entry.line, entry.number)
            assert self.position is not None
            mover = self.position.to_move
            if entry.player != mover:
                self._stop(
                    entry.line,
                    entry.number,
                    "MG-CLOCK-2",
                    f"{entry.player}'s time cannot run out: it is {mover}'s turn, and only "
                    f"the mover's time runs",
                )
            result = time_out(
                self.position, entry.player, entry.number, self.round.starter(entry.number)
            )
            self._close(result)
        elif isinstance(entry, SetEnd):
            self._set_end(entry)
        elif isinstance(entry, DirectorDecision):
            self._director_end(entry)
        else:
            self._round_end(entry)

    def _stop(self, line: int, number: int | None, rule: str, reason: str) -> None:
        raise _Stop(Problem(line, number, rule, reason))

    def _start(self, entry: SetStart) -> None:
        if self.position is not None:
            raise RecordFormatError(
                f"line {entry.line}: set {entry.number} starts while set {self.number} is "
                f"still being played"
            )
        if self.round.over:
            self._stop(
                entry.line,
                entry.number,
                "MG-T-1",
                f"set {entry.number} may not be played: the round is already over",
            )
        due = len(self.round.sets) + 1
        if entry.number != due:
            raise RecordFormatError(f"line {entry.line}: set {entry.number} where set {due} is due")
        if entry.number == 1:
            self.round = Round(entry.starter, self.round.sets, self.round.warnings)
        expected = self.round.starter(entry.number)
        if entry.starter != expected:
            self._stop(
                entry.line,
                entry.number,
                "MG-T-2",
                f"set {entry.number} is started by {expected}, not {entry.starter}",
            )
        self.number = entry.number
        self.position = Position.initial(entry.starter)
        self.last_result = None

    def _in_set(self, line: int, number: int, *, allow_finished: bool = False) -> None:
        if self.position is None and not (allow_finished and self.number == number):
            raise RecordFormatError(f"line {line}: set {number} is not being played")
        if number != self.number:
            raise RecordFormatError(
                f"line {line}: set {number} given while set {self.number} is being played"
            )

    def _move(self, entry: Move) -> None:
        if self.round.over:
            self._stop(entry.line, entry.number, "MG-T-1", "the round is already over")
        self._in_set(entry.line, entry.number)
        before = self.position
        assert before is not None
        if entry.mover != before.to_move:
            self._stop(
                entry.line,
                entry.number,
                "MG-1",
                f"{entry.mover} moves but it is {before.to_move}'s turn",
            )
        if before.pits(entry.mover)[entry.pit - 1] == 0:
            self._stop(
                entry.line,
                entry.number,
                "MG-1",
                f"{entry.mover}'s pit {entry.pit} is empty: there is nothing to sow",
            )
        result = play(before, entry.pit)
        if result.position != entry.after:
            verdict = judge(before, entry.after)
            if verdict.legal and entry.pit in verdict.pits and not verdict.sweep_pending:
                rule = "MG-4" if result.set_over else "MG-1"
                why = (
                    f"the board is right but the player to move next is "
                    f"{result.position.to_move or '-'}, not {entry.after.to_move or '-'}"
                )
            elif verdict.legal:
                rule = "MG-4" if verdict.sweep_pending else "MG-1"
                why = f"the position written is not the one pit {entry.pit} gives: {verdict.reason}"
            else:
                rule = verdict.rule or "MG-1"
                why = verdict.reason
            if not why.startswith(f"pit {entry.pit}:"):
                why = f"pit {entry.pit}: {why}"
            self._stop(entry.line, entry.number, rule, f"{entry.mover} {why}")
        self.moves += 1
        self.position = result.position
        if result.set_over:
            self._close(set_result(result.position, entry.number, self.round.starter(entry.number)))

    def _set_position(self, entry: SetPosition) -> None:
        if self.round.over:
            self._stop(entry.line, entry.number, "MG-T-1", "the round is already over")
        self._in_set(entry.line, entry.number)
        total = entry.position.total()
        if total != STONES:
            self._stop(
                entry.line,
                entry.number,
                "MG-EQ-1",
                f"the position set holds {total} stones, not {STONES}",
            )
        if entry.position.set_over:
            self._stop(
                entry.line,
                entry.number,
                "MG-4",
                "the position set has a side with no stones: the set would already be over",
            )
        self.position = entry.position

    def _director_end(self, entry: DirectorDecision) -> None:
        """The round ends as the director decided; the set under way is left unscored."""
        if self.round.over:
            self._stop(entry.line, entry.number, "MG-T-1", "the round is already over")
        self._in_set(entry.line, entry.number, allow_finished=True)
        self.round = self.round.end_by_director(entry.winner, entry.number, entry.reason)
        self.position = None

    def _close(self, result: SetResult) -> None:
        self.round = self.round.add_set(result)
        self.last_result = result
        self.position = None

    def _set_end(self, entry: SetEnd) -> None:
        result = self.last_result
        if result is None or result.number != entry.number:
            raise RecordFormatError(f"line {entry.line}: set {entry.number} has not ended")
        if (entry.a_store, entry.b_store) != (result.a_store, result.b_store):
            self._stop(
                entry.line,
                entry.number,
                result.ended_by,
                f"the stores are a {result.a_store} b {result.b_store}, not a "
                f"{entry.a_store} b {entry.b_store}",
            )
        if entry.winner != result.winner:
            self._stop(
                entry.line,
                entry.number,
                result.ended_by,
                f"the set's result is {result.winner}, not {entry.winner}",
            )

    def _round_end(self, entry: RoundEnd) -> None:
        if not self.round.over:
            self._stop(entry.line, None, "MG-T-1", "the round is not over yet")
        points = self.round.round_points()
        if (entry.winner, entry.a_points, entry.b_points) != (
            self.round.winner,
            points["a"],
            points["b"],
        ):
            self._stop(
                entry.line,
                None,
                "MG-T-1",
                f"the round's result is {self.round.winner} with points a "
                f"{point_text(points['a'])} b {point_text(points['b'])}",
            )


__all__ = [
    "check_record",
]
