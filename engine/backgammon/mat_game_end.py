"""The end of a game in a replayed ``.mat`` record: a resignation, and a ``Wins N`` checked
against the game's worth (a written worth the rules disagree with is a note, not a stop)."""

from __future__ import annotations

from engine.backgammon.mat_problems import Problem, do, stop
from engine.backgammon.mat_reader import MatAction, MatGame
from engine.backgammon.match import EndHow, GameResult, MatchState, Phase, Resign
from engine.backgammon.scoring import WinKind, resignation_kind


def resign(state: MatchState, game: MatGame, action: MatAction, loser: int) -> MatchState:
    """``loser`` resigns at the worth the record writes (BG-SCORE-5), or the replay stops."""
    kind = resignation_kind(action.value, state.cube.value)
    return do(state, Resign(loser, kind), game, action, "BG-SCORE-5")


def _capped(state: MatchState, winner: int, written: int, worth: int) -> bool:
    """True when "Wins N" is the game's worth cut to what the winner needed for the match."""
    if not state.length:
        return False
    before = state.score[winner] - worth
    return written == state.length - before and worth >= written


def _jacoby_single(state: MatchState, result: GameResult) -> bool:
    """True when the Jacoby rule counted a gammon or backgammon single (BG-SCORE-4)."""
    return (
        not state.length
        and state.rules.jacoby
        and result.kind is not WinKind.SINGLE
        and result.points == result.cube_value
    )


def replay_win(
    state: MatchState, game: MatGame, action: MatAction, notes: list[Problem]
) -> MatchState:
    """``Wins N``: the game ended (resigned if still going), its worth checked into ``notes``."""
    if state.phase is Phase.OPENING:
        raise stop(game, action, "BG-OPEN-1", "a game cannot end before its opening roll")
    if state.phase not in (Phase.GAME_OVER, Phase.MATCH_OVER):
        state = resign(state, game, action, 1 - action.player)
    last = state.results[-1]
    if last.winner != action.player:
        raise stop(
            game,
            action,
            "BG-SCORE-1",
            f"the record gives game {game.number} to the player who lost it",
        )
    if last.points != action.value and not _capped(state, last.winner, action.value, last.points):
        rule = {1: "BG-SCORE-1", 2: "BG-SCORE-2", 3: "BG-SCORE-3"}[int(last.kind)]
        what = {
            EndHow.PLAYED: last.kind.word,
            EndHow.DROPPED: "a dropped double",
            EndHow.RESIGNED: f"a resigned {last.kind.word}",
        }[last.how]
        reason = f"{what} with the cube at {last.cube_value} is worth {last.points}"
        if _jacoby_single(state, last):
            rule = "BG-SCORE-4"
            won = f"a {what}" if last.how is EndHow.PLAYED else what
            reason = (
                f"under the Jacoby rule (on in a money session unless the record says off) {won}"
                f" with the cube not turned counts single: {last.points}"
            )
        notes.append(
            Problem(
                game.number,
                action.number,
                action.line,
                action.text,
                rule,
                f"the record says {action.value} point(s), but {reason}; the rules' count stands",
            )
        )
    return state
