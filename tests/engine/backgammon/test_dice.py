"""Dice text and values."""

from __future__ import annotations

import pytest

from engine.backgammon.dice import ALL_ROLLS, check_dice, dice_text, is_double, parse_dice
from engine.errors import DiceError


def test_parse() -> None:
    assert parse_dice("31") == (3, 1)
    assert parse_dice("3-1") == (3, 1)
    assert parse_dice(" 6 6 ") == (6, 6)
    assert parse_dice("13") == (1, 3)


@pytest.mark.parametrize("bad", ["", "3", "71", "0 1", "abc", "123"])
def test_parse_refuses(bad: str) -> None:
    with pytest.raises(DiceError, match="dice"):
        parse_dice(bad)


def test_rolls() -> None:
    assert len(ALL_ROLLS) == 21 and len(set(ALL_ROLLS)) == 21
    assert sum(is_double(r) for r in ALL_ROLLS) == 6
    assert dice_text((1, 3)) == "31"
    assert check_dice((6, 1)) == (6, 1)
    with pytest.raises(DiceError):
        check_dice((6, 7))
