"""The doubling cube, BG-CUBE-1..6, as a value type and inside the match state."""

from __future__ import annotations

import dataclasses

import pytest

from engine.backgammon.cube import CUBE_FACES, Cube, new_cube
from engine.backgammon.match import (
    Beaver,
    CorrectCube,
    Double,
    Drop,
    MatchState,
    Move,
    NextGame,
    OpeningRoll,
    Phase,
    Resign,
    Roll,
    Take,
    apply,
    apply_all,
    may_double,
    new_match,
)
from engine.backgammon.moves import legal_plays
from engine.backgammon.rules import Rules
from engine.backgammon.scoring import WinKind
from engine.errors import InvalidInputError, RuleViolationError


def _first_play(state: MatchState) -> Move:
    assert state.dice is not None
    return Move(legal_plays(state.position, state.dice)[0].result)


def _after_opening(rules: Rules | None = None, length: int = 5) -> MatchState:
    """Player 0 opened with 31 and moved; player 1 is to decide (double or roll)."""
    state = apply(new_match(length, rules), OpeningRoll((3, 1)))
    return apply(state, _first_play(state))


def test_bg_cube_1_centred_at_one_showing_64() -> None:
    cube = new_cube(in_play=True)
    assert (cube.value, cube.owner, cube.face, cube.centred) == (1, None, 64, True)
    assert CUBE_FACES == (64, 2, 4, 8, 16, 32)
    assert Cube(value=8).face == 8


def test_bg_cube_1_every_game_starts_centred() -> None:
    state = new_match(5)
    assert state.cube == Cube()


def test_bg_cube_2_no_double_before_the_first_move() -> None:
    state = new_match(5)
    assert may_double(state) is not None
    with pytest.raises(RuleViolationError, match=r"BG-CUBE-2|BG-OPEN"):
        apply(state, Double())


def test_bg_cube_2_double_only_before_rolling_on_own_turn() -> None:
    state = _after_opening()
    assert state.phase is Phase.DECIDE and state.on_roll == 1
    assert may_double(state) is None
    rolled = apply(state, Roll((5, 2)))
    reason = may_double(rolled)
    assert reason is not None and "BG-CUBE-2" in reason and "BG-ROLL-6" in reason
    with pytest.raises(RuleViolationError, match="BG-CUBE-2"):
        apply(rolled, Double())


def test_bg_cube_2_on_the_bar_may_still_double() -> None:
    """Being on the bar or closed out does not prevent doubling."""
    state = _after_opening()
    hit = dataclasses.replace(
        state,
        position=dataclasses.replace(state.position, board=_board_with_own_bar(state)),
    )
    assert hit.position.my_bar == 1
    assert may_double(hit) is None


def _board_with_own_bar(state: MatchState) -> tuple[int, ...]:
    board = list(state.position.board)
    board[24] -= 1  # one back checker...
    board[25] += 1  # ...is on the bar
    return tuple(board)


def test_bg_cube_3_offer_keeps_value_until_taken() -> None:
    offered = apply(_after_opening(), Double())
    assert offered.phase is Phase.DOUBLED and offered.to_act == 0
    assert offered.cube.offered_by == 1 and offered.cube.value == 1
    assert offered.cube.offered_value == 2
    with pytest.raises(RuleViolationError):
        apply(offered, Roll((3, 3)))  # the answer comes first


def test_bg_cube_4_take_doubles_and_the_taker_owns() -> None:
    taken = apply_all(_after_opening(), [Double(), Take()])
    assert taken.cube.value == 2 and taken.cube.owner == 0
    assert taken.phase is Phase.DECIDE and taken.on_roll == 1  # the doubler rolls on
    assert may_double(taken) is not None  # no player doubles twice in a row
    with pytest.raises(RuleViolationError, match="BG-CUBE-4"):
        apply(taken, Double())


