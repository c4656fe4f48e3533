"""Scoring: single, gammon, backgammon (BG-SCORE-1..3) and the money options (BG-SCORE-4)."""

from __future__ import annotations

import pytest

from engine.backgammon.position import Position
from engine.backgammon.rules import Rules
from engine.backgammon.scoring import (
    WinKind,
    game_points,
    resignation_kind,
    win_kind,
    win_kind_of_board,
)
from engine.errors import InvalidInputError

MATCH = Rules.tournament()


def _loser(mine: dict[int, int]) -> tuple[int, ...]:
    """A loser's board in the loser's own numbering (the winner has borne everything off)."""
    return Position.from_checkers(mine).board


def test_bg_score_1_single_game_wins_the_cube_value() -> None:
    kind = win_kind_of_board(_loser({6: 10}))  # 5 borne off
    assert kind is WinKind.SINGLE
    assert game_points(kind, 1, MATCH, in_match=True) == 1
    assert game_points(kind, 4, MATCH, in_match=True) == 4


def test_bg_score_2_gammon_when_the_loser_bore_off_nothing() -> None:
    kind = win_kind_of_board(_loser({6: 10, 13: 5}))
    assert kind is WinKind.GAMMON
    assert game_points(kind, 2, MATCH, in_match=True) == 4


def test_bg_score_3_backgammon_with_a_checker_in_the_winners_home_or_on_the_bar() -> None:
    in_home = win_kind_of_board(_loser({6: 14, 20: 1}))  # the winner's 5 point
    on_bar = win_kind_of_board(_loser({6: 14, 25: 1}))
    assert in_home is on_bar is WinKind.BACKGAMMON
    assert game_points(in_home, 4, MATCH, in_match=True) == 12  # seed 000 §7: 3 x 4
    # A checker in the winner's outer board only is a gammon.
    assert win_kind_of_board(_loser({6: 14, 18: 1})) is WinKind.GAMMON


def test_turkish_traditional_counts_no_backgammon() -> None:
    """Seed 000 §7 KURAL FARKI: katmerli mars is not played in Turkish tavla."""
    assert game_points(WinKind.BACKGAMMON, 1, Rules.turkish(), in_match=True) == 2


def test_bg_score_4_jacoby_counts_gammons_single_until_the_cube_is_turned() -> None:
    money = Rules.money(jacoby=True)
    assert game_points(WinKind.GAMMON, 1, money, in_match=False) == 1
    assert game_points(WinKind.BACKGAMMON, 1, money, in_match=False) == 1
    assert game_points(WinKind.GAMMON, 2, money, in_match=False, cube_turned=True) == 4
    # An automatic double does not turn the cube: still single.
    assert game_points(WinKind.GAMMON, 2, money, in_match=False, cube_turned=False) == 2
    # Off in matches.
    assert game_points(WinKind.GAMMON, 1, money, in_match=True) == 2


def test_bg_score_4_bar_counts_four() -> None:
    """Seed 002: some count a backgammon with a checker on the bar as 4 points."""
    money = Rules.money(jacoby=False, bar_counts_four=True)
    assert game_points(WinKind.BACKGAMMON, 1, money, in_match=False, loser_on_bar=True) == 4
    assert game_points(WinKind.BACKGAMMON, 1, money, in_match=False, loser_on_bar=False) == 3
    assert game_points(WinKind.BACKGAMMON, 1, money, in_match=True, loser_on_bar=True) == 3


def test_win_kind_plain() -> None:
    assert win_kind(1, True) is WinKind.SINGLE
    assert win_kind(0, False) is WinKind.GAMMON
    assert win_kind(0, True) is WinKind.BACKGAMMON
    assert WinKind.GAMMON.word == "gammon"
    with pytest.raises(InvalidInputError, match="16"):
        win_kind(16, False)
    with pytest.raises(InvalidInputError, match="26 slots"):
        win_kind_of_board((0,) * 25)


@pytest.mark.parametrize(
    ("points", "cube", "kind"),
    [(1, 1, WinKind.SINGLE), (2, 1, WinKind.GAMMON), (3, 1, WinKind.BACKGAMMON),
     (4, 2, WinKind.GAMMON), (3, 2, WinKind.GAMMON), (1, 2, WinKind.SINGLE),
     (5, 8, WinKind.SINGLE), (4, 1, WinKind.BACKGAMMON)],
)  # fmt: skip
def test_resignation_kind_reads_capped_wins_lines_like_gnubg(
    points: int, cube: int, kind: WinKind
) -> None:
    """The smallest kind worth the written points (GNU Backgammon imports them the same)."""
    assert resignation_kind(points, cube) is kind


def test_resignation_kind_refuses_nonsense() -> None:
    with pytest.raises(InvalidInputError):
        resignation_kind(0, 1)
