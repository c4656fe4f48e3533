"""The opening throw: BG-OPEN-1 (modern), BG-OPEN-2 (invalid die), BG-OPEN-T (Turkish)."""

from __future__ import annotations

import random

import pytest

from engine.backgammon.match import Move, NextGame, OpeningRoll, Phase, Resign, apply, new_match
from engine.backgammon.moves import legal_plays
from engine.backgammon.opening import OpeningThrows, needs_opening_throw, throw
from engine.backgammon.rules import Rules
from engine.errors import DiceError, InvalidInputError


def test_bg_open_1_higher_die_plays_both_dice() -> None:
    state = throw(throw(OpeningThrows(), 0, 2), 1, 5)
    assert state.done and state.starter == 1
    assert state.first_dice(Rules()) == (5, 2)  # the starter's die first
    match = apply(new_match(5), OpeningRoll((2, 5)))
    assert match.on_roll == 1 and match.dice == (5, 2) and match.phase is Phase.MOVE


def test_bg_open_1_equal_dice_are_thrown_again_so_no_game_opens_with_a_double() -> None:
    state = throw(throw(OpeningThrows(), 0, 4), 1, 4)
    assert not state.done and state.dice == (None, None) and state.rethrows == 1
    assert state.waiting_for() == (0, 1)
    match = apply(new_match(5), OpeningRoll((4, 4)))
    assert match.phase is Phase.OPENING and match.dice is None
    rng = random.Random(20240805)
    for _ in range(500):
        s = OpeningThrows()
        while not s.done:
            s = throw(s, 0, rng.randint(1, 6)) if s.dice[0] is None else s
            s = throw(s, 1, rng.randint(1, 6)) if s.dice[1] is None and not s.done else s
        dice = s.first_dice(Rules())
        assert dice is not None and dice[0] != dice[1] and dice[0] > dice[1]


def test_bg_open_1_every_game_whoever_won_the_last() -> None:
    state = apply(new_match(5), OpeningRoll((6, 1)))
    state = apply(state, Move(legal_plays(state.position, (6, 1))[0].result))
    state = apply(apply(state, Resign(0)), NextGame())
    assert state.phase is Phase.OPENING and state.on_roll is None
    assert needs_opening_throw(Rules(), 2) and needs_opening_throw(Rules(), 9)


def test_bg_open_2_only_the_invalid_die_is_thrown_again() -> None:
    state = throw(OpeningThrows(), 0, 3)
    state = throw(state, 1, None)  # cocked die (BG-ROLL-2)
    assert state.dice == (3, None) and state.waiting_for() == (1,)
    with pytest.raises(InvalidInputError, match="BG-OPEN-2"):
        throw(state, 0, 5)
    state = throw(state, 1, 6)
    assert state.starter == 1 and state.first_dice(Rules()) == (6, 3)


def test_bg_open_t_winner_throws_both_dice_afresh() -> None:
    turkish = Rules.turkish()
    state = throw(throw(OpeningThrows(), 0, 5), 1, 2)
    assert state.starter == 0 and state.first_dice(turkish) is None
    match = apply(new_match(5, turkish), OpeningRoll((5, 2)))
    assert match.phase is Phase.DECIDE and match.on_roll == 0 and match.dice is None
    assert needs_opening_throw(turkish, 1) and not needs_opening_throw(turkish, 2)


def test_opening_throw_errors() -> None:
    with pytest.raises(DiceError, match="7"):
        throw(OpeningThrows(), 0, 7)
    with pytest.raises(InvalidInputError):
        throw(OpeningThrows(), 2, 3)
    done = throw(throw(OpeningThrows(), 0, 1), 1, 2)
    with pytest.raises(InvalidInputError, match="decided"):
        throw(done, 0, 3)
