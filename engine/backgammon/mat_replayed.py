"""A ``.mat`` record as replayed: each game's turns (position before, play, result), the
snapshots GNU Backgammon's game records are cut at, and the match it comes to."""

from __future__ import annotations

from dataclasses import dataclass

from engine.backgammon.mat_play import Step
from engine.backgammon.mat_problems import Problem
from engine.backgammon.mat_reader import MatMatch
from engine.backgammon.match import GameResult, MatchState, Phase
from engine.backgammon.notation import format_steps
from engine.backgammon.position import Position
from engine.backgammon.rules import Rules


@dataclass(frozen=True)
class Turn:
    """One replayed roll and move: the position before (mover's view), the play, the result."""

    game: int
    move: int
    line: int
    player: int
    dice: tuple[int, int]
    before: Position
    steps: tuple[Step, ...]
    result: Position
    text: str
    match_id: str

    @property
    def play_text(self) -> str:
        """The move in the usual notation, as the engine writes it."""
        return format_steps(self.before.board, self.steps)


@dataclass(frozen=True)
class Snapshot:
    """The match just before one recorded action (``move`` after its roll, ``double``,
    ``take``, ``drop``, ``resign``): the granularity of GNU Backgammon's game records."""

    game: int
    kind: str
    player: int
    position_id: str
    match_id: str


@dataclass(frozen=True)
class ReplayedGame:
    """One game of the record as replayed."""

    number: int
    start_score: tuple[int, int]
    crawford: bool
    turns: tuple[Turn, ...]
    result: GameResult | None
    snapshots: tuple[Snapshot, ...] = ()


@dataclass(frozen=True)
class Replay:
    """The outcome of replaying a record."""

    record: MatMatch
    rules: Rules
    games: tuple[ReplayedGame, ...]
    state: MatchState
    problem: Problem | None
    notes: tuple[Problem, ...] = ()
    """Record slips that do not change the replay: a "Wins N" that disagrees with the game's
    worth (the engine's count stands, as in GNU Backgammon)."""

    @property
    def legal(self) -> bool:
        """True when every move, cube action and result agrees with the rules."""
        return self.problem is None

    @property
    def final_score(self) -> tuple[int, int]:
        return self.state.score

    @property
    def complete(self) -> bool:
        """True when the record ends with the match won (or a money session's last game over)."""
        if self.state.length:
            return self.state.phase is Phase.MATCH_OVER
        return self.state.phase in (Phase.GAME_OVER, Phase.MATCH_OVER)


__all__ = [
    "Replay",
    "ReplayedGame",
    "Snapshot",
    "Turn",
]
