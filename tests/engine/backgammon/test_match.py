"""Match state: BG-MATCH-1..4 (length, Crawford, Holland, score), game ends, Turkish starts."""

from __future__ import annotations

import dataclasses

import pytest

from engine.backgammon.match import (
    CorrectCube,
    Double,
    Drop,
    EndHow,
    IllegalMoveError,
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
    result_words,
)
from engine.backgammon.moves import legal_plays
from engine.backgammon.position import Position
from engine.backgammon.rules import Rules
from engine.backgammon.scoring import WinKind
from engine.errors import InvalidInputError, RuleViolationError


def _play_first(state: MatchState) -> MatchState:
    assert state.dice is not None
    return apply(state, Move(legal_plays(state.position, state.dice)[0].result))


def _opened(state: MatchState, dice: tuple[int, int] = (3, 1)) -> MatchState:
    """Opening roll (player 0 higher by default) and the first move played."""
    return _play_first(apply(state, OpeningRoll(dice)))


def _win_by_drop(state: MatchState, winner: int) -> MatchState:
    """Play one game in which ``winner`` doubles and the opponent drops."""
    state = _opened(state, (3, 1) if winner == 1 else (1, 3))
    assert state.on_roll == winner
    return apply_all(state, [Double(), Drop()])


def _resigned(state: MatchState, loser: int, kind: WinKind = WinKind.SINGLE) -> MatchState:
    return apply(_opened(state), Resign(loser, kind))


def test_bg_match_1_first_to_n_wins() -> None:
    state = new_match(3)
    state = _resigned(state, 1, WinKind.GAMMON)
    assert state.score == (2, 0) and state.phase is Phase.GAME_OVER
    state = apply(state, NextGame())
    state = _resigned(state, 1)
    assert state.score == (3, 0) and state.phase is Phase.MATCH_OVER
    assert state.winner == 0
    with pytest.raises(RuleViolationError, match="BG-MATCH-1"):
        apply(state, NextGame())


def test_bg_match_2_crawford_game_then_post_crawford() -> None:
    """Seed 000 §8's example: 5-point match, 1-3 then 1-4: the next game is the Crawford game
    (no cube), the one after it has the cube back."""
    state = new_match(5)
    state = apply(_resigned(state, 0, WinKind.BACKGAMMON), NextGame())  # 0-3
    state = apply(_resigned(state, 1), NextGame())  # 1-3
    assert not state.crawford_game
    state = apply(_resigned(state, 0), NextGame())  # 1-4
    assert state.score == (1, 4)
    assert state.crawford_game and not state.post_crawford
    assert not state.cube.in_play
    opened = _opened(state)
    reason = may_double(opened)
    assert reason is not None and "BG-MATCH-2" in reason
    with pytest.raises(RuleViolationError, match="BG-MATCH-2"):
        apply(opened, Double())
    state = apply(apply(opened, Resign(1)), NextGame())  # the trailer wins it: 2-4
    assert state.score == (2, 4)
    assert not state.crawford_game and state.post_crawford and state.cube.in_play


def test_bg_match_2_a_crawford_double_is_void() -> None:
    """TTB annex 5: a double made in the Crawford game and noticed before the next game is
    void: the cube goes back to 1 (here: a state where a cube was wrongly turned)."""
    state = new_match(3)
    state = apply(_resigned(state, 1, WinKind.GAMMON), NextGame())  # 2-0: Crawford
    opened = _opened(state)
    wrong = dataclasses.replace(opened, cube=dataclasses.replace(opened.cube, value=2, owner=0))
    fixed = apply(wrong, CorrectCube(1))
    assert (fixed.cube.value, fixed.cube.owner, fixed.cube.in_play) == (1, None, False)
    with pytest.raises(RuleViolationError, match="BG-MATCH-2"):
        apply(wrong, CorrectCube(2, 0))


