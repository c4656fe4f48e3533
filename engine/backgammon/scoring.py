"""What a game is worth: single, gammon, backgammon times the cube (BG-SCORE-1..4)."""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum

from engine.backgammon.rules import Rules
from engine.errors import InvalidInputError


class WinKind(IntEnum):
    """How a game was won; the value is the multiplier of the cube (BG-SCORE-1..3)."""

    SINGLE = 1
    GAMMON = 2
    BACKGAMMON = 3

    @property
    def word(self) -> str:
        return {1: "single game", 2: "gammon", 3: "backgammon"}[int(self)]


def win_kind(loser_off: int, loser_in_winner_home_or_bar: bool) -> WinKind:
    """The kind of a finished game from the loser's side: gammon when the loser has borne off
    no checker (BG-SCORE-2), backgammon when also a loser's checker is on the bar or in the
    winner's home board (BG-SCORE-3)."""
    if not 0 <= loser_off <= 15:
        raise InvalidInputError(f"checkers borne off must be 0..15, not {loser_off}")
    if loser_off > 0:
        return WinKind.SINGLE
    return WinKind.BACKGAMMON if loser_in_winner_home_or_bar else WinKind.GAMMON


def win_kind_of_board(loser_board: Sequence[int]) -> WinKind:
    """The kind of a win from the loser's board in the 26-slot layout of the position type
    (loser's own view: 1..24 points, own checkers positive, 25 own bar). The winner's home
    board is the loser's points 19..24."""
    if len(loser_board) != 26:
        raise InvalidInputError(f"a board has 26 slots, not {len(loser_board)}")
    on_board = sum(n for n in loser_board[1:26] if n > 0)
    back = loser_board[25] > 0 or any(n > 0 for n in loser_board[19:25])
    return win_kind(15 - on_board, back)


def game_points(
    kind: WinKind,
    cube_value: int,
    rules: Rules,
    *,
    in_match: bool,
    cube_turned: bool = False,
    loser_on_bar: bool = False,
) -> int:
    """Points for a game won by ``kind`` with the cube at ``cube_value``.

    BG-SCORE-4 money options apply only outside matches: Jacoby (gammons and backgammons count
    single unless the cube was turned) and a loser's checker on the bar counting 4x. Without
    backgammons (Turkish traditional, ``000`` §7) a backgammon counts as a gammon.
    """
    multiplier = int(kind)
    if kind is WinKind.BACKGAMMON and not rules.backgammons:
        multiplier = int(WinKind.GAMMON)
    if not in_match:
        if rules.jacoby and rules.cube and not cube_turned:
            multiplier = 1
        elif rules.bar_counts_four and kind is WinKind.BACKGAMMON and loser_on_bar:
            multiplier = 4
    return multiplier * cube_value


def resignation_kind(points: int, cube_value: int) -> WinKind:
    """The kind a resignation for ``points`` at ``cube_value`` gives up: the smallest kind worth
    at least ``points`` (a backgammon at most). Records cap "Wins N" at the points a player
    needs to win the match, so N need not be a multiple of the cube; GNU Backgammon reads
    them the same way."""
    if cube_value < 1 or points < 1:
        raise InvalidInputError(f"a resignation needs points >= 1 and a cube >= 1, not {points}")
    for kind in WinKind:
        if int(kind) * cube_value >= points:
            return kind
    return WinKind.BACKGAMMON


__all__ = ["WinKind", "game_points", "resignation_kind", "win_kind", "win_kind_of_board"]