def test_bg_cube_4_drop_wins_the_value_before_the_double() -> None:
    state = apply_all(_after_opening(), [Double(), Take()])
    state = apply(state, Roll((6, 5)))
    state = apply(state, _first_play(state))
    assert state.on_roll == 0 and may_double(state) is None  # the owner may redouble
    dropped = apply_all(state, [Double(), Drop()])
    assert dropped.phase is Phase.GAME_OVER
    last = dropped.results[-1]
    assert (last.winner, last.points) == (0, 2)
    assert dropped.score == (2, 0)


def test_bg_cube_4_no_upper_limit_but_a_table_limit_may_be_set() -> None:
    cube = Cube()
    for value, player in zip((2, 4, 8, 16, 32, 64, 128, 256), (0, 1) * 4, strict=True):
        cube = cube.double(player).take()
        assert cube.value == value and cube.owner == 1 - player
    assert cube.may_double(0) is None
    assert cube.may_double(0, limit=256) is not None
    with pytest.raises(RuleViolationError):
        cube.double(0, limit=256)


def test_bg_cube_5_wrong_cube_is_put_right() -> None:
    """TTB annex 6: a cube turned from 2 to 8 by mistake is corrected to 4."""
    wrong = Cube(value=8, owner=1, turned=True)
    right = wrong.corrected(4, 1)
    assert (right.value, right.owner) == (4, 1)


def test_bg_cube_5_correction_inside_the_match() -> None:
    state = apply_all(_after_opening(), [Double(), Take()])
    fixed = apply(state, CorrectCube(4, 0))  # found on 4 although it should be...
    assert (fixed.cube.value, fixed.cube.owner) == (4, 0)
    back = apply(fixed, CorrectCube(2, 0))  # ...on 2: put right
    assert (back.cube.value, back.cube.owner) == (2, 0)
    with pytest.raises(InvalidInputError, match="owned"):
        apply(state, CorrectCube(2, None))
    with pytest.raises(InvalidInputError, match="power of two"):
        apply(state, CorrectCube(3, 0))


def test_bg_cube_5_correction_after_the_game_rescores_it() -> None:
    """TTB annex 6 (``004``): a cube wrongly turned from 2 to 8 and found out before the next
    game starts is put back to 4, and the game just won counts at 4."""
    state = apply_all(_after_opening(), [Double(), Take()])  # player 1 doubled: cube 2, owner 0
    wrong = dataclasses.replace(state, cube=dataclasses.replace(state.cube, value=8))
    over = apply(wrong, Resign(1, WinKind.GAMMON))  # player 0 wins a gammon at 8: 16 points
    assert over.score == (16, 0) and over.phase is Phase.MATCH_OVER
    fixed = apply(over, CorrectCube(2, 0))
    assert fixed.score == (4, 0) and fixed.phase is Phase.GAME_OVER and fixed.winner is None
    assert (fixed.results[-1].points, fixed.results[-1].cube_value) == (4, 2)
    with pytest.raises(RuleViolationError, match="BG-CUBE-5"):
        apply(apply(fixed, NextGame()), CorrectCube(4, 0))  # the next game has started


def test_bg_cube_5_a_dropped_double_is_rescored_at_the_right_value() -> None:
    """TTB annex 6: the drop of a double from a cube found wrong wins the right value."""
    state = apply_all(_after_opening(), [Double(), Take()])  # cube 2, owner 0
    wrong = dataclasses.replace(state, cube=dataclasses.replace(state.cube, value=4))
    dropped = apply_all(wrong, [Roll((6, 5))])
    dropped = apply_all(dropped, [_first_play(dropped), Double(), Drop()])  # 0 doubles, 1 drops
    assert dropped.score == (4, 0)
    fixed = apply(dropped, CorrectCube(2, 0))
    assert fixed.score == (2, 0) and fixed.results[-1].points == 2