def test_bg_match_2_crawford_double_noticed_at_the_game_end_is_void() -> None:
    """TTB annex 5 (``004``): the players remember at the end of the Crawford game that it was
    one; before the next game starts the double is void, so the game counts at cube 1."""
    state = apply(_resigned(new_match(3), 1, WinKind.GAMMON), NextGame())  # 2-0: Crawford
    opened = _opened(state, (1, 3))  # player 1 moved first; player 0 is on roll
    wrong = dataclasses.replace(opened, cube=dataclasses.replace(opened.cube, value=2, owner=1))
    over = apply(wrong, Resign(0))  # won by player 1 at the wrongly turned cube
    assert over.score == (2, 2) and over.phase is Phase.GAME_OVER
    fixed = apply(over, CorrectCube(1))
    assert fixed.score == (2, 1) and fixed.phase is Phase.GAME_OVER
    assert (fixed.results[-1].points, fixed.results[-1].cube_value) == (1, 1)
    after = apply(fixed, NextGame())
    assert after.post_crawford and after.cube.in_play and after.cube.value == 1


def test_bg_match_2_crawford_only_once() -> None:
    state = new_match(5)
    state = apply(_resigned(state, 1, WinKind.GAMMON), NextGame())  # 2-0
    state = apply(_resigned(state, 1, WinKind.GAMMON), NextGame())  # 4-0: Crawford
    assert state.crawford_game
    state = apply(_resigned(state, 0), NextGame())  # 4-1: post-Crawford
    assert not state.crawford_game and state.post_crawford and state.cube.in_play
    state = apply(_resigned(state, 0), NextGame())  # 4-2
    assert not state.crawford_game and state.post_crawford
    opened = _opened(state)
    assert may_double(opened) is None  # the trailer may double again


def test_crawford_off_by_rules_tag() -> None:
    state = new_match(5, Rules(crawford=False))
    state = apply(_resigned(state, 1, WinKind.GAMMON), NextGame())
    state = apply(_resigned(state, 1, WinKind.GAMMON), NextGame())
    assert state.score == (4, 0) and not state.crawford_game and state.cube.in_play


def test_bg_match_3_holland_rule_is_an_option_with_a_count() -> None:
    """After the Crawford game a double waits until each side has rolled N times."""
    rules = Rules(holland=True, holland_rolls=2)
    state = new_match(3, rules)
    state = apply(_resigned(state, 1, WinKind.GAMMON), NextGame())  # 2-0 Crawford
    state = apply(_resigned(state, 0), NextGame())  # 2-1 post-Crawford
    state = _opened(state)  # player 0 rolled once
    assert state.on_roll == 1
    reason = may_double(state)
    assert reason is not None and "BG-MATCH-3" in reason
    state = _play_first(apply(state, Roll((2, 1))))  # player 1 rolled once
    state = _play_first(apply(state, Roll((5, 4))))  # player 0 twice
    assert may_double(state) is not None  # player 1 has rolled only once
    state = _play_first(apply(state, Roll((6, 3))))  # player 1 twice
    assert may_double(state) is None
    # Without the option the trailer may double at once after the Crawford game.
    plain = new_match(3)
    plain = apply(_resigned(plain, 1, WinKind.GAMMON), NextGame())
    plain = apply(_resigned(plain, 0), NextGame())
    assert may_double(_opened(plain)) is None


def test_bg_match_4_results_and_score_after_every_game() -> None:
    state = new_match(7)
    state = apply(_win_by_drop(state, 1), NextGame())
    state = apply(_resigned(state, 1, WinKind.GAMMON), NextGame())
    assert state.score == (2, 1)
    assert [(r.game, r.winner, r.points, r.how) for r in state.results] == [
        (1, 1, 1, EndHow.DROPPED),
        (2, 0, 2, EndHow.RESIGNED),
    ]
    assert state.game == 3