def test_bg_cube_5_money_games_stand_as_settled() -> None:
    """The after-the-game correction is a match ruling: money play keeps each game as settled."""
    state = apply_all(_after_opening(Rules.money(jacoby=False), length=0), [Double(), Take()])
    over = apply(state, Resign(1))
    with pytest.raises(RuleViolationError, match="money"):
        apply(over, CorrectCube(4, 0))


def test_bg_cube_5_a_correction_cannot_bring_a_cube_the_rules_leave_out() -> None:
    """A table without the cube (as Turkish play) has no wrong cube to put right: a correction to
    4 after a resignation would have made the game worth 4; a cube limit holds too."""
    cubeless = apply(_after_opening(Rules(cube=False, crawford=False), length=3), Resign(1))
    with pytest.raises(RuleViolationError, match="without it"):
        apply(cubeless, CorrectCube(4, 0))
    capped = apply(_after_opening(Rules(cube_limit=4), length=5), Resign(1))
    with pytest.raises(RuleViolationError, match="stop it at 4"):
        apply(capped, CorrectCube(8, 0))
    assert apply(capped, CorrectCube(4, 0)).score == (4, 0)


def test_bg_cube_6_a_double_once_made_stands() -> None:
    """The double is made when the cube is put down: the only answers are take or drop."""
    offered = apply(_after_opening(), Double())
    for event in (Roll((2, 1)), Double(), OpeningRoll((2, 1))):
        with pytest.raises(RuleViolationError):
            apply(offered, event)


def test_crawford_game_has_no_cube() -> None:
    cube = new_cube(in_play=False)
    reason = cube.may_double(0)
    assert reason is not None and "BG-MATCH-2" in reason


def test_cube_errors() -> None:
    with pytest.raises(RuleViolationError):
        Cube(value=3)
    with pytest.raises(RuleViolationError):
        Cube(owner=2)
    with pytest.raises(RuleViolationError):
        Cube().take()
    with pytest.raises(RuleViolationError):
        Cube().drop()
    with pytest.raises(RuleViolationError):
        Cube(owner=0).automatic_double()


def test_beaver_is_a_money_option_the_doubler_may_refuse() -> None:
    """Seed 002 optional rule 2: the doubled player redoubles at once keeping the cube; the
    original doubler answers as to a normal double."""
    money = Rules.money(beavers=True)
    offered = apply(_after_opening(money, length=0), Double())
    beavered = apply(offered, Beaver())
    assert beavered.cube.value == 2 and beavered.cube.offered_by == 0
    taken = apply(beavered, Take())
    assert (taken.cube.value, taken.cube.owner) == (4, 0)  # the beaverer keeps the cube
    dropped = apply(beavered, Drop())
    assert dropped.results[-1].winner == 0 and dropped.results[-1].points == 2
    with pytest.raises(RuleViolationError, match="beaver"):
        apply(beavered, Beaver())
    with pytest.raises(RuleViolationError, match="BG-SCORE-4"):
        apply(apply(_after_opening(), Double()), Beaver())


def test_automatic_doubles_on_equal_opening_dice() -> None:
    """Seed 002 optional rule 1: equal opening dice double the stake, the cube stays centred,
    usually at most once per game (the limit is a setting)."""
    rules = Rules.money(automatic_doubles=1)
    state = new_match(0, rules)
    state = apply(state, OpeningRoll((4, 4)))
    assert (state.cube.value, state.cube.owner, state.phase) == (2, None, Phase.OPENING)
    state = apply(state, OpeningRoll((2, 2)))
    assert state.cube.value == 2  # the limit
    unlimited = apply_all(
        new_match(0, Rules.money(automatic_doubles=3)),
        [OpeningRoll((4, 4)), OpeningRoll((2, 2)), OpeningRoll((6, 1))],
    )
    assert unlimited.cube.value == 4 and unlimited.cube.centred
    plain = apply(new_match(5), OpeningRoll((4, 4)))
    assert plain.cube.value == 1