def test_taken_cube_multiplies_a_gammon_at_bear_off() -> None:
    """BG-SCORE-2 x BG-CUBE-4: a gammon with the cube on 2 is worth 4."""
    state = apply_all(_opened(new_match(0, Rules.money(jacoby=False))), [Double(), Take()])
    # Player 1 (the doubler) is on roll: give them a last checker and the loser none off.
    end = Position.from_checkers({1: 1}, {6: 10, 13: 5})
    state = dataclasses.replace(state, position=end)
    state = apply(state, Roll((2, 1)))
    state = _play_first(state)
    assert state.phase is Phase.GAME_OVER
    last = state.results[-1]
    assert (last.winner, last.kind, last.points, last.how) == (1, WinKind.GAMMON, 4, EndHow.PLAYED)
    assert state.score == (0, 4)


def test_moves_are_checked_against_the_legal_plays() -> None:
    state = apply(new_match(5), OpeningRoll((3, 1)))
    wrong = state.position.apply_steps([(8, 4), (6, 5)])  # 4 pips with a 3
    with pytest.raises(IllegalMoveError, match="31") as exc:
        apply(state, Move(wrong))
    assert exc.value.rule.startswith("BG-MOVE")  # the judge's rule and sentence
    assert "Did you mean 8/5 6/5?" in str(exc.value)
    blocked = dataclasses.replace(state, position=Position.from_checkers({25: 15}, {1: 2, 3: 2}))
    # Both entry points (22 via 3 is closed, 24 via 1 is closed): no move (BG-BAR-4, BG-MOVE-7).
    passed = apply(blocked, Move(blocked.position))
    assert passed.on_roll == 1


def test_turkish_previous_winner_starts_with_a_fresh_roll() -> None:
    """BG-OPEN-T: only the first game has an opening throw; from game 2 the previous
    winner starts, and the first roll may be a double."""
    rules = Rules.turkish()
    state = new_match(5, rules)
    state = apply(state, OpeningRoll((2, 5)))  # player 1 has the higher die
    assert state.phase is Phase.DECIDE and state.on_roll == 1 and state.dice is None
    assert state.to_act == 1
    state = _play_first(apply(state, Roll((6, 6))))  # a double may open
    state = apply(state, Resign(1))
    assert state.results[-1].winner == 0
    state = apply(state, NextGame())
    assert state.phase is Phase.DECIDE and state.on_roll == 0
    with pytest.raises(RuleViolationError):
        apply(state, OpeningRoll((6, 1)))
    reason = may_double(_play_first(apply(state, Roll((4, 4)))))
    assert reason is not None and "BG-OPEN-T" in reason


def test_events_out_of_place_are_refused() -> None:
    state = new_match(5)
    for event in (Roll((3, 1)), Take(), Drop(), NextGame(), Resign(0)):
        with pytest.raises(RuleViolationError):
            apply(state, event)
    with pytest.raises(InvalidInputError):
        new_match(-1)
    with pytest.raises(InvalidInputError):
        apply(_opened(state), Resign(2))


def test_states_are_values() -> None:
    a = _opened(new_match(5))
    b = _opened(new_match(5))
    assert a == b and hash(a.position) == hash(b.position)
    assert a.match_id == b.match_id and a.position_id == b.position_id


@pytest.mark.parametrize(("args", "said"), [
    ((1, "single game", "played", 1, "Mehmet"), "1 point"),
    ((2, "single game", "played", 2, "Mehmet"), "2 points (cube 2)"),
    ((4, "gammon", "played", 2, "Mehmet"), "4 points (a gammon, cube 2)"),
    ((2, "single game", "dropped", 2, "Mehmet"), "2 points (Mehmet dropped the double, cube 2)"),
    ((3, "backgammon", "resigned", 1, "Ayse"), "3 points (Ayse resigned a backgammon)"),
])
def test_a_games_points_are_said_with_why_and_the_cube(args: tuple[int, str, str, int, str],
                                                       said: str) -> None:
    """One wording for the live log, ``hakem mat`` and the hub: the number agrees with
    "point", and a drop or resignation names who gave it up."""
    assert result_words(*args) == said
